// The statements that ask the catalog rather than a table's rows, as DuckDB and Spark users type
// them: SHOW TABLES [FROM|IN ns], SHOW ALL TABLES, SHOW NAMESPACES|SCHEMAS|DATABASES, and
// DESCRIBE|DESC [TABLE] ns.t (a table's columns: name, Iceberg type, nullability, field id and
// doc). Recognised from their first words before libpg_query sees the text (none of them is
// Postgres syntax); anything else is left to the parser. Also the information_schema views a
// query reads like tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "floe/base/result.h"
#include "floe/iceberg/warehouse.h"
#include "floe/sql/query.h"

namespace floe::sql {

struct CatalogStatement {
  enum class Kind { kShowTables, kShowAllTables, kShowNamespaces, kDescribe };
  Kind kind = Kind::kShowTables;
  std::string name;  // kShowTables: the namespace ("" = all); kDescribe: the table
};

// nullopt when `sql` is not one of these statements; an error naming what is wrong when it starts
// as one and goes astray ("SHOW TABLES: unexpected 'x'").
std::optional<Result<CatalogStatement>> ParseCatalogStatement(std::string_view sql);

// Rows: SHOW TABLES (namespace, name), SHOW ALL TABLES (namespace, name, column_names,
// column_types), SHOW NAMESPACES (namespace), DESCRIBE (column_name, column_type, null, field_id,
// comment).
Result<QueryResult> RunCatalogStatement(const CatalogStatement& st, iceberg::Warehouse& warehouse);

// The rows of information_schema.NAME, as DuckDB and Postgres name their columns:
// - schemata: catalog_name, schema_name;
// - tables: table_catalog, table_schema, table_name, table_type ('BASE TABLE'), table_comment
//   (the table's `comment` property);
// - columns: table_catalog, table_schema, table_name, column_name, ordinal_position (from 1),
//   column_default (NULL), is_nullable ('YES' | 'NO'), data_type (Iceberg's type name), field_id,
//   column_comment -- the current schema's top-level columns of every table.
// A multi-level namespace is its dotted name in *_schema. Other names are a not-found error
// listing these.
Result<columnar::RecordBatch> ReadInformationSchema(iceberg::Warehouse& warehouse,
                                                    std::string_view name);

}  // namespace floe::sql
