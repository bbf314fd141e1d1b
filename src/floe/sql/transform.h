// Transform: libpg_query's parse tree of a SELECT (JSON) to floe's typed AST (ast.h). Clauses and
// FROM items floe does not support are errors here, at their line and column; an unsupported
// expression becomes an ast kUnsupported node, reported when the binder reaches it, so that errors
// come in the order the binder meets them (an unknown table before a bad select item).
#pragma once

#include "floe/base/result.h"
#include "floe/sql/ast.h"
#include "floe/sql/parser.h"

namespace floe::sql {

// `statement` must be a SelectStmt.
Result<ast::Select> TransformSelect(const ParsedStatement& statement);
// `statement` must be a DeleteStmt / an UpdateStmt.
Result<ast::Delete> TransformDelete(const ParsedStatement& statement);
Result<ast::Update> TransformUpdate(const ParsedStatement& statement);
// `statement` must be a MergeStmt (its merge_clauses from the parser's MERGE rewrite).
Result<ast::Merge> TransformMerge(const ParsedStatement& statement);

}  // namespace floe::sql
