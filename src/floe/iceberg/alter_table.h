// Table evolution without rewriting a row: the schema (columns added, renamed, dropped, widened,
// made optional, commented), the partition spec (fields added, dropped, replaced), the sort order
// and write distribution, and the properties -- what Spark's Iceberg ALTER TABLE does, by Iceberg's
// rules, so Spark and pyiceberg read the evolved table as floe does. Each change keeps the old
// files as they are: columns are matched by field id (a renamed column keeps its id, an added one
// gets a fresh id so old files read it as NULL, a dropped one's id is never reused), and every
// file keeps the spec it was written with. ApplyAlterations is pure; AlterTable commits one
// metadata-only change (no snapshot) through CommitWithRetry, rebuilt on the fresh table on a lost
// swap.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

// A column added at `name` (dotted: "point.z" adds z to the struct column point). Its type's
// nested field ids are assigned fresh when it is applied. An added column must be optional
// (Iceberg: old files have no value for it) unless the table has no rows yet.
struct AddColumn {
  std::string name;
  TypePtr type;
  bool required = false;
  std::string doc;
  // Where among its siblings: at the end (default), first, or right after `after`.
  bool first = false;
  std::string after;
};
struct RenameColumn {
  std::string name;      // dotted
  std::string new_name;  // the leaf's new name
};
// Refused for a column the current partition spec or sort order uses, or an identifier field.
struct DropColumn {
  std::string name;
};
// Iceberg's promotions only: int -> long, float -> double, decimal(P, S) -> decimal(P', S) with
// P' >= P.
struct UpdateColumnType {
  std::string name;
  TypePtr type;
};
struct DropNotNull {  // required -> optional (the other way is refused: old rows may be NULL)
  std::string name;
};
struct SetColumnComment {
  std::string name;
  std::string doc;
};
struct SetProperties {
  std::map<std::string, std::string> properties;
};
struct UnsetProperties {
  std::vector<std::string> keys;
  bool if_exists = false;  // a key the table lacks is an error unless this is set (as Spark)
};
// `transform` in the CLI's form ("bucket(16, id)", "day(ts)", "region"); `name` empty: Iceberg's
// default name. A field that existed in an earlier spec gets that field's id back.
struct AddPartitionField {
  std::string transform;
  std::string name;
};
// By the partition field's name or its transform ("bucket(16, id)").
struct DropPartitionField {
  std::string field;
};
struct ReplacePartitionField {
  std::string field;
  std::string transform;
  std::string name;
};
// The sort order new writes use ("id ASC NULLS LAST, ts DESC"; empty: unordered) and, when set,
// write.distribution-mode (none | hash | range), as Spark's WRITE ORDERED BY / LOCALLY ORDERED BY /
// DISTRIBUTED BY PARTITION / UNORDERED set them.
struct SetWriteOrder {
  std::optional<std::string> sort_order;  // nullopt: keep the order
  std::optional<std::string> distribution_mode;
};

using TableAlteration =
    std::variant<AddColumn, RenameColumn, DropColumn, UpdateColumnType, DropNotNull,
                 SetColumnComment, SetProperties, UnsetProperties, AddPartitionField,
                 DropPartitionField, ReplacePartitionField, SetWriteOrder>;

// `base` with every alteration applied in order, or an invalid-input error naming the table, the
// column or field and why ("table 'db.t': cannot drop column 'id': the partition spec uses it").
// A schema, spec or sort order equal to one the table had is reused (its id becomes current again)
// rather than added twice. Bumps nothing else: no snapshot, no timestamps.
Result<TableMetadata> ApplyAlterations(const Table& base,
                                       const std::vector<TableAlteration>& alterations);

// Commits `alterations` as one metadata change (retried over concurrent commits, each retry
// re-applied to the new table). Returns the committed table; the table as it was when nothing
// changed.
Result<Table> AlterTable(catalog::Catalog& catalog, const FileIO& io,
                         const catalog::TableIdentifier& id,
                         const std::vector<TableAlteration>& alterations);

// A type as SQL DDL writes it -- Iceberg's names (long, decimal(9, 2), timestamptz, fixed[16],
// ...), Spark SQL's (bigint, integer, smallint, tinyint, real, varchar(n), char(n), bool,
// timestamp_ntz, timestamp_ltz, numeric(p, s), decimal, binary) and nested types as Spark writes
// them (array<T>, map<K, V>, struct<a: T, b T>). Nested field ids are 0, to be assigned by the
// table; nested fields are optional unless followed by NOT NULL.
Result<TypePtr> ParseSqlType(std::string_view text);

// The Iceberg name of a primitive type written as Spark SQL writes it ("bigint" -> "long"), or
// `name` as given when it is not one of Spark's.
std::string IcebergPrimitiveName(std::string_view name);

}  // namespace floe::iceberg
