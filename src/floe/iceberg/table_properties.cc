#include "floe/iceberg/table_properties.h"

#include <charconv>
#include <cmath>

#include "floe/iceberg/metrics.h"
#include "floe/layout/clustering.h"

namespace floe::iceberg {

namespace {

constexpr int64_t kInt32Max = 2147483647;
constexpr int64_t kHourMs = 3600000;
constexpr int64_t kDayMs = 24 * kHourMs;

}  // namespace

const std::vector<PropertyDef>& TableProperties() {
  using K = PropertyKind;
  static const std::vector<PropertyDef> defs = {
      {"format-version", K::kInteger, 2, 3, "2",
       "The format version a new table is created in (Iceberg's reserved property)"},
      {"write.target-file-size-bytes", K::kInteger, 1, INT64_MAX, "536870912",
       "Data files are cut at about this size"},
      {"write.parquet.row-group-size-bytes", K::kInteger, 1, INT64_MAX, "134217728",
       "Row groups are cut at about this size"},
      {"write.parquet.row-group-row-limit", K::kInteger, 1, INT64_MAX, "",
       "At most this many rows per row group (floe)"},
      {"write.parquet.page-size-bytes", K::kInteger, 1, kInt32Max, "1048576",
       "Pages are cut at about this size"},
      {"write.parquet.page-row-limit", K::kInteger, 1, kInt32Max, "20000",
       "At most this many rows per page"},
      {"write.parquet.dict-size-bytes", K::kInteger, 0, kInt32Max, "2097152",
       "A column chunk falls back from dictionary encoding past this dictionary size"},
      {"write.parquet.compression-codec", K::kCodec, 0, 0, "zstd",
       "zstd, snappy, gzip, lz4, brotli or uncompressed"},
      {"write.parquet.compression-level", K::kInteger, -131072, 22, "",
       "The codec's level (zstd: -131072..22, gzip 0..9)"},
      {"write.parquet.bloom-filter-enabled.column.", K::kBoolean, 0, 0, "false",
       "Write a Bloom filter for the column"},
      {"write.parquet.bloom-filter-fpp.column.", K::kFraction, 0, 0, "0.01",
       "The Bloom filter's false-positive rate, between 0 and 1"},
      {"write.parquet.bloom-filter-max-bytes", K::kInteger, 32, kInt32Max, "1048576",
       "A Bloom filter's largest size"},
      {"write.metadata.metrics.default", K::kMetricsMode, 0, 0, "truncate(16)",
       "Column metrics kept in manifests: none, counts, truncate(N), full"},
      {"write.metadata.metrics.column.", K::kMetricsMode, 0, 0, "", "Column metrics of one column"},
      {"write.metadata.previous-versions-max", K::kInteger, 0, kInt32Max, "100",
       "Previous metadata files listed in the metadata log"},
      {"commit.retry.num-retries", K::kInteger, 0, 1000, "4",
       "Times a commit that lost to a concurrent one is retried"},
      {"commit.retry.min-wait-ms", K::kInteger, 0, kHourMs, "100",
       "First wait before a retry (doubles each time)"},
      {"commit.retry.max-wait-ms", K::kInteger, 0, kDayMs, "60000", "Longest wait before a retry"},
      {"commit.retry.total-timeout-ms", K::kInteger, 0, kDayMs, "1800000",
       "A commit that lost to concurrent ones is not retried after this long"},
      {"commit.manifest-merge.enabled", K::kBoolean, 0, 0, "true",
       "Merge small manifests on append"},
      {"commit.manifest.min-count-to-merge", K::kInteger, 0, kInt32Max, "100",
       "Manifests merged once there are this many"},
      {"commit.manifest.target-size-bytes", K::kInteger, 1, INT64_MAX, "8388608",
       "Merged manifests are cut at about this size"},
      {"history.expire.max-snapshot-age-ms", K::kInteger, 0, INT64_MAX, "432000000",
       "expire removes snapshots older than this by default"},
      {"history.expire.min-snapshots-to-keep", K::kInteger, 1, kInt32Max, "1",
       "expire keeps at least this many snapshots of each branch"},
      {"write.delete.mode", K::kChoice, 0, 0, "copy-on-write",
       "How DELETE changes rows: rewrite their files, or write delete files",
       "copy-on-write|merge-on-read"},
      {"write.update.mode", K::kChoice, 0, 0, "copy-on-write", "How UPDATE changes rows",
       "copy-on-write|merge-on-read"},
      {"write.merge.mode", K::kChoice, 0, 0, "copy-on-write", "How MERGE INTO changes rows",
       "copy-on-write|merge-on-read"},
      {"write.delete.isolation-level", K::kChoice, 0, 0, "serializable",
       "What a concurrent commit may do before a DELETE's commit fails", "serializable|snapshot"},
      {"write.update.isolation-level", K::kChoice, 0, 0, "serializable", "The same for UPDATE",
       "serializable|snapshot"},
      {"write.merge.isolation-level", K::kChoice, 0, 0, "serializable", "The same for MERGE INTO",
       "serializable|snapshot"},
      {"write.delete.granularity", K::kChoice, 0, 0, "file",
       "Merge-on-read v2: a position delete file per data file, or per partition",
       "file|partition"},
      {"floe.layout", K::kLayout, 0, 0, "",
       "Rows of each write clustered by zorder(col, ...) or hilbert(col, ...) within each "
       "partition, in place of the sort order; or files laid out as the cubes of an "
       "otree(col, ...) index (unpartitioned tables) (floe)"},
      {"floe.otree.target-rows-per-file", K::kInteger, 1, INT64_MAX, "",
       "An OTree's cube size and rows per file; default: the target file size over a row's "
       "measured bytes (floe)"},
      {"floe.otree.revision", K::kText, 0, 0, "",
       "An OTree table's current revision (JSON), kept by floe's writers (floe)"},
      {"floe.write.parquet.colocated-columns", K::kText, 0, 0, "",
       "Columns whose chunks are written next to each other (floe)"},
  };
  return defs;
}

Status ValidateTableProperty(std::string_view key, std::string_view value) {
  const PropertyDef* def = nullptr;
  for (const PropertyDef& d : TableProperties()) {
    if (d.key.ends_with('.') ? key.starts_with(d.key) && key.size() > d.key.size() : key == d.key) {
      def = &d;
      break;
    }
  }
  if (def == nullptr) return {};
  auto bad = [&](std::string_view expected) {
    return InvalidInput("table property {} = '{}': expected {}", key, value, expected);
  };
  switch (def->kind) {
    case PropertyKind::kInteger: {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (value.empty() || ec != std::errc() || p != value.data() + value.size() || v < def->min ||
          v > def->max) {
        return bad(def->max == INT64_MAX
                       ? fmt::format("an integer of at least {}", def->min)
                       : fmt::format("an integer from {} to {}", def->min, def->max));
      }
      return {};
    }
    case PropertyKind::kFraction: {
      double v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (value.empty() || ec != std::errc() || p != value.data() + value.size() ||
          !(v > 0 && v < 1)) {
        return bad("a number between 0 and 1, e.g. 0.01");
      }
      return {};
    }
    case PropertyKind::kBoolean:
      if (value != "true" && value != "false") return bad("true or false");
      return {};
    case PropertyKind::kCodec: {
      std::string lower(value);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      for (const char* name :
           {"zstd", "snappy", "gzip", "uncompressed", "none", "lz4", "lz4_raw", "brotli"}) {
        if (lower == name) return {};
      }
      return bad("one of zstd, snappy, gzip, lz4, brotli, uncompressed");
    }
    case PropertyKind::kMetricsMode:
      if (!ParseMetricsMode(value)) return bad("none, counts, truncate(N) or full");
      return {};
    case PropertyKind::kChoice: {
      std::string lower(value);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string_view rest = def->choices;
      while (!rest.empty()) {
        const size_t bar = rest.find('|');
        if (lower == rest.substr(0, bar)) return {};
        rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
      }
      std::string list;
      for (char c : def->choices) list += c == '|' ? std::string(" or ") : std::string(1, c);
      return bad(list);
    }
    case PropertyKind::kLayout: {
      auto spec = layout::ParseClusterSpec(value);
      if (!spec) {
        return InvalidInput("table property {} = '{}': {}", key, value, spec.error().message);
      }
      return {};
    }
    case PropertyKind::kText:
      return {};
  }
  return {};
}

Status ValidateTableProperties(const std::map<std::string, std::string>& properties) {
  for (const auto& [k, v] : properties) FLOE_RETURN_IF_ERROR(ValidateTableProperty(k, v));
  return {};
}

}  // namespace floe::iceberg
