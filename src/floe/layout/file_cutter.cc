#include "floe/layout/file_cutter.h"

#include <algorithm>
#include <cmath>

namespace floe::layout {

int64_t FileCutter::NextSlice(int64_t rows, int64_t bytes, int64_t remaining) const {
  if (remaining <= 0) return 0;
  if (rows == 0) return std::min(remaining, kFirstSlice);
  const double goal = static_cast<double>(target_);
  if (static_cast<double>(bytes) >= goal * (1.0 - tolerance_)) return 0;
  const double per_row = static_cast<double>(std::max<int64_t>(bytes, 1)) / rows;
  const double left = (goal - static_cast<double>(bytes)) / per_row;  // rows to the target
  // Half of what is left while that is many rows; all of it once it is few, so a file never
  // ends a few rows short of its target for want of one more measurement.
  const double want = left > 4 * kMinSlice ? left / 2 : left;
  const int64_t slice = static_cast<int64_t>(std::ceil(want));
  return std::clamp<int64_t>(slice, std::min<int64_t>(kMinSlice, remaining),
                             std::min(kMaxSlice, remaining));
}

}  // namespace floe::layout
