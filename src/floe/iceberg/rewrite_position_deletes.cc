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

Error NotCommitted(const catalog::TableIdentifier& id, Error e) {
  e.message = fmt::format("rewrite_position_delete_files of '{}' did not commit: {}", id.ToString(),
                          e.message);
  return e;
}

// v3 (spec, "Deletion Vectors"): the position deletes of each live data file without a deletion
// vector become its vector; a data file with one already has them in it (its writer merged them).
// A position delete file goes once every data file it applies to has a vector, or is gone; one
// that still applies to a file a vector cannot be written for here (a data file of an older
// partition spec) stays. One Puffin file holds the new vectors; one commit.
Result<RewritePositionDeletesResult> ToDeletionVectors(catalog::Catalog& catalog, const FileIO& io,
                                                       const catalog::TableIdentifier& id,
                                                       const Table& table, const ScanPlan& plan) {
  RewritePositionDeletesResult result;
  const TableMetadata& m = table.metadata;
  std::map<std::string, DataFile> position_files;        // live, not DVs: by DeleteFileKey
  std::map<std::string, const FileScanTask*> live;       // data files by path
  std::map<std::string, std::set<std::string>> applies;  // data path -> its position files
  std::set<std::string> with_dv;
  for (const FileScanTask& t : plan.tasks) {
    live.emplace(t.file.file_path, &t);
    for (const DataFile& d : t.deletes) {
      if (d.content != FileContent::kPositionDeletes) continue;
      if (IsDeletionVector(d)) {
        with_dv.insert(t.file.file_path);
        continue;
      }
      position_files.emplace(DeleteFileKey(d), d);
      applies[t.file.file_path].insert(DeleteFileKey(d));
    }
  }
  for (const DataFile& d : plan.unapplied_deletes) {
    if (d.content == FileContent::kPositionDeletes && !IsDeletionVector(d)) {
      position_files.emplace(DeleteFileKey(d), d);
    }
  }
  if (position_files.empty()) return result;

  FileScanTask all;
  for (const auto& [key, f] : position_files) all.deletes.push_back(f);
  const std::vector<FileScanTask> tasks = {all};
  DeleteLoader loader(io, tasks, m.CurrentSchema(), nullptr);
  const int32_t spec_id = m.DefaultSpec().spec_id();
  std::map<std::string, std::vector<int64_t>> positions;  // data path -> its new vector
  std::map<std::string, std::vector<Literal>> partitions;
  SnapshotUpdate u;
  u.operation = "replace";
  for (const auto& [key, f] : position_files) {
    FLOE_ASSIGN_OR_RETURN(auto pairs, loader.AllPositions(f));
    bool stays = false;
    for (const auto& [path, pos] : pairs) {
      auto t = live.find(path);
      if (t != live.end() && with_dv.contains(path)) continue;  // the vector has it
      auto a = applies.find(path);
      if (t == live.end() || a == applies.end() || !a->second.contains(key)) {
        ++result.dangling_positions;  // its data file is gone, or it does not apply to it
        continue;
      }
      if (t->second->file.spec_id != spec_id) {
        stays = true;
        continue;
      }
      positions[path].push_back(pos);
      partitions.emplace(path, t->second->file.partition);
    }
    if (stays) continue;
    u.removed_deletes.push_back(f);
    ++result.rewritten_delete_files_count;
    result.rewritten_bytes_count += f.file_size_in_bytes;
  }
  std::string puffin;
  if (!positions.empty()) {
    puffin = fmt::format("{}/data/{}-deletes.puffin", m.location, NewUuid());
    auto dvs = WriteDeletionVectors(io, puffin, positions, partitions);
    if (!dvs) return std::unexpected(dvs.error());
    result.added_delete_files_count = static_cast<int64_t>(dvs->size());
    if (!dvs->empty()) result.added_bytes_count = dvs->front().file_size_in_bytes;
    u.added_deletes = std::move(*dvs);
  }
  if (u.removed_deletes.empty() && u.added_deletes.empty()) return result;
  auto committed = CommitSnapshot(catalog, io, id, u);
  if (!committed) {
    if (!puffin.empty()) (void)io.Delete(puffin);
    return std::unexpected(NotCommitted(id, committed.error()));
  }
  result.commits = 1;
  return result;
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
  FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanFiles(table, io, {}));
  if (!plan.snapshot) return result;
  if (m.format_version >= 3) return ToDeletionVectors(catalog, io, id, table, plan);

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
    return std::unexpected(NotCommitted(id, committed.error()));
  }
  result.commits = 1;
  return result;
}

}  // namespace floe::iceberg
