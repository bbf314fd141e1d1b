// TempDir: a fresh directory under $TMPDIR for one test, removed with everything in it when the
// object goes away. Shared by every test that needs files on disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace floe::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Deterministic pseudo-random bytes for a seed, so failures reproduce.
std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed);

}  // namespace floe::testing
