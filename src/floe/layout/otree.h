// OTree: Qbeast's multidimensional index, as its papers and docs describe it, computed on write.
//   - A revision maps each indexed column to [0, 1): linearly between a min and a max (numbers,
//     dates, times; values outside clamp to the edge) or by a hash (strings, binary, booleans).
//   - Cubes halve every dimension at each level: the root covers the whole space, a cube at depth
//     L one cell of a 2^L grid per dimension, with 2^d children.
//   - Each row has a weight, a hash of its indexed values (the same row always the same weight,
//     whoever writes it), and lands in the first cube on its path from the root whose max weight
//     exceeds its weight. A cube is open (max weight unbounded) until it holds `cube_size` rows;
//     the weight of the row that fills it becomes its max weight, and the rows after go deeper.
//     So each cube holds, of the rows in its cell, those of the lowest weights not taken above it:
//     the rows of weight < w of the whole table are exactly those in cubes whose minimum weight
//     is below w -- a uniform sample by opening only the top cubes.
//   - Cubes smaller than the target rows per file roll up into their parent's file.
// Pure functions and plain values, thread safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/thread_pool.h"
#include "floe/columnar/column.h"

namespace floe::layout {

struct OTreeDimension {
  std::string column;
  enum class Transform { kLinear, kHash } transform = Transform::kLinear;
  double min = 0;  // kLinear: the span the revision maps to [0, 1)
  double max = 0;
};

struct OTreeRevision {
  int64_t id = 1;
  std::vector<OTreeDimension> dimensions;  // 1 to 8
  int64_t cube_size = 100000;              // rows a cube takes before it closes

  // One line of JSON: {"id":1,"cube_size":N,"columns":[{"name":"a","transform":"linear",
  // "min":0,"max":9},...]} -- kept in a table property.
  std::string ToJson() const;
  static Result<OTreeRevision> FromJson(std::string_view json);
};

// A revision over `columns` (named `names`) from the rows given: each number column's min and
// max (found on `pool`'s threads when given), a hash for the others.
Result<OTreeRevision> NewRevision(const std::vector<std::string>& names,
                                  const std::vector<const columnar::Column*>& columns,
                                  const std::vector<int64_t>& rows, int64_t cube_size,
                                  ThreadPool* pool = nullptr);

// Whether rows fall far outside a revision's spans (beyond a whole span on either side): then a
// new revision is due (NewRevision over the old span and the new rows together).
bool FarOutside(const OTreeRevision& revision, const std::vector<const columnar::Column*>& columns,
                const std::vector<int64_t>& rows);

// Of `rows`, those holding each number column's smallest and largest value (NULLs and NaNs
// aside), in order, without repeats: what a sample keeps so that a revision made from it spans
// every row (NewRevision).
std::vector<int64_t> ExtremeRows(const std::vector<const columnar::Column*>& columns,
                                 const std::vector<int64_t>& rows);

// A row's weight: a hash of its indexed values, uniform over uint32. With a pool, rows are
// hashed on its threads at once.
std::vector<uint32_t> RowWeights(const std::vector<const columnar::Column*>& columns,
                                 const std::vector<int64_t>& rows, ThreadPool* pool = nullptr);

// A row's point: 31 bits per dimension.
Result<std::vector<uint32_t>> RowPoints(const OTreeRevision& revision,
                                        const std::vector<const columnar::Column*>& columns,
                                        const std::vector<int64_t>& rows,
                                        ThreadPool* pool = nullptr);

// A cube's name: its child index at each level as ceil(d / 4) hex digits ("" is the root).
struct OTreeCube {
  std::string id;
  uint32_t max_weight = UINT32_MAX;  // exclusive; UINT32_MAX: open
  uint32_t min_weight = 0;           // its parent's max weight (0 for the root)
  int64_t rows = 0;
};

// The cubes of an index: what appends keep adding to.
struct OTreeIndex {
  std::vector<OTreeCube> cubes;  // any order
};

// Where each row went: cube[i] is the index (into the updated index's cubes) of rows[i]'s cube.
struct OTreeAssignment {
  std::vector<int32_t> cube;
  OTreeIndex index;  // the index after the rows were added
  size_t dimensions = 0;
  std::vector<uint32_t> weights;  // of rows[i] (RowWeights)
};

// Adds `rows` to `index` (empty for a new index) under `revision` (the rows' points and weights
// worked out on `pool`'s threads when given).
Result<OTreeAssignment> AssignCubes(const OTreeRevision& revision, const OTreeIndex& index,
                                    const std::vector<const columnar::Column*>& columns,
                                    const std::vector<int64_t>& rows, ThreadPool* pool = nullptr);

// The cube's cell along one dimension at its depth: [lo, hi) of the 31-bit coordinates.
struct CubeSpan {
  uint32_t lo = 0;
  uint64_t hi = uint64_t{1} << 31;
};
Result<std::vector<CubeSpan>> CubeSpans(std::string_view cube_id, size_t dimensions);

// Files of one write: groups of cubes rolled up from the leaves until each holds at least
// `target_rows` (or reaches the root), their rows -- indices into the assignment's rows -- in
// cube order, then position order; a group larger than twice the target is cut into files of
// about the target by weight (each file a range of the group's weights, cube by cube).
struct OTreeFile {
  std::vector<std::string> cubes;
  std::vector<int64_t> rows;
  uint32_t min_weight = 0;
  uint32_t max_weight = 0;  // inclusive: the largest weight in the file
};
std::vector<OTreeFile> RollUp(const OTreeAssignment& assignment,
                              const std::vector<uint32_t>& weights, int64_t target_rows);

}  // namespace floe::layout
