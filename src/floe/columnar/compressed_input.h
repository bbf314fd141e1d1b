// Input files compressed with gzip or zstd, as people ship CSV and JSON: known by their magic
// bytes (1f 8b, 28 b5 2f fd) or their name (.gz, .zst), decompressed whole before parsing.
// A corrupt or truncated stream is one invalid-input error naming the file. Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::columnar {

enum class InputCompression { kNone, kGzip, kZstd };

// By the magic bytes first, else by the name's extension.
InputCompression DetectCompression(std::string_view bytes, std::string_view name);

// The name without a trailing .gz or .zst ("a.csv.gz" -> "a.csv"), for telling the format apart.
std::string_view WithoutCompressionSuffix(std::string_view name);

// `bytes` as they are when not compressed (no copy), else decompressed.
Result<Buffer> DecompressInput(Buffer bytes, std::string_view name);

}  // namespace floe::columnar
