// ReadStrategy: how a Parquet file is fetched from an object store. `floe` plans the fewest
// requests from what is known before any byte is fetched (length, projection, column sizes); the
// others reproduce a peer's request pattern faithfully so comparisons against them are honest
// (REFERENCE.md, "How peers read Parquet from object stores").
#pragma once

#include <string_view>

#include "floe/base/result.h"

namespace floe::parquet {

enum class ReadStrategy {
  kFloe,       // whole small file, else one sized tail + one coalesced batch of ranges
  kParquetMr,  // 8-byte tail, footer, one GET per row group, serial within a file
  kAal,        // HEAD, 32 KiB + 1 MiB tail prefetch, whole object <= 8 MiB
  kEager,      // whole file in one GET at <= 1 MiB, otherwise parquet-mr
  kArrowRs,    // 512 KiB footer hint, one range per projected chunk, gaps <= 1 MiB, 10 in parallel
};

// "floe", "parquet-mr", "aal", "eager", "arrow-rs"; anything else is an invalid-input error
// listing the names.
Result<ReadStrategy> ParseReadStrategy(std::string_view name);
std::string_view ReadStrategyName(ReadStrategy strategy);

}  // namespace floe::parquet
