#include "floe/sql/engine.h"

#include "floe/base/clock.h"
#include "floe/columnar/column_builder.h"
#include "floe/iceberg/metadata_tables.h"
#include "floe/sql/binder.h"
#include "floe/sql/catalog_statements.h"
#include "floe/sql/ddl.h"
#include "floe/sql/dml.h"
#include "floe/sql/explain.h"
#include "floe/sql/merge.h"
#include "floe/sql/parser.h"
#include "floe/sql/plan_runner.h"
#include "floe/sql/procedures.h"
#include "floe/sql/table_functions.h"

namespace floe::sql {

namespace {

// DELETE, UPDATE and MERGE INTO (dml.h, merge.h).
bool IsRowLevelStatement(const std::string& kind) {
  return kind == "DeleteStmt" || kind == "UpdateStmt" || kind == "MergeStmt";
}

}  // namespace

Engine::Engine(iceberg::Warehouse warehouse) : warehouse_(std::move(warehouse)) {}

Result<std::vector<std::string>> Engine::SplitStatements(std::string_view script) {
  return SplitSql(script);
}

Result<QueryResult> Engine::RunSettingStatement(const SettingStatement& s,
                                                const QueryOptions& caller_options) {
  QueryResult r;
  using K = SettingStatement::Kind;
  switch (s.kind) {
    case K::kSet:
      FLOE_RETURN_IF_ERROR(settings_.Set(s.name, s.value));
      break;
    case K::kReset:
      FLOE_RETURN_IF_ERROR(settings_.Reset(s.name));
      break;
    case K::kResetAll:
      settings_.ResetAll();
      r.message = "RESET ALL";
      return r;
    case K::kShow:
    case K::kShowAll:
      break;
  }
  QueryOptions options = caller_options;
  options.runtime = warehouse_.runtime.get();
  settings_.ApplyTo(&options);
  if (s.kind == K::kShowAll) {
    r.batches.push_back(settings_.Table(options));
  } else {
    const SettingDef* d = FindSetting(s.name);
    if (d == nullptr) {
      return InvalidInput("unknown setting '{}' (SELECT * FROM floe_settings() lists them)",
                          s.name);
    }
    if (s.kind == K::kShow) {
      columnar::BinaryBuilder b;
      FLOE_RETURN_IF_ERROR(b.Append(d->get(options)));
      columnar::RecordBatch out;
      auto schema = std::make_shared<columnar::Schema>();
      schema->fields.push_back(columnar::Field{std::string(d->name), columnar::String(), true, -1});
      out.schema = schema;
      out.columns.push_back(b.Finish());
      out.num_rows = 1;
      r.batches.push_back(std::move(out));
    } else {
      r.message =
          fmt::format("{} {} = {}", s.kind == K::kSet ? "SET" : "RESET", d->name, d->get(options));
    }
  }
  if (!r.batches.empty()) {
    r.schema = r.batches[0].schema;
    if (caller_options.sink) {
      for (const auto& b : r.batches) FLOE_RETURN_IF_ERROR(caller_options.sink(b));
      r.batches.clear();
    }
  }
  return r;
}

Result<QueryResult> Engine::Execute(std::string_view sql, const QueryOptions& caller_options) {
  if (auto catalog_statement = ParseCatalogStatement(sql)) {
    FLOE_ASSIGN_OR_RETURN(CatalogStatement s, std::move(*catalog_statement));
    FLOE_ASSIGN_OR_RETURN(QueryResult r, RunCatalogStatement(s, warehouse_));
    if (caller_options.sink) {
      for (const auto& b : r.batches) FLOE_RETURN_IF_ERROR(caller_options.sink(b));
      r.batches.clear();
    }
    return r;
  }
  if (auto ddl = ParseDdlStatement(sql)) {
    FLOE_ASSIGN_OR_RETURN(DdlStatement s, std::move(*ddl));
    QueryOptions query_options = caller_options;
    query_options.sink = nullptr;
    FLOE_ASSIGN_OR_RETURN(QueryResult r, RunDdlStatement(s, warehouse_, [&](std::string_view q) {
                            return Execute(q, query_options);
                          }));
    if (caller_options.sink) {
      for (const auto& b : r.batches) FLOE_RETURN_IF_ERROR(caller_options.sink(b));
      r.batches.clear();
    }
    return r;
  }
  if (auto set = ParseSettingStatement(sql)) {
    FLOE_ASSIGN_OR_RETURN(SettingStatement s, std::move(*set));
    return RunSettingStatement(s, caller_options);
  }
  QueryOptions options = caller_options;
  options.runtime = warehouse_.runtime.get();
  settings_.ApplyTo(&options);
  if (auto explain = ParseExplain(sql)) return RunExplain(*explain, options);
  FLOE_ASSIGN_OR_RETURN(ParsedStatement st, ParseStatement(sql));
  if (st.kind == "CallStmt") {
    auto r = call_handler_ ? call_handler_(st.text, st.node)
                           : RunProcedure(warehouse_, st.text, st.node);
    if (r && options.sink) {
      for (const auto& b : r->batches) FLOE_RETURN_IF_ERROR(options.sink(b));
      r->batches.clear();
    }
    return r;
  }
  if (st.kind != "SelectStmt" && !IsRowLevelStatement(st.kind)) {
    std::string kind = st.kind.ends_with("Stmt") ? st.kind.substr(0, st.kind.size() - 4) : st.kind;
    for (auto& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return std::unexpected(
        ErrorAt(ErrorKind::kUnsupported, st.text, 0,
                fmt::format("{} statements are not supported (floe runs SELECT, INSERT, DELETE, "
                            "UPDATE, MERGE, CREATE/ALTER/DROP TABLE)",
                            kind)));
  }
  TableResolver resolver = MakeResolver(options);
  if (IsRowLevelStatement(st.kind)) {
    auto r = st.kind == "DeleteStmt"   ? RunDelete(st, resolver, warehouse_, options)
             : st.kind == "UpdateStmt" ? RunUpdate(st, resolver, warehouse_, options)
                                       : RunMerge(st, resolver, warehouse_, options);
    if (r && options.sink) {
      for (const auto& b : r->batches) FLOE_RETURN_IF_ERROR(options.sink(b));
      r->batches.clear();
    }
    return r;
  }
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, BindSelect(st, resolver));
  if (plan.source == LogicalPlan::Source::kTable) {
    FLOE_RETURN_IF_ERROR(settings_.ApplyTableDefaults(plan.table.id.ToString(),
                                                      plan.table.metadata.properties, &options));
  }
  auto r = RunPlan(plan, warehouse_, options);
  if (!r) {
    Error e = r.error();
    if (!e.message.starts_with("at line")) return std::unexpected(e);
    return std::unexpected(e);
  }
  return r;
}

Result<QueryResult> Engine::RunExplain(const ExplainStatement& explain,
                                       const QueryOptions& options) {
  FLOE_ASSIGN_OR_RETURN(ParsedStatement st, ParseStatement(explain.query));
  if (st.kind != "SelectStmt") {
    std::string kind = st.kind.ends_with("Stmt") ? st.kind.substr(0, st.kind.size() - 4) : st.kind;
    for (auto& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return std::unexpected(ErrorAt(ErrorKind::kUnsupported, st.text, 0,
                                   fmt::format("EXPLAIN of {}: floe explains SELECT", kind)));
  }
  TableResolver resolver = MakeResolver(options);
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, BindSelect(st, resolver));
  QueryOptions run = options;
  run.sink = nullptr;
  if (plan.source == LogicalPlan::Source::kTable) {
    FLOE_RETURN_IF_ERROR(settings_.ApplyTableDefaults(plan.table.id.ToString(),
                                                      plan.table.metadata.properties, &run));
  }
  // ANALYZE runs first, so planning the scans again for the plan's lines reads nothing it did not.
  std::optional<QueryResult> ran;
  double ran_ms = 0;
  if (explain.analyze) {
    Stopwatch watch;
    FLOE_ASSIGN_OR_RETURN(ran, RunPlan(plan, warehouse_, run));
    ran_ms = watch.ElapsedMs();
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> lines, ExplainPlan(plan, warehouse_, run));
  if (ran) {
    for (auto& l : ExplainRun(*ran, ran_ms)) lines.push_back(std::move(l));
  }
  QueryResult r = PlanResult(lines);
  if (ran) r.stats = ran->stats;
  if (options.sink) {
    for (const auto& b : r.batches) FLOE_RETURN_IF_ERROR(options.sink(b));
    r.batches.clear();
  }
  return r;
}

TableResolver Engine::MakeResolver(const QueryOptions& options) {
  TableResolver resolver;
  resolver.load = [this](const catalog::TableIdentifier& id) {
    return iceberg::LoadTable(*warehouse_.catalog, *warehouse_.io, id);
  };
  resolver.is_metadata_table = [](std::string_view name) {
    return iceberg::IsMetadataTableName(name);
  };
  resolver.read_metadata_table = [this](const iceberg::Table& t, std::string_view name) {
    return iceberg::ReadMetadataTable(t, *warehouse_.io, name);
  };
  resolver.table_function =
      [this, options](std::string_view name, const std::vector<ast::Const>& args,
                      const std::vector<ast::NamedConst>& named) -> Result<columnar::RecordBatch> {
    if (name == "floe_settings") {
      if (!args.empty() || !named.empty())
        return InvalidInput("floe_settings() takes no arguments");
      return settings_.Table(options);
    }
    return ReadTableFunction(name, args, named, *warehouse_.io);
  };
  resolver.read_information_schema = [this](std::string_view name) {
    return ReadInformationSchema(warehouse_, name);
  };
  resolver.current_setting = [options](std::string_view name) -> Result<std::string> {
    const SettingDef* d = FindSetting(name);
    if (d == nullptr) {
      return InvalidInput("unknown setting '{}' (SELECT * FROM floe_settings() lists them)", name);
    }
    return d->get(options);
  };
  return resolver;
}

namespace {

void CollectScans(const LogicalPlan& plan, std::vector<ScanDescription>* out);

void CollectJoinScans(const JoinNode* node, std::vector<ScanDescription>* out) {
  if (node == nullptr) return;
  if (node->plan) CollectScans(*node->plan, out);
  CollectJoinScans(node->left.get(), out);
  CollectJoinScans(node->right.get(), out);
}

void CollectScans(const LogicalPlan& plan, std::vector<ScanDescription>* out) {
  switch (plan.source) {
    case LogicalPlan::Source::kTable: {
      ScanDescription d;
      d.table = plan.table.id.ToString();
      d.metadata_location = plan.table.metadata_location;
      const iceberg::Schema& schema = plan.table.metadata.CurrentSchema();
      for (int32_t id : plan.scan_field_ids) d.columns.push_back(schema.NameOf(id));
      d.filter = plan.pushed_filter;
      out->push_back(std::move(d));
      return;
    }
    case LogicalPlan::Source::kJoin:
      CollectJoinScans(plan.join.get(), out);
      return;
    case LogicalPlan::Source::kSetOperation:
      if (plan.set_left) CollectScans(*plan.set_left, out);
      if (plan.set_right) CollectScans(*plan.set_right, out);
      return;
    default:
      return;
  }
}

}  // namespace

Result<std::vector<ScanDescription>> Engine::DescribeScans(std::string_view sql) {
  FLOE_ASSIGN_OR_RETURN(ParsedStatement st, ParseStatement(sql));
  if (st.kind != "SelectStmt") {
    return std::unexpected(
        ErrorAt(ErrorKind::kUnsupported, st.text, 0, "only a SELECT's scans can be described"));
  }
  QueryOptions options;
  options.runtime = warehouse_.runtime.get();
  TableResolver resolver = MakeResolver(options);
  FLOE_ASSIGN_OR_RETURN(LogicalPlan plan, BindSelect(st, resolver));
  std::vector<ScanDescription> out;
  CollectScans(plan, &out);
  return out;
}

}  // namespace floe::sql
