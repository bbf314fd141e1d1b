#include "floe/iceberg/write_task.h"

#include <cstring>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/otree_index.h"

namespace floe::iceberg {
namespace {

using json = nlohmann::json;

// "FLOEWTR1", the header's length (4 bytes little-endian), the header (JSON), the manifest (Avro).
constexpr std::string_view kMagic = "FLOEWTR1";

json OTreeInfoToJson(const OTreeFileInfo& info) {
  json cubes = json::array();
  for (const OTreeFileCube& c : info.cubes)
    cubes.push_back(json::array({c.id, c.rows, c.max_weight}));
  return {{"min-weight", info.min_weight}, {"max-weight", info.max_weight}, {"cubes", cubes}};
}

Result<OTreeFileInfo> OTreeInfoFromJson(const json& j, int64_t revision, size_t dimensions) {
  auto bad = [] { return InvalidInput("a write task's result: a malformed OTree entry"); };
  if (!j.is_object() || !j.contains("cubes") || !j["cubes"].is_array() ||
      !j.contains("min-weight") || !j["min-weight"].is_number_unsigned() ||
      !j.contains("max-weight") || !j["max-weight"].is_number_unsigned()) {
    return bad();
  }
  OTreeFileInfo info;
  info.revision = revision;
  info.min_weight =
      static_cast<uint32_t>(std::min<uint64_t>(j["min-weight"].get<uint64_t>(), UINT32_MAX));
  info.max_weight =
      static_cast<uint32_t>(std::min<uint64_t>(j["max-weight"].get<uint64_t>(), UINT32_MAX));
  for (const json& c : j["cubes"]) {
    if (!c.is_array() || c.size() != 3 || !c[0].is_string() || !c[1].is_number_integer() ||
        !c[2].is_number_unsigned()) {
      return bad();
    }
    OTreeFileCube cube{c[0].get<std::string>(), c[1].get<int64_t>(),
                       static_cast<uint32_t>(std::min<uint64_t>(c[2].get<uint64_t>(), UINT32_MAX))};
    FLOE_RETURN_IF_ERROR(layout::CubeSpans(cube.id, dimensions));
    info.cubes.push_back(std::move(cube));
  }
  return info;
}

std::string TaskName(const WriteTaskResult& r) {
  return fmt::format("task {} of write {}", r.task, r.write_id);
}

}  // namespace

std::string WriteTaskResult::Serialize(const WritePlan& plan) const {
  std::vector<ManifestEntry> entries;
  json files_json = json::array();
  for (const DataFile& f : files) {
    ManifestEntry e;
    e.status = EntryStatus::kAdded;
    e.file = f;
    e.file.otree.reset();
    entries.push_back(std::move(e));
    json fj = {{"path", f.file_path}};
    if (f.written_at_ms) fj["written-at-ms"] = *f.written_at_ms;
    if (f.otree) fj["otree"] = OTreeInfoToJson(f.otree->info);
    files_json.push_back(std::move(fj));
  }
  const Schema& schema = plan.metadata.CurrentSchema();
  ManifestContext ctx{&schema, &plan.metadata.DefaultSpec(), plan.metadata.format_version,
                      ManifestContent::kData};
  // Encoding entries this process just made cannot fail short of memory; an empty manifest
  // then stands for none, which Deserialize refuses against the header's file count.
  std::string manifest = WriteManifest(ctx, entries).value_or(std::string());
  const std::string header = json({{"write-id", write_id},
                                   {"task", task},
                                   {"rows", rows},
                                   {"files", std::move(files_json)}})
                                 .dump();
  std::string out(kMagic);
  const auto n = static_cast<uint32_t>(header.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out += header;
  out += manifest;
  return out;
}

Result<WriteTaskResult> WriteTaskResult::Deserialize(const WritePlan& plan,
                                                     std::string_view bytes) {
  auto bad = [](std::string_view why) {
    return InvalidInput("not a floe write task's result: {}", why);
  };
  if (bytes.size() < kMagic.size() + 4 || bytes.substr(0, kMagic.size()) != kMagic) {
    return bad("it does not start with FLOEWTR1");
  }
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) {
    n |= uint32_t{static_cast<uint8_t>(bytes[kMagic.size() + static_cast<size_t>(i)])} << (8 * i);
  }
  const size_t header_at = kMagic.size() + 4;
  if (n > bytes.size() - header_at) return bad("its header is longer than the result");
  const json h = json::parse(bytes.substr(header_at, n), nullptr, false);
  if (!h.is_object() || !h.contains("write-id") || !h["write-id"].is_string() ||
      !h.contains("task") || !h["task"].is_number_integer() || !h.contains("rows") ||
      !h["rows"].is_number_integer() || !h.contains("files") || !h["files"].is_array()) {
    return bad("its header lacks write-id, task, rows or files");
  }
  WriteTaskResult r;
  r.write_id = h["write-id"].get<std::string>();
  r.task = h["task"].get<int64_t>();
  r.rows = h["rows"].get<int64_t>();
  if (r.write_id != plan.write_id) {
    return InvalidInput("{} is not of this plan's write ({})", TaskName(r), plan.write_id);
  }
  const json& files = h["files"];
  if (files.empty()) return r;
  const Schema& schema = plan.metadata.CurrentSchema();
  const PartitionSpec& spec = plan.metadata.DefaultSpec();
  FLOE_ASSIGN_OR_RETURN(TypePtr partition_type, spec.PartitionType(schema));
  const std::string name = TaskName(r);
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                        ReadManifest(Buffer::FromString(bytes.substr(header_at + n)), name,
                                     ManifestFile{}, *partition_type));
  if (entries.size() != files.size()) {
    return InvalidInput("{}: its header lists {} files, its manifest {}", name, files.size(),
                        entries.size());
  }
  FLOE_ASSIGN_OR_RETURN(Location table_location, Location::Parse(plan.metadata.location));
  int64_t rows = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    DataFile f = std::move(entries[i].file);
    const json& fj = files[i];
    if (!fj.is_object() || !fj.contains("path") || fj["path"] != f.file_path) {
      return InvalidInput("{}: file {} differs between its header and its manifest", name, i);
    }
    auto loc = Location::Parse(f.file_path);
    if (!loc || !table_location.Contains(*loc) ||
        f.file_path.find(plan.write_id) == std::string::npos || f.content != FileContent::kData) {
      return InvalidInput("{}: '{}' is not a data file of this write under the table's location",
                          name, f.file_path);
    }
    f.spec_id = spec.spec_id();
    if (fj.contains("written-at-ms") && fj["written-at-ms"].is_number_integer()) {
      f.written_at_ms = fj["written-at-ms"].get<int64_t>();
    }
    if (fj.contains("otree")) {
      if (!plan.otree) return InvalidInput("{}: an OTree entry in a write with no OTree", name);
      auto entry = std::make_shared<OTreeFileEntry>();
      entry->revision = plan.otree->revision;
      FLOE_ASSIGN_OR_RETURN(entry->info, OTreeInfoFromJson(fj["otree"], plan.otree->revision.id,
                                                           plan.otree->revision.dimensions.size()));
      f.otree = std::move(entry);
    }
    rows += f.record_count;
    r.files.push_back(std::move(f));
  }
  if (rows != r.rows) {
    return InvalidInput("{}: its files hold {} rows, its header says {}", name, rows, r.rows);
  }
  return r;
}

Result<WriteTaskResult> RunWriteTask(const FileIO& io, const WritePlan& plan, int64_t task,
                                     const columnar::BatchSource& next) {
  if (plan.NeedsSample()) {
    return InvalidInput(
        "write to {}: its OTree layout is not fixed yet -- sample the rows (SampleForPlan, "
        "floe.WritePlan.sample) and fix the layout from the samples on the driver first",
        plan.table.ToString());
  }
  if (task < 0 || task > 99999) {
    return InvalidInput("write to {}: task number {} is not in 0..99999", plan.table.ToString(),
                        task);
  }
  Table t{plan.table, plan.metadata_location, plan.metadata};
  TableDataWriter writer(t, io);
  std::shared_ptr<const PlannedOTree> otree;
  if (plan.otree) otree = std::make_shared<const PlannedOTree>(*plan.otree);
  writer.set_task({plan.write_id, task}, std::move(otree));
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<columnar::RecordBatch> batch, next());
    if (!batch) break;
    FLOE_RETURN_IF_ERROR(writer.Write(*batch));
  }
  WriteTaskResult r;
  r.write_id = plan.write_id;
  r.task = task;
  r.rows = writer.rows();
  if (r.rows == 0) return r;
  FLOE_ASSIGN_OR_RETURN(r.files, writer.Finish());
  return r;
}

Status AbortWrite(const FileIO& io, const std::vector<WriteTaskResult>& results) {
  Status first;
  for (const WriteTaskResult& r : results) {
    for (const DataFile& f : r.files) {
      Status st = io.Delete(f.file_path);
      if (!st && first) first = st;
    }
  }
  return first;
}

Result<CommittedWrite> CommitWrite(catalog::Catalog& catalog, const FileIO& io,
                                   const WritePlan& plan,
                                   const std::vector<WriteTaskResult>& results) {
  auto refuse = [&](Error e) -> Result<CommittedWrite> {
    (void)AbortWrite(io, results);
    return std::unexpected(std::move(e));
  };
  CommittedWrite out;
  std::set<int64_t> tasks;
  SnapshotUpdate update;
  for (const WriteTaskResult& r : results) {
    if (r.write_id != plan.write_id) {
      return refuse(Error{ErrorKind::kInvalidInput,
                          fmt::format("write to {}: {} is not of this write ({})",
                                      plan.table.ToString(), TaskName(r), plan.write_id)});
    }
    if (!tasks.insert(r.task).second) {
      return refuse(Error{ErrorKind::kInvalidInput,
                          fmt::format("write to {}: task {} is reported twice (its rows would be "
                                      "added twice); pass one result per task",
                                      plan.table.ToString(), r.task)});
    }
    out.rows += r.rows;
    for (const DataFile& f : r.files) {
      out.bytes += f.file_size_in_bytes;
      update.added.push_back(f);
    }
  }
  out.data_files = static_cast<int64_t>(update.added.size());
  auto loaded = LoadTable(catalog, io, plan.table);
  if (!loaded) return refuse(loaded.error());
  const TableMetadata& now = loaded->metadata;
  if (update.added.empty()) {
    out.table = std::move(*loaded);
    return out;
  }
  auto changed = [&](std::string_view what, int32_t then, int32_t since) {
    return refuse(Error{ErrorKind::kConflict,
                        fmt::format("write to {}: the table's {} changed since the write was "
                                    "planned ({} -> {}); its files no longer fit: plan it again",
                                    plan.table.ToString(), what, then, since)});
  };
  if (now.current_schema_id != plan.metadata.current_schema_id) {
    return changed("schema", plan.metadata.current_schema_id, now.current_schema_id);
  }
  if (now.default_spec_id != plan.metadata.default_spec_id) {
    return changed("partition spec", plan.metadata.default_spec_id, now.default_spec_id);
  }
  if (plan.otree && plan.otree_base &&
      plan.otree->revision.id > plan.otree_base->last_revision_id) {
    auto base = OTreeWriteBaseOf(io, now);
    if (!base) return refuse(base.error());
    if (base->last_revision_id != plan.otree_base->last_revision_id) {
      return refuse(
          Error{ErrorKind::kConflict,
                fmt::format("write to {}: another write made OTree revision {} since this one was "
                            "planned with a revision of its own; plan it again",
                            plan.table.ToString(), base->last_revision_id)});
    }
  }
  update.summary["floe.write-tasks"] = std::to_string(results.size());
  auto committed = CommitSnapshot(catalog, io, plan.table, update);
  if (!committed) return refuse(committed.error());
  out.table = std::move(*committed);
  return out;
}

}  // namespace floe::iceberg
