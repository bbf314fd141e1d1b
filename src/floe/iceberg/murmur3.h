// 32-bit MurmurHash3 (x86 variant, seed 0), the hash Iceberg's bucket transform is defined on
// (table spec, Appendix B). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace floe::iceberg {

int32_t Murmur3Hash32(std::string_view bytes, uint32_t seed = 0);
// Iceberg hashes int, long, date, time and timestamps as the 8 little-endian bytes of a long.
int32_t HashLong(int64_t v);

}  // namespace floe::iceberg
