// Progress: reports how far a long job has come, on stderr.
// On a terminal it redraws one bar with count, rate and ETA; when stderr is not a terminal it
// prints a plain line at most every `plain_interval` (and one at the end); with quiet mode it
// prints nothing. Advance() is thread-safe and cheap (an atomic add; drawing is rate-limited).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include "floe/base/clock.h"

namespace floe {

enum class ProgressMode { kAuto, kBar, kPlain, kSilent };

// Process-wide quiet switch, set by the CLI's --quiet.
void SetProgressQuiet(bool quiet);
bool ProgressQuiet();

class Progress {
 public:
  // `total` 0 means unknown (no percentage or ETA). `unit` names what is counted ("files", "MB").
  Progress(std::string label, uint64_t total, std::string unit = "",
           ProgressMode mode = ProgressMode::kAuto, std::FILE* out = stderr);
  // Abandons an unfinished report: a job that fails leaves no final line before its error.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Advance(uint64_t n = 1);
  // For jobs that learn their size as they go (a scan plans its files first); thread-safe.
  void SetTotal(uint64_t total) { total_.store(total, std::memory_order_relaxed); }
  // The final line: call once the job has succeeded.
  void Finish();
  // Ends the report without its final line (erasing a drawn bar); the destructor's default.
  void Abandon();

  ProgressMode mode() const { return mode_; }
  // The text that would be drawn now; exposed for tests.
  std::string Render(bool final) const;

  std::chrono::milliseconds plain_interval{5000};
  std::chrono::milliseconds bar_interval{100};

 private:
  void MaybeDraw(bool final);

  std::string label_;
  std::atomic<uint64_t> total_;
  std::string unit_;
  ProgressMode mode_;
  std::FILE* out_;
  Stopwatch watch_;
  std::atomic<uint64_t> done_{0};
  std::mutex draw_mu_;
  SteadyClock::time_point last_draw_{};
  bool finished_ = false;
  bool last_drawn_ = false;  // something is on the line (bar mode)
};

}  // namespace floe
