#include "floe/iceberg/data_writer.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <future>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/base/parallel_for.h"
#include "floe/base/thread_pool.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/metrics.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/row_order.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/table_properties.h"
#include "floe/iceberg/transform_column.h"
#include "floe/layout/file_cutter.h"
#include "floe/layout/partition_split.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

Result<parquet::CompressionCodec> CodecByName(std::string name) {
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (name == "zstd") return parquet::CompressionCodec::kZstd;
  if (name == "snappy") return parquet::CompressionCodec::kSnappy;
  if (name == "gzip") return parquet::CompressionCodec::kGzip;
  if (name == "uncompressed" || name == "none") return parquet::CompressionCodec::kUncompressed;
  if (name == "lz4" || name == "lz4_raw") return parquet::CompressionCodec::kLz4Raw;
  if (name == "brotli") return parquet::CompressionCodec::kBrotli;
  return InvalidInput(
      "write.parquet.compression-codec '{}' is not one of zstd, snappy, gzip, lz4, brotli, "
      "uncompressed",
      name);
}

}  // namespace

Result<parquet::WriterOptions> ParquetOptionsFor(const TableMetadata& m) {
  // Every value read below parses and lies in its range once this holds.
  FLOE_RETURN_IF_ERROR(ValidateTableProperties(m.properties));
  parquet::WriterOptions o;
  o.row_group_size_bytes =
      m.PropertyInt("write.parquet.row-group-size-bytes", o.row_group_size_bytes);
  o.page_size_bytes = m.PropertyInt("write.parquet.page-size-bytes", o.page_size_bytes);
  o.page_row_limit = m.PropertyInt("write.parquet.page-row-limit", o.page_row_limit);
  o.dictionary_size_limit = m.PropertyInt("write.parquet.dict-size-bytes", o.dictionary_size_limit);
  FLOE_ASSIGN_OR_RETURN(o.codec,
                        CodecByName(m.Property("write.parquet.compression-codec", "zstd")));
  if (auto it = m.properties.find("write.parquet.compression-level"); it != m.properties.end()) {
    o.compression_level = static_cast<int>(m.PropertyInt("write.parquet.compression-level", 3));
  }
  if (auto rows = m.PropertyInt("write.parquet.row-group-row-limit", 0); rows > 0)
    o.row_group_row_limit = rows;
  const std::string prefix = "write.parquet.bloom-filter-enabled.column.";
  for (const auto& [k, v] : m.properties) {
    if (k.starts_with(prefix) && v == "true") {
      parquet::BloomFilterColumn b;
      b.path = k.substr(prefix.size());
      auto fpp = m.Property("write.parquet.bloom-filter-fpp.column." + b.path, "");
      if (!fpp.empty()) std::from_chars(fpp.data(), fpp.data() + fpp.size(), b.fpp);
      o.bloom_filter_columns.push_back(b);
    }
  }
  o.bloom_filter_max_bytes =
      m.PropertyInt("write.parquet.bloom-filter-max-bytes", o.bloom_filter_max_bytes);
  // floe's own layout property (other engines ignore it): see WriterOptions::colocated_columns.
  const std::string colocated_list = m.Property(kColocatedColumnsProperty, "");
  std::string_view colocated = colocated_list;
  while (!colocated.empty()) {
    const size_t comma = colocated.find(',');
    std::string_view name = colocated.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) {
      if (m.CurrentSchema().FindByName(name) == nullptr)
        return InvalidInput("table property {}: no column '{}'", kColocatedColumnsProperty, name);
      o.colocated_columns.emplace_back(name);
    }
    colocated = comma == std::string_view::npos ? "" : colocated.substr(comma + 1);
  }
  for (const auto& f : m.CurrentSchema().fields()) {
    if (f.type->id == TypeId::kUuid) o.uuid_field_ids.push_back(f.id);
  }
  return o;
}

// From this many rows, a sorted or clustered write of one group puts its rows in order at once.
constexpr int64_t kReorderOnceRows = int64_t{1} << 20;

Result<int64_t> RowsPerFileAtTarget(const TableMetadata& m, const c::RecordBatch& rows,
                                    ThreadPool* pool) {
  return RowsPerFileAtTarget(m, std::vector<c::RecordBatch>{rows}, pool);
}

Result<int64_t> RowsPerFileAtTarget(const TableMetadata& m,
                                    const std::vector<c::RecordBatch>& parts, ThreadPool* pool) {
  int64_t total = 0;
  for (const c::RecordBatch& b : parts) total += b.num_rows;
  if (total == 0) return InvalidInput("no rows to measure a row's Parquet bytes on");
  FLOE_ASSIGN_OR_RETURN(parquet::WriterOptions popts, ParquetOptionsFor(m));
  popts.pool = pool;  // the sample's columns encode at once
  const int64_t target = m.PropertyInt("write.target-file-size-bytes", int64_t{512} << 20);
  // Rows i * total / n of the parts' rows one after the other, taken part by part.
  const int64_t n = std::min<int64_t>(total, 50000);
  std::vector<c::RecordBatch> taken;
  int64_t i = 0;
  int64_t base = 0;
  for (const c::RecordBatch& b : parts) {
    std::vector<int64_t> idx;
    for (; i < n && i * total / n < base + b.num_rows; ++i) idx.push_back(i * total / n - base);
    base += b.num_rows;
    if (idx.empty()) continue;
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch some, c::Take(b, idx));
    taken.push_back(std::move(some));
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch sample, c::Concatenate(taken));
  parquet::MemorySink sink;
  FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(sample.schema, &sink, popts));
  FLOE_RETURN_IF_ERROR(writer->Write(sample));
  FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, writer->Close());
  const double per_row = static_cast<double>(written.file_size) / static_cast<double>(n);
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(target) / per_row));
}

TableDataWriter::TableDataWriter(Table table, const FileIO& io)
    : table_(std::move(table)), io_(io) {}

Status TableDataWriter::Write(const c::RecordBatch& batch) {
  // Conformed even when empty: a 0-row input of an unrelated schema is an error too.
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed,
                        ConformToSchema(batch, table_.metadata.CurrentSchema()));
  if (conformed.num_rows == 0) return {};
  rows_ += conformed.num_rows;
  batches_.push_back(std::move(conformed));
  return {};
}

Status TableDataWriter::WriteInPartition(const c::RecordBatch& batch, int32_t spec_id,
                                         const std::vector<Literal>& partition,
                                         std::optional<std::vector<int64_t>> rows) {
  const TableMetadata& m = table_.metadata;
  if (spec_id != m.DefaultSpec().spec_id() || m.properties.contains(std::string(kLayoutProperty))) {
    if (!rows) return Write(batch);
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch taken, c::Take(batch, *rows));
    return Write(taken);
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed, ConformToSchema(batch, m.CurrentSchema()));
  BatchRows b{std::move(conformed), std::move(rows)};
  if (b.rows && static_cast<int64_t>(b.rows->size()) == b.batch.num_rows) b.rows.reset();
  if (b.size() == 0) return {};
  rows_ += b.size();
  InPartition& part = in_partition_[m.DefaultSpec().PartitionPath(partition)];
  if (part.batches.empty()) part.values = partition;
  part.batches.push_back(std::move(b));
  return {};
}

Result<std::vector<DataFile>> TableDataWriter::Finish() {
  std::vector<DataFile> files;
  if (batches_.empty() && in_partition_.empty()) return files;
  const TableMetadata& m = table_.metadata;
  const Schema& schema = m.CurrentSchema();
  const PartitionSpec& spec = m.DefaultSpec();
  const SortOrder& order = m.DefaultSortOrder();
  // Within each partition the rows in the table's sort order (one key column per sort field) --
  // or, when the table declares a layout (floe.layout = zorder(a, b) or hilbert(a, b)), clustered
  // by it instead; its files then claim no sort order.
  // An OTree layout (floe.layout = otree(a, b)) makes the files themselves: each a cube or a
  // group of small ones (otree_index.h).
  std::optional<layout::ClusterSpec> cluster;
  FLOE_ASSIGN_OR_RETURN(std::optional<layout::ClusterSpec> otree, OTreeLayoutOf(m));
  if (auto it = m.properties.find(std::string(kLayoutProperty));
      it != m.properties.end() && !otree) {
    FLOE_ASSIGN_OR_RETURN(layout::ClusterSpec parsed, layout::ParseClusterSpec(it->second));
    FLOE_ASSIGN_OR_RETURN(cluster, ResolveClusterSpec(parsed, schema, spec));
  }
  // A write that puts all its rows in a new order at once (an OTree's files; one unpartitioned
  // group clustered or sorted, of many rows) moves them once from the written batches into that
  // order (columnar::Scatter, Permute): `all` is then, until they move, the columns that decide
  // the order alone -- concatenating every column first would copy all the rows once more.
  std::vector<c::RecordBatch> unmoved;
  const std::vector<std::string> key_names = OrderColumnNames(otree     ? &*otree
                                                              : cluster ? &*cluster
                                                                        : nullptr,
                                                              order, schema);
  const bool reorder_all =
      in_partition_.empty() && batches_.size() > 1 && spec.fields().empty() && !key_names.empty() &&
      (otree || rows_ >= kReorderOnceRows) &&
      std::all_of(key_names.begin(), key_names.end(),
                  [&](const std::string& k) { return batches_[0].schema->IndexOf(k).has_value(); });
  c::RecordBatch all;
  if (reorder_all) {
    FLOE_ASSIGN_OR_RETURN(all,
                          c::ConcatenateNamed(batches_, key_names, &io_.runtime().decode_pool()));
    unmoved = std::move(batches_);
  } else if (!batches_.empty()) {
    FLOE_ASSIGN_OR_RETURN(all, c::Concatenate(batches_, &io_.runtime().decode_pool()));
  } else {
    // Every row came by partition: `all` is none of them, with their columns.
    FLOE_ASSIGN_OR_RETURN(all, c::Take(in_partition_.begin()->second.batches.front().batch, {}));
  }
  batches_.clear();
  FLOE_ASSIGN_OR_RETURN(parquet::WriterOptions popts, ParquetOptionsFor(m));
  popts.pool = &io_.runtime().decode_pool();  // a file's columns encode at once
  const int64_t target = m.PropertyInt("write.target-file-size-bytes", int64_t{512} << 20);

  // Partition values as columns, the rows grouped by them (layout/partition_split.h), the groups
  // in partition-path order so that files come out deterministic.
  std::vector<c::ColumnPtr> pkeys;
  std::vector<TypePtr> ptypes;
  for (const auto& pf : spec.fields()) {
    std::string name = schema.NameOf(pf.source_id);
    auto idx = all.schema->IndexOf(name);
    if (!idx) return Unsupported("partition source '{}' is not a top-level column", name);
    const Type& source = *schema.FindById(pf.source_id)->type;
    FLOE_ASSIGN_OR_RETURN(c::ColumnPtr key,
                          TransformColumn(pf.transform, all.columns[*idx], source));
    FLOE_ASSIGN_OR_RETURN(TypePtr type, pf.transform.ResultType(source));
    pkeys.push_back(std::move(key));
    ptypes.push_back(std::move(type));
  }
  std::vector<const c::Column*> key_view;
  key_view.reserve(pkeys.size());
  for (const auto& k : pkeys) key_view.push_back(k.get());
  FLOE_ASSIGN_OR_RETURN(std::vector<layout::RowGroupOfKey> split,
                        layout::SplitByKeys(key_view, all.num_rows));
  struct Group {
    std::string path;
    std::vector<Literal> values;
    std::vector<int64_t> rows;  // of `all`
    // WriteInPartition's rows of the partition, before those of `all`.
    std::vector<BatchRows> in_partition;
  };
  std::vector<Group> groups;
  for (auto& g : split) {
    Group out;
    for (size_t i = 0; i < pkeys.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Literal v, LiteralAt(*pkeys[i], g.first_row, *ptypes[i]));
      out.values.push_back(std::move(v));
    }
    out.path = spec.PartitionPath(out.values);
    out.rows = std::move(g.rows);
    groups.push_back(std::move(out));
  }
  for (auto& [path, part] : in_partition_) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.path == path; });
    if (it == groups.end()) {
      groups.push_back(Group{path, std::move(part.values), {}, {}});
      it = groups.end() - 1;
    }
    it->in_partition = std::move(part.batches);
  }
  in_partition_.clear();
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& x, const Group& y) { return x.path < y.path; });

  std::optional<OTreeWritePlan> otree_plan;
  if (otree) {
    // A new revision's rows per file when the table names none: the target file size over the
    // bytes a row takes in Parquet, measured on an evenly spread sample of this write.
    auto rows_per_file = [&]() {
      return unmoved.empty() ? RowsPerFileAtTarget(m, all, &io_.runtime().decode_pool())
                             : RowsPerFileAtTarget(m, unmoved, &io_.runtime().decode_pool());
    };
    if (planned_otree_) {
      FLOE_ASSIGN_OR_RETURN(otree_plan, LayOutPlannedOTree(*planned_otree_, all));
    } else {
      FLOE_ASSIGN_OR_RETURN(otree_plan, PlanOTreeWrite(io_, m, *otree, all, otree_reindex_,
                                                       otree_replacing_, rows_per_file));
    }
  }
  // The OTree's files' rows, file after file, moved once into that order (every file's rows
  // then a range of `all`): taking each file's rows from `all` would read all of it at random
  // once per file.
  std::vector<int64_t> otree_file_starts;
  if (otree_plan) {
    std::vector<int64_t> dest(static_cast<size_t>(all.num_rows), -1);
    int64_t at = 0;
    bool permutation = true;
    for (const std::vector<int64_t>& rows : otree_plan->file_rows) {
      otree_file_starts.push_back(at);
      for (int64_t r : rows) {
        if (r < 0 || r >= all.num_rows || dest[static_cast<size_t>(r)] >= 0) {
          permutation = false;
          break;
        }
        dest[static_cast<size_t>(r)] = at++;
      }
      if (!permutation) break;
    }
    if (permutation && at == all.num_rows) {
      if (unmoved.empty()) {
        FLOE_ASSIGN_OR_RETURN(all, c::Scatter(std::move(all), dest, &io_.runtime().decode_pool()));
      } else {
        FLOE_ASSIGN_OR_RETURN(all,
                              c::Scatter(std::move(unmoved), dest, &io_.runtime().decode_pool()));
        unmoved.clear();
      }
      otree_file_starts.push_back(at);
    } else {
      otree_file_starts.clear();  // some rows in no file or in two: each file takes its own
    }
  }
  FLOE_ASSIGN_OR_RETURN(SortKeyColumns sort_keys,
                        SortKeysOf(all, schema, cluster || otree ? SortOrder() : order));
  const std::vector<layout::SortColumn> sort_view = sort_keys.View();

  // One partition's rows as Parquet files in memory, cut at the target size by the file cutter,
  // which learns the columns' compression file by file within the partition. Partitions encode
  // at once on the runtime's decode pool (the work is all CPU); each starts from the same options,
  // so the files come out the same however the threads interleave.
  const layout::FileCutter cutter(target);
  struct Encoded {
    parquet::WrittenFile written;
    std::shared_ptr<Buffer> bytes;
    std::shared_ptr<const OTreeFileEntry> otree;
  };
  ThreadPool& pool = io_.runtime().decode_pool();
  // One group holding every row, sorted or clustered: the rows are put in order once (a
  // permutation of many rows goes in two passes, columnar::Take), so each file's rows are then a
  // range of `all` -- not a gather from the whole batch for every file.
  bool in_order = false;
  if (!otree_plan && groups.size() == 1 && groups[0].in_partition.empty() &&
      (cluster || !sort_view.empty()) &&
      static_cast<int64_t>(groups[0].rows.size()) == all.num_rows &&
      (all.num_rows >= kReorderOnceRows || !unmoved.empty())) {
    Group& g = groups[0];
    if (cluster) {
      FLOE_RETURN_IF_ERROR(ClusterRows(all, *cluster, &g.rows, &pool));
    } else {
      FLOE_RETURN_IF_ERROR(layout::SortRows(sort_view, &g.rows));
    }
    if (unmoved.empty()) {
      FLOE_ASSIGN_OR_RETURN(all, c::Take(all, g.rows, &pool));
    } else {
      FLOE_ASSIGN_OR_RETURN(all, c::Permute(std::move(unmoved), g.rows, &pool));
      unmoved.clear();
    }
    std::iota(g.rows.begin(), g.rows.end(), int64_t{0});
    in_order = true;
  }
  if (!unmoved.empty()) {
    // Not moved after all (an OTree plan that is no permutation): every row, as they came.
    FLOE_ASSIGN_OR_RETURN(all, c::Concatenate(unmoved, &pool));
    unmoved.clear();
  }
  auto encode = [&all, &popts, &cutter, &sort_view, &cluster, &otree_plan, &otree_file_starts,
                 &pool, &schema, &order, in_order](Group& group) -> Result<std::vector<Encoded>> {
    std::vector<Encoded> out;
    parquet::WriterOptions o = popts;
    if (otree_plan) {
      // The OTree's files as planned (an OTree table is unpartitioned: this is every row), each
      // carrying its cubes in its key-value metadata.
      // The files encode at once on the pool (an OTree table is one partition: this runs on the
      // caller's thread, never inside a pool task).
      std::vector<Result<Encoded>> files(otree_plan->file_rows.size());
      ParallelFor(pool, files.size(), [&](size_t f) {
        files[f] = [&]() -> Result<Encoded> {
          parquet::WriterOptions fo = o;
          fo.pool = nullptr;  // the files are what runs at once here
          for (auto& [k, v] : otree_plan->entries[f]->info.KeyValues())
            fo.key_value_metadata.push_back({k, v});
          parquet::MemorySink sink;
          FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(all.schema, &sink, fo));
          if (otree_file_starts.empty()) {
            FLOE_ASSIGN_OR_RETURN(c::RecordBatch slice, c::Take(all, otree_plan->file_rows[f]));
            FLOE_RETURN_IF_ERROR(writer->Write(slice));
          } else {
            FLOE_RETURN_IF_ERROR(writer->Write(all, otree_file_starts[f],
                                               otree_file_starts[f + 1] - otree_file_starts[f]));
          }
          FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, writer->Close());
          return Encoded{std::move(written), std::make_shared<Buffer>(sink.ToBuffer()),
                         otree_plan->entries[f]};
        }();
      });
      for (Result<Encoded>& f : files) {
        if (!f) return std::unexpected(f.error());
        out.push_back(std::move(*f));
      }
      (void)group;
      return out;
    }
    // The group's rows in order, as pieces: WriteInPartition's batches (whole, or their rows by
    // number), then rows of `all` by number. Sorted or clustered, the batches are gathered with
    // those rows first.
    struct Piece {
      const c::RecordBatch* batch;
      const std::vector<int64_t>* rows;  // null: every row of the batch
    };
    std::vector<Piece> pieces;
    c::RecordBatch gathered;
    std::vector<int64_t> gathered_rows;
    const bool ordered = cluster || !sort_view.empty();
    if (ordered && !group.in_partition.empty()) {
      std::vector<c::RecordBatch> parts;
      for (BatchRows& b : group.in_partition) {
        if (!b.rows) {
          parts.push_back(std::move(b.batch));
          continue;
        }
        FLOE_ASSIGN_OR_RETURN(c::RecordBatch taken, c::Take(b.batch, *b.rows, &pool));
        parts.push_back(std::move(taken));
      }
      group.in_partition.clear();
      if (!group.rows.empty()) {
        FLOE_ASSIGN_OR_RETURN(c::RecordBatch rest, c::Take(all, group.rows, &pool));
        parts.push_back(std::move(rest));
      }
      FLOE_ASSIGN_OR_RETURN(gathered, c::Concatenate(parts));
      gathered_rows.resize(static_cast<size_t>(gathered.num_rows));
      for (size_t i = 0; i < gathered_rows.size(); ++i) gathered_rows[i] = static_cast<int64_t>(i);
      if (cluster) {
        FLOE_RETURN_IF_ERROR(ClusterRows(gathered, *cluster, &gathered_rows, &pool));
      } else {
        FLOE_ASSIGN_OR_RETURN(SortKeyColumns keys, SortKeysOf(gathered, schema, order));
        FLOE_RETURN_IF_ERROR(layout::SortRows(keys.View(), &gathered_rows));
      }
      pieces.push_back({&gathered, &gathered_rows});
    } else {
      if (in_order) {
        // put in order above
      } else if (cluster) {
        FLOE_RETURN_IF_ERROR(ClusterRows(all, *cluster, &group.rows, &pool));
      } else if (!sort_view.empty()) {
        FLOE_RETURN_IF_ERROR(layout::SortRows(sort_view, &group.rows));
      }
      for (const BatchRows& b : group.in_partition) {
        pieces.push_back({&b.batch, b.rows ? &*b.rows : nullptr});
      }
      if (!group.rows.empty()) pieces.push_back({&all, &group.rows});
    }
    auto size_of = [](const Piece& p) {
      return p.rows != nullptr ? static_cast<int64_t>(p.rows->size()) : p.batch->num_rows;
    };
    int64_t rows = 0;
    for (const Piece& p : pieces) rows += size_of(p);
    // Slices sized by the cutter, taken from the pieces: a whole batch as it is, rows by number
    // copied once.
    size_t piece = 0;
    int64_t offset = 0;  // into pieces[piece]
    auto write_rows = [&](parquet::ParquetWriter& writer, int64_t n) -> Status {
      while (n > 0) {
        const Piece& p = pieces[piece];
        const int64_t size = size_of(p);
        const int64_t take = std::min(n, size - offset);
        // A run of consecutive rows is written from the batch as it is.
        const int64_t first = p.rows != nullptr ? (*p.rows)[static_cast<size_t>(offset)] : offset;
        bool run = p.rows == nullptr;
        for (int64_t i = 1; !run && i < take; ++i) {
          if ((*p.rows)[static_cast<size_t>(offset + i)] != first + i) break;
          run = i + 1 == take;
        }
        run = run || take == 1;
        if (run) {
          FLOE_RETURN_IF_ERROR(writer.Write(*p.batch, first, take));
        } else {
          std::vector<int64_t> idx(static_cast<size_t>(take));
          for (int64_t i = 0; i < take; ++i) {
            idx[static_cast<size_t>(i)] =
                p.rows != nullptr ? (*p.rows)[static_cast<size_t>(offset + i)] : offset + i;
          }
          FLOE_ASSIGN_OR_RETURN(c::RecordBatch slice, c::Take(*p.batch, idx, &pool));
          FLOE_RETURN_IF_ERROR(writer.Write(slice));
        }
        offset += take;
        n -= take;
        if (offset == size) {
          ++piece;
          offset = 0;
        }
      }
      return {};
    };
    int64_t start = 0;
    while (start < rows) {
      parquet::MemorySink sink;
      FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(all.schema, &sink, o));
      // Slices sized by the cutter from the file's measured bytes, until it reaches the target.
      while (start < rows) {
        FLOE_ASSIGN_OR_RETURN(const int64_t measured, writer->MeasureFileSize());
        const int64_t n = cutter.NextSlice(writer->num_rows(), measured, rows - start);
        if (n == 0) break;
        FLOE_RETURN_IF_ERROR(write_rows(*writer, n));
        start += n;
      }
      // The next file measures with what this one learnt of its columns' compression.
      o.size_calibration = writer->Calibration();
      FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, writer->Close());
      o.tail_bytes_per_chunk = writer->tail_bytes_per_chunk();
      out.push_back(Encoded{std::move(written), std::make_shared<Buffer>(sink.ToBuffer()), {}});
    }
    return out;
  };
  std::vector<std::future<Result<std::vector<Encoded>>>> encoding;
  if (groups.size() > 1 && pool.size() > 1) {
    encoding.reserve(groups.size());
    for (Group& group : groups) {
      encoding.push_back(pool.Submit([&encode, &group] { return encode(group); }));
    }
  }
  // The tasks use this frame's state: every one has finished before Finish returns.
  struct WaitAll {
    std::vector<std::future<Result<std::vector<Encoded>>>>& futures;
    ~WaitAll() {
      for (auto& f : futures) {
        if (f.valid()) f.wait();
      }
    }
  } wait_all{encoding};

  int file_index = 0;
  const std::string write_id = task_ ? task_->write_id : NewUuid();
  const std::string task_prefix = task_ ? fmt::format("{:05d}-", task_->task) : std::string();
  // Each file's PUT runs on the runtime's scan pool while the next is encoded or landed: up to 16
  // at once, so that a write of a file per partition lands in one round trip, and no more than
  // 256 MiB of them (their bytes are held until they land). Finished in order, so progress counts
  // in order.
  constexpr size_t kPutsInFlight = 16;
  constexpr int64_t kPutBytesInFlight = int64_t{256} << 20;
  int64_t bytes_in_flight = 0;
  std::deque<std::pair<std::future<Status>, int64_t>> puts;  // and the file's bytes
  auto land_one = [&]() -> Status {
    Status st = puts.front().first.get();
    const int64_t size = puts.front().second;
    puts.pop_front();
    bytes_in_flight -= size;
    FLOE_RETURN_IF_ERROR(st);
    if (on_file_written_) on_file_written_(size);
    return {};
  };
  auto land_all = [&]() -> Status {
    Status first;
    while (!puts.empty()) {
      Status st = land_one();
      if (!st && first) first = st;
    }
    return first;
  };
  Status built = [&]() -> Status {
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      Group& group = groups[gi];
      std::vector<Encoded> encoded;
      if (encoding.empty()) {
        FLOE_ASSIGN_OR_RETURN(encoded, encode(group));
      } else {
        FLOE_ASSIGN_OR_RETURN(encoded, encoding[gi].get());
      }
      for (Encoded& e : encoded) {
        std::string dir = m.location + "/data" + (group.path.empty() ? "" : "/" + group.path);
        std::string location =
            fmt::format("{}/{}{:05d}-{}.parquet", dir, task_prefix, file_index++, write_id);
        const int64_t put_at = UnixMillisNow();
        const auto size = static_cast<int64_t>(e.bytes->size());
        while (!puts.empty() &&
               (puts.size() >= kPutsInFlight || bytes_in_flight + size > kPutBytesInFlight)) {
          FLOE_RETURN_IF_ERROR(land_one());
        }
        bytes_in_flight += size;
        puts.emplace_back(
            io_.runtime().scan_pool().Submit([this, location, bytes = e.bytes]() -> Status {
              return io_.Write(location, bytes->view());
            }),
            size);
        e.bytes.reset();
        DataFile f;
        f.file_path = location;
        f.written_at_ms = put_at;
        f.partition = group.values;
        f.spec_id = spec.spec_id();
        f.record_count = e.written.num_rows;
        f.file_size_in_bytes = e.written.file_size;
        f.split_offsets = e.written.split_offsets;
        f.otree = e.otree;
        if (!order.unsorted() && !cluster && !otree) f.sort_order_id = order.order_id();
        FLOE_RETURN_IF_ERROR(ApplyMetrics(m, schema, e.written, &f));
        files.push_back(std::move(f));
      }
    }
    return {};
  }();
  // Every PUT has landed (or failed) before the writer returns, whatever happened.
  Status landed = land_all();
  if (!built || !landed) {
    // A write that fails leaves nothing behind: the files it already put go too.
    for (const DataFile& f : files) (void)io_.Delete(f.file_path);
  }
  FLOE_RETURN_IF_ERROR(built);
  FLOE_RETURN_IF_ERROR(landed);
  return files;
}

}  // namespace floe::iceberg
