#include "floe/exec/hyperloglog.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace floe::exec {

void HyperLogLog::AddToRegisters(uint64_t hash) {
  const size_t index = hash >> (64 - kPrecision);
  // The position of the first 1 in the other bits (1-based), 64 - p + 1 when they are all 0.
  const uint64_t rest = hash << kPrecision;
  const int rank = rest == 0 ? 64 - kPrecision + 1 : std::countl_zero(rest) + 1;
  registers_[index] = std::max(registers_[index], static_cast<uint8_t>(rank));
}

void HyperLogLog::Densify() {
  registers_.assign(kRegisters, 0);
  for (uint64_t h : exact_) AddToRegisters(h);
  exact_ = {};
}

void HyperLogLog::Add(uint64_t hash) {
  if (!registers_.empty()) {
    AddToRegisters(hash);
    return;
  }
  exact_.insert(hash);
  if (exact_.size() > kExactLimit) Densify();
}

void HyperLogLog::Merge(const HyperLogLog& other) {
  if (other.registers_.empty()) {
    for (uint64_t h : other.exact_) Add(h);
    return;
  }
  if (registers_.empty()) Densify();
  for (size_t i = 0; i < kRegisters; ++i) {
    registers_[i] = std::max(registers_[i], other.registers_[i]);
  }
}

int64_t HyperLogLog::Estimate() const {
  if (registers_.empty()) return static_cast<int64_t>(exact_.size());
  const double m = static_cast<double>(kRegisters);
  double sum = 0;
  size_t zeros = 0;
  for (uint8_t r : registers_) {
    sum += std::ldexp(1.0, -r);
    zeros += r == 0;
  }
  const double alpha = 0.7213 / (1 + 1.079 / m);
  double e = alpha * m * m / sum;
  if (e <= 2.5 * m && zeros > 0) e = m * std::log(m / static_cast<double>(zeros));
  return std::llround(e);
}

}  // namespace floe::exec
