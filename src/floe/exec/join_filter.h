// JoinKeyFilter: the keys of a hash join's build side as a test of the probe side's rows, which
// the probe side's scan applies before it materialises the rows' other columns (DuckDB's join
// filter pushdown): a row whose key no build row holds can never match, so neither its columns
// nor its probe of the hash table are paid for. Integer keys (int64, int32, date, timestamp):
// a bitmap over the keys' range when the range is dense enough, else a Bloom filter of a word
// per key (about one row in 50 passes falsely -- the join drops it).
// Immutable once made: the scan's threads test at once.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "floe/columnar/column.h"

namespace floe::exec {

class JoinKeyFilter {
 public:
  // Of the first `rows` values of `keys` (NULLs left out: they match nothing); nullptr when the
  // keys are not integers.
  static std::shared_ptr<const JoinKeyFilter> Of(const columnar::Column& keys, int64_t rows);

  // For each row of `c` (integers, as the keys), 1 when its value may be a key, 0 when it is
  // not or is NULL. A column of another type passes every row.
  std::vector<uint8_t> Test(const columnar::Column& c) const;

  // The distinct keys (a bitmap's), or the rows that gave keys (a Bloom filter's: at least as
  // many).
  int64_t keys() const { return keys_; }

 private:
  JoinKeyFilter() = default;
  template <typename T>
  void TestValues(const T* v, int64_t n, uint8_t* out) const;

  int64_t keys_ = 0;
  int64_t lo_ = 0;
  uint64_t last_ = 0;            // hi - lo: a value v is in the keys' range when v - lo <= last_
  std::vector<uint64_t> bits_;   // empty: the Bloom filter
  std::vector<uint64_t> bloom_;  // a power of two long
  int bloom_shift_ = 64;         // a hash's word: hash >> bloom_shift_
  size_t BloomWord(uint64_t h) const { return bloom_shift_ >= 64 ? 0 : h >> bloom_shift_; }
};

}  // namespace floe::exec
