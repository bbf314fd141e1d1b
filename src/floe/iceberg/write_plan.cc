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
  const std::vector<std::string>& names = plan->otree_base->columns;
  // The layout reads the indexed columns alone: they are gathered into one batch, and every other
  // column is read where the samples are, at the few rows that need it (ties of weight, the rows
  // a file's bytes are measured on).
  std::vector<c::RecordBatch> parts;
  std::vector<c::RecordBatch> key_parts;
  std::vector<int64_t> starts;  // each part's first row among all the samples' rows
  int64_t n = 0;
  for (const c::RecordBatch& s : samples) {
    if (s.num_rows == 0) continue;
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch conformed,
                          ConformToSchema(s, plan->metadata.CurrentSchema()));
    c::RecordBatch keyed;
    auto keyed_schema = std::make_shared<c::Schema>();
    for (const std::string& name : names) {
      auto idx = conformed.schema->IndexOf(name);
      if (!idx) return Internal("OTree column '{}' is not in the rows", name);
      keyed_schema->fields.push_back(conformed.schema->fields[*idx]);
      keyed.columns.push_back(conformed.columns[*idx]);
    }
    keyed.schema = std::move(keyed_schema);
    keyed.num_rows = conformed.num_rows;
    starts.push_back(n);
    n += conformed.num_rows;
    key_parts.push_back(std::move(keyed));
    parts.push_back(std::move(conformed));
  }
  if (parts.empty()) {
    return InvalidInput(
        "write to {}: the OTree layout needs a sample of the rows written, and the samples hold "
        "none (a write of no rows needs no plan)",
        plan->table.ToString());
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch indexed, c::Concatenate(key_parts));
  // The rows in one order whatever the tasks' order: a cube that fills on the sample takes its
  // lightest rows, ties broken by position, so the position must not depend on the split. By
  // weight, ties (rare) by the whole row's value hash, then by position.
  std::vector<const c::Column*> keys;
  FLOE_ASSIGN_OR_RETURN(keys, KeysOf(indexed, names));
  std::vector<int64_t> all(static_cast<size_t>(n));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  const std::vector<uint32_t> weights = layout::RowWeights(keys, all);
  if (n <= int64_t{UINT32_MAX}) {
    std::vector<uint64_t> packed(all.size());  // weight, then position
    for (size_t i = 0; i < all.size(); ++i) packed[i] = (uint64_t{weights[i]} << 32) | i;
    std::sort(packed.begin(), packed.end());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(packed[i] & UINT32_MAX);
  } else {
    std::stable_sort(all.begin(), all.end(), [&](int64_t a, int64_t b) {
      return weights[static_cast<size_t>(a)] < weights[static_cast<size_t>(b)];
    });
  }
  auto part_of = [&](int64_t row) {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), row) -
                               starts.begin() - 1);
  };
  // The rows that share a weight with another, their whole rows hashed where their part holds them.
  std::vector<std::pair<size_t, size_t>> runs;  // [begin, end) in `all` of one weight
  for (size_t b = 0; b < all.size();) {
    size_t e = b + 1;
    const uint32_t w = weights[static_cast<size_t>(all[b])];
    while (e < all.size() && weights[static_cast<size_t>(all[e])] == w) ++e;
    if (e - b > 1) runs.emplace_back(b, e);
    b = e;
  }
  if (!runs.empty()) {
    std::vector<std::vector<int64_t>> tied_rows(parts.size());
    std::vector<uint32_t> whole(all.size());
    for (const auto& [b, e] : runs) {
      for (size_t i = b; i < e; ++i) {
        const size_t p = part_of(all[i]);
        tied_rows[p].push_back(all[i] - starts[p]);
      }
    }
    for (size_t p = 0; p < parts.size(); ++p) {
      if (tied_rows[p].empty()) continue;
      std::vector<const c::Column*> every;
      every.reserve(parts[p].columns.size());
      for (const auto& col : parts[p].columns) every.push_back(col.get());
      const std::vector<uint32_t> h = layout::RowWeights(every, tied_rows[p]);
      for (size_t k = 0; k < h.size(); ++k) {
        whole[static_cast<size_t>(tied_rows[p][k] + starts[p])] = h[k];
      }
    }
    for (const auto& [b, e] : runs) {
      std::stable_sort(all.begin() + static_cast<std::ptrdiff_t>(b),
                       all.begin() + static_cast<std::ptrdiff_t>(e), [&](int64_t x, int64_t y) {
                         return whole[static_cast<size_t>(x)] < whole[static_cast<size_t>(y)];
                       });
    }
  }
  FLOE_ASSIGN_OR_RETURN(c::RecordBatch ordered, c::Take(indexed, all));
  const TableMetadata& m = plan->metadata;
  auto rows_per_file = [&]() -> Result<int64_t> {
    // Measured on the sample; its rows stand for the write's. On the sampled rows alone (as the
    // cubes fill): the extreme rows a sample also carries depend on how the write was split.
    // Every column of up to 50,000 of them, spread over the ordered sample, in that order.
    std::vector<int64_t> sampled;
    for (int64_t row : all) {
      if (InOTreeSample(weights[static_cast<size_t>(row)], plan->sample_fraction)) {
        sampled.push_back(row);
      }
    }
    if (sampled.empty()) sampled = all;
    const auto count = static_cast<int64_t>(sampled.size());
    const int64_t picks = std::min<int64_t>(count, 50000);
    std::vector<std::vector<int64_t>> local(parts.size());
    std::vector<std::pair<size_t, int64_t>> at(static_cast<size_t>(picks));
    for (int64_t i = 0; i < picks; ++i) {
      const int64_t row = sampled[static_cast<size_t>(i * count / picks)];
      const size_t p = part_of(row);
      at[static_cast<size_t>(i)] = {p, static_cast<int64_t>(local[p].size())};
      local[p].push_back(row - starts[p]);
    }
    std::vector<c::RecordBatch> taken;
    std::vector<int64_t> first(parts.size(), 0);
    int64_t so_far = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
      if (local[p].empty()) continue;
      FLOE_ASSIGN_OR_RETURN(c::RecordBatch t, c::Take(parts[p], local[p]));
      first[p] = so_far;
      so_far += t.num_rows;
      taken.push_back(std::move(t));
    }
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch gathered, c::Concatenate(taken));
    std::vector<int64_t> back(at.size());
    for (size_t i = 0; i < at.size(); ++i) back[i] = first[at[i].first] + at[i].second;
    FLOE_ASSIGN_OR_RETURN(c::RecordBatch picked, c::Take(gathered, back));
    return RowsPerFileAtTarget(m, picked);
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
