#include "floe/parquet/file_metadata.h"

#include <utility>

#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

namespace {

// floe's enums are the spec's numbers; the generated enums are the spec as parquet.thrift has it.
static_assert(static_cast<int>(PhysicalType::kFixedLenByteArray) ==
              format::Type::FIXED_LEN_BYTE_ARRAY);
static_assert(static_cast<int>(PhysicalType::kInt96) == format::Type::INT96);
static_assert(static_cast<int>(ConvertedType::kInterval) == format::ConvertedType::INTERVAL);
static_assert(static_cast<int>(FieldRepetitionType::kRepeated) ==
              format::FieldRepetitionType::REPEATED);
static_assert(static_cast<int>(Encoding::kByteStreamSplit) == format::Encoding::BYTE_STREAM_SPLIT);
static_assert(static_cast<int>(Encoding::kPlainDictionary) == format::Encoding::PLAIN_DICTIONARY);
static_assert(static_cast<int>(CompressionCodec::kLz4Raw) == format::CompressionCodec::LZ4_RAW);
static_assert(static_cast<int>(CompressionCodec::kLz4) == format::CompressionCodec::LZ4);
static_assert(static_cast<int>(PageType::kDataPageV2) == format::PageType::DATA_PAGE_V2);

constexpr std::string_view kWhat = "FileMetaData";

std::vector<KeyValue> KeyValuesFromThrift(const std::vector<format::KeyValue>& in) {
  std::vector<KeyValue> out;
  out.reserve(in.size());
  for (const auto& kv : in) {
    KeyValue v{kv.key, std::nullopt};
    if (kv.__isset.value) v.value = kv.value;
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<format::KeyValue> KeyValuesToThrift(const std::vector<KeyValue>& in) {
  std::vector<format::KeyValue> out;
  out.reserve(in.size());
  for (const auto& kv : in) {
    format::KeyValue v;
    v.key = kv.key;
    if (kv.value) v.__set_value(*kv.value);
    out.push_back(std::move(v));
  }
  return out;
}

SizeStatistics SizeStatisticsFromThrift(const format::SizeStatistics& in) {
  SizeStatistics out;
  if (in.__isset.unencoded_byte_array_data_bytes) {
    out.unencoded_byte_array_data_bytes = in.unencoded_byte_array_data_bytes;
  }
  out.repetition_level_histogram = in.repetition_level_histogram;
  out.definition_level_histogram = in.definition_level_histogram;
  return out;
}

format::SizeStatistics SizeStatisticsToThrift(const SizeStatistics& in) {
  format::SizeStatistics out;
  if (in.unencoded_byte_array_data_bytes) {
    out.__set_unencoded_byte_array_data_bytes(*in.unencoded_byte_array_data_bytes);
  }
  if (!in.repetition_level_histogram.empty()) {
    out.__set_repetition_level_histogram(in.repetition_level_histogram);
  }
  if (!in.definition_level_histogram.empty()) {
    out.__set_definition_level_histogram(in.definition_level_histogram);
  }
  return out;
}

GeospatialStatistics GeospatialStatisticsFromThrift(const format::GeospatialStatistics& in) {
  GeospatialStatistics out;
  if (in.__isset.bbox) {
    const auto& b = in.bbox;
    BoundingBox box{b.xmin, b.xmax, b.ymin, b.ymax, {}, {}, {}, {}};
    if (b.__isset.zmin) box.zmin = b.zmin;
    if (b.__isset.zmax) box.zmax = b.zmax;
    if (b.__isset.mmin) box.mmin = b.mmin;
    if (b.__isset.mmax) box.mmax = b.mmax;
    out.bbox = box;
  }
  out.geospatial_types = in.geospatial_types;
  return out;
}

format::GeospatialStatistics GeospatialStatisticsToThrift(const GeospatialStatistics& in) {
  format::GeospatialStatistics out;
  if (in.bbox) {
    format::BoundingBox b;
    b.xmin = in.bbox->xmin;
    b.xmax = in.bbox->xmax;
    b.ymin = in.bbox->ymin;
    b.ymax = in.bbox->ymax;
    if (in.bbox->zmin) b.__set_zmin(*in.bbox->zmin);
    if (in.bbox->zmax) b.__set_zmax(*in.bbox->zmax);
    if (in.bbox->mmin) b.__set_mmin(*in.bbox->mmin);
    if (in.bbox->mmax) b.__set_mmax(*in.bbox->mmax);
    out.__set_bbox(b);
  }
  if (!in.geospatial_types.empty()) out.__set_geospatial_types(in.geospatial_types);
  return out;
}

// ---- schema ---------------------------------------------------------------------------------

Result<SchemaElement> SchemaElementFromThrift(const format::SchemaElement& in, size_t index) {
  SchemaElement out;
  if (!in.__isset.name) return Corrupt("{}: schema element {} has no name", kWhat, index);
  out.name = in.name;
  if (in.__isset.type) {
    auto type = static_cast<PhysicalType>(in.type);
    if (!IsKnownPhysicalType(type)) {
      return Corrupt("{}: schema element '{}' has invalid physical type {}", kWhat, in.name,
                     in.type);
    }
    out.type = type;
  }
  if (in.__isset.type_length) out.type_length = in.type_length;
  if (in.__isset.repetition_type) {
    if (in.repetition_type < 0 || in.repetition_type > 2) {
      return Corrupt("{}: schema element '{}' has invalid repetition type {}", kWhat, in.name,
                     in.repetition_type);
    }
    out.repetition_type = static_cast<FieldRepetitionType>(in.repetition_type);
  }
  if (in.__isset.num_children) {
    if (in.num_children < 0) {
      return Corrupt("{}: schema element '{}' has {} children", kWhat, in.name, in.num_children);
    }
    out.num_children = in.num_children;
  }
  if (in.__isset.converted_type) {
    out.converted_type = static_cast<ConvertedType>(in.converted_type);
  }
  if (in.__isset.scale) out.scale = in.scale;
  if (in.__isset.precision) out.precision = in.precision;
  if (in.__isset.field_id) out.field_id = in.field_id;
  if (in.__isset.logicalType) out.logical_type = internal::LogicalTypeFromThrift(in.logicalType);
  if (out.is_leaf() && index > 0 && out.type == PhysicalType::kFixedLenByteArray &&
      out.type_length.value_or(0) <= 0) {
    return Corrupt("{}: FIXED_LEN_BYTE_ARRAY column '{}' has no positive type_length", kWhat,
                   in.name);
  }
  return out;
}

format::SchemaElement SchemaElementToThrift(const SchemaElement& in) {
  format::SchemaElement out;
  out.name = in.name;
  if (in.type) out.__set_type(static_cast<int32_t>(*in.type));
  if (in.type_length) out.__set_type_length(*in.type_length);
  if (in.repetition_type) out.__set_repetition_type(static_cast<int32_t>(*in.repetition_type));
  if (in.num_children) out.__set_num_children(*in.num_children);
  if (in.converted_type) out.__set_converted_type(static_cast<int32_t>(*in.converted_type));
  if (in.scale) out.__set_scale(*in.scale);
  if (in.precision) out.__set_precision(*in.precision);
  if (in.field_id) out.__set_field_id(*in.field_id);
  if (in.logical_type) out.__set_logicalType(internal::LogicalTypeToThrift(*in.logical_type));
  return out;
}

// The schema list must be exactly one tree: every group's children follow it, nothing is left
// over. Returns the schema index of each leaf column, in order. Iterative: a corrupt
// num_children cannot overflow the stack.
Result<std::vector<size_t>> CheckSchemaTree(const std::vector<SchemaElement>& schema) {
  std::vector<size_t> leaves;
  std::vector<std::pair<size_t, int64_t>> open;  // (group index, children still to come)
  open.emplace_back(0, schema[0].num_children.value_or(0));
  size_t i = 1;
  while (!open.empty()) {
    if (open.back().second == 0) {
      open.pop_back();
      continue;
    }
    if (i >= schema.size()) {
      return Corrupt("{}: schema ends inside group '{}', which has {} more children", kWhat,
                     schema[open.back().first].name, open.back().second);
    }
    --open.back().second;
    const SchemaElement& e = schema[i];
    if (e.num_children.value_or(0) > 0) {
      open.emplace_back(i, *e.num_children);
    } else if (e.type) {
      leaves.push_back(i);
    }
    ++i;
  }
  if (i != schema.size()) {
    return Corrupt("{}: schema lists {} elements but its tree holds only the first {}", kWhat,
                   schema.size(), i);
  }
  return leaves;
}

// ---- column chunks --------------------------------------------------------------------------

Result<ColumnMetaData> ColumnMetaDataFromThrift(const format::ColumnMetaData& in,
                                                std::string_view where) {
  ColumnMetaData out;
  if (!in.__isset.type) return Corrupt("{}: {} has no physical type", kWhat, where);
  out.type = static_cast<PhysicalType>(in.type);
  if (!IsKnownPhysicalType(out.type)) {
    return Corrupt("{}: {} has invalid physical type {}", kWhat, where, in.type);
  }
  if (!in.__isset.codec) return Corrupt("{}: {} has no compression codec", kWhat, where);
  out.codec = static_cast<CompressionCodec>(in.codec);
  if (!in.__isset.num_values || in.num_values < 0) {
    return Corrupt("{}: {} has no valid num_values", kWhat, where);
  }
  out.num_values = in.num_values;
  if (!in.__isset.data_page_offset || in.data_page_offset < 0) {
    return Corrupt("{}: {} has no valid data_page_offset", kWhat, where);
  }
  out.data_page_offset = in.data_page_offset;
  if (!in.__isset.total_compressed_size || in.total_compressed_size < 0) {
    return Corrupt("{}: {} has no valid total_compressed_size", kWhat, where);
  }
  out.total_compressed_size = in.total_compressed_size;
  if (in.total_uncompressed_size < 0) {
    return Corrupt("{}: {} has negative total_uncompressed_size", kWhat, where);
  }
  out.total_uncompressed_size = in.total_uncompressed_size;
  out.encodings.reserve(in.encodings.size());
  for (int32_t e : in.encodings) out.encodings.push_back(static_cast<Encoding>(e));
  out.path_in_schema = in.path_in_schema;
  out.key_value_metadata = KeyValuesFromThrift(in.key_value_metadata);
  if (in.__isset.index_page_offset) out.index_page_offset = in.index_page_offset;
  if (in.__isset.dictionary_page_offset) {
    if (in.dictionary_page_offset < 0) {
      return Corrupt("{}: {} has negative dictionary_page_offset", kWhat, where);
    }
    out.dictionary_page_offset = in.dictionary_page_offset;
  }
  if (in.__isset.statistics) out.statistics = internal::FromThrift(in.statistics);
  for (const auto& s : in.encoding_stats) {
    out.encoding_stats.push_back(
        {static_cast<PageType>(s.page_type), static_cast<Encoding>(s.encoding), s.count});
  }
  if (in.__isset.bloom_filter_offset) {
    if (in.bloom_filter_offset < 0) {
      return Corrupt("{}: {} has negative bloom_filter_offset", kWhat, where);
    }
    out.bloom_filter_offset = in.bloom_filter_offset;
  }
  if (in.__isset.bloom_filter_length) {
    if (in.bloom_filter_length < 0) {
      return Corrupt("{}: {} has negative bloom_filter_length", kWhat, where);
    }
    out.bloom_filter_length = in.bloom_filter_length;
  }
  if (in.__isset.size_statistics) {
    out.size_statistics = SizeStatisticsFromThrift(in.size_statistics);
  }
  if (in.__isset.geospatial_statistics) {
    out.geospatial_statistics = GeospatialStatisticsFromThrift(in.geospatial_statistics);
  }
  return out;
}

format::ColumnMetaData ColumnMetaDataToThrift(const ColumnMetaData& in) {
  format::ColumnMetaData out;
  out.type = static_cast<int32_t>(in.type);
  out.encodings.reserve(in.encodings.size());
  for (Encoding e : in.encodings) out.encodings.push_back(static_cast<int32_t>(e));
  out.path_in_schema = in.path_in_schema;
  out.codec = static_cast<int32_t>(in.codec);
  out.num_values = in.num_values;
  out.total_uncompressed_size = in.total_uncompressed_size;
  out.total_compressed_size = in.total_compressed_size;
  if (!in.key_value_metadata.empty()) {
    out.__set_key_value_metadata(KeyValuesToThrift(in.key_value_metadata));
  }
  out.data_page_offset = in.data_page_offset;
  if (in.index_page_offset) out.__set_index_page_offset(*in.index_page_offset);
  if (in.dictionary_page_offset) out.__set_dictionary_page_offset(*in.dictionary_page_offset);
  if (in.statistics) out.__set_statistics(internal::ToThrift(*in.statistics));
  if (!in.encoding_stats.empty()) {
    std::vector<format::PageEncodingStats> stats;
    for (const auto& s : in.encoding_stats) {
      format::PageEncodingStats t;
      t.page_type = static_cast<int32_t>(s.page_type);
      t.encoding = static_cast<int32_t>(s.encoding);
      t.count = s.count;
      stats.push_back(t);
    }
    out.__set_encoding_stats(stats);
  }
  if (in.bloom_filter_offset) out.__set_bloom_filter_offset(*in.bloom_filter_offset);
  if (in.bloom_filter_length) out.__set_bloom_filter_length(*in.bloom_filter_length);
  if (in.size_statistics) out.__set_size_statistics(SizeStatisticsToThrift(*in.size_statistics));
  if (in.geospatial_statistics) {
    out.__set_geospatial_statistics(GeospatialStatisticsToThrift(*in.geospatial_statistics));
  }
  return out;
}

Result<ColumnChunk> ColumnChunkFromThrift(const format::ColumnChunk& in, const SchemaElement& leaf,
                                          size_t row_group, size_t column) {
  ColumnChunk out;
  std::string where = fmt::format("column '{}' of row group {}", leaf.name, row_group);
  if (in.__isset.file_path) out.file_path = in.file_path;
  out.file_offset = in.file_offset;
  out.encrypted = in.__isset.crypto_metadata || in.__isset.encrypted_column_metadata;
  if (in.__isset.meta_data) {
    FLOE_ASSIGN_OR_RETURN(out.meta_data, ColumnMetaDataFromThrift(in.meta_data, where));
    if (out.meta_data->type != *leaf.type) {
      return Corrupt("{}: {} is {} in the schema but {} in its ColumnMetaData", kWhat, where,
                     PhysicalTypeName(*leaf.type), PhysicalTypeName(out.meta_data->type));
    }
  } else if (!out.encrypted) {
    return Corrupt("{}: {} (chunk {}) has no ColumnMetaData", kWhat, where, column);
  }
  if (in.__isset.offset_index_offset) out.offset_index_offset = in.offset_index_offset;
  if (in.__isset.offset_index_length) out.offset_index_length = in.offset_index_length;
  if (in.__isset.column_index_offset) out.column_index_offset = in.column_index_offset;
  if (in.__isset.column_index_length) out.column_index_length = in.column_index_length;
  if (out.offset_index_offset.value_or(0) < 0 || out.offset_index_length.value_or(0) < 0 ||
      out.column_index_offset.value_or(0) < 0 || out.column_index_length.value_or(0) < 0) {
    return Corrupt("{}: {} has a negative page index offset or length", kWhat, where);
  }
  return out;
}

format::ColumnChunk ColumnChunkToThrift(const ColumnChunk& in) {
  format::ColumnChunk out;
  if (in.file_path) out.__set_file_path(*in.file_path);
  out.file_offset = in.file_offset;
  if (in.meta_data) out.__set_meta_data(ColumnMetaDataToThrift(*in.meta_data));
  if (in.offset_index_offset) out.__set_offset_index_offset(*in.offset_index_offset);
  if (in.offset_index_length) out.__set_offset_index_length(*in.offset_index_length);
  if (in.column_index_offset) out.__set_column_index_offset(*in.column_index_offset);
  if (in.column_index_length) out.__set_column_index_length(*in.column_index_length);
  return out;
}

// ---- row groups -----------------------------------------------------------------------------

Result<RowGroup> RowGroupFromThrift(const format::RowGroup& in,
                                    const std::vector<SchemaElement>& schema,
                                    const std::vector<size_t>& leaves, size_t index) {
  RowGroup out;
  if (!in.__isset.num_rows || in.num_rows < 0) {
    return Corrupt("{}: row group {} has no valid num_rows", kWhat, index);
  }
  out.num_rows = in.num_rows;
  if (in.columns.size() != leaves.size()) {
    return Corrupt("{}: row group {} has {} column chunks but the schema has {} columns", kWhat,
                   index, in.columns.size(), leaves.size());
  }
  out.columns.reserve(in.columns.size());
  for (size_t c = 0; c < in.columns.size(); ++c) {
    FLOE_ASSIGN_OR_RETURN(auto chunk,
                          ColumnChunkFromThrift(in.columns[c], schema[leaves[c]], index, c));
    out.columns.push_back(std::move(chunk));
  }
  out.total_byte_size = in.total_byte_size;
  for (const auto& s : in.sorting_columns) {
    out.sorting_columns.push_back({s.column_idx, s.descending, s.nulls_first});
  }
  if (in.__isset.file_offset) out.file_offset = in.file_offset;
  if (in.__isset.total_compressed_size) out.total_compressed_size = in.total_compressed_size;
  if (in.__isset.ordinal) out.ordinal = in.ordinal;
  return out;
}

format::RowGroup RowGroupToThrift(const RowGroup& in) {
  format::RowGroup out;
  out.columns.reserve(in.columns.size());
  for (const auto& c : in.columns) out.columns.push_back(ColumnChunkToThrift(c));
  out.total_byte_size = in.total_byte_size;
  out.num_rows = in.num_rows;
  if (!in.sorting_columns.empty()) {
    std::vector<format::SortingColumn> sorting;
    for (const auto& s : in.sorting_columns) {
      format::SortingColumn t;
      t.column_idx = s.column_idx;
      t.descending = s.descending;
      t.nulls_first = s.nulls_first;
      sorting.push_back(t);
    }
    out.__set_sorting_columns(sorting);
  }
  if (in.file_offset) out.__set_file_offset(*in.file_offset);
  if (in.total_compressed_size) out.__set_total_compressed_size(*in.total_compressed_size);
  if (in.ordinal) out.__set_ordinal(*in.ordinal);
  return out;
}

}  // namespace

int64_t ColumnMetaData::chunk_start() const {
  if (dictionary_page_offset && *dictionary_page_offset > 0 &&
      *dictionary_page_offset < data_page_offset) {
    return *dictionary_page_offset;
  }
  return data_page_offset;
}

int64_t FileMetaData::num_columns() const {
  int64_t n = 0;
  for (size_t i = 1; i < schema.size(); ++i) n += schema[i].is_leaf() ? 1 : 0;
  return n;
}

Result<FileMetaData> ParseFileMetaData(ByteView bytes) {
  format::FileMetaData in;
  FLOE_RETURN_IF_ERROR(internal::ReadThrift(bytes, &in, nullptr, kWhat));

  FileMetaData out;
  out.version = in.version;
  if (in.schema.empty()) return Corrupt("{}: the schema is missing or empty", kWhat);
  out.schema.reserve(in.schema.size());
  for (size_t i = 0; i < in.schema.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(auto element, SchemaElementFromThrift(in.schema[i], i));
    out.schema.push_back(std::move(element));
  }
  FLOE_ASSIGN_OR_RETURN(auto leaves, CheckSchemaTree(out.schema));

  if (!in.__isset.num_rows || in.num_rows < 0) {
    return Corrupt("{}: num_rows is missing or negative", kWhat);
  }
  out.num_rows = in.num_rows;
  if (!in.__isset.row_groups) return Corrupt("{}: the row group list is missing", kWhat);
  out.row_groups.reserve(in.row_groups.size());
  for (size_t r = 0; r < in.row_groups.size(); ++r) {
    FLOE_ASSIGN_OR_RETURN(auto rg, RowGroupFromThrift(in.row_groups[r], out.schema, leaves, r));
    out.row_groups.push_back(std::move(rg));
  }
  out.key_value_metadata = KeyValuesFromThrift(in.key_value_metadata);
  if (in.__isset.created_by) out.created_by = in.created_by;
  // A column order list of the wrong length cannot be matched to columns; without it min/max
  // are only used under the legacy rules, which is safe, so it is dropped rather than fatal.
  if (in.column_orders.size() == leaves.size()) {
    out.column_orders.reserve(in.column_orders.size());
    for (const auto& o : in.column_orders) {
      out.column_orders.push_back(o.__isset.TYPE_ORDER             ? ColumnOrder::kTypeDefinedOrder
                                  : o.__isset.IEEE_754_TOTAL_ORDER ? ColumnOrder::kIeee754TotalOrder
                                                                   : ColumnOrder::kUnrecognized);
    }
  }
  out.encrypted = in.__isset.encryption_algorithm;
  return out;
}

Result<std::vector<uint8_t>> SerializeFileMetaData(const FileMetaData& in) {
  format::FileMetaData out;
  out.version = in.version;
  out.schema.reserve(in.schema.size());
  for (const auto& e : in.schema) out.schema.push_back(SchemaElementToThrift(e));
  out.num_rows = in.num_rows;
  out.row_groups.reserve(in.row_groups.size());
  for (const auto& rg : in.row_groups) out.row_groups.push_back(RowGroupToThrift(rg));
  if (!in.key_value_metadata.empty()) {
    out.__set_key_value_metadata(KeyValuesToThrift(in.key_value_metadata));
  }
  if (in.created_by) out.__set_created_by(*in.created_by);
  if (!in.column_orders.empty()) {
    std::vector<format::ColumnOrder> orders;
    orders.reserve(in.column_orders.size());
    for (ColumnOrder o : in.column_orders) {
      format::ColumnOrder t;
      if (o == ColumnOrder::kTypeDefinedOrder) t.__set_TYPE_ORDER({});
      if (o == ColumnOrder::kIeee754TotalOrder) t.__set_IEEE_754_TOTAL_ORDER({});
      orders.push_back(t);
    }
    out.__set_column_orders(orders);
  }
  return internal::WriteThrift(out, kWhat);
}

}  // namespace floe::parquet
