// JoinHashTable: the build side of an equi-join -- the rows of a batch indexed by the values of
// their key columns -- and the probe of another batch's keys against it, a batch at a time. Keys
// are hashed a column at a time; the table is open-addressed by the hash and holds, per distinct
// key, its first build row, the rows with equal keys chained in build order -- or, for one
// integer key whose build values span at most twice that table's slots (as many bytes), an array
// indexed by the value itself (TPC-H's keys, a dimension's surrogate keys: no hashing, no
// comparison). SQL's equality of keys: a NULL key matches nothing, -0.0 equals 0.0, NaN equals
// NaN (as GROUP BY groups them). Both sides' key columns must have the same normalised types.
// Immutable once built: several threads may probe at once. Up to 2^31 - 1 build rows.
#pragma once

#include <cstdint>
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
  // How a key column's values are hashed and compared.
  enum class KeyKind { kInt64, kInt32, kDouble, kBool, kBytes, kDecimal, kOther };
  struct Slot {
    uint32_t tag = 0;   // the low half of the key's hash (the slot comes from the high bits)
    int32_t head = -1;  // the first build row with the key (-1: empty)
  };

  // Each row's hash of its keys into `hashes`, and whether none of its keys is NULL into `valid`.
  Status HashRows(const std::vector<columnar::ColumnPtr>& keys, int64_t rows,
                  std::vector<uint64_t>* hashes, std::vector<uint8_t>* valid) const;
  // Whether row `r` of `keys` has the keys of build row `b`.
  bool KeysEqual(const std::vector<columnar::ColumnPtr>& keys, int64_t r, int64_t b) const;
  Status CheckTypes(const std::vector<columnar::ColumnPtr>& keys, int64_t rows) const;
  // Indexes the build rows by value into direct_ when the one key is an integer of a range at
  // most `slots` wide; false (nothing done) otherwise.
  bool BuildDirect(int64_t rows, uint64_t slots);
  template <typename T>
  bool BuildDirectOf(const T* values, int64_t rows, uint64_t slots);
  template <typename T>
  void ProbeDirect(const columnar::Column& keys, std::vector<int64_t>* probe_rows,
                   std::vector<int64_t>* build_rows) const;

  std::vector<columnar::DataType> types_;
  std::vector<KeyKind> kinds_;
  std::vector<columnar::ColumnPtr> keys_;  // the build side's key columns
  std::vector<Slot> slots_;                // open addressing, linear probing; a power of two long
  int shift_ = 64;                         // a hash's slot: hash >> shift_
  std::vector<int32_t> next_;              // build row -> the next build row with its key, or -1
  // Indexed by value instead (slots_ empty): direct_[v - direct_base_] is the first build row
  // whose key is v, or -1.
  std::vector<int32_t> direct_;
  int64_t direct_base_ = 0;
};

}  // namespace floe::exec
