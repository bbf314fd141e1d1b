#include "floe/iceberg/rewrite_position_deletes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "floe/base/uuid.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/delete_loader.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {
namespace {

struct Group {
  std::vector<DataFile> files;  // position delete files (not DVs)
  int64_t bytes = 0;
};

std::string PartitionKey(const TableMetadata& m, const DataFile& f) {
  const PartitionSpec* spec = m.SpecById(f.spec_id);
  return fmt::format("{}:{}", f.spec_id, spec ? spec->PartitionPath(f.partition) : "");
}

}  // namespace

Result<RewritePositionDeletesOptions> RewritePositionDeletesOptionsFromMap(
    const std::map<std::string, std::string>& options) {
  RewritePositionDeletesOptions o;
  auto integer = [](const std::string& k, const std::string& v) -> Result<int64_t> {
    int64_t out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size() || out < 0) {
      return InvalidInput("rewrite_position_delete_files option '{}': '{}' is not a count", k, v);
    }
    return out;
  };
  for (const auto& [k, v] : options) {
    if (k == "target-file-size-bytes") {
      FLOE_ASSIGN_OR_RETURN(o.target_file_size_bytes, integer(k, v));
      if (o.target_file_size_bytes == 0) {
        return InvalidInput("rewrite_position_delete_files option '{}' must be positive", k);
      }
    } else if (k == "min-file-size-bytes") {
      FLOE_ASSIGN_OR_RETURN(o.min_file_size_bytes, integer(k, v));
    } else if (k == "max-file-size-bytes") {
      FLOE_ASSIGN_OR_RETURN(o.max_file_size_bytes, integer(k, v));
    } else if (k == "min-input-files") {
      FLOE_ASSIGN_OR_RETURN(int64_t n, integer(k, v));
      if (n < 1 || n > INT32_MAX) {
        return InvalidInput("min-input-files {} must be 1 to {}", n, INT32_MAX);
      }
      o.min_input_files = static_cast<int>(n);
    } else if (k == "rewrite-all") {
      std::string l;
      for (char ch : v)
        l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
      if (l != "true" && l != "false") {
        return InvalidInput(
            "rewrite_position_delete_files option 'rewrite-all': '{}' is not "
            "true or false",
            v);
      }
      o.rewrite_all = l == "true";
    } else if (k == "max-concurrent-file-group-rewrites" || k == "partial-progress.enabled" ||
               k == "partial-progress.max-commits" || k == "max-file-group-size-bytes") {
      continue;
    } else {
      return InvalidInput("unknown rewrite_position_delete_files option '{}'", k);
    }
  }
  return o;
}

Result<RewritePositionDeletesResult> RewritePositionDeleteFiles(
    catalog::Catalog& catalog, const FileIO& io, const catalog::TableIdentifier& id,
    const RewritePositionDeletesOptions& options) {
  RewritePositionDeletesResult result;
  FLOE_ASSIGN_OR_RETURN(Table table, LoadTable(catalog, io, id));
  const TableMetadata& m = table.metadata;
  const int64_t target = options.target_file_size_bytes;
  const int64_t min = options.min_file_size_bytes.value_or(static_cast<int64_t>(target * 0.75));
  const int64_t max = options.max_file_size_bytes.value_or(static_cast<int64_t>(target * 1.8));
  if (min > target || max < target) {
    return InvalidInput("rewrite_position_delete_files: min {} <= target {} <= max {} must hold",
                        min, target, max);
  }
  if (m.format_version > 2) {
    return Unsupported(
        "rewrite_position_delete_files of '{}': the table is format version {}, whose position "
        "deletes become deletion vectors, and floe does not write v3 snapshots yet",
        id.ToString(), m.format_version);
  }
  FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanFiles(table, io, {}));
  if (!plan.snapshot) return result;

  // The live data files, and the live position delete files.
  std::set<std::string> live;
  std::map<std::string, DataFile> position_files;  // by path
  auto consider = [&](const DataFile& d) {
    if (d.content != FileContent::kPositionDeletes) return;
    if (!IsDeletionVector(d)) position_files.emplace(d.file_path, d);
  };
  for (const FileScanTask& t : plan.tasks) {
    live.insert(t.file.file_path);
    for (const DataFile& d : t.deletes) consider(d);
  }
  // Position delete files a DV has replaced, or whose data files are all gone, apply to no task.
  for (const DataFile& d : plan.unapplied_deletes) consider(d);

  std::map<std::string, Group> by_partition;
  for (const auto& [path, f] : position_files) {
    const bool candidate =
        options.rewrite_all || f.file_size_in_bytes < min || f.file_size_in_bytes > max;
    if (!candidate) continue;
    Group& g = by_partition[PartitionKey(m, f)];
    g.files.push_back(f);
    g.bytes += f.file_size_in_bytes;
  }
  std::vector<const Group*> groups;
  for (const auto& [key, g] : by_partition) {
    const int64_t n = static_cast<int64_t>(g.files.size());
    if (options.rewrite_all || n >= options.min_input_files || (n > 1 && g.bytes > target)) {
      groups.push_back(&g);
    }
  }
  if (groups.empty()) return result;

  // Every position delete and DV loaded by one loader (a Puffin file once).
  FileScanTask all;
  for (const Group* g : groups)
    all.deletes.insert(all.deletes.end(), g->files.begin(), g->files.end());
  const std::vector<FileScanTask> tasks = {all};
  DeleteLoader loader(io, tasks, m.CurrentSchema(), nullptr);

  SnapshotUpdate u;
  u.operation = "replace";
  std::vector<std::string> written;
  auto cleanup = [&] {
    for (const std::string& p : written) (void)io.Delete(p);
  };
  for (const Group* g : groups) {
    std::map<std::string, std::vector<int64_t>> positions;  // live data file -> positions
    for (const DataFile& f : g->files) {
      auto got = loader.AllPositions(f);
      if (!got) {
        cleanup();
        return std::unexpected(got.error());
      }
      for (const auto& [path, pos] : *got) {
        if (!live.contains(path)) {
          ++result.dangling_positions;
          continue;
        }
        positions[path].push_back(pos);
      }
      u.removed_deletes.push_back(f);
      ++result.rewritten_delete_files_count;
      result.rewritten_bytes_count += f.file_size_in_bytes;
    }
    if (positions.empty()) continue;  // only dangling deletes: removed, nothing added
    const std::string base = fmt::format("{}/data/{}-deletes", m.location, NewUuid());
    {
      std::vector<std::pair<std::string, int64_t>> pairs;
      for (const auto& [path, p] : positions) {
        for (int64_t pos : p) pairs.emplace_back(path, pos);
      }
      auto f = WritePositionDeleteFile(io, base + ".parquet", std::move(pairs),
                                       g->files.front().partition);
      if (!f) {
        cleanup();
        return std::unexpected(f.error());
      }
      written.push_back(base + ".parquet");
      ++result.added_delete_files_count;
      result.added_bytes_count += f->file_size_in_bytes;
      u.added_deletes.push_back(std::move(*f));
    }
  }
  auto committed = CommitSnapshot(catalog, io, id, u);
  if (!committed) {
    cleanup();
    Error e = committed.error();
    e.message = fmt::format("rewrite_position_delete_files of '{}' did not commit: {}",
                            id.ToString(), e.message);
    return std::unexpected(e);
  }
  result.commits = 1;
  return result;
}

}  // namespace floe::iceberg
