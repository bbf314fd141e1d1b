// HyperLogLog: the approximate distinct count behind approx_count_distinct, in bounded memory.
// Exact while small: up to kExactLimit distinct hashes are kept as they are (the count is exact);
// past that they fold into 2^12 one-byte registers (Flajolet et al., with linear counting while
// the estimate is small), a standard error of about 1.6% in 4 KiB whatever the cardinality.
// Partial sketches merge (a union of the sets, a max of the registers). Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace floe::exec {

class HyperLogLog {
 public:
  static constexpr int kPrecision = 12;
  static constexpr size_t kRegisters = size_t{1} << kPrecision;
  static constexpr size_t kExactLimit = 1024;

  // `hash`: a 64-bit hash of the value (equal values, equal hashes; well mixed).
  void Add(uint64_t hash);
  void Merge(const HyperLogLog& other);
  int64_t Estimate() const;
  bool exact() const { return registers_.empty(); }

 private:
  void AddToRegisters(uint64_t hash);
  void Densify();

  std::unordered_set<uint64_t> exact_;
  std::vector<uint8_t> registers_;  // empty while exact
};

}  // namespace floe::exec
