// Table functions that read files, as DuckDB spells them: read_parquet('path'), read_csv('path')
// (also read_csv_auto; options delim/sep, header, quote, escape, nullstr, skip, sample_size,
// all_varchar, written `name = value` or `name := value`) and read_json('path') (also
// read_json_auto, read_ndjson). A path is a local file (relative to the working directory, a glob
// like 'dir/*.csv' in its last part) or a URI the warehouse's FileIO opens (file://, s3://); CSV
// and JSON files may be gzip or zstd compressed. CSV is sniffed (csv_sniffer.h) and JSON's columns
// inferred (json_reader.h) as DuckDB does. The whole input is read into one batch: these are
// sources of a MERGE or of an ad-hoc SELECT, not of a large scan.
#pragma once

#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/sql/ast.h"

namespace floe::sql {

// The rows of table function `name` with constant `args` and options `named`; an unknown name is
// a not-found error listing the functions there are, an unknown option an invalid-input error.
Result<columnar::RecordBatch> ReadTableFunction(std::string_view name,
                                                const std::vector<ast::Const>& args,
                                                const std::vector<ast::NamedConst>& named,
                                                const iceberg::FileIO& io);

}  // namespace floe::sql
