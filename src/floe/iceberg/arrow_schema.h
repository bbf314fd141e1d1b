// Conversions between Iceberg schemas and the columnar (Arrow-layout) schemas that Parquet files
// are written from and read into, and between Iceberg literals and columnar values. Field ids
// travel both ways; that is how a file's columns are matched to the table's after renames and
// reordering.
#pragma once

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/columnar/data_type.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// Every Iceberg type maps to a columnar type (timestamps as microseconds, "UTC" for tz; uuid as
// fixed_size_binary[16]; time as time64[us]).
Result<columnar::Schema> ToColumnarSchema(const Schema& schema);
Result<columnar::DataType> ToColumnarType(const Type& type);

// A columnar schema as an Iceberg schema. Fields without ids get fresh ids from `next_id` (which
// is advanced); unsigned and small ints widen to int/long, float16 to float, timestamps of any
// unit become timestamp/timestamptz (nanoseconds: timestamp_ns).
Result<Schema> FromColumnarSchema(const columnar::Schema& schema, int32_t* next_id);

// The value of one row of a column (of ToColumnarType(type)) as an Iceberg literal of `type`.
Result<Literal> LiteralAt(const columnar::Column& column, int64_t row, const Type& type);
// A column of ToColumnarType(type) holding `values` (literals of `type`, or null).
Result<columnar::ColumnPtr> LiteralColumn(const std::vector<Literal>& values, const Type& type);

}  // namespace floe::iceberg
