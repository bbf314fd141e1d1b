#include "floe/bench/stats_json.h"

#include <fmt/format.h>

#include "floe/columnar/value_format.h"

namespace floe::bench {

std::string StatsJson(const ScanMetrics& s, const io::RequestCounts& r, double wall_ms) {
  // Only when the reader turned metadata away, so the usual object keeps its shape.
  std::string rejected;
  if (s.metadata_rejected > 0) {
    rejected = fmt::format(R"("metadata_rejected": {}, "warning": )", s.metadata_rejected);
    columnar::AppendJsonString(s.metadata_warning(), &rejected);
    rejected += ", ";
  }
  // Only when the scan applied deletes (merge-on-read): what its delete files cost, within the
  // request and byte totals, and the rows they took out.
  std::string deletes;
  if (s.delete_files_opened > 0) {
    deletes = fmt::format(
        R"("delete_files_opened": {}, "delete_requests": {}, "delete_bytes_fetched": {}, )"
        R"("rows_deleted": {}, )",
        s.delete_files_opened, s.delete_requests, s.delete_bytes_fetched, s.rows_deleted);
  }
  // Only when they pruned: the files an OTree's cubes, a sample, and a join's keys skipped.
  std::string join;
  for (const auto& [name, n] :
       {std::pair<const char*, int64_t>{"index", s.data_files_skipped_index},
        {"sample", s.data_files_skipped_sample},
        {"join", s.data_files_skipped_join}}) {
    if (n > 0) join += fmt::format(R"(, "{}": {})", name, n);
  }
  // Only when a join, aggregate or sort passed SET memory_limit: what it wrote to disk.
  std::string spilled;
  if (s.spilled_bytes > 0) {
    spilled = fmt::format(R"("spilled_bytes": {}, "spill_partitions": {}, )", s.spilled_bytes,
                          s.spill_partitions);
  }
  return fmt::format(
      R"({{"data_files_opened": {}, "data_files_skipped": {{"partition": {}, "bounds": {}{}}}, {})"
      R"("row_groups_read": {}, "row_groups_skipped": {}, "pages_skipped": {}, {}{})"
      R"("requests": {{"GET": {}, "HEAD": {}, "PUT": {}, "LIST": {}, "DELETE": {}}}, )"
      R"("bytes_fetched": {}, "wall_ms": {:.1f}}})",
      s.data_files_opened, s.data_files_skipped_partition, s.data_files_skipped_bounds, join,
      deletes, s.row_groups_read, s.row_groups_skipped, s.pages_skipped, rejected, spilled, r.get,
      r.head, r.put, r.list, r.del, r.bytes_read, wall_ms);
}

}  // namespace floe::bench
