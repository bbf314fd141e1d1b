#include "floe/sql/settings.h"

#include <gtest/gtest.h>

#include <set>

#include "floe/iceberg/metadata_cache.h"
#include "floe/iceberg/runtime.h"
#include "floe/sql/engine.h"

namespace floe::sql {
namespace {

TEST(SettingsTest, EveryKnobOfTheReadPathHasOneEntryWithItsStructsDefault) {
  std::set<std::string> names;
  for (const auto& d : AllSettings()) {
    EXPECT_TRUE(names.insert(std::string(d.name)).second) << d.name;
    // The session's, named as DuckDB names them: trace, memory_limit, temp_directory.
    EXPECT_TRUE(d.name.starts_with("read.") || d.name == "trace" || d.name == "memory_limit" ||
                d.name == "temp_directory")
        << d.name;
    EXPECT_FALSE(d.description.empty()) << d.name;
    // The default parses as a value of the setting (it is in its own range).
    auto v = ParseSettingValue(d, SettingDefault(d));
    ASSERT_TRUE(v) << v.error().ToString();
    EXPECT_EQ(v->text, SettingDefault(d));
  }
  for (const char* n :
       {"read.strategy", "read.objective", "read.request-budget", "read.whole-file-bytes",
        "read.coalesce-gap-bytes", "read.max-request-bytes", "read.footer-size-hint",
        "read.latency-slack", "read.threads", "read.footer-cache-bytes",
        "read.metadata-cache-bytes", "read.max-buffered-bytes", "read.baseline-tasks"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  EXPECT_EQ(SettingDefault(*FindSetting("read.request-budget")), "64");
  EXPECT_EQ(SettingDefault(*FindSetting("read.whole-file-bytes")), "2097152");
  EXPECT_EQ(SettingDefault(*FindSetting("read.objective")), "latency");
  // The session's trace file: any text, '' (off) by default, never a table property's.
  EXPECT_EQ(SettingDefault(*FindSetting("trace")), "");
  EXPECT_EQ(ParseSettingValue(*FindSetting("trace"), "/tmp/a b.jsonl")->text, "/tmp/a b.jsonl");
  EXPECT_TRUE(FindSetting("trace")->runtime_wide);
  // 80% of the machine's memory by default; where to spill: '' (a fresh directory) by default.
  EXPECT_GT(std::stoll(SettingDefault(*FindSetting("memory_limit"))), 0);
  EXPECT_EQ(SettingDefault(*FindSetting("temp_directory")), "");
  EXPECT_TRUE(FindSetting("memory_limit")->runtime_wide);
  EXPECT_TRUE(FindSetting("temp_directory")->runtime_wide);
}

TEST(SettingsTest, SizesTakeUnitsAndValuesAreRangeChecked) {
  const SettingDef& gap = *FindSetting("read.coalesce-gap-bytes");
  EXPECT_EQ(ParseSettingValue(gap, "64KiB")->integer, 65536);
  EXPECT_EQ(ParseSettingValue(gap, "2MB")->integer, 2000000);
  EXPECT_EQ(ParseSettingValue(gap, "0")->integer, 0);
  auto neg = ParseSettingValue(gap, "-1");
  ASSERT_FALSE(neg);
  EXPECT_EQ(neg.error().message,
            "setting read.coalesce-gap-bytes: '-1' is out of range (0 to 1 TiB)");
  auto budget = ParseSettingValue(*FindSetting("read.request-budget"), "5000");
  ASSERT_FALSE(budget);
  EXPECT_EQ(budget.error().message,
            "setting read.request-budget: '5000' is out of range (1 to 4096)");
  EXPECT_FALSE(ParseSettingValue(*FindSetting("read.request-budget"), "32x"));
  EXPECT_FALSE(ParseSettingValue(*FindSetting("read.latency-slack"), "nan"));
  EXPECT_EQ(ParseSettingValue(*FindSetting("read.objective"), "REQUESTS")->text, "requests");
  EXPECT_EQ(ParseSettingValue(*FindSetting("read.page-index"), "off")->text, "false");
}

TEST(SettingsTest, ApplyWritesOnlyWhatWasSet) {
  Settings s;
  QueryOptions o;
  o.threads = 3;
  ASSERT_TRUE(s.Set("read.request-budget", "32"));
  ASSERT_TRUE(s.SetAssignment("read.objective=cost"));
  ASSERT_TRUE(s.Set("READ.MAX-REQUEST-BYTES", "1MiB"));
  s.ApplyTo(&o);
  EXPECT_EQ(o.read.request_budget, 32);
  EXPECT_EQ(o.read.planner.objective, parquet::ReadObjective::kCost);
  EXPECT_EQ(o.read.planner.max_request_bytes, 1 << 20);
  EXPECT_EQ(o.threads, 3);  // never set: the caller's
  ASSERT_TRUE(s.Reset("read.request-budget"));
  QueryOptions again;
  s.ApplyTo(&again);
  EXPECT_EQ(again.read.request_budget, 64);
  auto unknown = s.Set("read.nope", "1");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "unknown setting 'read.nope' (SELECT * FROM floe_settings() lists them)");
}

TEST(SettingsTest, CacheCapacitiesAreTheRuntimeCaches) {
  Settings s;
  ASSERT_TRUE(s.Set("read.footer-cache-bytes", "1MiB"));
  ASSERT_TRUE(s.Set("read.metadata-cache-bytes", "2MiB"));
  iceberg::Runtime runtime;
  QueryOptions o;
  o.runtime = &runtime;
  s.ApplyTo(&o);
  EXPECT_EQ(runtime.footer_cache().capacity_bytes(), 1 << 20);
  EXPECT_EQ(runtime.metadata_cache().capacity_bytes(), 2 << 20);
  s.ResetAll();
  s.ApplyTo(&o);  // the next statement's
  EXPECT_EQ(runtime.footer_cache().capacity_bytes(), parquet::FooterCache::kDefaultCapacityBytes);
  EXPECT_EQ(runtime.metadata_cache().capacity_bytes(),
            iceberg::MetadataCache::kDefaultCapacityBytes);
}

// A table's properties are the defaults of a statement over it: SET wins over them, and a value
// a setting refuses is an error naming the table and the property.
TEST(SettingsTest, TablePropertiesAreDefaultsUnderTheSessionsSettings) {
  Settings s;
  const std::map<std::string, std::string> props = {{"read.request-budget", "8"},
                                                    {"read.page-index", "false"},
                                                    {"read.footer-cache-bytes", "1"},
                                                    {"write.format.default", "parquet"}};
  QueryOptions o;
  ASSERT_TRUE(s.ApplyTableDefaults("db.t", props, &o));
  EXPECT_EQ(o.read.request_budget, 8);
  EXPECT_FALSE(o.read.use_page_index);
  ASSERT_TRUE(s.Set("read.request-budget", "32"));
  QueryOptions p;
  s.ApplyTo(&p);
  ASSERT_TRUE(s.ApplyTableDefaults("db.t", props, &p));
  EXPECT_EQ(p.read.request_budget, 32);
  EXPECT_FALSE(p.read.use_page_index);
  auto bad = s.ApplyTableDefaults("db.t", {{"read.baseline-tasks", "0"}}, &p);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "table db.t property read.baseline-tasks: '0' is out of range (1 to 1024)");
}

TEST(SettingsTest, SetResetShowStatements) {
  auto set = ParseSettingStatement("  -- a comment\n  SET read.request-budget = 32;");
  ASSERT_TRUE(set && *set);
  EXPECT_EQ((*set)->kind, SettingStatement::Kind::kSet);
  EXPECT_EQ((*set)->name, "read.request-budget");
  EXPECT_EQ((*set)->value, "32");
  auto to = ParseSettingStatement("set session \"read.objective\" to 'cost'");
  ASSERT_TRUE(to && *to);
  EXPECT_EQ((*to)->name, "read.objective");
  EXPECT_EQ((*to)->value, "cost");
  auto def = ParseSettingStatement("SET read.threads = DEFAULT");
  ASSERT_TRUE(def && *def);
  EXPECT_EQ((*def)->kind, SettingStatement::Kind::kReset);
  auto reset_all = ParseSettingStatement("RESET ALL");
  ASSERT_TRUE(reset_all && *reset_all);
  EXPECT_EQ((*reset_all)->kind, SettingStatement::Kind::kResetAll);
  auto show = ParseSettingStatement("show read.threads");
  ASSERT_TRUE(show && *show);
  EXPECT_EQ((*show)->kind, SettingStatement::Kind::kShow);
  auto bad = ParseSettingStatement("SET read.threads");
  ASSERT_TRUE(bad);
  ASSERT_FALSE(*bad);
  EXPECT_EQ(bad->error().message, "SET read.threads: expected '=' and a value");
  auto empty = ParseSettingStatement("SET trace = ''");  // '' is a value; nothing is not
  ASSERT_TRUE(empty && *empty);
  EXPECT_EQ((*empty)->kind, SettingStatement::Kind::kSet);
  EXPECT_EQ((*empty)->value, "");
  auto none = ParseSettingStatement("SET trace =");
  ASSERT_TRUE(none);
  ASSERT_FALSE(*none);
  EXPECT_EQ(none->error().message, "SET trace: expected a value");
  EXPECT_FALSE(ParseSettingStatement("SELECT 1"));
  EXPECT_FALSE(ParseSettingStatement("settings"));  // not the SET keyword
}

}  // namespace
}  // namespace floe::sql
