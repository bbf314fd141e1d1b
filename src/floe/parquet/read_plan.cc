#include "floe/parquet/read_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "floe/parquet/metadata_checksum.h"
#include "floe/parquet/page_header.h"
#include "floe/parquet/page_index.h"
#include "floe/parquet/page_index_check.h"
#include "floe/parquet/row_selection.h"

namespace floe::parquet {

namespace {

std::unexpected<Error> InFile(std::string_view path, Error e) {
  e.message = fmt::format("parquet file '{}': {}", path, e.message);
  return std::unexpected(std::move(e));
}

// A copy of `node` holding only the selected subtrees (a selected node keeps all of its own);
// false when nothing below is selected. A map is kept whole when anything in it is selected.
bool Prune(const FieldNode& node, const std::set<const FieldNode*>& selected, FieldNode* out) {
  if (selected.count(&node)) {
    *out = node;
    return true;
  }
  if (node.kind == FieldNode::Kind::kLeaf) return false;
  std::vector<FieldNode> kept;
  for (const FieldNode& c : node.children) {
    FieldNode p;
    if (Prune(c, selected, &p)) kept.push_back(std::move(p));
  }
  if (kept.empty()) return false;
  if (node.kind == FieldNode::Kind::kMap) {
    *out = node;
    return true;
  }
  *out = node;
  out->children = std::move(kept);
  std::vector<columnar::Field> fields;
  out->leaves.clear();
  for (const FieldNode& c : out->children) {
    fields.push_back(c.field);
    out->leaves.insert(out->leaves.end(), c.leaves.begin(), c.leaves.end());
  }
  out->leaf = out->leaves.front();
  if (node.kind == FieldNode::Kind::kStruct) {
    out->field.type = columnar::Struct(std::move(fields));
  } else {
    out->field.type = columnar::List(fields.at(0));
  }
  return true;
}

Status Project(const PlanInput& in, const ReadOptions& options, ReadPlan* plan) {
  const ParquetSchema& schema = *in.schema;
  // Top-level field index -> selected nodes below it, with the order of first mention.
  std::vector<int> order;
  std::set<const FieldNode*> selected;
  auto select = [&](const FieldNode* node, int top) {
    selected.insert(node);
    if (std::find(order.begin(), order.end(), top) == order.end()) order.push_back(top);
  };
  auto top_of = [&](const FieldNode* node) {
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      const FieldNode& f = schema.fields()[i];
      if (node == &f || node->path.starts_with(f.path + ".")) return static_cast<int>(i);
    }
    return -1;
  };
  if (options.columns.empty() && options.field_ids.empty()) {
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      select(&schema.fields()[i], static_cast<int>(i));
    }
  }
  for (const std::string& name : options.columns) {
    const FieldNode* node = schema.FindPath(name);
    if (node == nullptr) {
      return NotFound("parquet file '{}' has no column '{}'", in.path, name);
    }
    select(node, top_of(node));
  }
  for (int32_t id : options.field_ids) {
    const FieldNode* node = schema.FindFieldId(id);
    if (node == nullptr) {
      return NotFound("parquet file '{}' has no field with id {}", in.path, id);
    }
    select(node, top_of(node));
  }
  auto fields = std::make_shared<columnar::Schema>();
  std::set<int> leaves;
  for (int top : order) {
    if (top < 0) return Internal("projected node outside the schema");
    if (const auto& err = schema.FieldError(top)) {
      Error e = *err;
      e.message = fmt::format("parquet file '{}': column '{}': {}", in.path,
                              schema.fields()[top].path, e.message);
      return std::unexpected(std::move(e));
    }
    FieldNode pruned;
    if (!Prune(schema.fields()[top], selected, &pruned)) continue;
    leaves.insert(pruned.leaves.begin(), pruned.leaves.end());
    fields->fields.push_back(pruned.field);
    plan->fields.push_back(std::move(pruned));
  }
  plan->schema = std::move(fields);
  plan->columns.assign(leaves.begin(), leaves.end());
  return {};
}

Status BindPredicates(const PlanInput& in, const ReadOptions& options, ReadPlan* plan) {
  const ParquetSchema& schema = *in.schema;
  for (const ColumnPredicate& p : options.predicates) {
    const FieldNode* node =
        p.field_id ? schema.FindFieldId(*p.field_id) : schema.FindPath(p.column);
    if (node == nullptr) {
      if (p.field_id) {
        return NotFound("parquet file '{}' has no field with id {} (predicate)", in.path,
                        *p.field_id);
      }
      return NotFound("parquet file '{}' has no column '{}' (predicate)", in.path, p.column);
    }
    if (node->kind != FieldNode::Kind::kLeaf) {
      return InvalidInput("parquet file '{}': predicate on '{}', which is not a primitive column",
                          in.path, node->path);
    }
    const ColumnDescriptor& leaf = schema.leaves()[node->leaf];
    auto bound = BindPredicate(p, leaf);
    if (!bound) return InFile(in.path, std::move(bound).error());
    plan->predicates.push_back(std::move(*bound));
    plan->predicate_columns.push_back(node->leaf);
  }
  return {};
}

// The chunk's byte range as declared, padded for writers that under-declare it.
ByteRange ChunkRange(const PlanInput& in, const ColumnMetaData& meta) {
  ByteRange r{meta.chunk_start(), meta.total_compressed_size};
  if (in.metadata->created_by && WriterUnderstatesChunkSize(*in.metadata->created_by)) {
    const int64_t room = static_cast<int64_t>(in.data_end) - r.end();
    r.length += std::clamp<int64_t>(room, 0, kChunkPadding);
  }
  return r;
}

// Intersection of two sorted, disjoint row range lists.
std::vector<RowRange> Intersect(const std::vector<RowRange>& a, const std::vector<RowRange>& b) {
  return IntersectRows(a, b);
}

void AddRange(std::vector<RowRange>* ranges, int64_t begin, int64_t end) {
  if (begin >= end) return;
  if (!ranges->empty() && ranges->back().end >= begin) {
    ranges->back().end = std::max(ranges->back().end, end);
  } else {
    ranges->push_back({begin, end});
  }
}

int64_t CountRows(const std::vector<RowRange>& ranges) {
  int64_t n = 0;
  for (const RowRange& r : ranges) n += r.end - r.begin;
  return n;
}

// Cuts the row selection after `limit` rows (in file order) and drops row groups past it.
void ApplyLimit(ReadPlan* plan) {
  if (plan->limit < 0) return;
  int64_t left = plan->limit;
  std::vector<RowGroupPlan> kept;
  for (RowGroupPlan& rg : plan->row_groups) {
    if (left == 0) break;
    std::vector<RowRange> rows;
    for (const RowRange& r : rg.rows) {
      if (left == 0) break;
      const int64_t n = std::min(left, r.end - r.begin);
      rows.push_back({r.begin, r.begin + n});
      left -= n;
    }
    rg.rows = std::move(rows);
    kept.push_back(std::move(rg));
  }
  plan->row_groups = std::move(kept);
}

std::string LeafPath(const PlanInput& in, int column) {
  return in.schema->leaves()[static_cast<size_t>(column)].path;
}

std::unexpected<Error> InChunk(const PlanInput& in, int row_group, int column, Error e) {
  e.message = fmt::format("parquet file '{}': column '{}' of row group {}: {}", in.path,
                          LeafPath(in, column), row_group, e.message);
  return std::unexpected(std::move(e));
}

// Notes a page index or statistics left unused because they broke a rule.
void Reject(const PlanInput& in, int row_group, int column, std::string_view what,
            std::string_view why, ReadPlan* plan) {
  ++plan->counts.metadata_rejected;
  if (plan->first_rejection.empty()) {
    plan->first_rejection =
        fmt::format("parquet file '{}': column '{}' of row group {}: {} not used: {}", in.path,
                    LeafPath(in, column), row_group, what, why);
  }
}

// The page indexes of the chunks of a plan's row groups, each parsed and checked once
// (page_index_check.h); one that breaks a rule is rejected (counted) and reads as absent.
class CheckedIndexes {
 public:
  CheckedIndexes(const PlanInput& in, const FetchedBytes& bytes, ReadPlan* plan)
      : in_(in), bytes_(bytes), plan_(plan) {}

  // The chunk's offset index, or null when it has none or it was rejected. An error only when
  // the plan's index ranges were not supplied.
  Result<const OffsetIndex*> Offsets(int row_group, int column) {
    auto [it, added] = offsets_.try_emplace({row_group, column});
    if (added) {
      const ColumnChunk& chunk = Chunk(row_group, column);
      if (!chunk.meta_data || !chunk.offset_index_offset || !chunk.offset_index_length ||
          *chunk.offset_index_length <= 0) {
        return nullptr;
      }
      FLOE_ASSIGN_OR_RETURN(
          Buffer b,
          bytes_.Get({*chunk.offset_index_offset, *chunk.offset_index_length}, "an offset index"));
      auto oi = ParseOffsetIndex(b.view());
      Status st = CheckRecordedCrc(row_group, column, false, b.view());
      if (st) {
        st = oi ? CheckOffsetIndex(*oi, Context(row_group, column))
                : Status(std::unexpected(oi.error()));
      }
      if (!st) {
        Reject(in_, row_group, column, "its page index", st.error().message, plan_);
        return nullptr;
      }
      it->second = std::move(*oi);
    }
    return it->second ? &*it->second : nullptr;
  }

  // The chunk's column index, checked against its offset index; null when either is absent or
  // was rejected.
  Result<const ColumnIndex*> Columns(int row_group, int column) {
    auto [it, added] = columns_.try_emplace({row_group, column});
    if (added) {
      const ColumnChunk& chunk = Chunk(row_group, column);
      if (!chunk.meta_data || !chunk.column_index_offset || !chunk.column_index_length ||
          *chunk.column_index_length <= 0) {
        return nullptr;
      }
      FLOE_ASSIGN_OR_RETURN(const OffsetIndex* oi, Offsets(row_group, column));
      if (oi == nullptr) return nullptr;
      FLOE_ASSIGN_OR_RETURN(
          Buffer b,
          bytes_.Get({*chunk.column_index_offset, *chunk.column_index_length}, "a column index"));
      auto ci = ParseColumnIndex(b.view());
      Status st = CheckRecordedCrc(row_group, column, true, b.view());
      if (st) {
        st = ci ? CheckColumnIndex(*ci, *oi, Context(row_group, column))
                : Status(std::unexpected(ci.error()));
      }
      if (!st) {
        Reject(in_, row_group, column, "its column index", st.error().message, plan_);
        return nullptr;
      }
      it->second = std::move(*ci);
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  // The CRC-32 floe's writer recorded for the index, where it recorded one.
  Status CheckRecordedCrc(int row_group, int column, bool column_index, ByteView bytes) const {
    auto want = RecordedIndexCrc(*in_.metadata, static_cast<size_t>(row_group),
                                 static_cast<size_t>(column), column_index);
    if (!want) return {};
    const uint32_t got = Crc32(bytes);
    if (got == *want) return {};
    return Corrupt("the CRC-32 of its {} is {:08x}, the footer records {:08x}",
                   column_index ? "column index" : "offset index", got, *want);
  }

  const ColumnChunk& Chunk(int row_group, int column) const {
    return in_.metadata->row_groups[static_cast<size_t>(row_group)]
        .columns[static_cast<size_t>(column)];
  }

  PageIndexContext Context(int row_group, int column) const {
    PageIndexContext c;
    c.leaf = &in_.schema->leaves()[static_cast<size_t>(column)];
    c.metadata = in_.metadata;
    c.meta = &*Chunk(row_group, column).meta_data;
    c.chunk = ChunkRange(in_, *c.meta);
    c.row_group_rows = in_.metadata->row_groups[static_cast<size_t>(row_group)].num_rows;
    return c;
  }

  const PlanInput& in_;
  const FetchedBytes& bytes_;
  ReadPlan* plan_;
  std::map<std::pair<int, int>, std::optional<OffsetIndex>> offsets_;
  std::map<std::pair<int, int>, std::optional<ColumnIndex>> columns_;
};

// A row group whose row count its columns disprove: a non-repeated leaf has one value (or null)
// per row, a repeated one at least one level per row. Such a row group would be read short or
// long without a word, so it is an error.
Status CheckRowCounts(const PlanInput& in, size_t r, const std::vector<int>& columns) {
  const RowGroup& rg = in.metadata->row_groups[r];
  if (rg.num_rows < 0) {
    return Corrupt("parquet file '{}': row group {} has {} rows", in.path, r, rg.num_rows);
  }
  for (int col : columns) {
    const ColumnChunk& chunk = rg.columns[static_cast<size_t>(col)];
    if (!chunk.meta_data) continue;
    const int64_t values = chunk.meta_data->num_values;
    const bool repeated = in.schema->leaves()[static_cast<size_t>(col)].max_rep > 0;
    if (repeated ? values < rg.num_rows : values != rg.num_rows) {
      return Corrupt("parquet file '{}': row group {} has {} rows, but column '{}' holds {} values",
                     in.path, r, rg.num_rows, LeafPath(in, col), values);
    }
  }
  return {};
}
}  // namespace

std::string_view RangeKindName(RangeKind kind) {
  switch (kind) {
    case RangeKind::kColumnChunk:
      return "column chunk";
    case RangeKind::kDictionaryPage:
      return "dictionary page";
    case RangeKind::kDataPage:
      return "data page";
    case RangeKind::kColumnIndex:
      return "column index";
    case RangeKind::kOffsetIndex:
      return "offset index";
  }
  return "?";
}

bool WriterUnderstatesChunkSize(std::string_view created_by) {
  // "parquet-mr version 1.2.8 (build ...)"; a bare "parquet-mr" carries no version and is
  // treated as old, as other readers do.
  constexpr std::string_view kApp = "parquet-mr";
  if (!created_by.starts_with(kApp)) return false;
  std::string_view rest = created_by.substr(kApp.size());
  constexpr std::string_view kVersion = " version ";
  if (!rest.starts_with(kVersion)) return true;
  rest.remove_prefix(kVersion.size());
  int parts[3] = {0, 0, 0};
  for (int& part : parts) {
    size_t n = 0;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') {
      part = part * 10 + (rest[n] - '0');
      if (part > 1000000) return false;
      ++n;
    }
    rest.remove_prefix(n);
    if (rest.starts_with(".")) {
      rest.remove_prefix(1);
    } else {
      break;
    }
  }
  const int fixed[3] = {1, 2, 9};
  return std::lexicographical_compare(parts, parts + 3, fixed, fixed + 3);
}

std::vector<PlannedRange> ReadPlan::IndexRanges() const {
  std::vector<PlannedRange> out;
  if (!index_pending) return out;
  for (const RowGroupPlan& rg : row_groups) out.insert(out.end(), rg.index.begin(), rg.index.end());
  std::sort(out.begin(), out.end(),
            [](const PlannedRange& a, const PlannedRange& b) { return a.range < b.range; });
  return out;
}

std::vector<PlannedRange> ReadPlan::DataRanges() const {
  std::vector<PlannedRange> out;
  for (const RowGroupPlan& rg : row_groups) {
    for (const ColumnChunkPlan& c : rg.columns) {
      if (!c.paged) {
        out.push_back({c.chunk, RangeKind::kColumnChunk, rg.row_group, c.column});
        continue;
      }
      if (c.dictionary) {
        out.push_back({*c.dictionary, RangeKind::kDictionaryPage, rg.row_group, c.column});
      }
      for (const PagePlan& p : c.pages) {
        out.push_back({p.range, RangeKind::kDataPage, rg.row_group, c.column});
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const PlannedRange& a, const PlannedRange& b) { return a.range < b.range; });
  return out;
}

int64_t EstimatedRowBytes(const ParquetSchema& schema, std::span<const int> leaves) {
  int64_t bytes = 0;
  for (int i : leaves) {
    const ColumnDescriptor& leaf = schema.leaves()[static_cast<size_t>(i)];
    if (leaf.max_def > 0) bytes += 2;
    if (leaf.max_rep > 0) bytes += 2;
    switch (leaf.conversion) {
      case ReadConversion::kBinary:
        bytes += 4 + 4 + 16;  // offset, dictionary code, value
        break;
      case ReadConversion::kBool:
      case ReadConversion::kNull:
        bytes += 1;
        break;
      default:
        bytes += std::max(1, leaf.type.FixedWidth());
    }
  }
  return bytes;
}

Result<ReadPlan> MakeReadPlan(const PlanInput& in, const ReadOptions& options) {
  if (in.metadata == nullptr || in.schema == nullptr) return Internal("plan without metadata");
  if (options.batch_rows <= 0) {
    return InvalidInput("batch size must be positive, not {}", options.batch_rows);
  }
  const FileMetaData& md = *in.metadata;
  ReadPlan plan;
  plan.limit = options.limit;
  plan.pages_for_mask = options.use_page_index && options.page_index_for_mask;
  plan.batch_rows = options.batch_rows;
  plan.verify_checksums = options.verify_checksums;
  FLOE_RETURN_IF_ERROR(Project(in, options, &plan));
  if (options.batch_bytes > 0) {
    const int64_t row_bytes = std::max<int64_t>(1, EstimatedRowBytes(*in.schema, plan.columns));
    const int64_t rows = options.batch_bytes / row_bytes / kMinBatchRows * kMinBatchRows;
    plan.batch_rows = std::min(plan.batch_rows, std::max(kMinBatchRows, rows));
  }
  FLOE_RETURN_IF_ERROR(BindPredicates(in, options, &plan));
  plan.counts.row_groups = static_cast<int>(md.row_groups.size());

  // The page index prunes with predicates, and with a limit it keeps the pages past the last
  // row out; otherwise it would only cost a step.
  const bool page_pruning = options.use_page_index && !plan.predicates.empty();
  const bool index_step =
      options.use_page_index && (page_pruning || plan.limit >= 0 || options.page_index_for_mask);
  std::vector<int> read_columns = plan.columns;
  read_columns.insert(read_columns.end(), plan.predicate_columns.begin(),
                      plan.predicate_columns.end());
  int64_t planned_rows = 0;
  for (size_t r = 0; r < md.row_groups.size(); ++r) {
    if (plan.limit >= 0 && planned_rows >= plan.limit && !page_pruning) break;
    const RowGroup& rg = md.row_groups[r];
    FLOE_RETURN_IF_ERROR(CheckRowCounts(in, r, read_columns));
    if (rg.num_rows == 0) continue;
    bool pruned = false;
    bool certain = !plan.predicates.empty();
    for (size_t p = 0; p < plan.predicates.size() && !pruned; ++p) {
      const int col = plan.predicate_columns[p];
      const ColumnChunk& chunk = rg.columns[static_cast<size_t>(col)];
      if (!chunk.meta_data) {
        certain = false;
        continue;
      }
      ValueBounds bounds = ChunkBounds(in.schema->leaves()[col], md, *chunk.meta_data);
      if (bounds.num_values != rg.num_rows) bounds.num_values = -1;  // only trust flat counts
      if (auto why = BoundsContradiction(bounds)) {
        Reject(in, static_cast<int>(r), col, "its statistics", *why, &plan);
        certain = false;
        continue;
      }
      pruned = CanSkip(plan.predicates[p], bounds);
      certain = certain && AllMatch(plan.predicates[p], bounds);
    }
    if (pruned) {
      ++plan.counts.row_groups_pruned_by_stats;
      continue;
    }
    RowGroupPlan rgp;
    rgp.row_group = static_cast<int>(r);
    rgp.num_rows = rg.num_rows;
    rgp.rows = {{0, rg.num_rows}};
    if (certain) rgp.certain = rgp.rows;
    for (int col : plan.columns) {
      const ColumnChunk& chunk = rg.columns[static_cast<size_t>(col)];
      const std::string& path = in.schema->leaves()[col].path;
      if (chunk.file_path) {
        return Unsupported("parquet file '{}': column '{}' of row group {} lives in file '{}'",
                           in.path, path, r, *chunk.file_path);
      }
      if (chunk.encrypted || !chunk.meta_data) {
        return Unsupported("parquet file '{}': column '{}' of row group {} is encrypted", in.path,
                           path, r);
      }
      ColumnChunkPlan c;
      c.column = col;
      c.chunk = ChunkRange(in, *chunk.meta_data);
      rgp.columns.push_back(std::move(c));
    }
    if (index_step) {
      std::set<std::pair<int, RangeKind>> added;
      auto add = [&](int col, RangeKind kind, std::optional<int64_t> off,
                     std::optional<int32_t> len) {
        if (!off || !len || *len <= 0 || !added.insert({col, kind}).second) return;
        rgp.index.push_back({ByteRange{*off, *len}, kind, rgp.row_group, col});
      };
      for (size_t p = 0; p < plan.predicates.size(); ++p) {
        const int col = plan.predicate_columns[p];
        const ColumnChunk& chunk = rg.columns[static_cast<size_t>(col)];
        if (chunk.column_index_offset && chunk.offset_index_offset) {
          add(col, RangeKind::kColumnIndex, chunk.column_index_offset, chunk.column_index_length);
          add(col, RangeKind::kOffsetIndex, chunk.offset_index_offset, chunk.offset_index_length);
        }
      }
      for (int col : plan.columns) {
        const ColumnChunk& chunk = rg.columns[static_cast<size_t>(col)];
        add(col, RangeKind::kOffsetIndex, chunk.offset_index_offset, chunk.offset_index_length);
      }
      if (!rgp.index.empty()) plan.index_pending = true;
    }
    planned_rows += rg.num_rows;
    plan.row_groups.push_back(std::move(rgp));
  }
  if (!plan.index_pending) {
    ApplyLimit(&plan);
    for (RowGroupPlan& rgp : plan.row_groups) rgp.certain = Intersect(rgp.certain, rgp.rows);
    for (const RowGroupPlan& rg : plan.row_groups) plan.counts.rows += CountRows(rg.rows);
  }
  return plan;
}

Status ApplyPageIndex(const PlanInput& in, const FetchedBytes& bytes, ReadPlan* plan) {
  if (!plan->index_pending) return {};
  const FileMetaData& md = *in.metadata;
  CheckedIndexes indexes(in, bytes, plan);
  auto in_rg = [&](int row_group, Error e) {
    e.message = fmt::format("parquet file '{}', row group {}: {}", in.path, row_group, e.message);
    return std::unexpected(std::move(e));
  };
  std::vector<RowGroupPlan> kept;
  for (RowGroupPlan& rgp : plan->row_groups) {
    // Rows the predicates' column indexes leave possible, and those they prove match.
    std::vector<RowRange> rows = rgp.rows;
    std::vector<RowRange> certain = rgp.rows;
    const std::vector<RowRange> chunk_certain = rgp.certain;
    for (size_t p = 0; p < plan->predicates.size(); ++p) {
      const int col = plan->predicate_columns[p];
      auto ci = indexes.Columns(rgp.row_group, col);
      if (!ci) return in_rg(rgp.row_group, std::move(ci).error());
      if (*ci == nullptr) {
        // Nothing known per page: only the chunk's statistics prove rows match.
        certain = Intersect(certain, chunk_certain);
        continue;
      }
      auto oi = indexes.Offsets(rgp.row_group, col);
      if (!oi) return in_rg(rgp.row_group, std::move(oi).error());
      const ColumnDescriptor& leaf = in.schema->leaves()[col];
      std::vector<ValueBounds> bounds = PageBounds(leaf, md, **ci);
      std::vector<RowRange> possible, all_match;
      for (size_t i = 0; i < bounds.size(); ++i) {
        const int64_t first = (*oi)->page_locations[i].first_row_index;
        const int64_t n = (*oi)->PageRows(i, rgp.num_rows);
        if (leaf.max_def <= 1 && leaf.max_rep == 0) bounds[i].num_values = n;
        if (leaf.max_def == 0 && !bounds[i].null_count) bounds[i].null_count = 0;  // required
        if (!CanSkip(plan->predicates[p], bounds[i])) AddRange(&possible, first, first + n);
        if (AllMatch(plan->predicates[p], bounds[i])) AddRange(&all_match, first, first + n);
      }
      rows = Intersect(rows, possible);
      // The chunk's statistics prove every row (or none): the pages can only add to none.
      certain = Intersect(certain, chunk_certain.empty() ? all_match : chunk_certain);
    }
    if (rows.empty()) {
      ++plan->counts.row_groups_pruned_by_page_index;
      continue;
    }
    rgp.rows = std::move(rows);
    rgp.certain = plan->predicates.empty() ? std::vector<RowRange>{} : certain;
    kept.push_back(std::move(rgp));
  }
  plan->row_groups = std::move(kept);
  plan->index_pending = false;
  ApplyLimit(plan);
  for (RowGroupPlan& rgp : plan->row_groups) rgp.certain = Intersect(rgp.certain, rgp.rows);

  // Keep, per projected chunk with a usable offset index, the pages holding selected rows.
  for (RowGroupPlan& rgp : plan->row_groups) {
    for (ColumnChunkPlan& c : rgp.columns) {
      auto oi = indexes.Offsets(rgp.row_group, c.column);
      if (!oi) return in_rg(rgp.row_group, std::move(oi).error());
      if (*oi == nullptr) continue;
      const auto& locs = (*oi)->page_locations;
      std::vector<PagePlan> pages;
      size_t r = 0;
      for (size_t i = 0; i < locs.size(); ++i) {
        const int64_t first = locs[i].first_row_index;
        const int64_t end = first + (*oi)->PageRows(i, rgp.num_rows);
        while (r < rgp.rows.size() && rgp.rows[r].end <= first) ++r;
        if (r < rgp.rows.size() && rgp.rows[r].begin < end) {
          pages.push_back(
              {ByteRange{locs[i].offset, locs[i].compressed_page_size}, first, end - first});
        }
      }
      c.total_pages = static_cast<int64_t>(locs.size());
      plan->counts.pages += c.total_pages;
      plan->counts.pages_skipped += c.total_pages - static_cast<int64_t>(pages.size());
      if (pages.size() == locs.size() && !plan->pages_for_mask) {
        // Every page: read the chunk as one range. The rows chosen still rest on the index
        // when a predicate used it, so its pages are checked against their headers.
        const bool chose_rows =
            std::find(plan->predicate_columns.begin(), plan->predicate_columns.end(), c.column) !=
            plan->predicate_columns.end();
        if (chose_rows) c.indexed_pages = std::move(pages);
        continue;
      }
      c.paged = true;
      if (c.chunk.offset < locs[0].offset) {
        c.dictionary = ByteRange{c.chunk.offset, locs[0].offset - c.chunk.offset};
      }
      c.pages = std::move(pages);
    }
  }
  plan->counts.rows = 0;
  for (const RowGroupPlan& rg : plan->row_groups) plan->counts.rows += CountRows(rg.rows);
  return {};
}

Status VerifyPageIndex(const PlanInput& in, const FetchedBytes& bytes, const ReadPlan& plan) {
  for (const RowGroupPlan& rgp : plan.row_groups) {
    for (const ColumnChunkPlan& c : rgp.columns) {
      const ColumnDescriptor& leaf = in.schema->leaves()[static_cast<size_t>(c.column)];
      auto check = [&](const PagePlan& p) -> Status {
        FLOE_ASSIGN_OR_RETURN(Buffer b, bytes.Get(p.range, "a data page"));
        return CheckPageAgainstIndex(
            b.view(),
            PageLocation{p.range.offset, static_cast<int32_t>(p.range.length), p.first_row},
            p.num_rows, leaf);
      };
      Status st;
      if (c.paged && c.dictionary) {
        // The dictionary is read as the bytes before the first indexed page: they must be
        // exactly one dictionary page.
        auto d = bytes.Get(*c.dictionary, "the dictionary page");
        if (!d) return InChunk(in, rgp.row_group, c.column, std::move(d).error());
        size_t header_len = 0;
        auto h = ParsePageHeader(d->view(), &header_len);
        if (!h || h->type != PageType::kDictionaryPage ||
            static_cast<int64_t>(header_len) + h->compressed_page_size != c.dictionary->length) {
          st = Corrupt(
              "page index: the {} bytes before the first indexed page are not one dictionary "
              "page",
              c.dictionary->length);
        }
      }
      for (size_t i = 0; st && i < c.pages.size(); ++i) st = check(c.pages[i]);
      for (size_t i = 0; st && i < c.indexed_pages.size(); ++i) st = check(c.indexed_pages[i]);
      if (!st) return InChunk(in, rgp.row_group, c.column, std::move(st).error());
    }
  }
  return {};
}

}  // namespace floe::parquet
