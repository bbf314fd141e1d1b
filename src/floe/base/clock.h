// Clocks: a monotonic stopwatch for measured latencies and wall time in Unix milliseconds.
// Everything floe reports as "latency" comes from Stopwatch (steady_clock), never from wall time.
#pragma once

#include <chrono>
#include <cstdint>

namespace floe {

using SteadyClock = std::chrono::steady_clock;

class Stopwatch {
 public:
  Stopwatch() : start_(SteadyClock::now()) {}
  void Reset() { start_ = SteadyClock::now(); }
  double ElapsedMs() const {
    return std::chrono::duration<double, std::milli>(SteadyClock::now() - start_).count();
  }
  double ElapsedSeconds() const { return ElapsedMs() / 1000.0; }

 private:
  SteadyClock::time_point start_;
};

inline int64_t UnixMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace floe
