#include "floe/sql/settings.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "floe/bench/worksheet.h"  // ParseSize
#include "floe/columnar/column_builder.h"
#include "floe/exec/memory_budget.h"
#include "floe/iceberg/runtime.h"
#include "floe/sql/query.h"

namespace floe::sql {
namespace {

constexpr double kMaxBytes = double(int64_t{1} << 40);  // 1 TiB: past any sane buffer or request

std::string Int(int64_t v) { return std::to_string(v); }
std::string Real(double v) { return fmt::format("{}", v); }
std::string Bool(bool v) { return v ? "true" : "false"; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

SettingDef Def(std::string_view name, SettingType type, double min, double max,
               std::vector<std::string_view> choices, std::string_view description,
               void (*apply)(const SettingValue&, QueryOptions*),
               std::string (*get)(const QueryOptions&)) {
  // The caches belong to the warehouse's runtime, not to a statement over one table; the trace,
  // the memory limit and the spill directory to the session.
  const bool runtime_wide = name.ends_with("-cache-bytes") || name == "trace" ||
                            name == "memory_limit" || name == "temp_directory";
  return {name, type, min, max, std::move(choices), description, apply, get, runtime_wide};
}

std::vector<SettingDef> MakeSettings() {
  using T = SettingType;
  using V = const SettingValue&;
  using O = QueryOptions*;
  using C = const QueryOptions&;
  std::vector<SettingDef> s;
  s.push_back(Def(
      "read.strategy", T::kChoice, 0, 0, {"floe", "parquet-mr", "aal", "eager", "arrow-rs"},
      "How data files are read: floe's planned reads, or a peer engine's pattern",
      [](V v, O o) { o->read.strategy = *parquet::ParseReadStrategy(v.text); },
      [](C o) { return std::string(parquet::ReadStrategyName(o.read.strategy)); }));
  s.push_back(Def(
      "read.objective", T::kChoice, 0, 0, {"latency", "requests", "cost"},
      "What the floe strategy's request planner minimises",
      [](V v, O o) { o->read.planner.objective = *parquet::ParseReadObjective(v.text); },
      [](C o) { return std::string(parquet::ReadObjectiveName(o.read.planner.objective)); }));
  s.push_back(Def(
      "read.request-budget", T::kInt, 1, 4096, {},
      "floe strategy: requests in flight across a scan",
      [](V v, O o) { o->read.request_budget = static_cast<int>(v.integer); },
      [](C o) { return Int(o.read.request_budget); }));
  s.push_back(Def(
      "read.baseline-tasks", T::kInt, 1, 1024, {},
      "Peer strategies: files read at once (Spark local[4] reads 4)",
      [](V v, O o) { o->read.baseline_tasks = static_cast<int>(v.integer); },
      [](C o) { return Int(o.read.baseline_tasks); }));
  s.push_back(Def(
      "read.whole-file-bytes", T::kSize, 0, kMaxBytes, {},
      "floe strategy: files at most this long are fetched whole in one GET (0: never)",
      [](V v, O o) { o->read.planner.whole_file_bytes = v.integer; },
      [](C o) { return Int(o.read.planner.whole_file_bytes); }));
  s.push_back(Def(
      "read.coalesce-gap-bytes", T::kSize, 0, kMaxBytes, {},
      "floe strategy: a gap between wanted ranges read through rather than paying a request",
      [](V v, O o) { o->read.planner.coalesce_gap = v.integer; },
      [](C o) { return Int(o.read.planner.coalesce_gap); }));
  s.push_back(Def(
      "read.max-request-bytes", T::kSize, 0, kMaxBytes, {},
      "floe strategy: ranges are not coalesced into a request longer than this",
      [](V v, O o) { o->read.planner.max_request_bytes = v.integer; },
      [](C o) { return Int(o.read.planner.max_request_bytes); }));
  s.push_back(Def(
      "read.footer-size-hint", T::kSize, 8, 64 << 20, {},
      "floe strategy: bytes of a file's tail read first, before the scan has learned "
      "its footers' size",
      [](V v, O o) { o->read.planner.initial_tail_bytes = v.integer; },
      [](C o) { return Int(o.read.planner.initial_tail_bytes); }));
  s.push_back(Def(
      "read.latency-slack", T::kDouble, 0, 10, {},
      "latency objective: plans within this fraction of the fastest tie, broken by "
      "fewer requests",
      [](V v, O o) { o->read.planner.latency_slack = v.real; },
      [](C o) { return Real(o.read.planner.latency_slack); }));
  s.push_back(Def(
      "read.max-buffered-bytes", T::kSize, 0, kMaxBytes, {},
      "Fetched but not yet decoded bytes held at once (a larger file is read alone)",
      [](V v, O o) { o->read.max_buffered_bytes = v.integer; },
      [](C o) { return Int(o.read.max_buffered_bytes); }));
  s.push_back(Def(
      "read.page-index", T::kBool, 0, 0, {},
      "Prune pages by the Parquet page index when the filter allows",
      [](V v, O o) { o->read.use_page_index = v.integer != 0; },
      [](C o) { return Bool(o.read.use_page_index); }));
  s.push_back(Def(
      "read.footer-cache-enabled", T::kBool, 0, 0, {},
      "floe strategy: reuse parsed footers and page indexes across scans",
      [](V v, O o) { o->read.use_footer_cache = v.integer != 0; },
      [](C o) { return Bool(o.read.use_footer_cache); }));
  s.push_back(Def(
      "read.threads", T::kInt, 0, 1024, {}, "Threads consuming a scan's batches (0: one per core)",
      [](V v, O o) { o->threads = static_cast<int>(v.integer); },
      [](C o) { return Int(o.threads); }));
  s.push_back(Def(
      "read.footer-cache-bytes", T::kSize, 0, kMaxBytes, {},
      "Capacity of the warehouse's Parquet footer cache",
      [](V v, O o) {
        if (o->runtime != nullptr) o->runtime->footer_cache().set_capacity_bytes(v.integer);
      },
      [](C o) {
        return Int(o.runtime != nullptr ? o.runtime->footer_cache().capacity_bytes()
                                        : iceberg::RuntimeOptions{}.footer_cache_bytes);
      }));
  s.push_back(Def(
      "read.metadata-cache-bytes", T::kSize, 0, kMaxBytes, {},
      "Capacity of the warehouse's Iceberg metadata cache (metadata JSON, manifests)",
      [](V v, O o) {
        if (o->runtime != nullptr) o->runtime->metadata_cache().set_capacity_bytes(v.integer);
      },
      [](C o) {
        return Int(o.runtime != nullptr ? o.runtime->metadata_cache().capacity_bytes()
                                        : iceberg::RuntimeOptions{}.metadata_cache_bytes);
      }));
  s.push_back(Def(
      "memory_limit", T::kSize, 1 << 20, kMaxBytes * 1024, {},
      "Bytes a statement's joins, aggregates and sorts hold before they spill to temp_directory "
      "(also 'N%' of RAM; default 80% of RAM)",
      [](V v, O o) { o->memory_limit = v.integer; },
      [](C o) {
        return Int(o.memory_limit > 0 ? o.memory_limit : exec::PhysicalMemoryShare(80));
      }));
  s.push_back(Def(
      "temp_directory", T::kText, 0, 0, {},
      "Directory joins, aggregates and sorts past memory_limit spill to ('' = a fresh one "
      "under $TMPDIR or /tmp, removed after the statement)",
      [](V v, O o) { o->temp_directory = v.text; }, [](C o) { return o.temp_directory; }));
  s.push_back(Def(
      "trace", T::kText, 0, 0, {},
      "File each statement's store requests are appended to, a JSON line each ('' = off; "
      "floe trace summarize FILE groups them)",
      [](V v, O o) { o->trace = v.text; }, [](C o) { return o.trace; }));
  return s;
}

std::string Bound(const SettingDef& d, double v) {
  if (d.type == SettingType::kSize) {
    auto bytes = static_cast<int64_t>(v);
    for (auto [shift, unit] : {std::pair{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}) {
      if (bytes != 0 && bytes % (int64_t{1} << shift) == 0)
        return fmt::format("{} {}", bytes >> shift, unit);
    }
    return Int(bytes);
  }
  return d.type == SettingType::kDouble ? Real(v) : Int(static_cast<int64_t>(v));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';'))
    s.remove_suffix(1);
  return s;
}

// Strips leading blanks and `--` comment lines.
std::string_view SkipComments(std::string_view s) {
  for (;;) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    if (!s.starts_with("--")) return s;
    size_t nl = s.find('\n');
    s = nl == std::string_view::npos ? std::string_view() : s.substr(nl + 1);
  }
}

// The next word of `s` (letters, digits, '_', '.', '-') or a "quoted" name; advances `s`.
std::string NextName(std::string_view* s) {
  *s = SkipComments(*s);
  std::string out;
  if (!s->empty() && s->front() == '"') {
    size_t end = s->find('"', 1);
    if (end == std::string_view::npos) return "";
    out = std::string(s->substr(1, end - 1));
    s->remove_prefix(end + 1);
    return out;
  }
  size_t i = 0;
  while (i < s->size() && (std::isalnum(static_cast<unsigned char>((*s)[i])) || (*s)[i] == '_' ||
                           (*s)[i] == '.' || (*s)[i] == '-')) {
    ++i;
  }
  out = std::string(s->substr(0, i));
  s->remove_prefix(i);
  return out;
}

}  // namespace

const std::vector<SettingDef>& AllSettings() {
  static const std::vector<SettingDef> settings = MakeSettings();
  return settings;
}

const SettingDef* FindSetting(std::string_view name) {
  std::string lower = Lower(name);
  for (const auto& d : AllSettings()) {
    if (d.name == lower) return &d;
  }
  return nullptr;
}

std::string SettingDefault(const SettingDef& def) { return def.get(QueryOptions{}); }

std::string SettingRange(const SettingDef& d) {
  switch (d.type) {
    case SettingType::kBool:
      return "true|false";
    case SettingType::kText:
      return d.name == "temp_directory" ? "a directory, or '' (a fresh one)"
                                        : "a file path, or '' (off)";
    case SettingType::kChoice: {
      std::string out;
      for (auto c : d.choices) out += (out.empty() ? "" : "|") + std::string(c);
      return out;
    }
    default:
      return fmt::format("{} to {}", Bound(d, d.min), Bound(d, d.max));
  }
}

Result<SettingValue> ParseSettingValue(const SettingDef& d, std::string_view raw) {
  std::string_view text = raw;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  auto bad = [&](std::string_view why) -> Result<SettingValue> {
    return InvalidInput("setting {}: '{}' {}", d.name, raw, why);
  };
  SettingValue v;
  switch (d.type) {
    case SettingType::kText:
      v.text = std::string(text);
      return v;
    case SettingType::kChoice: {
      std::string lower = Lower(text);
      for (auto c : d.choices) {
        if (c == lower) {
          v.text = lower;
          return v;
        }
      }
      return bad(fmt::format("is not one of {}", SettingRange(d)));
    }
    case SettingType::kBool: {
      std::string lower = Lower(text);
      if (lower == "true" || lower == "on" || lower == "1") {
        v.integer = 1;
      } else if (lower == "false" || lower == "off" || lower == "0") {
        v.integer = 0;
      } else {
        return bad("is not true or false");
      }
      v.text = Bool(v.integer != 0);
      return v;
    }
    case SettingType::kDouble: {
      std::string s(text);
      char* end = nullptr;
      double x = s.empty() ? 0 : std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(x))
        return bad("is not a number");
      if (x < d.min || x > d.max) return bad(fmt::format("is out of range ({})", SettingRange(d)));
      v.real = x;
      v.text = Real(x);
      return v;
    }
    case SettingType::kInt:
    case SettingType::kSize: {
      int64_t x = 0;
      if (d.name == "memory_limit" && text.ends_with('%')) {
        // A share of the machine's memory, as DuckDB's memory_limit takes it.
        std::string pct(text.substr(0, text.size() - 1));
        char* end = nullptr;
        const double share = pct.empty() ? 0 : std::strtod(pct.c_str(), &end);
        if (pct.empty() || end != pct.c_str() + pct.size() || !(share > 0 && share <= 100)) {
          return bad("is not a share of memory (e.g. 50%)");
        }
        text = {};
        x = exec::PhysicalMemoryShare(share);
        if (x < d.min) return bad(fmt::format("is out of range ({})", SettingRange(d)));
        v.integer = x;
        v.text = Int(x);
        return v;
      }
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
      if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
        if (d.type == SettingType::kInt || ec == std::errc::result_out_of_range) {
          return bad(ec == std::errc::result_out_of_range ? "is out of range"
                                                          : "is not an integer");
        }
        auto size = bench::ParseSize(text);
        if (!size || text.starts_with("-")) return bad("is not a size (e.g. 65536, 64KiB, 2MB)");
        x = *size;
      }
      if (x < d.min || static_cast<double>(x) > d.max)
        return bad(fmt::format("is out of range ({})", SettingRange(d)));
      v.integer = x;
      v.text = Int(x);
      return v;
    }
  }
  return bad("has an unknown type");
}

std::string SettingsHelp() {
  std::string out =
      "Read settings (--set NAME=VALUE, or SQL SET NAME = VALUE; sizes as 65536, "
      "64KiB or 2MB):\n";
  for (const auto& d : AllSettings()) {
    out += fmt::format("  {:<27} {} (default {}; {})\n", d.name, d.description, SettingDefault(d),
                       SettingRange(d));
  }
  return out;
}

std::optional<Result<SettingStatement>> ParseSettingStatement(std::string_view sql) {
  std::string_view rest = SkipComments(sql);
  std::string_view probe = rest;
  std::string verb = Lower(NextName(&probe));
  if (verb != "set" && verb != "reset" && verb != "show") return std::nullopt;
  rest = probe;
  SettingStatement st;
  std::string name = NextName(&rest);
  if (verb == "set" && (Lower(name) == "session" || Lower(name) == "local")) name = NextName(&rest);
  if (name.empty()) {
    return Result<SettingStatement>(
        InvalidInput("{}: expected a setting name (SELECT * FROM floe_settings() lists them)",
                     Lower(verb) == "set" ? "SET"
                     : verb == "reset"    ? "RESET"
                                          : "SHOW"));
  }
  if (verb != "set") {
    if (!Trim(rest).empty()) {
      return Result<SettingStatement>(InvalidInput(
          "{} {}: unexpected '{}'", verb == "reset" ? "RESET" : "SHOW", name, Trim(rest)));
    }
    bool all = Lower(name) == "all";
    if (verb == "reset") {
      st.kind = all ? SettingStatement::Kind::kResetAll : SettingStatement::Kind::kReset;
    } else {
      st.kind = all ? SettingStatement::Kind::kShowAll : SettingStatement::Kind::kShow;
    }
    st.name = all ? "" : name;
    return Result<SettingStatement>(std::move(st));
  }
  rest = SkipComments(rest);
  if (rest.starts_with("=")) {
    rest.remove_prefix(1);
  } else if (rest.size() >= 2 && Lower(rest.substr(0, 2)) == "to" &&
             (rest.size() == 2 || std::isspace(static_cast<unsigned char>(rest[2])))) {
    rest.remove_prefix(2);
  } else {
    return Result<SettingStatement>(InvalidInput("SET {}: expected '=' and a value", name));
  }
  std::string value(Trim(rest));
  const bool quoted = value.size() >= 2 && value.front() == '\'' && value.back() == '\'';
  if (quoted) value = value.substr(1, value.size() - 2);
  if (value.empty() && !quoted)  // '' is a value: a text setting's "off"
    return Result<SettingStatement>(InvalidInput("SET {}: expected a value", name));
  st.kind =
      Lower(value) == "default" ? SettingStatement::Kind::kReset : SettingStatement::Kind::kSet;
  st.name = name;
  st.value = value;
  return Result<SettingStatement>(std::move(st));
}

Status Settings::Set(std::string_view name, std::string_view value) {
  const SettingDef* d = FindSetting(name);
  if (d == nullptr) {
    return InvalidInput("unknown setting '{}' (SELECT * FROM floe_settings() lists them)", name);
  }
  FLOE_ASSIGN_OR_RETURN(SettingValue v, ParseSettingValue(*d, value));
  values_[std::string(d->name)] = std::move(v);
  return {};
}

Status Settings::SetAssignment(std::string_view assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    return InvalidInput("--set '{}': expected NAME=VALUE, e.g. read.request-budget=32", assignment);
  }
  std::string_view name = assignment.substr(0, eq);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
    name.remove_suffix(1);
  return Set(name, assignment.substr(eq + 1));
}

Status Settings::Reset(std::string_view name) {
  const SettingDef* d = FindSetting(name);
  if (d == nullptr) {
    return InvalidInput("unknown setting '{}' (SELECT * FROM floe_settings() lists them)", name);
  }
  values_.erase(std::string(d->name));
  return {};
}

void Settings::ResetAll() {
  std::vector<std::string> names;
  names.reserve(values_.size());
  for (const auto& [n, v] : values_) names.push_back(n);
  for (const auto& n : names) (void)Reset(n);
}

void Settings::ApplyTo(QueryOptions* options) const {
  // The runtime's caches keep a capacity until told otherwise: what is not set gets its default.
  if (options->runtime != nullptr) options->runtime->RestoreCacheCapacities();
  for (const auto& d : AllSettings()) {
    auto it = values_.find(d.name);
    if (it != values_.end()) d.apply(it->second, options);
  }
}

Status Settings::ApplyTableDefaults(const std::string& table,
                                    const std::map<std::string, std::string>& properties,
                                    QueryOptions* options) const {
  for (const auto& d : AllSettings()) {
    if (d.runtime_wide || values_.count(d.name)) continue;
    auto it = properties.find(std::string(d.name));
    if (it == properties.end()) continue;
    auto v = ParseSettingValue(d, it->second);
    if (!v) {
      std::string why = v.error().message;
      const std::string prefix = fmt::format("setting {}: ", d.name);
      if (why.starts_with(prefix)) why.erase(0, prefix.size());
      return InvalidInput("table {} property {}: {}", table, d.name, why);
    }
    d.apply(*v, options);
  }
  return {};
}

columnar::RecordBatch Settings::Table(const QueryOptions& effective) const {
  columnar::BinaryBuilder name, value, def, range, description;
  for (const auto& d : AllSettings()) {
    (void)name.Append(d.name);
    (void)value.Append(d.get(effective));
    (void)def.Append(SettingDefault(d));
    (void)range.Append(SettingRange(d));
    (void)description.Append(d.description);
  }
  columnar::RecordBatch b;
  auto schema = std::make_shared<columnar::Schema>();
  for (const char* n : {"name", "value", "default_value", "range", "description"}) {
    schema->fields.push_back(columnar::Field{n, columnar::String(), true, -1});
  }
  b.columns = {name.Finish(), value.Finish(), def.Finish(), range.Finish(), description.Finish()};
  b.schema = schema;
  b.num_rows = static_cast<int64_t>(AllSettings().size());
  return b;
}

}  // namespace floe::sql
