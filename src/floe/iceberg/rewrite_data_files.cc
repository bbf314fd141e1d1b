#include "floe/iceberg/rewrite_data_files.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "floe/base/clock.h"
#include "floe/base/log.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/row_lineage.h"
#include "floe/iceberg/row_order.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/scan_reader.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_reader.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

struct Sizes {
  int64_t target = 0, min = 0, max = 0;
};

struct Group {
  std::string partition;
  std::vector<FileScanTask> tasks;
  int64_t bytes = 0;
  int64_t records = 0;
};

Result<Sizes> SizesFor(const TableMetadata& m, const RewriteOptions& o) {
  Sizes s;
  s.target = o.target_file_size_bytes.value_or(
      m.PropertyInt("write.target-file-size-bytes", int64_t{512} << 20));
  if (s.target <= 0) return InvalidInput("target-file-size-bytes {} must be positive", s.target);
  s.min = o.min_file_size_bytes.value_or(static_cast<int64_t>(s.target * 0.75));
  s.max = o.max_file_size_bytes.value_or(static_cast<int64_t>(s.target * 1.8));
  if (s.min < 0 || s.min > s.target)
    return InvalidInput("min-file-size-bytes {} must be between 0 and the target {}", s.min,
                        s.target);
  if (s.max < s.target)
    return InvalidInput("max-file-size-bytes {} must be at least the target {}", s.max, s.target);
  if (o.min_input_files < 1)
    return InvalidInput("min-input-files {} must be at least 1", o.min_input_files);
  if (o.max_file_group_size_bytes <= 0)
    return InvalidInput("max-file-group-size-bytes {} must be positive",
                        o.max_file_group_size_bytes);
  if (o.partial_progress_enabled && o.partial_progress_max_commits < 1)
    return InvalidInput("partial-progress.max-commits {} must be at least 1",
                        o.partial_progress_max_commits);
  return s;
}

// Rows of `t`'s file that the deletes scoped to it alone remove, as Iceberg's rewriter counts
// them: the record counts of its deletion vectors and file-scoped position delete files.
int64_t KnownDeletedRows(const FileScanTask& t) {
  int64_t n = 0;
  for (const DataFile& d : t.deletes) {
    if (d.content == FileContent::kPositionDeletes && d.referenced_data_file) n += d.record_count;
  }
  return std::min(n, t.file.record_count);
}

bool TooManyDeletes(const FileScanTask& t, const RewriteOptions& o) {
  return !t.deletes.empty() && static_cast<int64_t>(t.deletes.size()) >= o.delete_file_threshold;
}

bool TooHighDeleteRatio(const FileScanTask& t, const RewriteOptions& o) {
  if (t.deletes.empty() || t.file.record_count <= 0) return false;
  return static_cast<double>(KnownDeletedRows(t)) / static_cast<double>(t.file.record_count) >=
         o.delete_ratio_threshold;
}

// Iceberg's selection: per partition, the files outside [min, max] (all with rewrite-all) or with
// too many deletes, packed into groups of at most max-file-group-size-bytes; a group is rewritten
// when it has enough files, more content than one target file, more than a group may hold, or a
// file with too many deletes.
Result<std::vector<Group>> Plan(const Table& table, const FileIO& io, const RewriteOptions& o,
                                const Sizes& sizes) {
  ScanOptions so;
  so.filter = o.filter;
  FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanFiles(table, io, so));
  std::map<std::string, std::vector<FileScanTask>> by_partition;
  for (auto& t : plan.tasks) {
    bool candidate = o.rewrite_all || t.file.file_size_in_bytes < sizes.min ||
                     t.file.file_size_in_bytes > sizes.max || TooManyDeletes(t, o) ||
                     TooHighDeleteRatio(t, o);
    if (!candidate) continue;
    const PartitionSpec* spec = table.metadata.SpecById(t.file.spec_id);
    std::string key = fmt::format("{}", spec ? spec->PartitionPath(t.file.partition) : "");
    if (t.file.spec_id != table.metadata.default_spec_id)
      key = fmt::format("spec {}: {}", t.file.spec_id, key);
    by_partition[key].push_back(std::move(t));
  }
  std::vector<Group> groups;
  for (auto& [partition, tasks] : by_partition) {
    // First fit in listing order, so the plan is deterministic.
    std::vector<Group> bins;
    for (auto& t : tasks) {
      Group* fit = nullptr;
      for (auto& b : bins) {
        if (b.bytes + t.file.file_size_in_bytes <= o.max_file_group_size_bytes) {
          fit = &b;
          break;
        }
      }
      if (fit == nullptr) {
        bins.emplace_back();
        fit = &bins.back();
        fit->partition = partition;
      }
      fit->bytes += t.file.file_size_in_bytes;
      fit->records += t.file.record_count;
      fit->tasks.push_back(std::move(t));
    }
    for (auto& b : bins) {
      const int64_t n = static_cast<int64_t>(b.tasks.size());
      const bool deletes = std::any_of(b.tasks.begin(), b.tasks.end(), [&](const FileScanTask& t) {
        return TooManyDeletes(t, o) || TooHighDeleteRatio(t, o);
      });
      bool rewrite = o.rewrite_all || (n > 1 && n >= o.min_input_files) ||
                     (n > 1 && b.bytes > sizes.target) || b.bytes > o.max_file_group_size_bytes ||
                     deletes;
      if (rewrite) groups.push_back(std::move(b));
    }
  }
  return groups;
}

// The clustering a sort rewrite uses instead of a sort order: the one given as its sort order
// ("zorder(a, b)"), else -- when none is given -- the table's layout, if it declares one.
Result<std::optional<layout::ClusterSpec>> ClusterFor(const TableMetadata& m,
                                                      const RewriteOptions& o) {
  std::string text;
  if (!o.sort_order && layout::IsClusterSpec(o.sort_order_text)) {
    text = o.sort_order_text;
  } else if (!o.sort_order && o.sort_order_text.empty()) {
    auto it = m.properties.find(std::string(kLayoutProperty));
    if (it == m.properties.end()) return std::nullopt;
    text = it->second;
  } else {
    return std::nullopt;
  }
  FLOE_ASSIGN_OR_RETURN(layout::ClusterSpec spec, layout::ParseClusterSpec(text));
  if (spec.is_otree()) {
    // The OTree writer lays the rows out itself (RewriteGroup); only the table's own layout.
    FLOE_ASSIGN_OR_RETURN(std::optional<layout::ClusterSpec> own, OTreeLayoutOf(m));
    if (!own) {
      return InvalidInput(
          "sort order '{}': an OTree is a table layout, not a rewrite order; set the table "
          "property {} = '{}' (on an unpartitioned table) and rewrite",
          text, kLayoutProperty, text);
    }
    return own;
  }
  spec.zorder = o.zorder;
  spec.hilbert.var_length_contribution = o.zorder.var_length_contribution;
  return ResolveClusterSpec(spec, m.CurrentSchema(), m.DefaultSpec());
}

// The order a sort rewrite uses.
Result<SortOrder> OrderFor(const TableMetadata& m, const RewriteOptions& o) {
  if (o.sort_order) return *o.sort_order;
  if (!o.sort_order_text.empty()) {
    int32_t next_id = 1;
    for (const auto& so : m.sort_orders) next_id = std::max(next_id, so.order_id() + 1);
    auto parsed = SortOrder::Parse(o.sort_order_text, m.CurrentSchema(), next_id);
    if (!parsed) {
      Error e = parsed.error();
      e.message = "sort order: " + e.message;
      return std::unexpected(e);
    }
    return *parsed;
  }
  const SortOrder& d = m.DefaultSortOrder();
  if (d.unsorted())
    return InvalidInput(
        "the sort strategy needs a sort order or a clustering: the table has neither (no sort "
        "order, no {}), and none was given",
        kLayoutProperty);
  return d;
}

// The table as the writer should see it: the rewrite's target size, and no sort order of its
// own -- rows arrive in the order the rewrite wants (sorted across the group, or as read) and
// the writer keeps it within each partition.
Table WriterTable(const Table& table, int64_t target, bool otree) {
  Table w = table;
  w.metadata.properties["write.target-file-size-bytes"] = std::to_string(target);
  w.metadata.default_sort_order_id = -1;
  // An OTree table's rewrites go through the OTree writer (RewriteGroup).
  if (!otree) w.metadata.properties.erase(std::string(kLayoutProperty));
  if (w.metadata.format_version >= 3) {
    for (Schema& s : w.metadata.schemas) {
      if (s.schema_id() == w.metadata.current_schema_id) s = WithRowLineage(s);
    }
  }
  return w;
}

// The id of a table sort order equal to `order` (same fields), if any.
std::optional<int32_t> TableOrderId(const TableMetadata& m, const SortOrder& order) {
  for (const auto& so : m.sort_orders) {
    if (!so.unsorted() && so.fields() == order.fields()) return so.order_id();
  }
  return std::nullopt;
}

// Reads the group's files and writes their rows -- sorted across the whole group when `order` is
// given, else in the order read -- as new files of at most the target size. In a v3 table each row
// keeps its lineage (row_lineage.h): `writer_table`'s schema then carries the two columns.
Result<std::vector<DataFile>> RewriteGroup(const Table& table, const Table& writer_table,
                                           const FileIO& io, const Group& g,
                                           const RewriteOptions& o,
                                           const std::optional<SortOrder>& order,
                                           const std::optional<layout::ClusterSpec>& cluster,
                                           std::optional<int32_t> output_order_id) {
  const Schema& schema = table.metadata.CurrentSchema();
  const bool lineage = table.metadata.format_version >= 3;
  std::vector<c::RecordBatch> rows;
  int64_t count = 0;
  ScanMetrics metrics;  // the rows the deletes took out
  // In v3 the reader derives each row's lineage where its file holds none.
  const Schema read_schema = lineage ? WithRowLineage(schema) : schema;
  // The group's files all in flight at once, their rows delivered in file order (a bin-pack keeps
  // them so); rewrites keep every row of a file but the deleted ones.
  std::vector<FileScanTask> tasks = g.tasks;
  for (FileScanTask& t : tasks) t.residual = True();
  ScanReadOptions read;
  read.preserve_order = true;
  read.use_footer_cache = false;
  ScanHooks hooks;
  hooks.table_schema = &read_schema;
  hooks.on_file_done = [&](size_t, size_t) {
    if (o.on_file_read) o.on_file_read(1, 0);
  };
  FLOE_RETURN_IF_ERROR(ReadScan(
      tasks, read_schema, io, read, hooks,
      [&](c::RecordBatch b) -> Status {
        count += b.num_rows;
        if (b.num_rows > 0) rows.push_back(std::move(b));
        return {};
      },
      &metrics));
  if (count + metrics.rows_deleted != g.records) {
    return Corrupt("rewrite read {} rows ({} deleted) from {} files whose manifests list {}", count,
                   metrics.rows_deleted.value(), g.tasks.size(), g.records);
  }
  TableDataWriter writer(writer_table, io);
  if (cluster && cluster->is_otree()) {
    // An OTree table: a sort rewrite re-indexes (a new revision over these rows), a bin-pack
    // adds the rows back to the cubes they came from, the group's files no longer counted in them.
    writer.set_otree_reindex(o.strategy == RewriteStrategy::kSort);
    std::vector<std::string> replacing;
    replacing.reserve(g.tasks.size());
    for (const FileScanTask& t : g.tasks) replacing.push_back(t.file.file_path);
    writer.set_otree_replacing(std::move(replacing));
    for (const auto& b : rows) FLOE_RETURN_IF_ERROR(writer.Write(b));
  } else if ((order || cluster) && !rows.empty()) {
    // The order is worked out on its columns alone; the rows move once from the batches read
    // into it (no concatenated copy of them first).
    const std::vector<std::string> keys =
        OrderColumnNames(cluster ? &*cluster : nullptr, order ? *order : SortOrder{}, schema);
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch key_rows,
                          c::ConcatenateNamed(rows, keys, &io.runtime().decode_pool()));
    std::vector<int64_t> perm;
    if (cluster) {
      perm.resize(static_cast<size_t>(key_rows.num_rows));
      std::iota(perm.begin(), perm.end(), 0);
      FLOE_RETURN_IF_ERROR(ClusterRows(key_rows, *cluster, &perm, &io.runtime().decode_pool()));
    } else {
      FLOE_ASSIGN_OR_RETURN(perm, SortIndices(key_rows, schema, *order));
    }
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch sorted,
                          c::Permute(std::move(rows), perm, &io.runtime().decode_pool()));
    rows.clear();
    FLOE_RETURN_IF_ERROR(writer.Write(sorted));
  } else {
    for (const auto& b : rows) FLOE_RETURN_IF_ERROR(writer.Write(b));
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer.Finish());
  for (auto& f : files) f.sort_order_id = output_order_id;
  return files;
}

void RemoveFiles(const FileIO& io, const std::vector<DataFile>& files) {
  for (const auto& f : files) (void)io.Delete(f.file_path);
}

// The snapshot summary's rewrite-strategy: what the rewrite did to the rows. An OTree table is
// re-indexed by a sort rewrite and put back into its cubes by a bin-pack one.
std::string StrategyLabel(const std::optional<layout::ClusterSpec>& cluster,
                          RewriteStrategy strategy) {
  if (!cluster) return strategy == RewriteStrategy::kSort ? "sort" : "binpack";
  switch (cluster->method) {
    case layout::ClusterMethod::kZOrder:
      return "zorder";
    case layout::ClusterMethod::kHilbert:
      return "hilbert";
    case layout::ClusterMethod::kOTree:
      return strategy == RewriteStrategy::kSort ? "otree" : "binpack";
  }
  return "binpack";
}

}  // namespace

Result<RewriteOptions> RewriteOptionsFromMap(const std::map<std::string, std::string>& options) {
  RewriteOptions o;
  auto integer = [](const std::string& k, const std::string& v) -> Result<int64_t> {
    int64_t out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size())
      return InvalidInput("rewrite option '{}': '{}' is not an integer", k, v);
    return out;
  };
  auto boolean = [](const std::string& k, const std::string& v) -> Result<bool> {
    std::string l;
    for (char ch : v) l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    if (l == "true") return true;
    if (l == "false") return false;
    return InvalidInput("rewrite option '{}': '{}' is not true or false", k, v);
  };
  for (const auto& [k, v] : options) {
    if (k == "strategy") {
      std::string l;
      for (char ch : v)
        l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
      if (l == "sort") {
        o.strategy = RewriteStrategy::kSort;
      } else if (l == "binpack") {
        o.strategy = RewriteStrategy::kBinPack;
      } else {
        return InvalidInput("rewrite strategy '{}': expected binpack or sort", v);
      }
    } else if (k == "sort_order" || k == "sort-order") {
      o.sort_order_text = v;
    } else if (k == "var-length-contribution" || k == "max-output-size") {
      FLOE_ASSIGN_OR_RETURN(int64_t n, integer(k, v));
      if (n < 1 || n > INT32_MAX) return InvalidInput("{} {} must be 1 to {}", k, n, INT32_MAX);
      (k == "max-output-size" ? o.zorder.max_output_size : o.zorder.var_length_contribution) =
          static_cast<int>(n);
    } else if (k == "target-file-size-bytes") {
      FLOE_ASSIGN_OR_RETURN(o.target_file_size_bytes, integer(k, v));
    } else if (k == "min-file-size-bytes") {
      FLOE_ASSIGN_OR_RETURN(o.min_file_size_bytes, integer(k, v));
    } else if (k == "max-file-size-bytes") {
      FLOE_ASSIGN_OR_RETURN(o.max_file_size_bytes, integer(k, v));
    } else if (k == "min-input-files") {
      FLOE_ASSIGN_OR_RETURN(int64_t n, integer(k, v));
      if (n < 1 || n > INT32_MAX)
        return InvalidInput("min-input-files {} must be 1 to {}", n, INT32_MAX);
      o.min_input_files = static_cast<int>(n);
    } else if (k == "rewrite-all") {
      FLOE_ASSIGN_OR_RETURN(o.rewrite_all, boolean(k, v));
    } else if (k == "max-file-group-size-bytes") {
      FLOE_ASSIGN_OR_RETURN(o.max_file_group_size_bytes, integer(k, v));
    } else if (k == "partial-progress.enabled") {
      FLOE_ASSIGN_OR_RETURN(o.partial_progress_enabled, boolean(k, v));
    } else if (k == "partial-progress.max-commits") {
      FLOE_ASSIGN_OR_RETURN(int64_t n, integer(k, v));
      if (n < 1 || n > INT32_MAX) {
        return InvalidInput("partial-progress.max-commits {} must be 1 to {}", n, INT32_MAX);
      }
      o.partial_progress_max_commits = static_cast<int>(n);
    } else if (k == "delete-file-threshold") {
      FLOE_ASSIGN_OR_RETURN(int64_t n, integer(k, v));
      if (n < 0 || n > INT32_MAX)
        return InvalidInput("delete-file-threshold {} must be 0 to {}", n, INT32_MAX);
      o.delete_file_threshold = n;
    } else if (k == "delete-ratio-threshold") {
      double x = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
      if (ec != std::errc() || p != v.data() + v.size() || !(x > 0 && x <= 1)) {
        return InvalidInput(
            "rewrite option 'delete-ratio-threshold': '{}' is not a number in (0, 1]", v);
      }
      o.delete_ratio_threshold = x;
    } else if (k == "remove-dangling-deletes") {
      FLOE_ASSIGN_OR_RETURN(o.remove_dangling_deletes, boolean(k, v));
    } else if (k == "max-concurrent-file-group-rewrites" || k == "use-starting-sequence-number" ||
               k == "partial-progress.max-failed-commits" || k == "output-spec-id" ||
               k == "compression-factor" || k == "shuffle-partitions-per-file") {
      continue;
    } else {
      return InvalidInput("unknown rewrite_data_files option '{}'", k);
    }
  }
  return o;
}

Result<std::vector<RewritePlanGroup>> PlanRewriteDataFiles(catalog::Catalog& catalog,
                                                           const FileIO& io,
                                                           const catalog::TableIdentifier& id,
                                                           const RewriteOptions& options) {
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, io, id));
  FLOE_ASSIGN_OR_RETURN(Sizes sizes, SizesFor(table.metadata, options));
  FLOE_ASSIGN_OR_RETURN(std::vector<Group> groups, Plan(table, io, options, sizes));
  std::vector<RewritePlanGroup> out;
  for (const auto& g : groups) {
    RewritePlanGroup p{g.partition, {}, g.bytes, g.records};
    for (const auto& t : g.tasks) p.files.push_back(t.file.file_path);
    out.push_back(std::move(p));
  }
  return out;
}

Result<RewriteResult> RewriteDataFiles(catalog::Catalog& catalog, const FileIO& io,
                                       const catalog::TableIdentifier& id,
                                       const RewriteOptions& options) {
  Stopwatch watch;
  RewriteResult result;
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, io, id));
  const TableMetadata& m = table.metadata;
  FLOE_ASSIGN_OR_RETURN(Sizes sizes, SizesFor(m, options));
  std::optional<SortOrder> order;
  std::optional<layout::ClusterSpec> cluster;
  std::optional<int32_t> output_order_id;
  FLOE_ASSIGN_OR_RETURN(const std::optional<layout::ClusterSpec> otree, OTreeLayoutOf(m));
  if (otree && options.strategy == RewriteStrategy::kSort && !options.sort_order &&
      !options.sort_order_text.empty() && !layout::IsClusterSpec(options.sort_order_text)) {
    return InvalidInput(
        "sort order '{}': the table is laid out as {} ({}); rewrite with no sort order to "
        "re-index it",
        options.sort_order_text, otree->ToString(), kLayoutProperty);
  }
  if (otree) {
    cluster = otree;
  } else if (options.strategy == RewriteStrategy::kSort) {
    FLOE_ASSIGN_OR_RETURN(cluster, ClusterFor(m, options));
    if (!cluster) {
      FLOE_ASSIGN_OR_RETURN(SortOrder o, OrderFor(m, options));
      output_order_id = TableOrderId(m, o);
      order = std::move(o);
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<Group> groups, Plan(table, io, options, sizes));
  const Snapshot* start = m.CurrentSnapshot();
  if (groups.empty() || start == nullptr) {
    result.elapsed_ms = watch.ElapsedMs();
    return result;
  }
  const int64_t starting_sequence_number = start->sequence_number;
  const Table writer_table = WriterTable(table, sizes.target, otree.has_value());

  // Groups per commit: all in one, or spread over at most max-commits with partial progress.
  size_t per_commit = groups.size();
  if (options.partial_progress_enabled) {
    size_t commits = std::min<size_t>(groups.size(), options.partial_progress_max_commits);
    per_commit = (groups.size() + commits - 1) / commits;
  }
  for (size_t first = 0; first < groups.size(); first += per_commit) {
    size_t last = std::min(groups.size(), first + per_commit);
    SnapshotUpdate u;
    u.operation = "replace";
    u.data_sequence_number = starting_sequence_number;
    int64_t in_files = 0, in_bytes = 0, in_records = 0;
    Status written_ok;
    for (size_t gi = first; gi < last; ++gi) {
      const Group& g = groups[gi];
      auto out = RewriteGroup(table, writer_table, io, g, options, order, cluster, output_order_id);
      if (!out) {
        written_ok = std::unexpected(out.error());
        break;
      }
      for (const auto& t : g.tasks) u.deleted_paths.push_back(t.file.file_path);
      u.added.insert(u.added.end(), out->begin(), out->end());
      in_files += static_cast<int64_t>(g.tasks.size());
      in_bytes += g.bytes;
      in_records += g.records;
    }
    if (!written_ok) {
      RemoveFiles(io, u.added);
      if (result.commits == 0) return std::unexpected(written_ok.error());
      // Partial progress: what landed before stays, and the error says so.
      Error e = written_ok.error();
      e.message = fmt::format(
          "rewrite_data_files of '{}' committed {} file groups ({} files -> {}) in {} commits, "
          "then: {}",
          id.ToString(), result.file_groups, result.rewritten_data_files_count,
          result.added_data_files_count, result.commits, e.message);
      return std::unexpected(e);
    }
    u.summary["rewrite-strategy"] = StrategyLabel(cluster, options.strategy);
    if (order) u.summary["rewrite-sort-order"] = order->ToString(m.CurrentSchema());
    if (cluster) u.summary["rewrite-sort-order"] = cluster->ToString();
    u.summary["rewrite-target-file-size-bytes"] = std::to_string(sizes.target);
    // Rows deleted since the rewrite read its files (a merge-on-read DELETE, UPDATE or MERGE)
    // would come back in the rewritten files: such a delete fails the rewrite, as Iceberg's
    // RewriteFiles validates.
    CommitValidation v;
    v.from_snapshot_id = start->snapshot_id;
    v.new_deletes = CommitValidation::NewDeletes::kForFiles;
    for (size_t gi = first; gi < last; ++gi) {
      for (const auto& t : groups[gi].tasks) {
        ManifestEntry e;
        e.status = EntryStatus::kExisting;
        e.sequence_number = t.data_sequence_number;
        e.file = t.file;
        v.files.push_back(std::move(e));
      }
    }
    u.validation = std::move(v);
    if (options.before_commit) options.before_commit();
    auto committed = CommitSnapshot(catalog, io, id, u);
    if (!committed) {
      RemoveFiles(io, u.added);
      if (!options.partial_progress_enabled) {
        Error e = committed.error();
        e.message =
            fmt::format("rewrite_data_files of '{}' did not commit: {}", id.ToString(), e.message);
        return std::unexpected(e);
      }
      Log(LogLevel::kWarn, "rewrite_data_files of {}: a commit of {} file groups failed: {}",
          id.ToString(), last - first, committed.error().ToString());
      result.failed_file_groups += static_cast<int64_t>(last - first);
      continue;
    }
    ++result.commits;
    result.snapshot_ids.push_back(*committed->metadata.current_snapshot_id);
    result.file_groups += static_cast<int64_t>(last - first);
    result.rewritten_data_files_count += in_files;
    result.rewritten_bytes_count += in_bytes;
    result.rewritten_records += in_records;
    result.added_data_files_count += static_cast<int64_t>(u.added.size());
    for (const auto& f : u.added) result.added_bytes_count += f.file_size_in_bytes;
  }
  if (result.commits == 0 && result.failed_file_groups > 0) {
    return Conflict("rewrite_data_files of '{}': none of its {} commits landed", id.ToString(),
                    result.failed_file_groups);
  }
  if (options.remove_dangling_deletes && result.commits > 0) {
    FLOE_ASSIGN_OR_RETURN(Table after, LoadTable(catalog, io, id));
    FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanFiles(after, io, {}));
    if (!plan.unapplied_deletes.empty()) {
      SnapshotUpdate u;
      u.operation = "delete";
      u.removed_deletes = plan.unapplied_deletes;
      auto committed = CommitSnapshot(catalog, io, id, u);
      if (!committed) {
        Error e = committed.error();
        e.message = fmt::format(
            "rewrite_data_files of '{}' committed its rewrite, then removing {} dangling delete "
            "files did not commit: {}",
            id.ToString(), u.removed_deletes.size(), e.message);
        return std::unexpected(e);
      }
      ++result.commits;
      result.snapshot_ids.push_back(*committed->metadata.current_snapshot_id);
      result.removed_delete_files_count = static_cast<int64_t>(u.removed_deletes.size());
    }
  }
  result.elapsed_ms = watch.ElapsedMs();
  return result;
}

}  // namespace floe::iceberg
