#include "floe/sql/explain.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "floe/columnar/column_builder.h"
#include "floe/exec/value.h"
#include "floe/iceberg/scan.h"
#include "floe/sql/join_runner.h"
#include "floe/sql/sql_tokens.h"

namespace floe::sql {

namespace {

using exec::Fn;

// What the columns of an operator's input are called where their expressions say nothing (an
// aggregate's output: its keys, then its aggregates); null: the expressions' own names.
using Inputs = const std::vector<std::string>*;

std::string Text(const exec::ExprPtr& e, Inputs in = nullptr);

std::string List(const std::vector<exec::ExprPtr>& es, Inputs in = nullptr) {
  std::string out;
  for (const auto& e : es) out += (out.empty() ? "" : ", ") + Text(e, in);
  return out;
}

// An expression as SQL-like text: columns by name, literals as SQL writes them.
std::string Text(const exec::ExprPtr& e, Inputs in) {
  if (!e) return "";
  switch (e->kind) {
    case exec::Expr::Kind::kColumn:
      if (in != nullptr && e->column >= 0 && e->column < static_cast<int>(in->size())) {
        return (*in)[static_cast<size_t>(e->column)];
      }
      return e->name.empty() ? fmt::format("#{}", e->column) : e->name;
    case exec::Expr::Kind::kLiteral: {
      if (e->value.is_null()) return "NULL";
      std::string v = exec::ValueToText(e->value, e->type);
      if (exec::IsStringType(e->type) || exec::IsTemporalType(e->type)) return "'" + v + "'";
      return v;
    }
    case exec::Expr::Kind::kCall:
      break;
  }
  const auto& a = e->args;
  switch (e->fn) {
    case Fn::kAdd:
    case Fn::kSub:
    case Fn::kMul:
    case Fn::kDiv:
    case Fn::kMod:
    case Fn::kEq:
    case Fn::kNotEq:
    case Fn::kLt:
    case Fn::kLtEq:
    case Fn::kGt:
    case Fn::kGtEq:
    case Fn::kAnd:
    case Fn::kOr:
    case Fn::kLike:
    case Fn::kILike:
      if (a.size() == 2)
        return fmt::format("({} {} {})", Text(a[0], in), exec::FnName(e->fn), Text(a[1], in));
      break;
    case Fn::kNeg:
      if (a.size() == 1) return "-" + Text(a[0], in);
      break;
    case Fn::kNot:
      if (a.size() == 1) return "NOT " + Text(a[0], in);
      break;
    case Fn::kIsNull:
    case Fn::kIsNotNull:
      if (a.size() == 1) return fmt::format("{} {}", Text(a[0], in), exec::FnName(e->fn));
      break;
    case Fn::kIn:
      if (!a.empty()) {
        return fmt::format("{} IN ({})", Text(a[0], in),
                           List(std::vector<exec::ExprPtr>(a.begin() + 1, a.end()), in));
      }
      break;
    case Fn::kCast:
    case Fn::kTryCast:
      if (a.size() == 1) {
        return fmt::format("{}({} AS {})", exec::FnName(e->fn), Text(a[0], in), e->type.ToString());
      }
      break;
    case Fn::kStructField:
      if (a.size() == 1) return Text(a[0], in) + "." + e->text;
      break;
    case Fn::kCase: {
      std::string out = "CASE";
      size_t i = 0;
      for (; i + 1 < a.size(); i += 2) {
        out += fmt::format(" WHEN {} THEN {}", Text(a[i], in), Text(a[i + 1], in));
      }
      if (i < a.size()) out += " ELSE " + Text(a[i], in);
      return out + " END";
    }
    case Fn::kFunction:
      break;
  }
  std::string args =
      e->text.empty() ? List(a, in) : "'" + e->text + "'" + (a.empty() ? "" : ", ") + List(a, in);
  return fmt::format("{}({})", exec::CallName(*e), args);
}

std::string AggregateText(const exec::Aggregate& g) {
  if (g.fn == exec::AggFn::kCountStar) return "count(*)";
  std::string out =
      fmt::format("{}({}{}", exec::AggFnName(g.fn), g.distinct ? "DISTINCT " : "", Text(g.arg));
  if (g.arg2) out += ", " + Text(g.arg2);
  out += ")";
  if (g.filter) out += " FILTER (WHERE " + Text(g.filter) + ")";
  return out;
}

std::string Order(const std::vector<exec::SortKey>& keys, Inputs in = nullptr) {
  std::string out;
  for (const auto& k : keys) {
    out += fmt::format("{}{}{}{}", out.empty() ? "" : ", ", Text(k.expr, in),
                       k.descending ? " DESC" : "", k.nulls_first ? " NULLS FIRST" : "");
  }
  return out;
}

std::string Bytes(int64_t n) {
  if (n >= int64_t{1} << 30) return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1 << 30));
  if (n >= int64_t{1} << 20) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1 << 20));
  if (n >= int64_t{1} << 10) return fmt::format("{:.1f} KiB", static_cast<double>(n) / (1 << 10));
  return fmt::format("{} B", n);
}

std::string Plural(int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

class Explainer {
 public:
  Explainer(iceberg::Warehouse& w, const QueryOptions& o) : w_(w), o_(o) {}

  Status Plan(const LogicalPlan& p, int depth) {
    if (p.limit >= 0 || p.offset > 0) {
      Line(depth, p.limit >= 0
                      ? fmt::format("Limit {}{}", p.limit,
                                    p.offset > 0 ? fmt::format(" offset {}", p.offset) : "")
                      : fmt::format("Offset {}", p.offset));
    }
    // ORDER BY is over the outputs (then hidden keys), the outputs and HAVING over the aggregate's
    // output when there is one.
    std::vector<std::string> aggregated;
    if (p.aggregate) {
      for (const auto& k : p.group_keys) aggregated.push_back(Text(k));
      for (const auto& g : p.aggregates) aggregated.push_back(AggregateText(g));
    }
    Inputs over = p.aggregate ? &aggregated : nullptr;
    std::vector<std::string> projected;
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      projected.push_back(i < p.names.size() && !p.names[i].empty() ? p.names[i]
                                                                    : Text(p.outputs[i], over));
    }
    for (const auto& h : p.hidden) projected.push_back(Text(h, over));
    if (!p.order.empty()) Line(depth, "Order by " + Order(p.order, &projected));
    std::string project;
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      std::string t = Text(p.outputs[i], over);
      const std::string& name = i < p.names.size() ? p.names[i] : "";
      if (!project.empty()) project += ", ";
      project += t;
      if (!name.empty() && name != t) project += " AS " + name;
    }
    Line(depth, "Project " + project);
    for (const auto& w : p.windows) {
      std::string over;
      if (!w.partition.empty()) over += "PARTITION BY " + List(w.partition);
      if (!w.order.empty()) over += (over.empty() ? "" : " ") + ("ORDER BY " + Order(w.order));
      Line(depth, fmt::format("Window {} OVER ({})", WindowName(w), over));
    }
    if (p.having) Line(depth, "Having " + Text(p.having, over));
    if (p.aggregate) {
      std::string aggs;
      for (const auto& g : p.aggregates) aggs += (aggs.empty() ? "" : ", ") + AggregateText(g);
      std::string line = "Hash aggregate";
      if (!p.group_keys.empty()) line += " by " + List(p.group_keys);
      if (!p.grouping_sets.empty())
        line += fmt::format(" ({} grouping sets)", p.grouping_sets.size());
      if (!aggs.empty()) line += ": " + aggs;
      Line(depth, line);
    }
    const exec::ExprPtr& filter =
        p.source == LogicalPlan::Source::kTable ? p.residual_where : p.where;
    if (filter) Line(depth, "Filter " + Text(filter));
    return Source(p, depth);
  }

  std::vector<std::string> Lines() && { return std::move(lines_); }

 private:
  static std::string WindowName(const exec::WindowCall& w) {
    using F = exec::WindowCall::Fn;
    static constexpr std::string_view kNames[] = {
        "row_number", "rank", "dense_rank",  "percent_rank", "cume_dist", "ntile",
        "lag",        "lead", "first_value", "last_value",   "nth_value", ""};
    if (w.fn == F::kAggregate)
      return fmt::format("{}({})", exec::AggFnName(w.aggregate), List(w.args));
    return fmt::format("{}({})", kNames[static_cast<int>(w.fn)], List(w.args));
  }

  void Line(int depth, const std::string& text) {
    lines_.push_back(std::string(static_cast<size_t>(depth) * 2, ' ') + text);
  }

  Status Source(const LogicalPlan& p, int depth) {
    switch (p.source) {
      case LogicalPlan::Source::kNone:
        Line(depth + 1, "One row (no FROM)");
        return {};
      case LogicalPlan::Source::kMetadataTable:
        Line(depth + 1, fmt::format("Rows of a metadata table of {} ({})", p.table.id.ToString(),
                                    Plural(p.metadata_rows.num_rows, "row", "rows")));
        return {};
      case LogicalPlan::Source::kTable:
        return Scan(p, depth + 1);
      case LogicalPlan::Source::kJoin: {
        FLOE_RETURN_IF_ERROR(Join(*p.join, depth + 1));
        if (p.join->kind == JoinNode::Kind::kRelation) return {};  // a subquery in FROM: no join
        RunContext ctx;
        ctx.wh = &w_;
        ctx.options = &o_;
        ScanMetrics stats;
        FLOE_ASSIGN_OR_RETURN(std::string order, DescribeJoinOrder(p, ctx, &stats));
        Line(depth + 1, "Join order (streamed join built, estimated rows): " + order);
        return {};
      }
      case LogicalPlan::Source::kSetOperation: {
        static constexpr std::string_view kOps[] = {"Union all", "Intersect", "Intersect all",
                                                    "Except", "Except all"};
        Line(depth + 1, std::string(kOps[static_cast<int>(p.set_op)]));
        FLOE_RETURN_IF_ERROR(Plan(*p.set_left, depth + 2));
        return Plan(*p.set_right, depth + 2);
      }
    }
    return {};
  }

  Status Join(const JoinNode& n, int depth) {
    using K = JoinNode::Kind;
    if (n.kind == K::kRelation) {
      Line(depth,
           fmt::format("Relation {}{}{}", n.name, n.shared ? " (a WITH query, computed once)" : "",
                       n.single_row ? " (a scalar subquery: at most one row)" : ""));
      for (const auto& f : n.filter) Line(depth + 1, "Filter " + Text(f));
      return n.plan ? Plan(*n.plan, depth + 1) : Status{};
    }
    static constexpr std::string_view kKinds[] = {"", "Inner", "Left", "Full", "Semi", "Anti"};
    std::string line = fmt::format("{} join", kKinds[static_cast<int>(n.kind)]);
    if (n.kind == K::kInner && n.condition.empty()) line = "Cross join";
    if (!n.condition.empty()) {
      std::string on;
      for (const auto& c : n.condition) on += (on.empty() ? "" : " AND ") + Text(c);
      line += " on " + on;
    }
    if (n.null_aware) line += " (NOT IN: NULL-aware)";
    Line(depth, line);
    for (const auto& f : n.filter) Line(depth + 1, "Filter " + Text(f));
    FLOE_RETURN_IF_ERROR(Join(*n.left, depth + 1));
    return Join(*n.right, depth + 1);
  }

  Status Scan(const LogicalPlan& p, int depth) {
    const iceberg::Schema& schema = p.table.metadata.CurrentSchema();
    std::string columns;
    for (int32_t id : p.scan_field_ids)
      columns += (columns.empty() ? "" : ", ") + schema.NameOf(id);
    std::string line = fmt::format("Table scan {}", p.table.id.ToString());
    if (p.snapshot_id) line += fmt::format(" FOR VERSION AS OF {}", *p.snapshot_id);
    if (p.as_of_timestamp_ms)
      line += fmt::format(" FOR TIMESTAMP AS OF {} ms", *p.as_of_timestamp_ms);
    if (p.sample_fraction)
      line += fmt::format(" TABLESAMPLE ({:g} PERCENT)", *p.sample_fraction * 100);
    Line(depth, line);
    Line(depth + 1, "columns: " + (columns.empty() ? std::string("(none: rows only)") : columns));
    Line(depth + 1,
         "pushed filter: " + (p.pushed_filter ? p.pushed_filter->ToString() : std::string("none")));
    iceberg::ScanOptions so;
    so.filter = p.pushed_filter;
    so.snapshot_id = p.snapshot_id;
    so.as_of_timestamp_ms = p.as_of_timestamp_ms;
    so.sample_fraction = p.sample_fraction;
    FLOE_ASSIGN_OR_RETURN(iceberg::ScanPlan plan, iceberg::PlanFiles(p.table, *w_.io, so));
    if (!plan.snapshot) {
      Line(depth + 1, "planned: the table has no snapshot (no rows); no data requests");
      return {};
    }
    const iceberg::ScanStats& s = plan.stats;
    int64_t rows = 0, bytes = 0, whole = 0, ranged = 0;
    std::vector<std::string> deletes;
    for (const auto& t : plan.tasks) {
      rows += t.file.record_count;
      bytes += t.file.file_size_in_bytes;
      if (t.file.file_size_in_bytes <= o_.read.planner.whole_file_bytes) {
        ++whole;
      } else {
        ++ranged;
      }
      for (const auto& d : t.deletes) {
        if (std::find(deletes.begin(), deletes.end(), d.file_path) == deletes.end()) {
          deletes.push_back(d.file_path);
        }
      }
    }
    // Files in manifests that partition summaries ruled out are not in the scan's counts: the
    // snapshot's summary has the table's total.
    int64_t total = s.data_files_total;
    if (auto it = plan.snapshot->summary.find("total-data-files");
        it != plan.snapshot->summary.end()) {
      total = std::max<int64_t>(total, std::strtoll(it->second.c_str(), nullptr, 10));
    }
    const int64_t by_partition = s.files_skipped_partition + (total - s.data_files_total);
    std::string skipped;
    for (auto [n, why] : {std::pair{by_partition, "partition"},
                          {s.files_skipped_bounds, "bounds"},
                          {s.files_skipped_index, "OTree index"},
                          {s.files_skipped_sample, "sample"}}) {
      if (n > 0) skipped += fmt::format("{}{} by {}", skipped.empty() ? "" : ", ", n, why);
    }
    Line(depth + 1,
         fmt::format("snapshot {}: {} of {} data files{}; {} rows, {}{}",
                     plan.snapshot->snapshot_id, plan.tasks.size(), total,
                     skipped.empty() ? "" : " (skipped: " + skipped + ")", rows, Bytes(bytes),
                     deletes.empty() ? ""
                                     : "; " + Plural(static_cast<int64_t>(deletes.size()),
                                                     "delete file applies", "delete files apply")));
    const int64_t manifests = s.manifests_total - s.manifests_skipped;
    std::string data = whole > 0 ? fmt::format("{} whole", Plural(whole, "file", "files")) : "";
    if (ranged > 0) {
      data += fmt::format("{}{} by ranges (at least a footer and a data range each)",
                          data.empty() ? "" : ", ", Plural(ranged, "file", "files"));
    }
    Line(depth + 1,
         fmt::format("expected requests, cold: {} metadata (table metadata, manifest list, {}); "
                     "{} data{}{}",
                     2 + manifests, Plural(manifests, "manifest", "manifests"), whole + 2 * ranged,
                     ranged > 0 ? " or more" : "", data.empty() ? "" : " (" + data + ")") +
             (deletes.empty() ? "" : fmt::format("; {} or more for deletes", deletes.size())));
    return {};
  }

  iceberg::Warehouse& w_;
  const QueryOptions& o_;
  std::vector<std::string> lines_;
};

}  // namespace

std::optional<ExplainStatement> ParseExplain(std::string_view sql) {
  std::vector<Token> tokens = Tokenize(sql);
  if (tokens.empty() || tokens[0].quoted || tokens[0].word != "explain") return std::nullopt;
  ExplainStatement st;
  size_t at = 1;
  if (at < tokens.size() && !tokens[at].quoted && tokens[at].word == "analyze") {
    st.analyze = true;
    ++at;
  }
  st.query = std::string(sql);
  const size_t end = at < tokens.size() ? tokens[at].begin : sql.size();
  for (size_t i = 0; i < end; ++i) {
    if (st.query[i] != '\n') st.query[i] = ' ';
  }
  return st;
}

Result<std::vector<std::string>> ExplainPlan(const LogicalPlan& plan, iceberg::Warehouse& warehouse,
                                             const QueryOptions& options) {
  Explainer e(warehouse, options);
  FLOE_RETURN_IF_ERROR(e.Plan(plan, 0));
  return std::move(e).Lines();
}

std::vector<std::string> ExplainRun(const QueryResult& r, double wall_ms) {
  const ScanMetrics& s = r.stats;
  std::vector<std::string> out;
  out.emplace_back("Ran:");
  out.push_back(fmt::format(
      "  data files: {} opened of {} planned; row groups: {} read, {} skipped; "
      "pages skipped: {}",
      s.data_files_opened.value(), s.data_files_planned.value(), s.row_groups_read.value(),
      s.row_groups_skipped.value(), s.pages_skipped.value()));
  out.push_back(fmt::format("  data requests: {} ({} HEAD), {} fetched; footers from the cache: {}",
                            s.requests.value(), s.heads.value(), Bytes(s.bytes_fetched),
                            s.footer_cache_hits.value()));
  if (s.delete_files_opened > 0) {
    out.push_back(fmt::format("  deletes: {} files, {} requests, {}, {} rows deleted",
                              s.delete_files_opened.value(), s.delete_requests.value(),
                              Bytes(s.delete_bytes_fetched), s.rows_deleted.value()));
  }
  if (s.spilled_bytes > 0) {
    out.push_back(fmt::format("  spilled past memory_limit: {} in {} files", Bytes(s.spilled_bytes),
                              s.spill_partitions.value()));
  }
  int64_t rows = 0;
  for (const auto& b : r.batches) rows += b.num_rows;
  out.push_back(fmt::format("  rows: {} decoded, {} from the scans, {} in the answer; {:.1f} ms",
                            s.rows_read.value(), s.rows.value(), rows, wall_ms));
  return out;
}

QueryResult PlanResult(const std::vector<std::string>& lines) {
  columnar::BinaryBuilder b;
  for (const auto& l : lines) (void)b.Append(l);
  auto schema = std::make_shared<columnar::Schema>();
  schema->fields.push_back({"plan", columnar::String(), false});
  columnar::RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(lines.size());
  batch.columns.push_back(b.Finish());
  QueryResult r;
  r.schema = schema;
  r.batches.push_back(std::move(batch));
  return r;
}

}  // namespace floe::sql
