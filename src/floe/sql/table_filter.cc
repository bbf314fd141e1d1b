#include "floe/sql/table_filter.h"

#include <charconv>

#include <fmt/format.h>

#include "floe/sql/binder.h"
#include "floe/sql/parser.h"

namespace floe::sql {
namespace {

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

Result<iceberg::ExprPtr> BindTableFilter(std::string_view where, const iceberg::Table& table) {
  std::string from;
  for (const auto& level : table.id.ns) from += QuoteIdentifier(level) + ".";
  from += QuoteIdentifier(table.id.name);
  const std::string prefix = fmt::format("SELECT * FROM {} WHERE ", from);
  const std::string sql = prefix + std::string(where);
  // Positions are the condition's own: "at line 1, column N" of the SELECT becomes "at column M".
  auto wrap = [&](const Error& e) {
    std::string message = e.message;
    constexpr std::string_view kAt = "at line 1, column ";
    if (message.starts_with(kAt)) {
      size_t end = message.find(':', kAt.size());
      int column = 0;
      auto [p, ec] = std::from_chars(message.data() + kAt.size(), message.data() + end, column);
      if (ec == std::errc() && p == message.data() + end &&
          column > static_cast<int>(prefix.size())) {
        message = fmt::format("at column {}{}", column - static_cast<int>(prefix.size()),
                              message.substr(end));
      }
    }
    return MakeError(e.kind, fmt::format("'{}': {}", where, message), e.transient);
  };
  auto parsed = ParseStatement(sql);
  if (!parsed) return wrap(parsed.error());
  TableResolver resolver;
  resolver.load = [&](const catalog::TableIdentifier&) -> Result<iceberg::Table> { return table; };
  resolver.is_metadata_table = [](std::string_view) { return false; };
  resolver.read_metadata_table = [](const iceberg::Table&,
                                    std::string_view name) -> Result<columnar::RecordBatch> {
    return Unsupported("metadata table '{}' in a table filter", name);
  };
  auto plan = parsed->kind == "SelectStmt" ? BindSelect(*parsed, resolver)
                                           : Result<LogicalPlan>(InvalidInput("not a condition"));
  if (!plan) return wrap(plan.error());
  if (plan->aggregate || !plan->order.empty() || plan->limit >= 0 || plan->offset != 0) {
    return wrap(Error{ErrorKind::kInvalidInput, "not a condition"});
  }
  if (plan->residual_where) {
    return wrap(Error{ErrorKind::kUnsupported,
                      "part of it cannot be decided from the files' partition values and column "
                      "bounds; a filter that selects files compares columns with constants"});
  }
  return plan->pushed_filter ? plan->pushed_filter : iceberg::True();
}

}  // namespace floe::sql
