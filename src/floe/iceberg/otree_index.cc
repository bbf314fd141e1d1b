#include "floe/iceberg/otree_index.h"

#include "floe/iceberg/runtime.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/log.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/puffin.h"
#include "floe/iceberg/row_order.h"

namespace floe::iceberg {
namespace {

using json = nlohmann::json;

constexpr uint64_t kSpan = uint64_t{1} << 31;

// The table's statistics files that are OTree indexes (by their name), newest first.
struct IndexBlob {
  int64_t sequence_number = -1;
  int64_t snapshot_id = -1;
  std::string path;
  int64_t file_size = 0;
};

std::vector<IndexBlob> IndexBlobs(const TableMetadata& m) {
  std::vector<IndexBlob> out;
  auto it = m.extra.find("statistics");
  if (it == m.extra.end() || !it->is_array()) return out;
  for (const json& s : *it) {
    if (!s.is_object() || !s.contains("statistics-path") || !s["statistics-path"].is_string()) {
      continue;
    }
    IndexBlob blob;
    blob.path = s["statistics-path"].get<std::string>();
    if (!blob.path.ends_with(kOTreeIndexSuffix)) continue;
    if (s.contains("snapshot-id") && s["snapshot-id"].is_number_integer())
      blob.snapshot_id = s["snapshot-id"].get<int64_t>();
    // An expired snapshot's index is older than every live one.
    if (const Snapshot* snap = m.SnapshotById(blob.snapshot_id)) {
      blob.sequence_number = snap->sequence_number;
    }
    if (s.contains("file-size-in-bytes") && s["file-size-in-bytes"].is_number_integer())
      blob.file_size = s["file-size-in-bytes"].get<int64_t>();
    out.push_back(std::move(blob));
  }
  std::stable_sort(out.begin(), out.end(), [](const IndexBlob& a, const IndexBlob& b) {
    return a.sequence_number > b.sequence_number;
  });
  return out;
}

uint32_t WeightFrom(const json& j, const char* key, const std::string& name) {
  (void)name;
  if (!j.contains(key) || !j[key].is_number_unsigned()) return 0;
  return static_cast<uint32_t>(std::min<uint64_t>(j[key].get<uint64_t>(), UINT32_MAX));
}

// The point of one value along one dimension: the revision's own mapping of a one-row column.
Result<uint32_t> PointOf(const layout::OTreeRevision& revision, size_t k, const Literal& value,
                         const Type& type) {
  FLOE_ASSIGN_OR_RETURN(columnar::ColumnPtr col, LiteralColumn({value}, type));
  layout::OTreeRevision one;
  one.dimensions = {revision.dimensions[k]};
  FLOE_ASSIGN_OR_RETURN(std::vector<uint32_t> p, layout::RowPoints(one, {col.get()}, {0}));
  return p[0];
}

struct Span {
  uint32_t lo = 0;
  uint32_t hi = static_cast<uint32_t>(kSpan - 1);
  bool empty = false;
};

using Box = std::vector<Span>;

// The box of a NOT-free filter: AND intersects, OR takes the hull.
Result<Box> BoxOf(const layout::OTreeRevision& r, const Expr& e,
                  const std::vector<int32_t>& field_ids) {
  const size_t d = r.dimensions.size();
  Box box(d);
  switch (e.op) {
    case Op::kAnd: {
      FLOE_ASSIGN_OR_RETURN(Box a, BoxOf(r, *e.children[0], field_ids));
      FLOE_ASSIGN_OR_RETURN(Box b, BoxOf(r, *e.children[1], field_ids));
      for (size_t k = 0; k < d; ++k) {
        box[k].lo = std::max(a[k].lo, b[k].lo);
        box[k].hi = std::min(a[k].hi, b[k].hi);
        box[k].empty = a[k].empty || b[k].empty || box[k].lo > box[k].hi;
      }
      return box;
    }
    case Op::kOr: {
      FLOE_ASSIGN_OR_RETURN(Box a, BoxOf(r, *e.children[0], field_ids));
      FLOE_ASSIGN_OR_RETURN(Box b, BoxOf(r, *e.children[1], field_ids));
      // A side that is empty in any dimension matches nothing: the other side is the hull.
      const bool a_none = std::any_of(a.begin(), a.end(), [](const Span& s) { return s.empty; });
      const bool b_none = std::any_of(b.begin(), b.end(), [](const Span& s) { return s.empty; });
      if (a_none) return b;
      if (b_none) return a;
      for (size_t k = 0; k < d; ++k) {
        box[k].lo = std::min(a[k].lo, b[k].lo);
        box[k].hi = std::max(a[k].hi, b[k].hi);
      }
      return box;
    }
    case Op::kFalse:
      for (Span& s : box) s.empty = true;
      return box;
    default:
      break;
  }
  if (!e.is_predicate() || !e.bound() || e.type == nullptr) return box;
  const auto at = std::find(field_ids.begin(), field_ids.end(), e.field_id);
  if (at == field_ids.end()) return box;
  const auto k = static_cast<size_t>(at - field_ids.begin());
  const bool linear = r.dimensions[k].transform == layout::OTreeDimension::Transform::kLinear;
  Span& s = box[k];
  auto point = [&](const Literal& v) { return PointOf(r, k, v, *e.type); };
  switch (e.op) {
    case Op::kEq: {
      if (e.literals.size() != 1 || e.literals[0].is_null()) return box;
      FLOE_ASSIGN_OR_RETURN(uint32_t p, point(e.literals[0]));
      s.lo = s.hi = p;
      return box;
    }
    case Op::kIn: {
      if (e.literals.empty()) return box;
      uint32_t lo = UINT32_MAX, hi = 0;
      for (const Literal& v : e.literals) {
        if (v.is_null()) continue;
        FLOE_ASSIGN_OR_RETURN(uint32_t p, point(v));
        lo = std::min(lo, p);
        hi = std::max(hi, p);
      }
      if (lo > hi) {
        s.empty = true;
      } else {
        s.lo = lo;
        s.hi = hi;
      }
      return box;
    }
    case Op::kLt:
    case Op::kLtEq:
    case Op::kGt:
    case Op::kGtEq: {
      // Only a linear mapping keeps order; a hashed column's range says nothing.
      if (!linear || e.literals.size() != 1 || e.literals[0].is_null()) return box;
      FLOE_ASSIGN_OR_RETURN(uint32_t p, point(e.literals[0]));
      if (e.op == Op::kLt || e.op == Op::kLtEq) {
        s.hi = p;
      } else {
        s.lo = p;
      }
      return box;
    }
    default:
      return box;
  }
}

}  // namespace

// The index, or -- when it cannot be read (deleted by hand, corrupt) -- none: it only saves work,
// and every file's own metadata still says where its rows lie. A write then starts the cubes anew.
OTreeTableIndex LoadOrForget(const FileIO& io, const TableMetadata& m, const Snapshot* snapshot) {
  auto loaded = LoadOTreeIndex(io, m, snapshot);
  if (loaded) return std::move(*loaded);
  Log(LogLevel::kWarn, "table {}: its OTree index is not used: {}", m.location,
      loaded.error().message);
  return {};
}

std::vector<std::pair<std::string, std::string>> OTreeFileInfo::KeyValues() const {
  std::string cube_list;
  for (const OTreeFileCube& c : cubes) {
    if (!cube_list.empty()) cube_list += ',';
    cube_list += fmt::format("{}:{}:{}", c.id.empty() ? "root" : c.id, c.rows, c.max_weight);
  }
  return {{"floe.otree.revision", std::to_string(revision)},
          {"floe.otree.cubes", cube_list},
          {"floe.otree.weights", fmt::format("{}-{}", min_weight, max_weight)}};
}

layout::OTreeIndex OTreeTableIndex::Cubes(int64_t revision) const {
  std::map<std::string, layout::OTreeCube> cubes;
  for (const auto& [path, f] : files) {
    if (f.revision != revision) continue;
    for (const OTreeFileCube& c : f.cubes) {
      layout::OTreeCube& cube = cubes[c.id];
      cube.id = c.id;
      cube.rows += c.rows;
      cube.max_weight = std::min(cube.max_weight, c.max_weight);
    }
  }
  // A cube's min weight is its parent's max weight.
  auto dims = revisions.find(revision);
  const size_t digits = dims == revisions.end() ? 1 : (dims->second.dimensions.size() + 3) / 4;
  layout::OTreeIndex out;
  for (auto& [id, cube] : cubes) {
    std::string parent = id;
    while (!parent.empty()) {
      parent.resize(parent.size() - std::min(parent.size(), digits));
      auto p = cubes.find(parent);
      if (p != cubes.end()) {
        cube.min_weight = p->second.max_weight == UINT32_MAX ? 0 : p->second.max_weight;
        break;
      }
    }
    out.cubes.push_back(cube);
  }
  return out;
}

std::string OTreeTableIndex::ToJson() const {
  json j;
  j["revisions"] = json::array();
  for (const auto& [id, r] : revisions) j["revisions"].push_back(json::parse(r.ToJson()));
  j["files"] = json::array();
  for (const auto& [path, f] : files) {
    json cubes = json::array();
    for (const OTreeFileCube& c : f.cubes)
      cubes.push_back(json::array({c.id, c.rows, c.max_weight}));
    j["files"].push_back({{"path", path},
                          {"revision", f.revision},
                          {"min_weight", f.min_weight},
                          {"max_weight", f.max_weight},
                          {"cubes", std::move(cubes)}});
  }
  return j.dump();
}

Result<OTreeTableIndex> OTreeTableIndex::FromJson(std::string_view text, const std::string& name) {
  const json j = json::parse(text, nullptr, false);
  auto bad = [&](std::string_view why) { return Corrupt("OTree index '{}': {}", name, why); };
  if (!j.is_object() || !j.contains("revisions") || !j["revisions"].is_array() ||
      !j.contains("files") || !j["files"].is_array()) {
    return bad("not an object with 'revisions' and 'files' arrays");
  }
  OTreeTableIndex out;
  for (const json& r : j["revisions"]) {
    auto rev = layout::OTreeRevision::FromJson(r.dump());
    if (!rev) return bad(rev.error().message);
    out.revisions[rev->id] = std::move(*rev);
  }
  for (const json& f : j["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() ||
        !f.contains("revision") || !f["revision"].is_number_integer() || !f.contains("cubes") ||
        !f["cubes"].is_array()) {
      return bad("a file without 'path', 'revision' and 'cubes'");
    }
    OTreeFileInfo info;
    info.revision = f["revision"].get<int64_t>();
    if (!out.revisions.contains(info.revision))
      return bad(fmt::format("file of revision {}, which it does not list", info.revision));
    info.min_weight = WeightFrom(f, "min_weight", name);
    info.max_weight = WeightFrom(f, "max_weight", name);
    const size_t d = out.revisions[info.revision].dimensions.size();
    for (const json& c : f["cubes"]) {
      if (!c.is_array() || c.size() != 3 || !c[0].is_string() || !c[1].is_number_integer() ||
          !c[2].is_number_unsigned()) {
        return bad("a cube that is not [name, rows, max weight]");
      }
      OTreeFileCube cube{
          c[0].get<std::string>(), c[1].get<int64_t>(),
          static_cast<uint32_t>(std::min<uint64_t>(c[2].get<uint64_t>(), UINT32_MAX))};
      if (auto spans = layout::CubeSpans(cube.id, d); !spans) return bad(spans.error().message);
      info.cubes.push_back(std::move(cube));
    }
    out.files[f["path"].get<std::string>()] = std::move(info);
  }
  return out;
}

Result<std::optional<layout::ClusterSpec>> OTreeLayoutOf(const TableMetadata& m) {
  auto it = m.properties.find(std::string(kLayoutProperty));
  if (it == m.properties.end() || !layout::IsClusterSpec(it->second)) return std::nullopt;
  FLOE_ASSIGN_OR_RETURN(layout::ClusterSpec spec, layout::ParseClusterSpec(it->second));
  if (!spec.is_otree()) return std::nullopt;
  if (!m.DefaultSpec().fields().empty()) {
    return InvalidInput(
        "table property {} = '{}': an OTree lays out an unpartitioned table (its cubes are the "
        "partitioning); the table is partitioned",
        kLayoutProperty, it->second);
  }
  auto resolved = ResolveClusterSpec(spec, m.CurrentSchema(), m.DefaultSpec());
  if (!resolved) {
    return InvalidInput("table property {} = '{}': {}", kLayoutProperty, it->second,
                        resolved.error().message);
  }
  return *resolved;
}

Result<std::optional<layout::OTreeRevision>> CurrentOTreeRevision(const TableMetadata& m) {
  auto it = m.properties.find(std::string(kOTreeRevisionProperty));
  if (it == m.properties.end()) return std::nullopt;
  auto r = layout::OTreeRevision::FromJson(it->second);
  if (!r) {
    return InvalidInput("table property {}: {}", kOTreeRevisionProperty, r.error().message);
  }
  return *r;
}

namespace {

std::vector<const columnar::Column*> OTreeKeys(const layout::ClusterSpec& spec,
                                               const columnar::RecordBatch& rows, Status* status) {
  std::vector<const columnar::Column*> keys;
  for (const std::string& name : spec.columns) {
    auto idx = rows.schema->IndexOf(name);
    if (!idx) {
      *status = Internal("OTree column '{}' is not in the rows written", name);
      return {};
    }
    keys.push_back(rows.columns[*idx].get());
  }
  return keys;
}

std::vector<int64_t> AllRows(int64_t n) {
  std::vector<int64_t> all(static_cast<size_t>(n));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return all;
}

// Which revision rows go under and whether it is new: the current one, unless the table has
// none, indexes other columns, the rows fall far outside its spans (spans then widened), or
// `reindex`. A new one takes its spans from `rows` and its id after every revision known.
struct ChosenRevision {
  layout::OTreeRevision revision;
  bool fresh = true;
};
Result<ChosenRevision> ChooseRevision(const TableMetadata& m,
                                      const std::optional<layout::OTreeRevision>& current,
                                      int64_t last_id, const layout::ClusterSpec& spec,
                                      const std::vector<const columnar::Column*>& keys,
                                      const std::vector<int64_t>& rows, bool reindex,
                                      const std::function<Result<int64_t>()>& rows_per_file,
                                      ThreadPool* pool = nullptr) {
  bool same_columns = current.has_value() && current->dimensions.size() == spec.columns.size();
  for (size_t k = 0; same_columns && k < spec.columns.size(); ++k) {
    same_columns = current->dimensions[k].column == spec.columns[k];
  }
  ChosenRevision out;
  if (!reindex && same_columns && !layout::FarOutside(*current, keys, rows)) {
    out.revision = *current;
    out.fresh = false;
    return out;
  }
  int64_t cube_size = m.PropertyInt(std::string(kOTreeRowsPerFileProperty), 0);
  if (cube_size <= 0 && same_columns && !reindex) cube_size = current->cube_size;
  if (cube_size <= 0) {
    FLOE_ASSIGN_OR_RETURN(cube_size, rows_per_file());
  }
  FLOE_ASSIGN_OR_RETURN(out.revision,
                        layout::NewRevision(spec.columns, keys, rows, cube_size, pool));
  if (!reindex && same_columns) {
    // Far outside: the old spans widened by the new rows, so old and new rows map alike.
    for (size_t k = 0; k < out.revision.dimensions.size(); ++k) {
      out.revision.dimensions[k].min =
          std::min(out.revision.dimensions[k].min, current->dimensions[k].min);
      out.revision.dimensions[k].max =
          std::max(out.revision.dimensions[k].max, current->dimensions[k].max);
    }
  }
  out.revision.id = last_id + 1;
  return out;
}

int64_t LastRevisionId(const std::optional<layout::OTreeRevision>& current,
                       const OTreeTableIndex& index) {
  int64_t last_id = current ? current->id : 0;
  if (!index.revisions.empty()) last_id = std::max(last_id, index.revisions.rbegin()->first);
  return last_id;
}

// The files of an assignment rolled up at `target_rows`, each with the entry it carries.
OTreeWritePlan FilesOf(const layout::OTreeRevision& revision,
                       const layout::OTreeAssignment& assignment, int64_t target_rows) {
  std::vector<layout::OTreeFile> files =
      layout::RollUp(assignment, assignment.weights, target_rows);
  OTreeWritePlan plan;
  std::map<std::string, size_t> cube_at;
  for (size_t k = 0; k < assignment.index.cubes.size(); ++k)
    cube_at[assignment.index.cubes[k].id] = k;
  for (layout::OTreeFile& f : files) {
    auto entry = std::make_shared<OTreeFileEntry>();
    entry->revision = revision;
    entry->info.revision = revision.id;
    entry->info.min_weight = f.min_weight;
    entry->info.max_weight = f.max_weight;
    std::vector<int64_t> per_cube(assignment.index.cubes.size(), 0);
    for (int64_t r : f.rows)
      ++per_cube[static_cast<size_t>(assignment.cube[static_cast<size_t>(r)])];
    for (const std::string& id : f.cubes) {
      const size_t k = cube_at.at(id);
      if (per_cube[k] == 0) continue;  // a cube of the group with no row in this cut
      entry->info.cubes.push_back({id, per_cube[k], assignment.index.cubes[k].max_weight});
    }
    plan.file_rows.push_back(std::move(f.rows));
    plan.entries.push_back(std::move(entry));
  }
  return plan;
}

// A bijection of 32-bit weights that scatters them: a sample of the weights it maps below a
// threshold is spread evenly over every weight, unlike the lightest rows.
uint32_t SampleKey(uint32_t weight) {
  uint64_t x = (uint64_t{weight} << 32) | 0x9e3779b9u;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

}  // namespace

Result<OTreeWritePlan> PlanOTreeWrite(const FileIO& io, const TableMetadata& m,
                                      const layout::ClusterSpec& spec,
                                      const columnar::RecordBatch& rows, bool reindex,
                                      const std::vector<std::string>& replacing,
                                      const std::function<Result<int64_t>()>& rows_per_file) {
  Status keys_ok;
  const std::vector<const columnar::Column*> keys = OTreeKeys(spec, rows, &keys_ok);
  FLOE_RETURN_IF_ERROR(keys_ok);
  const std::vector<int64_t> all = AllRows(rows.num_rows);
  FLOE_ASSIGN_OR_RETURN(std::optional<layout::OTreeRevision> current, CurrentOTreeRevision(m));
  OTreeTableIndex index = LoadOrForget(io, m, nullptr);
  for (const std::string& p : replacing) index.files.erase(p);
  FLOE_ASSIGN_OR_RETURN(ChosenRevision chosen,
                        ChooseRevision(m, current, LastRevisionId(current, index), spec, keys, all,
                                       reindex, rows_per_file, &io.runtime().decode_pool()));
  const layout::OTreeIndex cubes =
      chosen.fresh ? layout::OTreeIndex{} : index.Cubes(chosen.revision.id);
  FLOE_ASSIGN_OR_RETURN(
      layout::OTreeAssignment assignment,
      layout::AssignCubes(chosen.revision, cubes, keys, all, &io.runtime().decode_pool()));
  return FilesOf(chosen.revision, assignment, chosen.revision.cube_size);
}

Result<OTreeWriteBase> OTreeWriteBaseOf(const FileIO& io, const TableMetadata& m) {
  OTreeWriteBase base;
  FLOE_ASSIGN_OR_RETURN(std::optional<layout::ClusterSpec> spec, OTreeLayoutOf(m));
  if (!spec) return InvalidInput("table at '{}' is not laid out as an OTree", m.location);
  base.columns = spec->columns;
  FLOE_ASSIGN_OR_RETURN(base.current, CurrentOTreeRevision(m));
  const OTreeTableIndex index = LoadOrForget(io, m, nullptr);
  base.last_revision_id = LastRevisionId(base.current, index);
  if (base.current) base.cubes = index.Cubes(base.current->id);
  return base;
}

bool InOTreeSample(uint32_t weight, double fraction) {
  if (fraction >= 1.0) return true;
  return static_cast<double>(SampleKey(weight)) < fraction * 4294967296.0;
}

Result<PlannedOTree> PlanOTreeFromSample(const TableMetadata& m, const OTreeWriteBase& base,
                                         const columnar::RecordBatch& sample, double fraction,
                                         const std::function<Result<int64_t>()>& rows_per_file) {
  if (!(fraction > 0.0) || fraction > 1.0) {
    return InvalidInput("an OTree write's sample fraction must be in (0, 1], not {}", fraction);
  }
  layout::ClusterSpec spec;
  spec.method = layout::ClusterMethod::kOTree;
  spec.columns = base.columns;
  Status keys_ok;
  const std::vector<const columnar::Column*> keys = OTreeKeys(spec, sample, &keys_ok);
  FLOE_RETURN_IF_ERROR(keys_ok);
  const std::vector<int64_t> all = AllRows(sample.num_rows);
  FLOE_ASSIGN_OR_RETURN(ChosenRevision chosen,
                        ChooseRevision(m, base.current, base.last_revision_id, spec, keys, all,
                                       /*reindex=*/false, rows_per_file));
  // The cubes fill on the sample as they would on the whole write, each at `fraction` of its
  // room: a cube closes where it would have closed, at about the same weight.
  layout::OTreeRevision scaled = chosen.revision;
  auto scale = [&](int64_t n) {
    return std::max<int64_t>(1, std::llround(static_cast<double>(n) * fraction));
  };
  scaled.cube_size = scale(chosen.revision.cube_size);
  layout::OTreeIndex existing = chosen.fresh ? layout::OTreeIndex{} : base.cubes;
  for (layout::OTreeCube& c : existing.cubes)
    c.rows = static_cast<int64_t>(std::llround(static_cast<double>(c.rows) * fraction));
  // The cubes fill on the sampled rows only: the extreme rows a sample also carries depend on
  // how the write was split, and served the spans above.
  std::vector<int64_t> fill;
  const std::vector<uint32_t> weights = layout::RowWeights(keys, all);
  for (size_t i = 0; i < all.size(); ++i) {
    if (InOTreeSample(weights[i], fraction)) fill.push_back(all[i]);
  }
  FLOE_ASSIGN_OR_RETURN(layout::OTreeAssignment assignment,
                        layout::AssignCubes(scaled, existing, keys, fill));
  PlannedOTree out;
  out.revision = chosen.revision;
  out.cubes = assignment.index;
  for (layout::OTreeCube& c : out.cubes.cubes) {
    c.rows = static_cast<int64_t>(std::llround(static_cast<double>(c.rows) / fraction));
  }
  return out;
}

Result<OTreeWritePlan> LayOutPlannedOTree(const PlannedOTree& planned,
                                          const columnar::RecordBatch& rows) {
  layout::ClusterSpec spec;
  spec.method = layout::ClusterMethod::kOTree;
  for (const layout::OTreeDimension& d : planned.revision.dimensions)
    spec.columns.push_back(d.column);
  Status keys_ok;
  const std::vector<const columnar::Column*> keys = OTreeKeys(spec, rows, &keys_ok);
  FLOE_RETURN_IF_ERROR(keys_ok);
  // No cube fills here: each row goes to the first planned cube on its path it is lighter than
  // (or the first unplanned one, open), so its cube depends on the row and the plan alone.
  layout::OTreeRevision frozen = planned.revision;
  frozen.cube_size = std::numeric_limits<int64_t>::max();
  FLOE_ASSIGN_OR_RETURN(layout::OTreeAssignment assignment,
                        layout::AssignCubes(frozen, planned.cubes, keys, AllRows(rows.num_rows)));
  return FilesOf(planned.revision, assignment, planned.revision.cube_size);
}

bool HasOTreeIndex(const TableMetadata& m) { return !IndexBlobs(m).empty(); }

Result<OTreeTableIndex> LoadOTreeIndex(const FileIO& io, const TableMetadata& m,
                                       const Snapshot* snapshot) {
  const std::vector<IndexBlob> blobs = IndexBlobs(m);
  if (blobs.empty()) return OTreeTableIndex{};
  if (snapshot == nullptr) snapshot = m.CurrentSnapshot();
  const IndexBlob* pick = &blobs.front();
  if (snapshot != nullptr) {
    for (const IndexBlob& b : blobs) {
      if (b.sequence_number <= snapshot->sequence_number) {
        pick = &b;
        break;
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.ReadMetadata(pick->path));
  const std::span<const uint8_t> all(bytes.data(), bytes.size());
  if (all.size() < 12) return Corrupt("OTree index '{}': {} bytes", pick->path, all.size());
  FLOE_ASSIGN_OR_RETURN(int64_t footer_length,
                        PuffinFooterLength(all.subspan(all.size() - 12), pick->path));
  if (footer_length > static_cast<int64_t>(all.size()))
    return Corrupt("OTree index '{}': footer longer than the file", pick->path);
  FLOE_ASSIGN_OR_RETURN(
      PuffinFooter footer,
      ParsePuffinFooter(all.subspan(all.size() - static_cast<size_t>(footer_length)),
                        static_cast<int64_t>(all.size()), pick->path));
  for (const PuffinBlob& b : footer.blobs) {
    if (b.type != kOTreeIndexBlobType) continue;
    if (b.compression_codec) {
      return Unsupported("OTree index '{}': a {}-compressed blob", pick->path,
                         *b.compression_codec);
    }
    const std::string_view text(reinterpret_cast<const char*>(all.data()) + b.offset,
                                static_cast<size_t>(b.length));
    return OTreeTableIndex::FromJson(text, pick->path);
  }
  return Corrupt("OTree index '{}' holds no {} blob", pick->path, kOTreeIndexBlobType);
}

Status RecordOTreeIndex(const FileIO& io, TableMetadata& m, const Snapshot* parent,
                        int64_t snapshot_id, int64_t sequence_number,
                        const std::vector<DataFile>& added,
                        const std::vector<std::string>& removed_paths,
                        std::vector<std::string>* written) {
  const bool adds =
      std::any_of(added.begin(), added.end(), [](const DataFile& f) { return f.otree != nullptr; });
  if (!adds && (removed_paths.empty() || IndexBlobs(m).empty())) return {};
  OTreeTableIndex index = LoadOrForget(io, m, parent);
  size_t removed = 0;
  for (const std::string& p : removed_paths) removed += index.files.erase(p);
  if (!adds && removed == 0) return {};
  const layout::OTreeRevision* newest = nullptr;
  for (const DataFile& f : added) {
    if (f.otree == nullptr) continue;
    index.files[f.file_path] = f.otree->info;
    index.revisions[f.otree->revision.id] = f.otree->revision;
    if (newest == nullptr || f.otree->revision.id > newest->id) newest = &f.otree->revision;
  }
  // Revisions no live file was written under any more.
  for (auto it = index.revisions.begin(); it != index.revisions.end();) {
    const int64_t id = it->first;
    const bool used = std::any_of(index.files.begin(), index.files.end(),
                                  [&](const auto& f) { return f.second.revision == id; });
    it = used ? std::next(it) : index.revisions.erase(it);
  }
  if (newest == nullptr && !index.revisions.empty()) newest = &index.revisions.rbegin()->second;
  const std::string text = index.ToJson();
  PuffinWriter puffin;
  std::vector<int32_t> fields;
  for (const layout::OTreeDimension& d :
       newest != nullptr ? newest->dimensions : std::vector<layout::OTreeDimension>{}) {
    if (const NestedField* f = m.CurrentSchema().FindByName(d.column)) fields.push_back(f->id);
  }
  PuffinBlob blob =
      puffin.Add(std::string(kOTreeIndexBlobType), fields,
                 std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  const std::string bytes = puffin.Finish();
  const std::string location =
      fmt::format("{}/metadata/{}-{}{}", m.location, snapshot_id, NewUuid(), kOTreeIndexSuffix);
  FLOE_RETURN_IF_ERROR(io.Write(location, AsBytes(bytes)));
  written->push_back(location);
  // After the blobs: the footer (4 magic bytes lead the file).
  const int64_t footer = static_cast<int64_t>(bytes.size()) - 4 - blob.length;
  // The blob is not listed in the metadata: readers such as pyiceberg accept only the spec's blob
  // types there (and would refuse the whole table). The file's own footer lists it.
  (void)sequence_number;
  json entry = {{"snapshot-id", snapshot_id},
                {"statistics-path", location},
                {"file-size-in-bytes", static_cast<int64_t>(bytes.size())},
                {"file-footer-size-in-bytes", footer},
                {"blob-metadata", json::array()}};
  json& stats = m.extra["statistics"];
  if (!stats.is_array()) stats = json::array();
  stats.push_back(std::move(entry));
  if (adds) {
    // A write planned before another created a newer revision keeps the newer one current.
    auto current = CurrentOTreeRevision(m);
    if (!current || !*current || (*current)->id <= newest->id) {
      m.properties[std::string(kOTreeRevisionProperty)] = newest->ToJson();
    }
  }
  return {};
}

Result<OTreeBox> FilterBox(const layout::OTreeRevision& revision, const ExprPtr& filter,
                           const Schema& schema) {
  const size_t d = revision.dimensions.size();
  OTreeBox out;
  out.lo.assign(d, 0);
  out.hi.assign(d, static_cast<uint32_t>(kSpan - 1));
  if (filter == nullptr) return out;
  std::vector<int32_t> ids;
  for (const layout::OTreeDimension& dim : revision.dimensions) {
    const NestedField* f = schema.FindByName(dim.column);
    ids.push_back(f == nullptr ? -2 : f->id);
  }
  FLOE_ASSIGN_OR_RETURN(Box box, BoxOf(revision, *RewriteNot(filter), ids));
  for (size_t k = 0; k < d; ++k) {
    out.lo[k] = box[k].lo;
    out.hi[k] = box[k].hi;
    out.empty = out.empty || box[k].empty;
  }
  return out;
}

bool FileMeetsBox(const OTreeFileInfo& file, const OTreeBox& box, size_t dimensions) {
  if (box.empty) return false;
  if (file.cubes.empty()) return true;
  for (const OTreeFileCube& c : file.cubes) {
    auto spans = layout::CubeSpans(c.id, dimensions);
    if (!spans) return true;  // not understood: keep the file
    bool meets = true;
    for (size_t k = 0; k < dimensions && meets; ++k) {
      // The cube's cell [lo, hi) against the box's [lo, hi].
      meets = (*spans)[k].lo <= box.hi[k] && (*spans)[k].hi > box.lo[k];
    }
    if (meets) return true;
  }
  return false;
}

}  // namespace floe::iceberg
