// The workload generators. Every value is a pure function of (seed, row) or of (seed, entity), so
// the number of writes changes only how rows are grouped, never what they are.
#include "floe/bench/generators.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"

namespace floe::bench {
namespace c = floe::columnar;

namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kEpoch2024 = 1'704'067'200;  // 2024-01-01T00:00:00Z in seconds
constexpr int32_t kDay2024 = 19'723;           // 2024-01-01 in days since 1970-01-01

uint64_t Mix(uint64_t seed, uint64_t a, uint64_t b = 0) {
  Rng r(seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full));
  return r.Next();
}

using Int128 = __int128;

c::Field F(std::string name, c::DataType t, bool nullable = true) {
  return c::Field{std::move(name), std::move(t), nullable, -1};
}

// A categorical column: one value with probability `top`, the rest uniform over the others.
struct Category {
  std::vector<std::string> values;
  double top = 0.9;
  size_t Pick(Rng& r) const {
    double u = r.Unit();
    if (values.size() == 1 || u < top) return 0;
    return 1 +
           static_cast<size_t>((u - top) / (1 - top) * (values.size() - 1)) % (values.size() - 1);
  }
};

// --- events ---------------------------------------------------------------------------------

constexpr int kEventCustomers = 500;
constexpr int kEventDays = 9;
constexpr int kProducts = 2000;
// Shopping sessions: a window of this many seconds holds this many customers' sessions (about
// three per customer per day).
constexpr int64_t kSessionSeconds = int64_t{15} * 60;
constexpr uint64_t kSessionsPerWindow = 16;
const std::array<const char*, 20> kCountries = {"US", "DE", "GB", "FR", "ES", "IT", "NL",
                                                "SE", "PL", "BR", "CA", "MX", "JP", "IN",
                                                "AU", "KR", "CH", "AT", "BE", "IE"};
const std::array<const char*, 4> kSegments = {"regular", "student", "business", "vip"};
const std::array<const char*, 3> kChannels = {"web", "app", "store"};
const std::array<const char*, 4> kEventTypes = {"purchase", "purchase_gift", "preorder", "refund"};

c::SchemaPtr EventsSchema() {
  return std::make_shared<c::Schema>(c::Schema{{
      F("event_ts", c::Timestamp(c::TimeUnit::kMicro, "UTC"), false),
      F("customer_id", c::Int32(), false),
      F("country", c::String()),
      F("segment", c::String()),
      F("channel", c::String()),
      F("event_type", c::String()),
      F("product_id", c::Int32()),
      F("quantity", c::Int32()),
      F("amount", c::Decimal128(10, 2)),
  }});
}

// Per-product list price in cents, 2.99 .. 59.99 ending in 9.
int64_t ProductPrice(uint64_t seed, int product) {
  return 299 + static_cast<int64_t>(Mix(seed, 7, product) % 58) * 100;
}

std::vector<c::RecordBatch> Events(const GenOptions& o) {
  const int64_t n = o.rows;
  const int64_t span_s = int64_t{kEventDays} * 86400;
  std::vector<c::RecordBatch> out;
  for (int w = 0; w < o.writes; ++w) {
    const int64_t begin = n * w / o.writes, end = n * (w + 1) / o.writes;
    c::FixedWidthBuilder<int64_t> ts(c::Timestamp(c::TimeUnit::kMicro, "UTC"));
    c::FixedWidthBuilder<int32_t> customer(c::Int32()), product(c::Int32()), qty(c::Int32());
    c::BinaryBuilder country, segment, channel, type;
    c::FixedWidthBuilder<Int128> amount(c::Decimal128(10, 2));
    for (int64_t i = begin; i < end; ++i) {
      Rng r(Mix(o.seed, 1, i));
      // Time order at one-minute resolution: the arrival order of an append-only log.
      const int64_t t = i * span_s / n;
      ts.Append((kEpoch2024 + t / 60 * 60) * kMicrosPerSecond);
      // Customers shop in sessions: in each window a few of them are active, and each row is one
      // of those sessions' events. The log interleaves the sessions; sorting by customer (a
      // stable sort keeps time order within a customer) brings each session back together.
      const uint64_t session_id = static_cast<uint64_t>(t / kSessionSeconds) * kSessionsPerWindow +
                                  r.Below(kSessionsPerWindow);
      const uint64_t session = Mix(o.seed, 4, session_id);
      int cust = static_cast<int>(session % kEventCustomers);
      customer.Append(cust);
      uint64_t ch = Mix(o.seed, 2, cust);
      (void)country.Append(kCountries[ch % kCountries.size()]);
      (void)segment.Append(kSegments[(ch >> 8) % kSegments.size()]);
      (void)channel.Append(kChannels[(ch >> 16) % kChannels.size()]);
      // A session is about one product, mostly from the customer's basket of favourites; a few
      // of its events are about another favourite or any product.
      const uint64_t pick = Mix(o.seed, 5, session_id);
      const int session_product =
          pick % 10 < 8
              ? static_cast<int>(Mix(o.seed, 3, static_cast<uint64_t>(cust) * 8 + (pick >> 8) % 8) %
                                 kProducts)
              : static_cast<int>((pick >> 16) % kProducts);
      const double p = r.Unit();
      int prod = p < 0.82 ? session_product
                 : p < 0.97
                     ? static_cast<int>(
                           Mix(o.seed, 3, static_cast<uint64_t>(cust) * 8 + r.Below(8)) % kProducts)
                     : static_cast<int>(r.Below(kProducts));
      double u = r.Unit();
      size_t et = u < 0.85 ? 0 : u < 0.93 ? 1 : u < 0.97 ? 2 : 3;
      (void)type.Append(kEventTypes[et]);
      product.Append(prod);
      double q = r.Unit();
      int quantity = q < 0.8 ? 1 : q < 0.95 ? 2 : 3;
      qty.Append(quantity);
      int64_t cents = ProductPrice(o.seed, prod) * quantity;
      amount.Append(et == 3 ? -cents : cents);
    }
    c::RecordBatch b;
    b.schema = EventsSchema();
    b.num_rows = end - begin;
    b.columns = {ts.Finish(),      customer.Finish(), country.Finish(),
                 segment.Finish(), channel.Finish(),  type.Finish(),
                 product.Finish(), qty.Finish(),      amount.Finish()};
    out.push_back(std::move(b));
  }
  return out;
}

// --- customers ------------------------------------------------------------------------------

enum class AttrKind { kString, kInt, kBool, kDate };
struct Attr {
  std::string name;
  AttrKind kind;
  Category category;  // kString values; for kInt/kDate the count of values matters
};

const std::vector<Attr>& CustomerAttrs() {
  static const std::vector<Attr> attrs = [] {
    std::vector<Attr> a;
    // Named attributes: their top value takes 1 - (1 - top) / 4 of the rows (mostly one value,
    // as real dimension attributes are), which puts 1M rows x 60 columns near the chapter's size.
    auto s = [&](std::string name, std::vector<std::string> values, double top) {
      a.push_back({std::move(name), AttrKind::kString, {std::move(values), 1 - (1 - top) / 4}});
    };
    s("segment", {"regular", "student", "business", "vip"}, 0.55);
    s("country", {"US", "DE", "GB", "FR", "ES", "IT", "NL", "SE", "PL", "BR", "CA", "JP"}, 0.45);
    s("language", {"en", "de", "fr", "es", "it", "nl", "sv", "pl", "pt", "ja"}, 0.6);
    s("loyalty_tier", {"none", "bronze", "silver", "gold", "platinum"}, 0.7);
    s("age_band", {"25-34", "18-24", "35-44", "45-54", "55-64", "65+"}, 0.35);
    s("income_band", {"medium", "low", "high", "very_high"}, 0.5);
    s("preferred_channel", {"web", "app", "store", "phone"}, 0.6);
    s("preferred_genre",
      {"fiction", "crime", "fantasy", "science", "history", "children", "cooking", "travel"}, 0.4);
    s("payment_method", {"card", "paypal", "invoice", "gift_card"}, 0.75);
    s("delivery_preference", {"standard", "express", "pickup"}, 0.8);
    s("account_status", {"active", "dormant", "closed"}, 0.9);
    s("acquisition_source", {"organic", "search", "social", "referral", "email", "partner"}, 0.5);
    s("device", {"desktop", "mobile", "tablet"}, 0.6);
    s("currency", {"USD", "EUR", "GBP", "SEK", "PLN", "BRL", "CAD", "JPY"}, 0.5);
    s("reading_frequency", {"monthly", "weekly", "daily", "rarely"}, 0.5);
    s("format_preference", {"paperback", "hardcover", "ebook", "audiobook"}, 0.55);
    s("region", {"north", "south", "east", "west", "central"}, 0.4);
    s("household", {"single", "couple", "family", "shared"}, 0.45);
    s("education", {"secondary", "bachelor", "master", "doctorate", "other"}, 0.45);
    s("occupation", {"employed", "student", "retired", "self_employed", "other"}, 0.55);
    while (a.size() < 38) {
      int k = 3 + static_cast<int>(a.size() % 6);
      std::vector<std::string> values;
      values.reserve(k);
      for (int i = 0; i < k; ++i) values.push_back("v" + std::to_string(i));
      s("attr_" + std::to_string(a.size()), std::move(values), 0.84);
    }
    // Small integer scores and counters.
    for (int i = 0; i < 10; ++i) {
      a.push_back({"score_" + std::to_string(i), AttrKind::kInt, {{}, 0.95 + 0.004 * i}});
      a.back().category.values.resize(4 + i * 3);
    }
    // Flags.
    for (int i = 0; i < 8; ++i) {
      a.push_back({"flag_" + std::to_string(i), AttrKind::kBool, {{"", ""}, 0.95}});
    }
    // Dates from a handful of campaign days.
    for (int i = 0; i < 3; ++i) {
      a.push_back({"campaign_date_" + std::to_string(i), AttrKind::kDate, {{}, 0.96}});
      a.back().category.values.resize(12);
    }
    return a;
  }();
  return attrs;
}

c::SchemaPtr CustomersSchema() {
  c::Schema s;
  s.fields.push_back(F("id", c::Int64(), false));
  for (const auto& a : CustomerAttrs()) {
    switch (a.kind) {
      case AttrKind::kString:
        s.fields.push_back(F(a.name, c::String()));
        break;
      case AttrKind::kInt:
        s.fields.push_back(F(a.name, c::Int32()));
        break;
      case AttrKind::kBool:
        s.fields.push_back(F(a.name, c::Bool()));
        break;
      case AttrKind::kDate:
        s.fields.push_back(F(a.name, c::Date32()));
        break;
    }
  }
  return std::make_shared<c::Schema>(std::move(s));
}

std::vector<c::RecordBatch> Customers(const GenOptions& o) {
  const auto& attrs = CustomerAttrs();
  std::vector<c::RecordBatch> out;
  for (int w = 0; w < o.writes; ++w) {
    // Each write holds every writes-th id in runs of kIdRun ascending ids, the runs in random
    // order: every file of the write spans the whole id range (bounds cannot prune a lookup),
    // while the id column still encodes compactly, as an upstream batch export would give it.
    constexpr int64_t kIdRun = 128;
    std::vector<int64_t> runs;
    for (int64_t id = w; id < o.rows; id += o.writes * kIdRun) runs.push_back(id);
    Rng shuffle(Mix(o.seed, 11, w));
    for (size_t i = runs.size(); i > 1; --i) std::swap(runs[i - 1], runs[shuffle.Below(i)]);
    std::vector<int64_t> ids;
    for (int64_t start : runs)
      for (int64_t k = 0; k < kIdRun && start + k * o.writes < o.rows; ++k)
        ids.push_back(start + k * o.writes);
    c::FixedWidthBuilder<int64_t> id_col(c::Int64());
    std::vector<c::BinaryBuilder> strings;
    std::vector<c::FixedWidthBuilder<int32_t>> ints;
    std::vector<c::BoolBuilder> bools(attrs.size());
    for (const auto& a : attrs) {
      strings.emplace_back();
      ints.emplace_back(a.kind == AttrKind::kDate ? c::Date32() : c::Int32());
    }
    for (int64_t id : ids) {
      id_col.Append(id);
      Rng r(Mix(o.seed, 12, id));
      for (size_t k = 0; k < attrs.size(); ++k) {
        const Attr& a = attrs[k];
        size_t v = a.category.Pick(r);
        switch (a.kind) {
          case AttrKind::kString:
            (void)strings[k].Append(a.category.values[v]);
            break;
          case AttrKind::kInt:
            ints[k].Append(static_cast<int32_t>(v));
            break;
          case AttrKind::kBool:
            bools[k].Append(v != 0);
            break;
          case AttrKind::kDate:
            ints[k].Append(kDay2024 - 30 * static_cast<int32_t>(v));
            break;
        }
      }
    }
    c::RecordBatch b;
    b.schema = CustomersSchema();
    b.num_rows = static_cast<int64_t>(ids.size());
    b.columns.push_back(id_col.Finish());
    for (size_t k = 0; k < attrs.size(); ++k) {
      switch (attrs[k].kind) {
        case AttrKind::kString:
          b.columns.push_back(strings[k].Finish());
          break;
        case AttrKind::kInt:
        case AttrKind::kDate:
          b.columns.push_back(ints[k].Finish());
          break;
        case AttrKind::kBool:
          b.columns.push_back(bools[k].Finish());
          break;
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

// --- orders ---------------------------------------------------------------------------------

c::SchemaPtr OrdersSchema() {
  return std::make_shared<c::Schema>(c::Schema{{
      F("order_id", c::Int64(), false),
      F("customer_id", c::Int64(), false),
      F("status", c::String()),
      F("order_ts", c::Timestamp(c::TimeUnit::kMicro, "UTC")),
      F("updated_ts", c::Timestamp(c::TimeUnit::kMicro, "UTC")),
      F("item_count", c::Int32()),
      F("total", c::Decimal128(12, 2)),
      F("country", c::String()),
  }});
}

std::vector<c::RecordBatch> Orders(const GenOptions& o) {
  static const Category status{{"delivered", "shipped", "processing", "cancelled", "returned"},
                               0.7};
  const int64_t n = o.rows, span_s = int64_t{30} * 86400;
  std::vector<c::RecordBatch> out;
  for (int w = 0; w < o.writes; ++w) {
    const int64_t begin = n * w / o.writes, end = n * (w + 1) / o.writes;
    c::FixedWidthBuilder<int64_t> id(c::Int64()), cust(c::Int64());
    c::FixedWidthBuilder<int64_t> ts(c::Timestamp(c::TimeUnit::kMicro, "UTC"));
    c::FixedWidthBuilder<int64_t> updated(c::Timestamp(c::TimeUnit::kMicro, "UTC"));
    c::FixedWidthBuilder<int32_t> items(c::Int32());
    c::FixedWidthBuilder<Int128> total(c::Decimal128(12, 2));
    c::BinaryBuilder st, country;
    for (int64_t i = begin; i < end; ++i) {
      Rng r(Mix(o.seed, 21, i));
      id.Append(i);
      int64_t customer = static_cast<int64_t>(r.Below(100'000));
      cust.Append(customer);
      (void)st.Append(status.values[status.Pick(r)]);
      int64_t t = (kEpoch2024 + i * span_s / n) * kMicrosPerSecond;
      ts.Append(t);
      updated.Append(t + static_cast<int64_t>(r.Below(uint64_t{72} * 3600)) * kMicrosPerSecond);
      int count = 1 + static_cast<int>(r.Below(5));
      items.Append(count);
      total.Append(static_cast<Int128>(count) * (299 + static_cast<int64_t>(r.Below(58)) * 100));
      (void)country.Append(kCountries[Mix(o.seed, 22, customer) % kCountries.size()]);
    }
    c::RecordBatch b;
    b.schema = OrdersSchema();
    b.num_rows = end - begin;
    b.columns = {id.Finish(),      cust.Finish(),  st.Finish(),    ts.Finish(),
                 updated.Finish(), items.Finish(), total.Finish(), country.Finish()};
    out.push_back(std::move(b));
  }
  return out;
}

// --- TPC-DS store_sales ---------------------------------------------------------------------

const std::array<const char*, 23> kStoreSalesColumns = {
    "ss_sold_date_sk",       "ss_sold_time_sk",     "ss_item_sk",          "ss_customer_sk",
    "ss_cdemo_sk",           "ss_hdemo_sk",         "ss_addr_sk",          "ss_store_sk",
    "ss_promo_sk",           "ss_ticket_number",    "ss_quantity",         "ss_wholesale_cost",
    "ss_list_price",         "ss_sales_price",      "ss_ext_discount_amt", "ss_ext_sales_price",
    "ss_ext_wholesale_cost", "ss_ext_list_price",   "ss_ext_tax",          "ss_coupon_amt",
    "ss_net_paid",           "ss_net_paid_inc_tax", "ss_net_profit"};
constexpr int kStoreSalesKeys = 11;  // the first 11 are integer keys/counts, the rest decimal(7,2)

c::SchemaPtr StoreSalesSchema() {
  c::Schema s;
  for (size_t i = 0; i < kStoreSalesColumns.size(); ++i) {
    bool key = i < kStoreSalesKeys;
    bool required = i == 2 || i == 9;  // ss_item_sk, ss_ticket_number: the primary key
    s.fields.push_back(F(kStoreSalesColumns[i],
                         i == 9 ? c::Int64()
                         : key  ? c::Int32()
                                : c::Decimal128(7, 2),
                         !required));
  }
  return std::make_shared<c::Schema>(std::move(s));
}

// The rows of the dimensions store_sales refers to at scale factor `sf`: TPC-DS's row counts at
// its defined scale factors (the specification's table 3-2), linear between them as dsdgen
// interpolates, and in proportion below 1.
struct StoreSalesDimensions {
  int64_t items, customers, addresses, stores, promotions, demographics;
};
StoreSalesDimensions DimensionsAt(double sf) {
  static constexpr std::array<double, 5> kScale = {1, 10, 100, 300, 1000};
  static constexpr std::array<std::array<double, 5>, 5> kRows = {{
      {18'000, 102'000, 204'000, 264'000, 300'000},          // item
      {100'000, 500'000, 2'000'000, 5'000'000, 12'000'000},  // customer
      {50'000, 250'000, 1'000'000, 2'500'000, 6'000'000},    // customer_address
      {12, 102, 402, 804, 1'002},                            // store
      {300, 500, 1'000, 1'300, 1'500},                       // promotion
  }};
  auto at = [&](const std::array<double, 5>& rows) {
    double v = rows[0] * sf;
    if (sf > 1) {
      size_t k = 1;
      while (k + 1 < kScale.size() && sf > kScale[k]) ++k;
      v = rows[k - 1] +
          (rows[k] - rows[k - 1]) * (sf - kScale[k - 1]) / (kScale[k] - kScale[k - 1]);
    }
    return std::max<int64_t>(1, static_cast<int64_t>(v));
  };
  // customer_demographics: 1,920,800 rows at every scale factor from 1 up.
  const int64_t demographics =
      std::max<int64_t>(1, static_cast<int64_t>(1'920'800 * std::min(1.0, sf)));
  return {at(kRows[0]), at(kRows[1]), at(kRows[2]), at(kRows[3]), at(kRows[4]), demographics};
}

// The rows of store_sales as dsdgen shapes them (cross-checked against DuckDB's tpcds extension
// by tests/bench/store_sales_tpcds.py): tickets of 8 to 16 line items sharing the ticket's date,
// time, customer, demographics, address and store, each line a different item; about 9% of rows
// carry NULLs, each of their columns but the item and the ticket NULL with odds 1/2 (so 4.5% per
// column, and rows with one NULL often hold another).
std::vector<c::RecordBatch> StoreSales(const GenOptions& o) {
  const int64_t n = o.rows;
  const StoreSalesDimensions dim = DimensionsAt(static_cast<double>(n) / 2'880'404.0);
  const auto items = static_cast<uint64_t>(dim.items);
  // A ticket's items: base, base + step, ... (mod items), distinct while 15 steps stay below items.
  const uint64_t max_step = std::max<uint64_t>(1, (items - 1) / 15);
  std::vector<c::RecordBatch> out;
  int64_t ticket = -1, line = 0, lines = 0;  // the ticket row `begin` falls in, walked in order
  for (int w = 0; w < o.writes; ++w) {
    const int64_t begin = n * w / o.writes, end = n * (w + 1) / o.writes;
    std::vector<c::FixedWidthBuilder<int32_t>> keys;
    keys.reserve(kStoreSalesKeys);
    for (int k = 0; k < kStoreSalesKeys; ++k) keys.emplace_back(c::Int32());
    c::FixedWidthBuilder<int64_t> ticket_numbers(c::Int64());
    std::vector<c::FixedWidthBuilder<Int128>> money;
    for (size_t k = kStoreSalesKeys; k < kStoreSalesColumns.size(); ++k)
      money.emplace_back(c::Decimal128(7, 2));
    for (int64_t i = begin; i < end; ++i) {
      if (line == lines) {
        ++ticket;
        line = 0;
        lines = 8 + static_cast<int64_t>(Rng(Mix(o.seed, 33, ticket)).Below(9));
      }
      Rng tr(Mix(o.seed, 31, ticket));
      Rng r(Mix(o.seed, 32, i));
      int32_t date = 2450816 + static_cast<int32_t>(tr.Below(1827));
      int32_t time = 28800 + static_cast<int32_t>(tr.Below(46800));
      int32_t cust = 1 + static_cast<int32_t>(tr.Below(dim.customers));
      int32_t cdemo = 1 + static_cast<int32_t>(tr.Below(dim.demographics));
      int32_t hdemo = 1 + static_cast<int32_t>(tr.Below(7200));
      int32_t addr = 1 + static_cast<int32_t>(tr.Below(dim.addresses));
      // About half the stores' keys appear: the others are earlier revisions of a store.
      int32_t store = 1 + 2 * static_cast<int32_t>(tr.Below(std::max<int64_t>(1, dim.stores / 2)));
      const uint64_t base = tr.Below(items), step = 1 + tr.Below(max_step);
      int32_t item = 1 + static_cast<int32_t>((base + static_cast<uint64_t>(line) * step) % items);
      ++line;
      int32_t promo = 1 + static_cast<int32_t>(r.Below(dim.promotions));
      int32_t quantity = 1 + static_cast<int32_t>(r.Below(100));
      const uint64_t nulls = r.Below(100) < 9 ? r.Next() : 0;  // bit k: column k is NULL
      const int32_t key_values[] = {date, time,  item,  cust, cdemo,   hdemo,
                                    addr, store, promo, 0,    quantity};
      for (int k = 0; k < kStoreSalesKeys; ++k) {
        if (k == 9) continue;
        if (k != 2 && ((nulls >> k) & 1) != 0) {
          keys[k].AppendNull();
        } else {
          keys[k].Append(key_values[k]);
        }
      }
      ticket_numbers.Append(ticket + 1);
      int64_t wholesale = 100 + static_cast<int64_t>(r.Below(9901));  // 1.00 .. 100.00
      int64_t list = wholesale * (100 + static_cast<int64_t>(r.Below(101))) / 100;
      int64_t sales = list * static_cast<int64_t>(r.Below(101)) / 100;
      int64_t ext_sales = sales * quantity;
      int64_t ext_wholesale = wholesale * quantity;
      int64_t ext_list = list * quantity;
      int64_t tax_percent = static_cast<int64_t>(r.Below(10));
      int64_t coupon = r.Below(5) == 0 ? ext_sales * static_cast<int64_t>(r.Below(101)) / 100 : 0;
      int64_t net_paid = ext_sales - coupon;
      int64_t ext_tax = net_paid * tax_percent / 100;  // on what was paid, as dsdgen taxes
      int64_t ext_discount = coupon;  // dsdgen writes the coupon here too: the two are equal
      const int64_t m[] = {
          wholesale, list,    sales,  ext_discount, ext_sales,          ext_wholesale,
          ext_list,  ext_tax, coupon, net_paid,     net_paid + ext_tax, net_paid - ext_wholesale};
      for (size_t k = 0; k < money.size(); ++k) {
        if (((nulls >> (kStoreSalesKeys + k)) & 1) != 0) {
          money[k].AppendNull();
        } else {
          money[k].Append(m[k]);
        }
      }
    }
    c::RecordBatch b;
    b.schema = StoreSalesSchema();
    b.num_rows = end - begin;
    for (int k = 0; k < kStoreSalesKeys; ++k)
      b.columns.push_back(k == 9 ? ticket_numbers.Finish() : keys[k].Finish());
    for (auto& m : money) b.columns.push_back(m.Finish());
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

Result<Workload> ParseWorkload(std::string_view name) {
  if (name == "events") return Workload::kEvents;
  if (name == "orders") return Workload::kOrders;
  if (name == "customers") return Workload::kCustomers;
  if (name == "store_sales") return Workload::kStoreSales;
  return InvalidInput("unknown workload '{}' (expected events, orders, customers or store_sales)",
                      name);
}

std::string_view WorkloadName(Workload w) {
  switch (w) {
    case Workload::kEvents:
      return "events";
    case Workload::kOrders:
      return "orders";
    case Workload::kCustomers:
      return "customers";
    case Workload::kStoreSales:
      return "store_sales";
  }
  return "?";
}

int64_t DefaultRows(Workload w) { return w == Workload::kEvents ? 2'000'000 : 1'000'000; }

int DefaultWrites(Workload w) {
  switch (w) {
    case Workload::kEvents:
      return 4;
    case Workload::kCustomers:
      return 8;
    default:
      return 1;
  }
}

c::SchemaPtr WorkloadSchema(Workload w) {
  switch (w) {
    case Workload::kEvents:
      return EventsSchema();
    case Workload::kOrders:
      return OrdersSchema();
    case Workload::kCustomers:
      return CustomersSchema();
    case Workload::kStoreSales:
      return StoreSalesSchema();
  }
  return nullptr;
}

Result<std::vector<c::RecordBatch>> Generate(Workload w, const GenOptions& options) {
  GenOptions o = options;
  if (o.rows == 0) o.rows = DefaultRows(w);
  if (o.writes == 0) o.writes = DefaultWrites(w);
  if (o.rows < 0) return InvalidInput("rows must be positive, got {}", o.rows);
  if (o.writes < 1 || o.writes > 100'000)
    return InvalidInput("writes must be between 1 and 100000, got {}", o.writes);
  if (o.writes > o.rows) o.writes = static_cast<int>(std::max<int64_t>(1, o.rows));
  switch (w) {
    case Workload::kEvents:
      return Events(o);
    case Workload::kOrders:
      return Orders(o);
    case Workload::kCustomers:
      return Customers(o);
    case Workload::kStoreSales:
      return StoreSales(o);
  }
  return Internal("unknown workload");
}

Result<c::RecordBatch> GenerateChanges(Workload workload, const std::vector<c::RecordBatch>& source,
                                       double fraction, int round, uint64_t seed) {
  if (workload != Workload::kOrders) {
    return Unsupported("changes are generated for the orders workload only, not {}",
                       WorkloadName(workload));
  }
  if (!(fraction > 0 && fraction <= 1)) {
    return InvalidInput("changes.fraction must lie in (0, 1], got {}", fraction);
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch all, c::Concatenate(source));
  const int64_t n = all.num_rows;
  const int64_t k = std::clamp<int64_t>(std::llround(fraction * static_cast<double>(n)), 1, n);
  // Round r takes the r-th block of k rows of one random permutation of all rows (seeded), so
  // no row changes twice until every row has (as the chapter's five merges: 6% of the rows
  // deleted, once each); within a round the rows go in row order.
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
  Rng r(Mix(seed, 40));
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(perm[static_cast<size_t>(i)],
              perm[static_cast<size_t>(r.Below(static_cast<uint64_t>(i + 1)))]);
  }
  std::vector<int64_t> rows(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    rows[static_cast<size_t>(j)] = perm[static_cast<size_t>((round * k + j) % n)];
  }
  std::sort(rows.begin(), rows.end());
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch out, c::Take(all, rows));
  static const std::map<std::string, std::string> kNext = {{"processing", "shipped"},
                                                           {"shipped", "delivered"},
                                                           {"delivered", "returned"},
                                                           {"returned", "returned"},
                                                           {"cancelled", "cancelled"}};
  int status = -1, updated = -1;
  for (size_t i = 0; i < out.schema->fields.size(); ++i) {
    if (out.schema->fields[i].name == "status") status = static_cast<int>(i);
    if (out.schema->fields[i].name == "updated_ts") updated = static_cast<int>(i);
  }
  if (status < 0 || updated < 0) return InvalidInput("orders rows need status and updated_ts");
  c::BinaryBuilder st;
  c::FixedWidthBuilder<int64_t> ts(out.columns[updated]->type);
  const int64_t shift = int64_t{86400} * kMicrosPerSecond * (round + 1);
  for (int64_t i = 0; i < out.num_rows; ++i) {
    const c::Column& s = *out.columns[status];
    if (s.IsNull(i)) {
      st.AppendNull();
    } else {
      auto it = kNext.find(std::string(s.BytesAt(i)));
      FLOE_RETURN_IF_ERROR(st.Append(it == kNext.end() ? std::string(s.BytesAt(i)) : it->second));
    }
    const c::Column& u = *out.columns[updated];
    if (u.IsNull(i)) {
      ts.AppendNull();
    } else {
      ts.Append(u.Value<int64_t>(i) + shift);
    }
  }
  out.columns[status] = st.Finish();
  out.columns[updated] = ts.Finish();
  return out;
}

}  // namespace floe::bench
