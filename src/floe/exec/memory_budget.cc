#include "floe/exec/memory_budget.h"

#include <unistd.h>

namespace floe::exec {

int64_t ColumnBytes(const columnar::Column& c) {
  auto n =
      static_cast<int64_t>(c.validity.size() + c.values.size() + c.offsets.size() + c.codes.size());
  for (const auto& child : c.children) {
    if (child) n += ColumnBytes(*child);
  }
  if (c.dictionary) n += ColumnBytes(*c.dictionary);
  return n;
}

int64_t BatchBytes(const columnar::RecordBatch& b) {
  int64_t n = 0;
  for (const auto& c : b.columns) {
    if (c) n += ColumnBytes(*c);
  }
  return n;
}

int64_t PhysicalMemoryShare(double percent) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<int64_t>(static_cast<double>(pages) * static_cast<double>(page) * percent /
                              100.0);
}

}  // namespace floe::exec
