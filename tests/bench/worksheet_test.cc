// Worksheet parsing: a full worksheet, the built-in ones, and bad input whose one-line error names
// the key.
#include "floe/bench/worksheet.h"

#include <gtest/gtest.h>

#include "floe/bench/builtin.h"

namespace floe::bench {
namespace {

constexpr const char* kGood = R"(
name: events
table: shop.events
source: {generator: events, rows: 20000, seed: 7, writes: 4}
designs:
  - name: A
  - name: B day
    built_by: spark
    partition_by: day(event_ts)
    sort_by: customer_id
    tasks_per_write: 2
    target_file_size: 2MB
    row_group_size: 512KiB
    page_size: 64KiB
    page_row_limit: 4096
    bloom_columns: [customer_id]
    colocated_columns: [customer_id, amount]
    properties: {write.parquet.compression-codec: snappy}
    maintenance:
      - rewrite: sort
        sort_by: customer_id
        target_file_size: 1MB
questions:
  - name: day
    sql: SELECT sum(amount) FROM {table}
    daily: 24
  - name: customer
    sql: SELECT * FROM {table} WHERE customer_id = 1
    weight: 0.5
)";

TEST(Worksheet, ParsesEveryKey) {
  auto w = ParseWorksheet(kGood);
  ASSERT_TRUE(w.has_value()) << w.error().ToString();
  EXPECT_EQ(w->name, "events");
  EXPECT_EQ(w->source.generator, "events");
  EXPECT_EQ(w->source.rows, 20000);
  EXPECT_EQ(w->source.seed, 7u);
  EXPECT_EQ(w->source.writes, 4);
  ASSERT_EQ(w->designs.size(), 2u);
  const Design& b = w->designs[1];
  EXPECT_EQ(b.partition_by, "day(event_ts)");
  EXPECT_EQ(w->designs[0].built_by, "floe");
  EXPECT_EQ(b.built_by, "spark");
  EXPECT_EQ(b.tasks_per_write, 2);
  EXPECT_EQ(*b.target_file_size, 2'000'000);
  EXPECT_EQ(*b.row_group_size, 512 * 1024);
  EXPECT_EQ(*b.page_row_limit, 4096);
  ASSERT_EQ(b.maintenance.size(), 1u);
  EXPECT_EQ(b.maintenance[0].strategy, "sort");
  EXPECT_EQ(*b.maintenance[0].target_file_size, 1'000'000);
  auto props = b.TableProperties();
  EXPECT_EQ(props["write.target-file-size-bytes"], "2000000");
  EXPECT_EQ(props["write.parquet.page-size-bytes"], "65536");
  EXPECT_EQ(props["write.parquet.bloom-filter-enabled.column.customer_id"], "true");
  EXPECT_EQ(props["write.parquet.compression-codec"], "snappy");
  EXPECT_EQ(props["floe.write.parquet.colocated-columns"], "customer_id,amount");
  EXPECT_EQ(w->questions[0].daily, 24);
  EXPECT_EQ(w->questions[1].daily, 0.5);
  EXPECT_EQ(DesignTableName(*w, b), "shop.events_b_day");
  EXPECT_EQ(*QuestionSql(w->questions[1], "x.y", 10), "SELECT * FROM x.y WHERE customer_id = 1");
}

TEST(Worksheet, RowPlaceholderScalesWithTheSource) {
  Question q;
  q.name = "lookup";
  q.sql = "SELECT * FROM {table} WHERE id = {row:0.424242} OR id IN ({row:0}, {x})";
  EXPECT_EQ(*QuestionSql(q, "a.b", 1'000'000),
            "SELECT * FROM a.b WHERE id = 424242 OR id IN (0, {x})");
  EXPECT_EQ(*QuestionSql(q, "a.b", 50'000), "SELECT * FROM a.b WHERE id = 21212 OR id IN (0, {x})");
  for (const char* bad : {"{row:1.5}", "{row:}", "{row:abc}", "{row:0.5"}) {
    q.sql = std::string("SELECT ") + bad;
    auto r = QuestionSql(q, "a.b", 10);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message.find("question 'lookup': {row:F} needs a fraction"),
              std::string::npos)
        << r.error().message;
  }
}

TEST(Worksheet, QuantilePlaceholderTakesTheSourcesValue) {
  Question q;
  q.name = "range";
  q.sql = "SELECT * FROM {table} WHERE k BETWEEN {quantile:k:0.37} AND {quantile:k:0.38}";
  std::vector<std::pair<std::string, double>> asked;
  QuantileFn quantile = [&](const std::string& column, double f) -> Result<std::string> {
    asked.emplace_back(column, f);
    if (column != "k") return InvalidInput("the source has no column '{}'", column);
    return std::to_string(static_cast<int>(f * 1000));
  };
  EXPECT_EQ(*QuestionSql(q, "a.b", 10, quantile), "SELECT * FROM a.b WHERE k BETWEEN 370 AND 380");
  EXPECT_EQ(asked, (std::vector<std::pair<std::string, double>>{{"k", 0.37}, {"k", 0.38}}));
  for (const char* bad : {"{quantile:k:1.5}", "{quantile:k}", "{quantile::0.5}", "{quantile:k:x}",
                          "{quantile:k:0.5"}) {
    q.sql = std::string("SELECT ") + bad;
    auto r = QuestionSql(q, "a.b", 10, quantile);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message.find("question 'range': {quantile:COLUMN:F} needs"),
              std::string::npos)
        << r.error().message;
  }
  q.sql = "SELECT {quantile:z:0.5}";
  auto r = QuestionSql(q, "a.b", 10, quantile);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("{quantile:z:0.5}: the source has no column 'z'"),
            std::string::npos)
      << r.error().message;
  EXPECT_FALSE(QuestionSql(q, "a.b", 10).has_value());  // no source to take it from
}

TEST(Worksheet, BuildRounds) {
  const std::string rest =
      "source: {generator: events}\ndesigns: [{name: A}]\nquestions: [{name: q, sql: x}]\n";
  EXPECT_EQ(ParseWorksheet(rest)->build_rounds, 1);
  EXPECT_EQ(ParseWorksheet("build_rounds: 3\n" + rest)->build_rounds, 3);
  for (const char* bad : {"build_rounds: 0\n", "build_rounds: 101\n", "build_rounds: x\n"}) {
    auto w = ParseWorksheet(bad + rest, "w.yaml");
    ASSERT_FALSE(w.has_value()) << bad;
    EXPECT_NE(w.error().message.find("build_rounds"), std::string::npos) << w.error().message;
  }
}

TEST(Worksheet, BuiltinsParse) {
  for (const auto& b : BuiltinWorksheets()) {
    auto w = ParseWorksheet(b.yaml, b.name);
    ASSERT_TRUE(w.has_value()) << w.error().ToString();
    EXPECT_GE(w->designs.size(), 2u);
    EXPECT_GE(w->questions.size(), 2u);
    EXPECT_EQ(FindBuiltinWorksheet(b.name), &b);
  }
  EXPECT_EQ(FindBuiltinWorksheet("clustering")->in_demo, false);  // floe bench clustering only
  EXPECT_EQ(FindBuiltinWorksheet("lineitem"), nullptr);
}

// Each bad worksheet and the words its error must contain.
struct Bad {
  std::string yaml;
  std::vector<std::string> words;
};

TEST(Worksheet, BadInputNamesTheKey) {
  const std::string src = "source: {generator: events}\n";
  const std::string qs = "questions: [{name: q, sql: SELECT 1}]\n";
  const std::string ds = "designs: [{name: A}]\n";
  std::vector<Bad> cases = {
      {src + ds, {"questions", "non-empty"}},
      {ds + qs, {"source", "missing"}},
      {"source: {generator: lineitem}\n" + ds + qs, {"source.generator", "'lineitem'"}},
      {"source: {generator: events, parquet: [a]}\n" + ds + qs, {"source", "exactly one"}},
      {"source: {generator: events, table: a.b}\n" + ds + qs, {"source", "exactly one", "'table'"}},
      {"source: {table: nodot}\n" + ds + qs, {"source.table", "NAMESPACE.TABLE"}},
      {"source: {generator: events, snapshot: 4}\n" + ds + qs, {"source.snapshot", "pins"}},
      {"source: {table: a.b, rows: 10}\n" + ds + qs, {"source", "'rows' and 'seed'"}},
      {"source: {table: a.b, snapshot: x}\n" + ds + qs, {"source.snapshot", "'x'"}},
      {"source: {generator: events, rows: -3}\n" + ds + qs, {"source.rows", ">= 1"}},
      {"source: {generator: events, rows: lots}\n" + ds + qs, {"source.rows", "'lots'"}},
      {src + "designs: [{name: A, target_file_size: 2XB}]\n" + qs,
       {"designs[0].target_file_size", "unknown unit"}},
      {src + "designs: [{name: A, colour: red}]\n" + qs, {"designs[0].colour", "unknown key"}},
      {src + "designs: [{name: A, built_by: trino}]\n" + qs,
       {"designs[0].built_by", "floe or spark", "'trino'"}},
      {src + "designs: [{name: A}, {name: A}]\n" + qs, {"designs[1].name", "duplicate"}},
      {src + "designs: [{name: B day}, {name: b-day}]\n" + qs,
       {"designs[1].name", "'b-day' would be built as the same table as 'B day' (bench.t_b_day)"}},
      {src + "designs: [{sort_by: id}]\n" + qs, {"designs[0].name", "missing"}},
      {src + "designs: [{name: A, maintenance: [{rewrite: zorder}]}]\n" + qs,
       {"designs[0].maintenance[0].rewrite", "'zorder'"}},
      {src + ds + "questions: [{name: q}]\n", {"questions[0].sql", "missing"}},
      {src + ds + "questions: [{name: q, sql: x, daily: -1}]\n", {"questions[0].daily"}},
      {src + ds + "questions: [{name: q, sql: x, daily: 1, weight: 2}]\n",
       {"questions[0]", "not both"}},
      {"table: nodot\n" + src + ds + qs, {"table", "NAMESPACE.TABLE"}},
      {src + ds + qs + "changes: {sql: 'MERGE INTO {table} t USING x s ON t.a = s.a'}\n",
       {"changes.sql", "{changes}"}},
      {src + ds + qs + "changes: {fraction: 0.1}\n", {"changes.sql", "missing"}},
      {src + ds + qs + "changes: {sql: '{changes}', fraction: 2}\n",
       {"changes.fraction", "(0, 1]"}},
      {src + ds + qs + "changes: {sql: '{changes}', rounds: 0}\n", {"changes.rounds", ">= 1"}},
      {src + ds + qs + "changes: {sql: '{changes}', compaction: [vacuum]}\n",
       {"changes.compaction[0]", "'vacuum'"}},
      {src + ds + qs + "changes: {sql: '{changes}', when: nightly}\n",
       {"changes.when", "unknown key"}},
      {"source: {parquet: [a.parquet]}\n" + ds + qs + "changes: {sql: '{changes}'}\n",
       {"changes", "generator"}},
      {"designs: [unclosed\n", {"line"}},
      {"- just\n- a list\n", {"top level"}},
  };
  for (const auto& c : cases) {
    auto w = ParseWorksheet(c.yaml, "w.yaml");
    ASSERT_FALSE(w.has_value()) << c.yaml;
    const std::string& msg = w.error().message;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(msg.starts_with("w.yaml: ")) << msg;
    for (const auto& word : c.words) EXPECT_NE(msg.find(word), std::string::npos) << msg;
  }
}

TEST(Worksheet, ChangesParseWithIcebergsCompactionSteps) {
  auto w = ParseWorksheet(
      "source: {generator: orders}\ndesigns: [{name: A}]\nquestions: [{name: q, sql: x}]\n"
      "changes:\n  sql: MERGE INTO {table} t USING {changes} s ON t.order_id = s.order_id "
      "WHEN MATCHED THEN DELETE\n  fraction: 0.05\n  rounds: 3\n  daily: 2\n"
      "  compaction: [rewrite_data_files]\n");
  ASSERT_TRUE(w.has_value()) << w.error().ToString();
  ASSERT_TRUE(w->changes.has_value());
  EXPECT_EQ(w->changes->fraction, 0.05);
  EXPECT_EQ(w->changes->rounds, 3);
  EXPECT_EQ(w->changes->daily, 2);
  EXPECT_EQ(w->changes->compaction, std::vector<std::string>{"rewrite_data_files"});
  auto d = ParseWorksheet(
      "source: {generator: orders}\ndesigns: [{name: A}]\nquestions: [{name: q, sql: x}]\n"
      "changes: {sql: '{changes}'}\n");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->changes->fraction, 0.01);
  EXPECT_EQ(d->changes->rounds, 5);
  EXPECT_EQ(d->changes->compaction,
            (std::vector<std::string>{"rewrite_position_deletes", "rewrite_data_files"}));
}

TEST(Worksheet, Sizes) {
  EXPECT_EQ(*ParseSize("2MB"), 2'000'000);
  EXPECT_EQ(*ParseSize("512MiB"), 512LL << 20);
  EXPECT_EQ(*ParseSize("64 KiB"), 65536);
  EXPECT_EQ(*ParseSize("1048576"), 1048576);
  EXPECT_EQ(*ParseSize("1.5GB"), 1'500'000'000);
  EXPECT_FALSE(ParseSize("MB"));
  EXPECT_FALSE(ParseSize("0"));
  EXPECT_FALSE(ParseSize("3 parsecs"));
  EXPECT_EQ(FormatBytes(5'900'000), "5.90 MB");
}

TEST(Worksheet, LoadMissingFileIsNotFound) {
  auto w = LoadWorksheet("/nonexistent/sheet.yaml");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().kind, ErrorKind::kNotFound);
}

}  // namespace
}  // namespace floe::bench
