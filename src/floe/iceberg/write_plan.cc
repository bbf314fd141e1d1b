#include "floe/iceberg/write_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/columnar/take.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/schema_conform.h"
#include "floe/iceberg/table.h"
#include "floe/io/store_uri.h"

namespace floe::iceberg {
namespace {

using json = nlohmann::json;
namespace c = floe::columnar;

constexpr std::string_view kPlanFormat = "floe-write-plan-v1";

json CubesToJson(const layout::OTreeIndex& index) {
  json out = json::array();
  for (const layout::OTreeCube& cube : index.cubes) {
    out.push_back(json::array({cube.id, cube.rows, cube.max_weight, cube.min_weight}));
  }
  return out;
}

Result<layout::OTreeIndex> CubesFromJson(const json& j, size_t dimensions) {
  if (!j.is_array()) return InvalidInput("write plan: 'cubes' is not an array");
  layout::OTreeIndex out;
  for (const json& c : j) {
    if (!c.is_array() || c.size() != 4 || !c[0].is_string() || !c[1].is_number_integer() ||
        !c[2].is_number_unsigned() || !c[3].is_number_unsigned() ||
        c[2].get<uint64_t>() > UINT32_MAX || c[3].get<uint64_t>() > UINT32_MAX) {
      return InvalidInput("write plan: a cube that is not [name, rows, max weight, min weight]");
    }
    layout::OTreeCube cube;
    cube.id = c[0].get<std::string>();
    cube.rows = c[1].get<int64_t>();
    cube.max_weight = static_cast<uint32_t>(c[2].get<uint64_t>());
    cube.min_weight = static_cast<uint32_t>(c[3].get<uint64_t>());
    FLOE_RETURN_IF_ERROR(layout::CubeSpans(cube.id, dimensions));
    out.cubes.push_back(std::move(cube));
  }
  return out;
}

// The metadata a task needs: the table as of the plan, without its history.
TableMetadata WithoutHistory(TableMetadata m) {
  m.current_snapshot_id.reset();
  m.snapshots.clear();
  m.refs.clear();
  m.snapshot_log.clear();
  m.metadata_log.clear();
  m.extra = json::object();
  return m;
}

Result<std::vector<const c::Column*>> KeysOf(const c::RecordBatch& rows,
                                             const std::vector<std::string>& names) {
  std::vector<const c::Column*> keys;
  for (const std::string& name : names) {
    auto idx = rows.schema->IndexOf(name);
    if (!idx) return Internal("OTree column '{}' is not in the rows", name);
    keys.push_back(rows.columns[*idx].get());
  }
  return keys;
}

}  // namespace

std::string WritePlan::ToJson() const {
  json j;
  j["format"] = kPlanFormat;
  j["table"] = table.ToString();
  j["metadata-location"] = metadata_location;
  j["base-snapshot-id"] = base_snapshot_id ? json(*base_snapshot_id) : json(nullptr);
  j["write-id"] = write_id;
  j["metadata"] = metadata.ToJson();
  j["s3"] = {{"endpoint", s3_endpoint}, {"region", s3_region}, {"path-style", s3_path_style}};
  if (otree_base) {
    json b;
    b["columns"] = otree_base->columns;
    b["current"] = otree_base->current ? json::parse(otree_base->current->ToJson()) : json(nullptr);
    b["last-revision-id"] = otree_base->last_revision_id;
    b["cubes"] = CubesToJson(otree_base->cubes);
    b["sample-fraction"] = sample_fraction;
    j["otree-base"] = std::move(b);
  }
  if (otree) {
    j["otree"] = {{"revision", json::parse(otree->revision.ToJson())},
                  {"cubes", CubesToJson(otree->cubes)}};
  }
  return j.dump();
}

Result<WritePlan> WritePlan::FromJson(std::string_view text) {
  const json j = json::parse(text, nullptr, false);
  auto bad = [](std::string_view why) { return InvalidInput("not a floe write plan: {}", why); };
  if (!j.is_object() || !j.contains("format") || j["format"] != kPlanFormat) {
    return bad(fmt::format("expected a JSON object with \"format\": \"{}\"", kPlanFormat));
  }
  for (const char* key : {"table", "metadata-location", "write-id"}) {
    if (!j.contains(key) || !j[key].is_string()) return bad(fmt::format("no string '{}'", key));
  }
  if (!j.contains("metadata") || !j["metadata"].is_object()) return bad("no 'metadata' object");
  WritePlan p;
  FLOE_ASSIGN_OR_RETURN(p.table, catalog::TableIdentifier::Parse(j["table"].get<std::string>()));
  p.metadata_location = j["metadata-location"].get<std::string>();
  p.write_id = j["write-id"].get<std::string>();
  if (p.write_id.empty() || p.write_id.find_first_of("/\\") != std::string::npos) {
    return bad("'write-id' must be a non-empty name");
  }
  if (j.contains("base-snapshot-id") && j["base-snapshot-id"].is_number_integer()) {
    p.base_snapshot_id = j["base-snapshot-id"].get<int64_t>();
  }
  auto metadata = TableMetadata::FromJson(j["metadata"], "the write plan's metadata");
  if (!metadata) return bad(metadata.error().message);
  p.metadata = std::move(*metadata);
  if (j.contains("s3") && j["s3"].is_object()) {
    const json& s = j["s3"];
    if (s.contains("endpoint") && s["endpoint"].is_string())
      p.s3_endpoint = s["endpoint"].get<std::string>();
    if (s.contains("region") && s["region"].is_string())
      p.s3_region = s["region"].get<std::string>();
    if (s.contains("path-style") && s["path-style"].is_boolean())
      p.s3_path_style = s["path-style"].get<bool>();
  }
  if (j.contains("otree-base") && j["otree-base"].is_object()) {
    const json& b = j["otree-base"];
    OTreeWriteBase base;
    if (!b.contains("columns") || !b["columns"].is_array()) return bad("no OTree 'columns'");
    for (const json& col : b["columns"]) {
      if (!col.is_string()) return bad("an OTree column that is not a string");
      base.columns.push_back(col.get<std::string>());
    }
    if (base.columns.empty()) return bad("no OTree 'columns'");
    if (b.contains("current") && b["current"].is_object()) {
      auto r = layout::OTreeRevision::FromJson(b["current"].dump());
      if (!r) return bad(r.error().message);
      base.current = std::move(*r);
    }
    if (b.contains("last-revision-id") && b["last-revision-id"].is_number_integer()) {
      base.last_revision_id = b["last-revision-id"].get<int64_t>();
    }
    FLOE_ASSIGN_OR_RETURN(base.cubes,
                          CubesFromJson(b.value("cubes", json::array()), base.columns.size()));
    if (!b.contains("sample-fraction") || !b["sample-fraction"].is_number()) {
      return bad("no OTree 'sample-fraction'");
    }
    p.sample_fraction = b["sample-fraction"].get<double>();
    if (!(p.sample_fraction > 0.0) || p.sample_fraction > 1.0) {
      return bad("'sample-fraction' must be in (0, 1]");
    }
    p.otree_base = std::move(base);
  }
  if (j.contains("otree") && j["otree"].is_object()) {
    const json& o = j["otree"];
    if (!o.contains("revision") || !o["revision"].is_object()) return bad("no OTree 'revision'");
    auto r = layout::OTreeRevision::FromJson(o["revision"].dump());
    if (!r) return bad(r.error().message);
    PlannedOTree planned;
    planned.revision = std::move(*r);
    FLOE_ASSIGN_OR_RETURN(planned.cubes, CubesFromJson(o.value("cubes", json::array()),
                                                       planned.revision.dimensions.size()));
    p.otree = std::move(planned);
  }
  return p;
}

Result<WritePlan> PlanWrite(catalog::Catalog& catalog, const FileIO& io,
                            const catalog::TableIdentifier& id, const PlanWriteOptions& options) {
  FLOE_ASSIGN_OR_RETURN(Table t, LoadTable(catalog, io, id));
  // What a write of this table would refuse is refused here, before any task runs.
  FLOE_RETURN_IF_ERROR(ParquetOptionsFor(t.metadata));
  WritePlan p;
  p.table = id;
  p.metadata_location = t.metadata_location;
  if (const Snapshot* s = t.metadata.CurrentSnapshot()) p.base_snapshot_id = s->snapshot_id;
  p.write_id = NewUuid();
  p.s3_endpoint = options.s3.endpoint;
  p.s3_region = options.s3.region;
  p.s3_path_style = options.s3.path_style;
  FLOE_ASSIGN_OR_RETURN(std::optional<layout::ClusterSpec> otree, OTreeLayoutOf(t.metadata));
  if (otree) {
    FLOE_ASSIGN_OR_RETURN(p.otree_base, OTreeWriteBaseOf(io, t.metadata));
    if (options.expected_rows > 0 && options.sample_rows > 0 &&
        options.expected_rows > options.sample_rows) {
      p.sample_fraction =
          static_cast<double>(options.sample_rows) / static_cast<double>(options.expected_rows);
    }
  }
  p.metadata = WithoutHistory(std::move(t.metadata));
  return p;
}

Result<c::RecordBatch> SampleForPlan(const WritePlan& plan, const c::RecordBatch& batch) {
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch rows, ConformToSchema(batch, plan.metadata.CurrentSchema()));
  if (!plan.otree_base) return c::Take(rows, {});
  FLOE_ASSIGN_OR_RETURN(std::vector<const c::Column*> keys, KeysOf(rows, plan.otree_base->columns));
  std::vector<int64_t> all(static_cast<size_t>(rows.num_rows));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  const std::vector<uint32_t> weights = layout::RowWeights(keys, all);
  std::vector<int64_t> keep = layout::ExtremeRows(keys, all);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (InOTreeSample(weights[i], plan.sample_fraction)) keep.push_back(static_cast<int64_t>(i));
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  return c::Take(rows, keep);
}

Status FixPlanLayout(WritePlan* plan, const std::vector<c::RecordBatch>& samples) {
  if (!plan->NeedsSample()) return {};
  std::vector<c::RecordBatch> parts;
  for (const c::RecordBatch& s : samples) {
    if (s.num_rows == 0) continue;
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed,
                          ConformToSchema(s, plan->metadata.CurrentSchema()));
    parts.push_back(std::move(conformed));
  }
  if (parts.empty()) {
    return InvalidInput(
        "write to {}: the OTree layout needs a sample of the rows written, and the samples hold "
        "none (a write of no rows needs no plan)",
        plan->table.ToString());
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch sample, c::Concatenate(parts));
  // The rows in one order whatever the tasks' order: a cube that fills on the sample takes its
  // lightest rows, ties broken by position, so the position must not depend on the split.
  std::vector<const c::Column*> keys;
  FLOE_ASSIGN_OR_RETURN(keys, KeysOf(sample, plan->otree_base->columns));
  std::vector<int64_t> all(static_cast<size_t>(sample.num_rows));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  const std::vector<uint32_t> weights = layout::RowWeights(keys, all);
  std::vector<uint64_t> hashes(all.size());
  {
    // Ties of weight (rare) ordered by the whole row's value hash.
    std::vector<const c::Column*> every;
    every.reserve(sample.columns.size());
    for (const auto& col : sample.columns) every.push_back(col.get());
    const std::vector<uint32_t> whole = layout::RowWeights(every, all);
    for (size_t i = 0; i < all.size(); ++i) hashes[i] = (uint64_t{weights[i]} << 32) | whole[i];
  }
  std::stable_sort(all.begin(), all.end(), [&](int64_t a, int64_t b) {
    return hashes[static_cast<size_t>(a)] < hashes[static_cast<size_t>(b)];
  });
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch ordered, c::Take(sample, all));
  const TableMetadata& m = plan->metadata;
  auto rows_per_file = [&]() -> Result<int64_t> {
    // Measured on the sample; its rows stand for the write's.
    return RowsPerFileAtTarget(m, ordered);
  };
  FLOE_ASSIGN_OR_RETURN(plan->otree, PlanOTreeFromSample(m, *plan->otree_base, ordered,
                                                         plan->sample_fraction, rows_per_file));
  return {};
}

Result<std::shared_ptr<FileIO>> OpenPlanIO(const WritePlan& plan) {
  FLOE_ASSIGN_OR_RETURN(Location loc, Location::Parse(plan.metadata.location));
  io::S3Options s3;
  s3.endpoint = plan.s3_endpoint;
  s3.region = plan.s3_region;
  s3.path_style = plan.s3_path_style;
  FLOE_ASSIGN_OR_RETURN(io::StorePtr store, io::OpenStore(loc.root, s3));
  StoreOpener open_other =
      [s3](const std::string& uri,
           const std::map<std::string, std::string>& properties) -> Result<io::StorePtr> {
    io::S3Options o = s3;
    FLOE_RETURN_IF_ERROR(o.ApplyProperties(properties));
    return io::OpenStore(uri, o);
  };
  return std::make_shared<FileIO>(store, store->Uri(), std::move(open_other));
}

}  // namespace floe::iceberg
