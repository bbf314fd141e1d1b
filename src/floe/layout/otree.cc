#include "floe/layout/otree.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/base/parallel_for.h"

namespace floe::layout {
namespace {

namespace c = floe::columnar;
using json = nlohmann::json;

constexpr int kMaxDimensions = 8;
constexpr int kCoordinateBits = 31;
constexpr int kMaxDepth = kCoordinateBits;

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a over bytes, then mixed: a string's hash, the same on every machine.
uint64_t HashBytes(std::string_view v) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char ch : v) {
    h ^= static_cast<uint8_t>(ch);
    h *= 0x100000001b3ULL;
  }
  return Mix(h);
}

bool Linear(const c::DataType& t) {
  switch (t.id) {
    case c::TypeId::kInt8:
    case c::TypeId::kInt16:
    case c::TypeId::kInt32:
    case c::TypeId::kInt64:
    case c::TypeId::kUInt8:
    case c::TypeId::kUInt16:
    case c::TypeId::kUInt32:
    case c::TypeId::kFloat32:
    case c::TypeId::kFloat64:
    case c::TypeId::kDecimal128:
    case c::TypeId::kDate32:
    case c::TypeId::kTime64:
    case c::TypeId::kTimestamp:
      return true;
    default:
      return false;
  }
}

// A number column's value as a double (NaN for NULL).
double NumberAt(const c::Column& col, int64_t r) {
  if (col.IsNull(r)) return std::numeric_limits<double>::quiet_NaN();
  switch (col.type.id) {
    case c::TypeId::kInt8:
      return col.Value<int8_t>(r);
    case c::TypeId::kInt16:
      return col.Value<int16_t>(r);
    case c::TypeId::kInt32:
    case c::TypeId::kDate32:
      return col.Value<int32_t>(r);
    case c::TypeId::kUInt8:
      return col.Value<uint8_t>(r);
    case c::TypeId::kUInt16:
      return col.Value<uint16_t>(r);
    case c::TypeId::kUInt32:
      return col.Value<uint32_t>(r);
    case c::TypeId::kInt64:
    case c::TypeId::kTime64:
    case c::TypeId::kTimestamp:
      return static_cast<double>(col.Value<int64_t>(r));
    case c::TypeId::kFloat32:
      return col.Value<float>(r);
    case c::TypeId::kFloat64:
      return col.Value<double>(r);
    case c::TypeId::kDecimal128:
      return static_cast<double>(col.Value<__int128>(r)) / std::pow(10.0, col.type.scale);
    default:
      return 0;
  }
}

// A value's hash for weights and hashed dimensions (NULL: a constant). Integers (and dates, times,
// timestamps) hash as their 64-bit value and floats as a double, whatever their width, so a
// promotion (int to long, float to double) keeps every row's weight.
uint64_t ValueHash(const c::Column& col, int64_t r) {
  if (col.IsNull(r)) return Mix(0x6e756c6cULL);
  switch (col.type.id) {
    case c::TypeId::kBool:
      return Mix(col.BoolAt(r) ? 1 : 2);
    case c::TypeId::kString:
    case c::TypeId::kBinary:
    case c::TypeId::kFixedSizeBinary:
      return HashBytes(col.BytesAt(r));
    case c::TypeId::kInt8:
      return Mix(static_cast<uint64_t>(int64_t{col.Value<int8_t>(r)}));
    case c::TypeId::kInt16:
      return Mix(static_cast<uint64_t>(int64_t{col.Value<int16_t>(r)}));
    case c::TypeId::kInt32:
    case c::TypeId::kDate32:
      return Mix(static_cast<uint64_t>(int64_t{col.Value<int32_t>(r)}));
    case c::TypeId::kUInt8:
      return Mix(uint64_t{col.Value<uint8_t>(r)});
    case c::TypeId::kUInt16:
      return Mix(uint64_t{col.Value<uint16_t>(r)});
    case c::TypeId::kUInt32:
      return Mix(uint64_t{col.Value<uint32_t>(r)});
    case c::TypeId::kInt64:
    case c::TypeId::kTime64:
    case c::TypeId::kTimestamp:
      return Mix(static_cast<uint64_t>(col.Value<int64_t>(r)));
    case c::TypeId::kFloat32:
    case c::TypeId::kFloat64: {
      double v =
          col.type.id == c::TypeId::kFloat32 ? double{col.Value<float>(r)} : col.Value<double>(r);
      if (v == 0) v = 0;  // -0.0 as 0.0
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      return Mix(bits ^ 0x3ff0000000000000ULL);
    }
    default:
      break;
  }
  const int w = col.type.FixedWidth();
  uint64_t bits[2] = {0, 0};
  std::memcpy(bits, col.values.data() + r * w, static_cast<size_t>(std::min(w, 16)));
  return Mix(bits[0] ^ Mix(bits[1] + static_cast<uint64_t>(w)));
}

// fn(begin, end) over [0, n) cut into at most 64 pieces, on `pool`'s threads and the caller's
// when given.
template <typename Fn>
void InPieces(ThreadPool* pool, size_t n, Fn&& fn) {
  const size_t pieces = pool != nullptr && pool->size() > 0 && n >= 65536
                            ? std::min<size_t>(64, 4 * (pool->size() + 1))
                            : 1;
  if (pieces == 1) {
    fn(size_t{0}, n);
    return;
  }
  ParallelFor(*pool, pieces, [&](size_t p) { fn(n * p / pieces, n * (p + 1) / pieces); });
}

// Positions 0..n-1 ordered by weight, ties by position, each as (weight, position) packed in 64
// bits: a stable LSD radix sort on the weight by 11, 11 and 10 bits (each pass reads its input in
// order; positions keep their order within a weight).
std::vector<uint64_t> WeightOrder(const std::vector<uint32_t>& weights) {
  const size_t n = weights.size();
  std::vector<uint64_t> keys(n), next(n);
  for (size_t i = 0; i < n; ++i) keys[i] = (uint64_t{weights[i]} << 32) | i;
  for (int shift = 32; shift < 64; shift += 11) {
    const int bits = std::min(11, 64 - shift);
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    std::vector<size_t> start(size_t{1} << bits, 0);
    for (uint64_t k : keys) ++start[(k >> shift) & mask];
    size_t sum = 0;
    for (size_t& c : start) sum += std::exchange(c, sum);
    for (uint64_t k : keys) next[start[(k >> shift) & mask]++] = k;
    keys.swap(next);
  }
  return keys;
}

int HexDigitsPerLevel(size_t d) { return static_cast<int>((d + 3) / 4); }

std::string ChildName(uint32_t child, size_t d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = HexDigitsPerLevel(d) - 1; i >= 0; --i) out += kHex[(child >> (4 * i)) & 0xf];
  return out;
}

}  // namespace

std::string OTreeRevision::ToJson() const {
  json j;
  j["id"] = id;
  j["cube_size"] = cube_size;
  j["columns"] = json::array();
  for (const OTreeDimension& d : dimensions) {
    json c;
    c["name"] = d.column;
    c["transform"] = d.transform == OTreeDimension::Transform::kLinear ? "linear" : "hash";
    if (d.transform == OTreeDimension::Transform::kLinear) {
      c["min"] = d.min;
      c["max"] = d.max;
    }
    j["columns"].push_back(c);
  }
  return j.dump();
}

Result<OTreeRevision> OTreeRevision::FromJson(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  auto bad = [&](std::string_view why) {
    return InvalidInput("OTree revision '{}': {}", text.substr(0, 200), why);
  };
  if (!j.is_object()) return bad("not a JSON object");
  OTreeRevision r;
  if (!j.contains("id") || !j["id"].is_number_integer()) return bad("no integer 'id'");
  if (!j.contains("cube_size") || !j["cube_size"].is_number_integer())
    return bad("no integer 'cube_size'");
  r.id = j["id"].get<int64_t>();
  r.cube_size = j["cube_size"].get<int64_t>();
  if (r.cube_size < 1) return bad("'cube_size' must be at least 1");
  if (!j.contains("columns") || !j["columns"].is_array()) return bad("no 'columns' array");
  for (const json& c : j["columns"]) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() ||
        !c.contains("transform") || !c["transform"].is_string()) {
      return bad("a column without a 'name' and a 'transform'");
    }
    OTreeDimension d;
    d.column = c["name"].get<std::string>();
    const std::string t = c["transform"].get<std::string>();
    if (t == "linear") {
      if (!c.contains("min") || !c["min"].is_number() || !c.contains("max") ||
          !c["max"].is_number()) {
        return bad("a linear column without numbers 'min' and 'max'");
      }
      d.min = c["min"].get<double>();
      d.max = c["max"].get<double>();
      if (!(d.min <= d.max)) return bad("a linear column whose min is above its max");
    } else if (t == "hash") {
      d.transform = OTreeDimension::Transform::kHash;
    } else {
      return bad("transform '" + t + "' (linear or hash)");
    }
    r.dimensions.push_back(std::move(d));
  }
  if (r.dimensions.empty() || r.dimensions.size() > kMaxDimensions)
    return bad("1 to 8 columns are indexed");
  return r;
}

Result<OTreeRevision> NewRevision(const std::vector<std::string>& names,
                                  const std::vector<const c::Column*>& columns,
                                  const std::vector<int64_t>& rows, int64_t cube_size,
                                  ThreadPool* pool) {
  if (columns.empty() || columns.size() > kMaxDimensions) {
    return InvalidInput("an OTree indexes 1 to 8 columns, not {}", columns.size());
  }
  if (names.size() != columns.size()) return Internal("OTree revision: names and columns differ");
  if (cube_size < 1) return InvalidInput("OTree cube size {} must be at least 1", cube_size);
  OTreeRevision r;
  r.cube_size = cube_size;
  for (size_t i = 0; i < columns.size(); ++i) {
    const c::Column& col = *columns[i];
    if (col.type.IsNested()) return Unsupported("an OTree over a {} column", col.type.ToString());
    OTreeDimension d;
    d.column = names[i];
    if (Linear(col.type)) {
      constexpr double kInf = std::numeric_limits<double>::infinity();
      constexpr size_t kPieces = 64;  // at most: InPieces cuts fewer
      std::array<std::pair<double, double>, kPieces> span;
      span.fill({kInf, -kInf});
      std::atomic<size_t> next{0};
      InPieces(pool, rows.size(), [&](size_t begin, size_t end) {
        double lo = kInf, hi = -kInf;
        for (size_t r = begin; r < end; ++r) {
          const double v = NumberAt(col, rows[r]);
          if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
        }
        span[next++ % kPieces] = {lo, hi};
      });
      double lo = kInf, hi = -kInf;
      for (const auto& [a, b] : span) {
        lo = std::min(lo, a);
        hi = std::max(hi, b);
      }
      if (lo > hi) lo = hi = 0;  // no finite value
      d.min = lo;
      d.max = hi;
    } else {
      d.transform = OTreeDimension::Transform::kHash;
    }
    r.dimensions.push_back(std::move(d));
  }
  return r;
}

bool FarOutside(const OTreeRevision& revision, const std::vector<const c::Column*>& columns,
                const std::vector<int64_t>& rows) {
  for (size_t i = 0; i < revision.dimensions.size() && i < columns.size(); ++i) {
    const OTreeDimension& d = revision.dimensions[i];
    if (d.transform != OTreeDimension::Transform::kLinear) continue;
    const double span = std::max(d.max - d.min, 1.0);
    for (int64_t r : rows) {
      const double v = NumberAt(*columns[i], r);
      if (std::isfinite(v) && (v < d.min - span || v > d.max + span)) return true;
    }
  }
  return false;
}

std::vector<int64_t> ExtremeRows(const std::vector<const c::Column*>& columns,
                                 const std::vector<int64_t>& rows) {
  std::vector<int64_t> out;
  for (const c::Column* col : columns) {
    if (!Linear(col->type)) continue;
    int64_t lo = -1;
    int64_t hi = -1;
    double lo_v = 0;
    double hi_v = 0;
    for (const int64_t r : rows) {
      const double v = NumberAt(*col, r);
      if (std::isnan(v)) continue;
      if (lo < 0 || v < lo_v) {
        lo = r;
        lo_v = v;
      }
      if (hi < 0 || v > hi_v) {
        hi = r;
        hi_v = v;
      }
    }
    if (lo >= 0) out.push_back(lo);
    if (hi >= 0) out.push_back(hi);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint32_t> RowWeights(const std::vector<const c::Column*>& columns,
                                 const std::vector<int64_t>& rows, ThreadPool* pool) {
  std::vector<uint32_t> out(rows.size());
  InPieces(pool, rows.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      uint64_t h = 0x51ed270b27u;
      for (const c::Column* col : columns) h = Mix(h ^ ValueHash(*col, rows[i]));
      out[i] = static_cast<uint32_t>(h >> 32);
    }
  });
  return out;
}

Result<std::vector<uint32_t>> RowPoints(const OTreeRevision& revision,
                                        const std::vector<const c::Column*>& columns,
                                        const std::vector<int64_t>& rows, ThreadPool* pool) {
  const size_t d = revision.dimensions.size();
  if (columns.size() != d) {
    return Internal("OTree points: {} columns for {} dimensions", columns.size(), d);
  }
  constexpr double kCells = static_cast<double>(uint64_t{1} << kCoordinateBits);
  std::vector<uint32_t> out(rows.size() * d);
  for (size_t k = 0; k < d; ++k) {
    const OTreeDimension& dim = revision.dimensions[k];
    const c::Column& col = *columns[k];
    const bool linear = dim.transform == OTreeDimension::Transform::kLinear;
    if (linear && !Linear(col.type)) {
      return InvalidInput("OTree column '{}' is a {}, not a number its revision maps linearly",
                          dim.column, col.type.ToString());
    }
    const double span = dim.max - dim.min;
    InPieces(pool, rows.size(), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        uint32_t p = 0;
        if (linear) {
          const double v = NumberAt(col, rows[i]);
          // NULLs and NaN at the low edge; values outside the span at the nearer edge.
          double f = std::isnan(v) || span <= 0 ? 0.0 : (v - dim.min) / span;
          f = std::clamp(f, 0.0, 1.0);
          p = static_cast<uint32_t>(std::min(f * kCells, kCells - 1));
        } else {
          p = static_cast<uint32_t>(ValueHash(col, rows[i]) >> (64 - kCoordinateBits));
        }
        out[i * d + k] = p;
      }
    });
  }
  return out;
}

Result<std::vector<CubeSpan>> CubeSpans(std::string_view cube_id, size_t d) {
  const int per = HexDigitsPerLevel(d);
  if (d == 0 || cube_id.size() % static_cast<size_t>(per) != 0 ||
      cube_id.size() / static_cast<size_t>(per) > kMaxDepth) {
    return InvalidInput("OTree cube '{}' is not a cube of {} dimensions", cube_id, d);
  }
  std::vector<CubeSpan> out(d);
  const size_t depth = cube_id.size() / static_cast<size_t>(per);
  for (size_t level = 0; level < depth; ++level) {
    uint32_t child = 0;
    for (int k = 0; k < per; ++k) {
      const char ch = cube_id[level * per + k];
      const int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
      if (v < 0) return InvalidInput("OTree cube '{}': '{}' is not a hex digit", cube_id, ch);
      child = (child << 4) | static_cast<uint32_t>(v);
    }
    if (child >= (1u << d))
      return InvalidInput("OTree cube '{}': child {} of {}", cube_id, child, d);
    const uint64_t half = (uint64_t{1} << kCoordinateBits) >> (level + 1);
    for (size_t k = 0; k < d; ++k) {
      if ((child >> (d - 1 - k)) & 1) out[k].lo += static_cast<uint32_t>(half);
      out[k].hi = out[k].lo + half;
    }
  }
  return out;
}

Result<OTreeAssignment> AssignCubes(const OTreeRevision& revision, const OTreeIndex& index,
                                    const std::vector<const c::Column*>& columns,
                                    const std::vector<int64_t>& rows, ThreadPool* pool) {
  const size_t d = revision.dimensions.size();
  FLOE_ASSIGN_OR_RETURN(std::vector<uint32_t> points, RowPoints(revision, columns, rows, pool));
  if (rows.size() > UINT32_MAX) return InvalidInput("an OTree write of {} rows", rows.size());
  std::vector<uint32_t> weights = RowWeights(columns, rows, pool);
  // The tree as nodes; existing cubes first, by name.
  struct Node {
    std::string id;
    uint32_t max_weight = UINT32_MAX;
    uint32_t min_weight = 0;
    int64_t rows = 0;
    int depth = 0;
    std::vector<int32_t> children;  // 2^d, -1 where none yet
  };
  std::vector<Node> nodes;
  std::map<std::string, int32_t, std::less<>> by_id;
  const size_t fanout = size_t{1} << d;
  auto add = [&](std::string id, int depth) {
    Node n;
    n.id = std::move(id);
    n.depth = depth;
    n.children.assign(fanout, -1);
    nodes.push_back(std::move(n));
    by_id[nodes.back().id] = static_cast<int32_t>(nodes.size() - 1);
    return static_cast<int32_t>(nodes.size() - 1);
  };
  add("", 0);
  const int per = HexDigitsPerLevel(d);
  std::vector<OTreeCube> existing = index.cubes;
  std::sort(existing.begin(), existing.end(),
            [](const OTreeCube& a, const OTreeCube& b) { return a.id.size() < b.id.size(); });
  for (const OTreeCube& cube : existing) {
    if (auto spans = CubeSpans(cube.id, d); !spans) return std::unexpected(spans.error());
    int32_t at = 0;
    // Walk to the cube, making any missing ancestors (open, empty).
    for (size_t level = 0; level * per < cube.id.size(); ++level) {
      const std::string prefix = cube.id.substr(0, (level + 1) * per);
      auto it = by_id.find(prefix);
      const auto child = static_cast<uint32_t>(std::stoul(prefix.substr(level * per), nullptr, 16));
      if (it == by_id.end()) {
        const int32_t made = add(prefix, static_cast<int>(level + 1));
        nodes[at].children[child] = made;
        at = made;
      } else {
        at = it->second;
      }
    }
    nodes[at].max_weight = cube.max_weight;
    nodes[at].min_weight = cube.min_weight;
    nodes[at].rows = cube.rows;
  }
  // Rows in weight order (ties by position), so each open cube fills with its lightest rows: each
  // (weight, position) packed in 64 bits.
  const std::vector<uint64_t> order = WeightOrder(weights);
  OTreeAssignment out;
  out.dimensions = d;
  out.cube.assign(rows.size(), -1);
  // The rows come at random: each one's point and cube are asked for kAhead rows early.
  constexpr size_t kAhead = 16;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k + kAhead < order.size()) {
      const auto j = static_cast<uint32_t>(order[k + kAhead]);
      __builtin_prefetch(points.data() + static_cast<size_t>(j) * d);
      __builtin_prefetch(out.cube.data() + j, 1);
    }
    const auto i = static_cast<uint32_t>(order[k]);
    const auto w = static_cast<uint32_t>(order[k] >> 32);
    int32_t at = 0;
    while (true) {
      Node& n = nodes[at];
      if (w < n.max_weight || n.depth == kMaxDepth) {
        out.cube[i] = at;
        if (++n.rows >= revision.cube_size && n.max_weight == UINT32_MAX && w < UINT32_MAX) {
          n.max_weight = w + 1;  // full: the next rows (of this weight or more) go deeper
        }
        break;
      }
      uint32_t child = 0;
      for (size_t k = 0; k < d; ++k) {
        child = (child << 1) | ((points[i * d + k] >> (kCoordinateBits - 1 - n.depth)) & 1);
      }
      int32_t next = n.children[child];
      if (next < 0) {
        const uint32_t parent_max = n.max_weight;
        const int depth = n.depth + 1;
        next = add(n.id + ChildName(child, d), depth);  // invalidates n
        nodes[at].children[child] = next;
        nodes[next].min_weight = parent_max;
      }
      at = next;
    }
  }
  out.index.cubes.reserve(nodes.size());
  std::vector<int32_t> renumber(nodes.size(), -1);
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (nodes[k].rows == 0 && k != 0) continue;  // made on the way, never filled
    renumber[k] = static_cast<int32_t>(out.index.cubes.size());
    out.index.cubes.push_back(
        {nodes[k].id, nodes[k].max_weight, nodes[k].min_weight, nodes[k].rows});
  }
  for (int32_t& c : out.cube) c = renumber[static_cast<size_t>(c)];
  out.weights = std::move(weights);
  return out;
}

std::vector<OTreeFile> RollUp(const OTreeAssignment& assignment,
                              const std::vector<uint32_t>& weights, int64_t target_rows) {
  const auto& cubes = assignment.index.cubes;
  // This write's rows per cube, in position order: cube k's are flat[first[k], first[k + 1]).
  std::vector<size_t> first(cubes.size() + 1, 0);
  for (const int32_t c : assignment.cube) {
    if (c >= 0) ++first[static_cast<size_t>(c) + 1];
  }
  std::partial_sum(first.begin(), first.end(), first.begin());
  std::vector<int64_t> flat(first.back());
  {
    std::vector<size_t> at(first.begin(), first.end() - 1);
    for (size_t i = 0; i < assignment.cube.size(); ++i) {
      if (assignment.cube[i] >= 0)
        flat[at[static_cast<size_t>(assignment.cube[i])]++] = static_cast<int64_t>(i);
    }
  }
  auto rows_of = [&](size_t k) {
    return std::span<const int64_t>(flat.data() + first[k], first[k + 1] - first[k]);
  };
  // Deepest first: a group below the target joins its parent's (the parent a cube of the index,
  // or the nearest ancestor that is).
  std::map<std::string, size_t> by_id;
  for (size_t k = 0; k < cubes.size(); ++k) by_id[cubes[k].id] = k;
  std::vector<size_t> deep(cubes.size());
  std::iota(deep.begin(), deep.end(), 0);
  std::stable_sort(deep.begin(), deep.end(),
                   [&](size_t a, size_t b) { return cubes[a].id.size() > cubes[b].id.size(); });
  std::vector<std::vector<size_t>> members(cubes.size());
  std::vector<int64_t> size(cubes.size(), 0);
  for (size_t k = 0; k < cubes.size(); ++k) {
    members[k].push_back(k);
    size[k] = static_cast<int64_t>(rows_of(k).size());
  }
  std::vector<bool> merged(cubes.size(), false);
  const auto digits = static_cast<size_t>(HexDigitsPerLevel(assignment.dimensions));
  for (size_t k : deep) {
    if (cubes[k].id.empty() || size[k] >= target_rows) continue;
    // The nearest ancestor in the index.
    std::string id = cubes[k].id;
    while (!id.empty()) {
      id.resize(id.size() - std::min(id.size(), digits));
      auto it = by_id.find(id);
      if (it == by_id.end()) continue;
      const size_t parent = it->second;
      members[parent].insert(members[parent].end(), members[k].begin(), members[k].end());
      size[parent] += size[k];
      members[k].clear();
      size[k] = 0;
      merged[k] = true;
      break;
    }
  }
  std::vector<OTreeFile> out;
  for (size_t k = 0; k < cubes.size(); ++k) {
    if (merged[k] || size[k] == 0) continue;
    // The group's cubes in name order (parents before children). A group cut into several files
    // is cut in weight order (each cube's lightest first, ties by position), so that the files
    // hold disjoint weight ranges and a sample reads the lighter ones only; within a file each
    // cube's rows keep their order in the write, so moving them into files (Scatter) reads and
    // writes in runs.
    std::vector<size_t> group = members[k];
    std::sort(group.begin(), group.end(),
              [&](size_t a, size_t b) { return cubes[a].id < cubes[b].id; });
    int64_t n = 0;
    std::vector<std::string> names;
    for (size_t g : group) {
      n += static_cast<int64_t>(rows_of(g).size());
      if (!rows_of(g).empty()) names.push_back(cubes[g].id);
    }
    const int64_t files = n > 2 * target_rows ? (n + target_rows - 1) / target_rows : 1;
    // File f takes ranks [n * f / files, n * (f + 1) / files) of the group's rows ordered cube by
    // cube, each cube by (weight, position). A cut inside a cube is found by its key there (an
    // nth_element, not a sort); the rows then go to their files in position order.
    std::vector<std::vector<int64_t>> file_rows(static_cast<size_t>(files));
    int64_t first = 0;  // rank of the cube's first row in the group
    for (size_t g : group) {
      const std::span<const int64_t> r = rows_of(g);
      const auto size = static_cast<int64_t>(r.size());
      if (size == 0) continue;
      // The file of the cube's first row: the last f with n * f / files <= first.
      int64_t f0 = first * files / n;
      while (f0 + 1 < files && n * (f0 + 1) / files <= first) ++f0;
      while (f0 > 0 && n * f0 / files > first) --f0;
      // Keys (weight, position) at which the next files start within this cube.
      std::vector<uint64_t> cuts;
      for (int64_t f = f0 + 1; f < files && n * f / files < first + size; ++f) {
        std::vector<uint64_t> keys(r.size());
        for (size_t i = 0; i < r.size(); ++i) {
          keys[i] =
              (uint64_t{weights[static_cast<size_t>(r[i])]} << 32) | static_cast<uint64_t>(r[i]);
        }
        const auto t = static_cast<std::ptrdiff_t>(n * f / files - first);
        std::nth_element(keys.begin(), keys.begin() + t, keys.end());
        cuts.push_back(keys[static_cast<size_t>(t)]);
      }
      for (int64_t row : r) {
        const uint64_t key =
            (uint64_t{weights[static_cast<size_t>(row)]} << 32) | static_cast<uint64_t>(row);
        const auto past = std::upper_bound(cuts.begin(), cuts.end(), key) - cuts.begin();
        file_rows[static_cast<size_t>(f0 + past)].push_back(row);
      }
      first += size;
    }
    for (int64_t f = 0; f < files; ++f) {
      OTreeFile file;
      file.cubes = names;
      file.rows = std::move(file_rows[static_cast<size_t>(f)]);
      file.min_weight = UINT32_MAX;
      for (int64_t r : file.rows) {
        file.min_weight = std::min(file.min_weight, weights[static_cast<size_t>(r)]);
        file.max_weight = std::max(file.max_weight, weights[static_cast<size_t>(r)]);
      }
      out.push_back(std::move(file));
    }
  }
  return out;
}

}  // namespace floe::layout
