#include "floe/base/scan_metrics.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace floe {
namespace {

// Reading threads add to one object without a lock; a copy is a snapshot.
TEST(ScanMetricsTest, ThreadsAddToOneObjectAndACopyIsASnapshot) {
  ScanMetrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 10'000; ++i) {
        ++m.requests;
        m.bytes_fetched += 3;
        m.peak_buffered_bytes.RaiseTo(t * 10'000 + i);
      }
      m.Warn("file " + std::to_string(t));
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(m.requests, 40'000);
  EXPECT_EQ(m.bytes_fetched, 120'000);
  EXPECT_EQ(m.peak_buffered_bytes, 39'999);
  const std::string first = m.metadata_warning();
  EXPECT_EQ(first.rfind("file ", 0), 0u);
  m.Warn("later");  // the first warning stays
  EXPECT_EQ(m.metadata_warning(), first);

  ScanMetrics copy = m;
  ++m.requests;
  EXPECT_EQ(copy.requests, 40'000);
  EXPECT_EQ(copy.metadata_warning(), first);
  m.peak_buffered_bytes.RaiseTo(5);  // never lowers
  EXPECT_EQ(m.peak_buffered_bytes, 39'999);
}

}  // namespace
}  // namespace floe
