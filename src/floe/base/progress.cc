#include "floe/base/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace floe {
namespace {

std::atomic<bool> g_quiet{false};

std::string FormatSeconds(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f}h{:02.0f}m", std::floor(s / 3600), std::fmod(s / 60, 60));
}

}  // namespace

void SetProgressQuiet(bool quiet) { g_quiet = quiet; }
bool ProgressQuiet() { return g_quiet; }

Progress::Progress(std::string label, uint64_t total, std::string unit, ProgressMode mode,
                   std::FILE* out)
    : label_(std::move(label)), total_(total), unit_(std::move(unit)), mode_(mode), out_(out) {
  if (ProgressQuiet()) {
    mode_ = ProgressMode::kSilent;
  } else if (mode_ == ProgressMode::kAuto) {
    mode_ = isatty(fileno(out_)) ? ProgressMode::kBar : ProgressMode::kPlain;
  }
  last_draw_ = SteadyClock::now();
}

Progress::~Progress() { Abandon(); }

void Progress::Abandon() {
  if (mode_ == ProgressMode::kSilent) return;
  std::lock_guard lock(draw_mu_);
  if (finished_) return;
  finished_ = true;
  // A bar already drawn is erased, so the error that follows stands on a line of its own.
  if (mode_ == ProgressMode::kBar && last_drawn_) {
    fmt::print(out_, "\r\033[K");
    std::fflush(out_);
  }
}

void Progress::Advance(uint64_t n) {
  done_.fetch_add(n, std::memory_order_relaxed);
  if (mode_ != ProgressMode::kSilent) MaybeDraw(false);
}

void Progress::Finish() {
  if (mode_ == ProgressMode::kSilent) return;
  MaybeDraw(true);
}

std::string Progress::Render(bool final) const {
  uint64_t done = done_.load(std::memory_order_relaxed);
  const uint64_t total = total_.load(std::memory_order_relaxed);
  double secs = watch_.ElapsedSeconds();
  double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
  std::string unit = unit_.empty() ? "" : " " + unit_;
  std::string text;
  if (total > 0) {
    double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    if (mode_ == ProgressMode::kBar) {
      constexpr int kWidth = 28;
      int filled = static_cast<int>(frac * kWidth);
      text = fmt::format("{} [{}{}] {:3.0f}% ", label_, std::string(filled, '#'),
                         std::string(kWidth - filled, '.'), frac * 100);
    } else {
      text = fmt::format("{}: {:.0f}% ", label_, frac * 100);
    }
    text += fmt::format("{}/{}{}  {:.1f}{}/s", done, total, unit, rate, unit);
    if (final) {
      text += fmt::format("  in {}", FormatSeconds(secs));
    } else if (rate > 0) {
      text += fmt::format("  ETA {}",
                          FormatSeconds(static_cast<double>(total - std::min(done, total)) / rate));
    }
  } else {
    text = fmt::format("{}: {}{}  {:.1f}{}/s", label_, done, unit, rate, unit);
    if (final) text += fmt::format("  in {}", FormatSeconds(secs));
  }
  return text;
}

void Progress::MaybeDraw(bool final) {
  std::lock_guard lock(draw_mu_);
  if (finished_) return;
  auto now = SteadyClock::now();
  auto interval = mode_ == ProgressMode::kBar ? bar_interval : plain_interval;
  if (!final && now - last_draw_ < interval) return;
  last_draw_ = now;
  std::string text = Render(final);
  if (mode_ == ProgressMode::kBar) {
    fmt::print(out_, "\r\033[K{}{}", text, final ? "\n" : "");
  } else {
    fmt::print(out_, "{}\n", text);
  }
  std::fflush(out_);
  last_drawn_ = true;
  if (final) finished_ = true;
}

}  // namespace floe
