#include "floe/base/random.h"

#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

namespace floe {

uint64_t RandomU64() {
  struct State {
    pid_t pid = -1;
    std::mt19937_64 rng;
  };
  static thread_local State state;
  pid_t pid = getpid();
  if (state.pid != pid) {
    std::random_device rd;
    std::seed_seq seq{
        rd(),
        rd(),
        rd(),
        rd(),
        static_cast<unsigned>(pid),
        static_cast<unsigned>(std::hash<std::thread::id>{}(std::this_thread::get_id())),
        static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
    state.rng.seed(seq);
    state.pid = pid;
  }
  return state.rng();
}

}  // namespace floe
