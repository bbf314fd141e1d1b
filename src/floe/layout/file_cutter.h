// File cutting: where a write's files end, so that every file but a write's last lies within a
// small margin of the target size -- in the bytes the file will have, as the writer measures
// them -- for any target from a few hundred KB to GBs. The caller writes rows in the slices
// NextSlice sizes and measures the file after each: slices shrink as the file nears its target
// (half the rows the bytes per row so far say are left), so the last overshoots by little. Plain
// value; thread compatible.
#pragma once

#include <cstdint>

namespace floe::layout {

class FileCutter {
 public:
  // `tolerance`: a file is done once it is within this fraction below the target.
  explicit FileCutter(int64_t target_bytes, double tolerance = 0.02)
      : target_(target_bytes < 1 ? 1 : target_bytes), tolerance_(tolerance) {}

  // Rows to add next to the open file, which holds `rows` rows measured at `bytes` bytes, with
  // `remaining` rows still to write (> 0); 0 means the file is done: start the next.
  int64_t NextSlice(int64_t rows, int64_t bytes, int64_t remaining) const;

  int64_t target() const { return target_; }

  static constexpr int64_t kFirstSlice = 1024;   // rows, before anything is measured
  static constexpr int64_t kMinSlice = 64;       // rows: measuring costs more than this
  static constexpr int64_t kMaxSlice = 1 << 20;  // rows at once

 private:
  int64_t target_;
  double tolerance_;
};

}  // namespace floe::layout
