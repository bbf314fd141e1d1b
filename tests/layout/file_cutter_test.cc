#include "floe/layout/file_cutter.h"

#include <gtest/gtest.h>

namespace floe::layout {
namespace {

// A file whose bytes grow linearly with its rows (plus a fixed footer), written in the cutter's
// slices: every file lands within its tolerance of the target, however big the target, and the
// number of measurements stays logarithmic.
struct Simulated {
  double bytes_per_row;
  int64_t footer;
  int64_t Bytes(int64_t rows) const {
    return rows == 0 ? 0 : footer + static_cast<int64_t>(bytes_per_row * rows);
  }
};

TEST(FileCutter, FilesLandWithinTwoPercentOfTheTarget) {
  for (int64_t target :
       {int64_t{256} << 10, int64_t{2} << 20, int64_t{128} << 20, int64_t{512} << 20}) {
    for (double bpr : {3.7, 55.0, 1200.0}) {
      Simulated file{bpr, 4096};
      FileCutter cutter(target);
      const int64_t rows_per_target = static_cast<int64_t>(target / bpr);
      if (rows_per_target < 4 * FileCutter::kFirstSlice)
        continue;  // a row is a good part of a file
      int64_t remaining = 4 * rows_per_target + 17;
      int files = 0;
      while (remaining > 0) {
        int64_t rows = 0, measurements = 0;
        for (;;) {
          const int64_t n = cutter.NextSlice(rows, file.Bytes(rows), remaining);
          ++measurements;
          if (n == 0) break;
          rows += n;
          remaining -= n;
          if (remaining == 0) break;
        }
        ++files;
        if (remaining > 0) {  // every file but the last
          const double size = static_cast<double>(file.Bytes(rows));
          EXPECT_GE(size, 0.98 * target) << target << " " << bpr;
          EXPECT_LE(size, 1.02 * target) << target << " " << bpr;
          EXPECT_LE(measurements, 40 + rows / FileCutter::kMaxSlice) << target << " " << bpr;
        }
      }
      EXPECT_EQ(files, 5) << target << " " << bpr;  // four within 2%, and the rest
    }
  }
}

TEST(FileCutter, SlicesNeverExceedWhatRemains) {
  FileCutter cutter(1 << 20);
  EXPECT_EQ(cutter.NextSlice(0, 0, 10), 10);
  EXPECT_EQ(cutter.NextSlice(0, 0, 100000), FileCutter::kFirstSlice);
  EXPECT_EQ(cutter.NextSlice(100, 10000, 3), 3);
  EXPECT_EQ(cutter.NextSlice(100, 1 << 20, 1000), 0);  // at the target: cut
}

}  // namespace
}  // namespace floe::layout
