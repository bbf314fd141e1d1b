#include "floe/parquet/read_strategy.h"

#include <array>
#include <utility>

namespace floe::parquet {

namespace {

constexpr std::array<std::pair<std::string_view, ReadStrategy>, 5> kStrategies = {{
    {"floe", ReadStrategy::kFloe},
    {"parquet-mr", ReadStrategy::kParquetMr},
    {"aal", ReadStrategy::kAal},
    {"eager", ReadStrategy::kEager},
    {"arrow-rs", ReadStrategy::kArrowRs},
}};

}  // namespace

Result<ReadStrategy> ParseReadStrategy(std::string_view name) {
  for (const auto& [n, s] : kStrategies) {
    if (n == name) return s;
  }
  return InvalidInput(
      "unknown read strategy '{}'; expected one of floe, parquet-mr, aal, eager, "
      "arrow-rs",
      name);
}

std::string_view ReadStrategyName(ReadStrategy strategy) {
  for (const auto& [n, s] : kStrategies) {
    if (s == strategy) return n;
  }
  return "unknown";
}

}  // namespace floe::parquet
