// The worksheet a query log's analysis suggests.
#include "floe/bench/advise.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "floe/columnar/box_renderer.h"

namespace floe::bench {
namespace {

std::string Lower(std::string_view s) {
  std::string o(s);
  for (auto& ch : o) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return o;
}

}  // namespace

std::string AdviseWorksheet(const QueryLogAnalysis& a, std::string_view table,
                            const AdviseSource& source) {
  // Partition: the most used temporal filter, by day (coarse: a day holds many rows, and a
  // question on a day or a range of days then opens only its partitions).
  const ColumnUse* part = nullptr;
  for (const auto& c : a.columns)
    if (c.temporal && (!part || c.total() > part->total())) part = &c;
  // Sort: the most used other column, preferring equality/IN (sorting turns them into one
  // file's or one page's worth of reading).
  const ColumnUse* sort = nullptr;
  for (const auto& c : a.columns) {
    if (&c == part) continue;
    auto score = [](const ColumnUse& u) { return 2 * (u.equality + u.in_list) + u.range; };
    if (!sort || score(c) > score(*sort)) sort = &c;
  }
  int point = 0, scans = 0;
  for (const auto& q : a.queries) {
    if (q.cannot_run.empty()) (q.point ? point : scans) += q.count;
  }
  std::string out;
  out += fmt::format("# Starting worksheet for {}, derived by `floe advise` from {} statements.\n",
                     table, a.statements);
  out += "# Filtered columns (equality / range / IN):\n";
  for (const auto& c : a.columns) {
    out += fmt::format("#   {:<24} {:>4} / {:>4} / {:>4}{}\n", c.column, c.equality, c.range,
                       c.in_list, c.temporal ? "   (temporal)" : "");
  }
  if (a.columns.empty()) out += "#   (none: every statement reads the whole table)\n";
  out += fmt::format("# Point questions (equality/IN only): {}; wider ones: {}.\n", point, scans);
  out += fmt::format("name: {}\n", table);
  out += fmt::format("table: {}\n", table.find('.') == std::string_view::npos
                                        ? "advise." + std::string(table)
                                        : std::string(table));
  out +=
      "# The rows: the table the log queries, read from `floe bench --warehouse W` (the one it\n";
  out += "# lives in)";
  out += source.snapshot ? ", as of the snapshot it was at when advised.\n" : ".\n";
  out += "source:\n";
  out += fmt::format("  table: {}\n", table);
  if (source.snapshot) out += fmt::format("  snapshot: {}\n", *source.snapshot);
  out += "designs:\n";
  out += "  - name: baseline\n";
  out += "    description: unpartitioned, unsorted (what a plain append gives)\n";
  std::string part_spec = part ? fmt::format("day({})", part->column) : "";
  if (part) {
    out += fmt::format(
        "  # {} is the most frequent coarse (temporal) filter ({} uses): a day "
        "partition lets those questions skip every other day's files.\n",
        part->column, part->total());
    out += "  - name: partitioned\n";
    out += fmt::format("    description: partitioned by {}\n", part_spec);
    out += fmt::format("    partition_by: {}\n", part_spec);
  }
  if (sort) {
    out += fmt::format(
        "  # {} is the next most used filter ({} equality/IN, {} range): sorting by "
        "it inside each write lets bounds and the page index skip the rest.\n",
        sort->column, sort->equality + sort->in_list, sort->range);
    out += "  - name: sorted\n";
    out += fmt::format("    description: {}sorted by {} in each write\n",
                       part ? "partitioned by " + part_spec + ", " : "", sort->column);
    if (part) out += fmt::format("    partition_by: {}\n", part_spec);
    out += fmt::format("    sort_by: {}\n", sort->column);
    // File size per question type: point questions want small files (one file opened, little
    // fetched); scans want few large ones (fewer requests per byte).
    bool mostly_point = point >= scans;
    out += fmt::format(
        "  # A sort rewrite clusters across writes. {} of {} questions are point questions, so the "
        "target is {}.\n",
        point, point + scans,
        mostly_point ? "small (8MB: a lookup opens one small file)"
                     : "large (128MB: scans make fewer requests per byte)");
    out += "  - name: sort-rewritten\n";
    out += fmt::format("    description: {}sort-rewritten by {}, {} files\n",
                       part ? "partitioned by " + part_spec + ", " : "", sort->column,
                       mostly_point ? "8MB" : "128MB");
    if (part) out += fmt::format("    partition_by: {}\n", part_spec);
    out += fmt::format("    sort_by: {}\n", sort->column);
    out += fmt::format("    target_file_size: {}\n", mostly_point ? "8MB" : "128MB");
    out += "    maintenance:\n      - rewrite: sort\n";
  }
  // Statements the worksheet cannot ask, said once each, above the questions.
  bool left_out = false;
  for (const auto& q : a.queries) {
    if (q.cannot_run.empty()) continue;
    if (!left_out) out += "# Left out of the questions (the worksheet asks only what floe runs):\n";
    left_out = true;
    out += fmt::format("#   {}x {}\n#      -> {}\n", q.count, columnar::OneLine(q.sql),
                       columnar::OneLine(q.cannot_run));
  }
  out += "questions:\n";
  const std::string want = Lower(table);
  int number = 0;
  for (const auto& q : a.queries) {
    if (!q.cannot_run.empty()) continue;
    ++number;
    std::string sql = q.sql;
    // The table name becomes {table}, matched case-insensitively.
    std::string lower = Lower(sql);
    for (size_t pos = lower.find(want); !want.empty() && pos != std::string::npos;
         pos = lower.find(want, pos + 7)) {
      sql.replace(pos, want.size(), "{table}");
      lower.replace(pos, want.size(), "{table}");
    }
    // A YAML double-quoted scalar: backslashes, quotes and line breaks escaped, so the SQL reads
    // back as it was (a newline inside a string literal included).
    std::string quoted;
    for (char ch : sql) {
      switch (ch) {
        case '"':
          quoted += "\\\"";
          break;
        case '\\':
          quoted += "\\\\";
          break;
        case '\n':
          quoted += "\\n";
          break;
        case '\r':
          quoted += "\\r";
          break;
        case '\t':
          quoted += "\\t";
          break;
        default:
          quoted += ch;
      }
    }
    out += fmt::format("  - name: q{}{}\n    sql: \"{}\"\n    daily: {}\n", number,
                       q.point ? " (point)" : "", quoted, q.count);
  }
  if (number == 0) out += "  []  # none of the log's statements can be asked as they are\n";
  return out;
}

}  // namespace floe::bench
