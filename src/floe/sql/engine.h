// Engine: runs SQL text over the tables of a warehouse and returns each statement's result with
// the numbers a bill is made of (files opened and skipped by stage, row groups, pages). Requests
// and bytes are counted by the caller's CountingStore around the warehouse store. One engine per
// warehouse; Execute is not reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/explain.h"
#include "floe/sql/query.h"
#include "floe/sql/settings.h"

namespace floe::sql {

struct TableResolver;  // binder.h

// A table a SELECT scans, as the binder planned it: what another engine given the same
// statement must read (floe bench's other engines are told it).
struct ScanDescription {
  std::string table;                 // NAMESPACE.TABLE
  std::string metadata_location;     // the metadata file the scan reads
  std::vector<std::string> columns;  // the columns read (dotted paths for nested fields)
  iceberg::ExprPtr filter;           // conjuncts pruning can use, by column name; null: none
};

class Engine {
 public:
  explicit Engine(iceberg::Warehouse warehouse);
  // One statement. Errors name what was wrong and where ("at line 1, column 8: ...").
  Result<QueryResult> Execute(std::string_view sql, const QueryOptions& options = {});
  // The tables a SELECT (joins, subqueries, CTEs and set operations included) scans, in the order
  // the binder meets them; nothing is read but the tables' metadata. Other statements are an
  // unsupported error.
  Result<std::vector<ScanDescription>> DescribeScans(std::string_view sql);
  // Splits a script into statements on top-level ';' (quotes and comments respected).
  static Result<std::vector<std::string>> SplitStatements(std::string_view script);
  iceberg::Warehouse& warehouse() { return warehouse_; }
  // The session's read settings (SET, --set): written over the options of every statement, and
  // listed by SELECT * FROM floe_settings().
  Settings& settings() { return settings_; }

  // CALL statements (maintenance procedures, wired by the CLI) go to this hook when it is set:
  // the statement text and libpg_query's CallStmt node (its "funccall" holds the name and
  // arguments). Without a hook, CALL is an unsupported error naming its position.
  using CallHandler =
      std::function<Result<QueryResult>(const std::string& sql, const nlohmann::json& call)>;
  void SetCallHandler(CallHandler handler) { call_handler_ = std::move(handler); }

 private:
  TableResolver MakeResolver(const QueryOptions& options);
  Result<QueryResult> RunSettingStatement(const SettingStatement& s, const QueryOptions& options);
  Result<QueryResult> RunExplain(const ExplainStatement& explain, const QueryOptions& options);

  iceberg::Warehouse warehouse_;
  CallHandler call_handler_;
  Settings settings_;
};

}  // namespace floe::sql
