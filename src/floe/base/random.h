// Process-unique random numbers for identifiers (UUIDs, snapshot ids, sync markers).
// Each thread has its own generator, seeded from the OS; it reseeds after fork() so parent and
// child never produce the same identifiers. Not for cryptography.
#pragma once

#include <cstdint>

namespace floe {

uint64_t RandomU64();

}  // namespace floe
