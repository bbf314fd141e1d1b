// Helpers shared by the parquet tests: the parquet-testing corpus location and whole-file reads.
// Test-only; header-only so that each *_test.cc stays self-contained.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace floe::parquet::testing {

inline std::filesystem::path CorpusDir() {
  return std::filesystem::path(FLOE_TESTDATA_DIR) / "parquet-testing";
}
inline std::filesystem::path DataFile(const std::string& name) {
  return CorpusDir() / "data" / name;
}
inline std::filesystem::path BadDataFile(const std::string& name) {
  return CorpusDir() / "bad_data" / name;
}

inline std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Every *.parquet under `dir`, recursively, sorted so test output is stable.
inline std::vector<std::filesystem::path> ParquetFilesUnder(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace floe::parquet::testing
