// JoinHashTable: the build side of an equi-join -- the rows of a batch indexed by the values of
// their key columns -- and the probe of another batch's keys against it, a batch at a time. One
// integer-like key column (bigint, date, timestamp) uses a table of its values, others the bytes of
// their values (exec/value.h's AppendKeyBytes). SQL's equality of keys: a NULL key matches nothing,
// -0.0 equals 0.0, NaN equals NaN (as GROUP BY groups them). Both sides' key columns must have the
// same normalised types. Immutable once built: several threads may probe at once.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::exec {

class JoinHashTable {
 public:
  // Indexes the `rows` rows of the build side by `keys` (one column per key, each `rows` long).
  static Result<JoinHashTable> Build(std::vector<columnar::ColumnPtr> keys, int64_t rows);

  // For every probe row whose keys equal a build row's, appends the pair (probe row, build row):
  // probe rows ascending, a probe row's build rows ascending. `keys` as the build's.
  Status Probe(const std::vector<columnar::ColumnPtr>& keys, int64_t rows,
               std::vector<int64_t>* probe_rows, std::vector<int64_t>* build_rows) const;

  int64_t rows() const { return static_cast<int64_t>(next_.size()); }

 private:
  enum class Kind { kInt64, kInt32, kBytes };
  // The key of row `r` of `keys` in the table's form; false when a key column is NULL there.
  bool IntKey(const std::vector<columnar::ColumnPtr>& keys, int64_t r, int64_t* key) const;
  Result<bool> BytesKey(const std::vector<columnar::ColumnPtr>& keys, int64_t r,
                        std::string* key) const;
  Status CheckTypes(const std::vector<columnar::ColumnPtr>& keys, int64_t rows) const;

  Kind kind_ = Kind::kBytes;
  std::vector<columnar::DataType> types_;
  std::unordered_map<int64_t, int64_t> ints_;       // key -> last build row with it
  std::unordered_map<std::string, int64_t> bytes_;  // the same, by key bytes
  std::vector<int64_t> next_;  // build row -> the previous build row with its key, or -1
};

}  // namespace floe::exec
