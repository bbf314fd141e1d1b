// The workload generators: deterministic by seed, the chapter's schemas, row counts and value
// domains, and the write patterns (events in time order, customers spanning the id range).
#include "floe/bench/generators.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include <gtest/gtest.h>

namespace floe::bench {
namespace {

namespace c = floe::columnar;

std::vector<c::RecordBatch> Gen(Workload w, int64_t rows, uint64_t seed = 42, int writes = 0) {
  GenOptions o;
  o.rows = rows;
  o.seed = seed;
  o.writes = writes;
  auto r = Generate(w, o);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
  return r ? *r : std::vector<c::RecordBatch>{};
}

bool SameBytes(const std::vector<c::RecordBatch>& a, const std::vector<c::RecordBatch>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].num_rows != b[i].num_rows || a[i].num_columns() != b[i].num_columns()) return false;
    for (int k = 0; k < a[i].num_columns(); ++k) {
      const auto& x = *a[i].columns[k];
      const auto& y = *b[i].columns[k];
      if (x.values.view().size() != y.values.view().size()) return false;
      if (!std::equal(x.values.view().begin(), x.values.view().end(), y.values.view().begin()))
        return false;
    }
  }
  return true;
}

int64_t Rows(const std::vector<c::RecordBatch>& b) {
  int64_t n = 0;
  for (const auto& x : b) n += x.num_rows;
  return n;
}

TEST(Generators, ParseWorkloadNamesTheBadOne) {
  EXPECT_EQ(*ParseWorkload("store_sales"), Workload::kStoreSales);
  auto bad = ParseWorkload("lineitem");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("'lineitem'"), std::string::npos);
}

TEST(Generators, SameSeedSameBytesOtherSeedOtherBytes) {
  for (Workload w :
       {Workload::kEvents, Workload::kOrders, Workload::kCustomers, Workload::kStoreSales}) {
    auto a = Gen(w, 5000, 7), b = Gen(w, 5000, 7), c = Gen(w, 5000, 8);
    EXPECT_TRUE(SameBytes(a, b)) << WorkloadName(w);
    EXPECT_FALSE(SameBytes(a, c)) << WorkloadName(w);
  }
}

TEST(Generators, RowCountsAndDefaultWrites) {
  auto e = Gen(Workload::kEvents, 10'001);
  EXPECT_EQ(e.size(), 4u);
  EXPECT_EQ(Rows(e), 10'001);
  auto cu = Gen(Workload::kCustomers, 10'000);
  EXPECT_EQ(cu.size(), 8u);
  EXPECT_EQ(Rows(cu), 10'000);
  EXPECT_EQ(Gen(Workload::kOrders, 1234).size(), 1u);
  EXPECT_EQ(Rows(Gen(Workload::kStoreSales, 999, 1, 3)), 999);
  EXPECT_EQ(DefaultRows(Workload::kEvents), 2'000'000);
  EXPECT_EQ(DefaultRows(Workload::kCustomers), 1'000'000);
}

TEST(Generators, SchemasHaveTheChaptersColumns) {
  EXPECT_EQ(WorkloadSchema(Workload::kCustomers)->num_fields(), 60);
  EXPECT_EQ(WorkloadSchema(Workload::kStoreSales)->num_fields(), 23);
  auto ev = WorkloadSchema(Workload::kEvents);
  ASSERT_TRUE(ev->IndexOf("event_ts"));
  ASSERT_TRUE(ev->IndexOf("customer_id"));
  ASSERT_TRUE(ev->IndexOf("amount"));
  auto b = Gen(Workload::kEvents, 100);
  EXPECT_EQ(*b[0].schema, *ev);
  ASSERT_TRUE(b[0].Validate().has_value());
}

TEST(Generators, EventsSpanNineDaysInTimeOrderFrom500Customers) {
  auto b = Gen(Workload::kEvents, 40'000);
  std::set<int32_t> customers;
  int64_t prev = 0, first = -1, last = 0;
  for (const auto& batch : b) {
    const auto& ts = *batch.columns[0];
    const auto& cust = *batch.columns[1];
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      int64_t t = ts.Value<int64_t>(i);
      EXPECT_GE(t, prev);
      prev = t;
      if (first < 0) first = t;
      last = t;
      int32_t c = cust.Value<int32_t>(i);
      EXPECT_GE(c, 0);
      EXPECT_LT(c, 500);
      customers.insert(c);
    }
  }
  EXPECT_EQ(customers.size(), 500u);
  EXPECT_EQ(first, int64_t{1'704'067'200} * 1'000'000);  // 2024-01-01T00:00:00Z
  EXPECT_LT(last - first, int64_t{9} * 86'400 * 1'000'000);
  EXPECT_GT(last - first, int64_t{8} * 86'400 * 1'000'000);
}

// Customers shop in sessions: a customer's events of a day fall in a few 15-minute windows, and a
// session is mostly about one product -- what makes the customer-sorted layout compress.
TEST(Generators, EventsComeInShoppingSessions) {
  auto b = Gen(Workload::kEvents, 200'000);  // ~22k rows a day, ~44 per customer
  constexpr int64_t kWindow = int64_t{15} * 60 * 1'000'000;
  std::map<std::pair<int32_t, int64_t>, std::map<int32_t, int>> sessions;  // -> product counts
  int64_t rows = 0;
  for (const auto& batch : b) {
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      const int64_t window = batch.columns[0]->Value<int64_t>(i) / kWindow;
      ++sessions[{batch.columns[1]->Value<int32_t>(i), window}]
                [batch.columns[6]->Value<int32_t>(i)];
      ++rows;
    }
  }
  // 16 sessions a window over 9 days = 13,824 windows x 16 at most (some coincide).
  EXPECT_LE(sessions.size(), 9u * 96 * 16);
  EXPECT_GT(rows / static_cast<int64_t>(sessions.size()), 10);
  int64_t top = 0;  // rows about their session's most frequent product
  for (const auto& [key, products] : sessions) {
    int most = 0;
    for (const auto& [p, n] : products) most = std::max(most, n);
    top += most;
  }
  EXPECT_GT(static_cast<double>(top) / rows, 0.8);
}

TEST(Generators, EachCustomerWriteCoversTheWholeIdRange) {
  auto b = Gen(Workload::kCustomers, 8000);
  std::set<int64_t> all;
  for (const auto& batch : b) {
    const auto& id = *batch.columns[0];
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool sorted = true;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      int64_t v = id.Value<int64_t>(i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      if (i > 0 && v < id.Value<int64_t>(i - 1)) sorted = false;
      all.insert(v);
    }
    EXPECT_LT(lo, 8);
    EXPECT_GE(hi, 7992);
    EXPECT_FALSE(sorted);  // shuffled within the write
  }
  EXPECT_EQ(all.size(), 8000u);
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), 7999);
}

TEST(Generators, CustomerAttributesAreLowCardinality) {
  auto b = Gen(Workload::kCustomers, 20'000, 42, 1);
  const auto& batch = b[0];
  for (int k = 1; k < batch.num_columns(); ++k) {
    std::set<std::string> distinct;
    for (int64_t i = 0; i < batch.num_rows; ++i)
      distinct.insert(c::ValueToString(*batch.columns[k], i));
    EXPECT_LE(distinct.size(), 40u) << batch.schema->fields[k].name;
    EXPECT_GE(distinct.size(), 2u) << batch.schema->fields[k].name;
  }
}

TEST(Generators, RowsDoNotDependOnTheNumberOfWrites) {
  // The same id has the same attributes whether the dimension arrives in 1 write or 8.
  auto one = Gen(Workload::kCustomers, 800, 42, 1);
  auto eight = Gen(Workload::kCustomers, 800, 42, 8);
  std::map<int64_t, std::string> seg;
  for (int64_t i = 0; i < one[0].num_rows; ++i)
    seg[one[0].columns[0]->Value<int64_t>(i)] = c::ValueToString(*one[0].columns[1], i);
  for (const auto& batch : eight)
    for (int64_t i = 0; i < batch.num_rows; ++i)
      EXPECT_EQ(seg[batch.columns[0]->Value<int64_t>(i)], c::ValueToString(*batch.columns[1], i));
}

TEST(Generators, RejectsBadSizes) {
  GenOptions o;
  o.rows = -5;
  EXPECT_FALSE(Generate(Workload::kOrders, o));
  o.rows = 10;
  o.writes = -1;
  auto r = Generate(Workload::kOrders, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("writes"), std::string::npos);
}

TEST(Generators, StoreSalesMoneyIsConsistent) {
  auto b = Gen(Workload::kStoreSales, 2000);
  const auto& batch = b[0];
  auto idx = [&](const char* n) { return *batch.schema->IndexOf(n); };
  auto valid = [&](const char* n, int64_t i) { return !batch.columns[idx(n)]->IsNull(i); };
  int64_t checked = 0;
  for (int64_t i = 0; i < batch.num_rows; ++i) {
    const bool all = valid("ss_sales_price", i) && valid("ss_list_price", i) &&
                     valid("ss_net_paid_inc_tax", i) && valid("ss_net_paid", i) &&
                     valid("ss_ext_tax", i) && valid("ss_net_profit", i) &&
                     valid("ss_ext_wholesale_cost", i);
    if (!all) continue;  // a row of the ~9% with NULLs
    ++checked;
    auto money = [&](const char* n) {
      __int128 v;
      std::memcpy(&v, batch.columns[idx(n)]->values.data() + i * 16, 16);
      return static_cast<int64_t>(v);
    };
    EXPECT_LE(money("ss_sales_price"), money("ss_list_price"));
    EXPECT_EQ(money("ss_net_paid_inc_tax"), money("ss_net_paid") + money("ss_ext_tax"));
    EXPECT_EQ(money("ss_net_profit"), money("ss_net_paid") - money("ss_ext_wholesale_cost"));
  }
  EXPECT_GT(checked, 1700);
}

// dsdgen's tickets: 8 to 16 line items, each a different item, sharing the ticket's customer.
TEST(Generators, StoreSalesTicketsHold8To16DifferentItemsOfOneCustomer) {
  auto b = Gen(Workload::kStoreSales, 20'000, 42, 3);
  std::map<int64_t, std::vector<int32_t>> items;  // ticket -> items
  std::map<int64_t, std::set<int32_t>> customers;
  int64_t nulls = 0, rows = 0;
  for (const auto& batch : b) {
    const auto& ticket = *batch.columns[*batch.schema->IndexOf("ss_ticket_number")];
    const auto& item = *batch.columns[*batch.schema->IndexOf("ss_item_sk")];
    const auto& cust = *batch.columns[*batch.schema->IndexOf("ss_customer_sk")];
    for (int64_t i = 0; i < batch.num_rows; ++i, ++rows) {
      items[ticket.Value<int64_t>(i)].push_back(item.Value<int32_t>(i));
      if (cust.IsNull(i)) {
        ++nulls;
      } else {
        customers[ticket.Value<int64_t>(i)].insert(cust.Value<int32_t>(i));
      }
    }
  }
  items.erase(std::prev(items.end()));  // the last ticket is cut by the row count
  size_t lines = 0;
  for (auto& [t, its] : items) {
    EXPECT_GE(its.size(), 8u) << t;
    EXPECT_LE(its.size(), 16u) << t;
    lines += its.size();
    std::sort(its.begin(), its.end());
    EXPECT_EQ(std::adjacent_find(its.begin(), its.end()), its.end()) << "ticket " << t;
    EXPECT_LE(customers[t].size(), 1u) << t;
  }
  EXPECT_NEAR(static_cast<double>(lines) / static_cast<double>(items.size()), 12.0, 0.3);
  EXPECT_NEAR(static_cast<double>(nulls) / static_cast<double>(rows), 0.045, 0.01);
}

}  // namespace
}  // namespace floe::bench

namespace floe::bench {
namespace {

// A round of changes: the fraction of rows, distinct, no row in two rounds, the same draw for the
// same seed; status moved on and updated_ts later by round + 1 days; other columns untouched.
TEST(Generators, OrderChangesMoveStatusOnAndTimestampsLater) {
  const auto source = Gen(Workload::kOrders, 10000, 7, 1);
  const auto r0 = GenerateChanges(Workload::kOrders, source, 0.01, 0, 7).value();
  const auto r0b = GenerateChanges(Workload::kOrders, source, 0.01, 0, 7).value();
  const auto r1 = GenerateChanges(Workload::kOrders, source, 0.01, 1, 7).value();
  ASSERT_EQ(r0.num_rows, 100);
  EXPECT_TRUE(SameBytes({r0}, {r0b}));
  EXPECT_FALSE(SameBytes({r0}, {r1}));
  std::set<int64_t> ids;
  const c::RecordBatch& all = source[0];
  for (int64_t i = 0; i < r1.num_rows; ++i) {
    const int64_t id = r1.columns[0]->Value<int64_t>(i);
    ids.insert(id);
    // order_id is the row's index in the generated table.
    const std::string before(all.columns[2]->BytesAt(id)), after(r1.columns[2]->BytesAt(i));
    static const std::map<std::string, std::string> next = {{"processing", "shipped"},
                                                            {"shipped", "delivered"},
                                                            {"delivered", "returned"},
                                                            {"returned", "returned"},
                                                            {"cancelled", "cancelled"}};
    EXPECT_EQ(after, next.at(before)) << id;
    EXPECT_EQ(r1.columns[4]->Value<int64_t>(i),
              all.columns[4]->Value<int64_t>(id) + int64_t{2} * 86400 * 1000000)
        << id;
    EXPECT_EQ(r1.columns[1]->Value<int64_t>(i), all.columns[1]->Value<int64_t>(id));
  }
  EXPECT_EQ(ids.size(), 100u);
  for (int64_t i = 0; i < r0.num_rows; ++i) {
    EXPECT_FALSE(ids.contains(r0.columns[0]->Value<int64_t>(i))) << "changed in two rounds";
  }
  auto other = GenerateChanges(Workload::kEvents, Gen(Workload::kEvents, 100), 0.01, 0, 1);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().message,
            "changes are generated for the orders workload only, not events");
}

}  // namespace
}  // namespace floe::bench
