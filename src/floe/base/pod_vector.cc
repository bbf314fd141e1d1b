#include "floe/base/pod_vector.h"

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace floe {

namespace {

struct Block {
  void* p = nullptr;
  size_t bytes = 0;
};

// The blocks kept: at most a sixteenth of the machine's memory (and 512 MiB), oldest unmapped
// first. A resident set that much above what the live arrays need, between queries: the price of
// reusing their pages rather than faulting fresh ones in.
struct Kept {
  std::mutex mu;
  std::vector<Block> blocks;  // oldest first
  size_t bytes = 0;
  size_t limit = 0;

  Kept() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    const size_t memory = pages > 0 && page > 0 ? static_cast<size_t>(pages) * page : 0;
    limit = std::min(memory / 16, size_t{512} << 20);
  }
};

Kept& Blocks() {
  static Kept* kept = new Kept();  // never destroyed: PodVectors may outlive static destruction
  return *kept;
}

}  // namespace

void* TakeMappedBlock(size_t bytes, size_t* mapped) {
  Kept& k = Blocks();
  std::lock_guard lock(k.mu);
  size_t best = k.blocks.size();
  for (size_t i = 0; i < k.blocks.size(); ++i) {
    const size_t b = k.blocks[i].bytes;
    if (b >= bytes && b / 4 <= bytes && (best == k.blocks.size() || b < k.blocks[best].bytes)) {
      best = i;
    }
  }
  if (best == k.blocks.size()) return nullptr;
  const Block taken = k.blocks[best];
  k.blocks.erase(k.blocks.begin() + static_cast<std::ptrdiff_t>(best));
  k.bytes -= taken.bytes;
  *mapped = taken.bytes;
  return taken.p;
}

void KeepMappedBlock(void* p, size_t bytes) {
  Kept& k = Blocks();
  std::vector<Block> dropped;
  {
    std::lock_guard lock(k.mu);
    if (bytes > k.limit) {
      dropped.push_back({p, bytes});
    } else {
      k.blocks.push_back({p, bytes});
      k.bytes += bytes;
      while (k.bytes > k.limit) {
        dropped.push_back(k.blocks.front());
        k.bytes -= k.blocks.front().bytes;
        k.blocks.erase(k.blocks.begin());
      }
    }
  }
  for (const Block& b : dropped) munmap(b.p, b.bytes);
}

}  // namespace floe
