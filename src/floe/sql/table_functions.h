// Table functions that read files, as DuckDB spells them: read_parquet('path') and
// read_csv('path') (also read_csv_auto). A path is a local file (relative to the working
// directory) or a URI the warehouse's FileIO opens (file://, s3://). A CSV file's column types are
// inferred from its values (bigint, double, boolean, date, timestamp, else varchar), as DuckDB's
// sniffer does for the common cases. The whole file is read into one batch: these are sources of
// a MERGE or of an ad-hoc SELECT, not of a large scan.
#pragma once

#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/sql/ast.h"

namespace floe::sql {

// The rows of table function `name` with constant `args`; an unknown name is a not-found error
// listing the functions there are.
Result<columnar::RecordBatch> ReadTableFunction(std::string_view name,
                                                const std::vector<ast::Const>& args,
                                                const iceberg::FileIO& io);

}  // namespace floe::sql
