// Table updates and requirements: a change to a table's metadata in the terms of Iceberg's REST
// protocol (TableUpdate and TableRequirement), for catalogs that write the metadata themselves.
// floe builds every change as the next whole TableMetadata on a base (commit_retry.h); this file
// turns the pair into the updates that make `next` from `base` and the requirements under which
// they mean what floe meant: the table is the same one, and every ref, schema, spec and sort
// order the change builds on is still as it was in `base`. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "floe/catalog/catalog.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

// The updates from `base` to `next` (format version, schemas, specs, sort orders, snapshots, refs,
// location, properties, statistics; logs, timestamps and counters are the service's to keep) and
// their requirements. Empty updates when the two do not differ in any of those.
catalog::TableChanges ChangesBetween(const TableMetadata& base, const TableMetadata& next);

// The body of a REST CreateTableRequest for a new table's metadata: its schema, default spec and
// sort order, properties (format-version among them) and, when `with_location`, its location.
nlohmann::json CreateTableRequest(const TableMetadata& metadata, bool with_location);

}  // namespace floe::iceberg
