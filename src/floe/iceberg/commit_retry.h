// The one commit loop of the iceberg module: every change to a table -- appends, rewrites and the
// maintenance operations -- is built on the freshly loaded table, written as the next metadata
// version and swapped in with the catalog's compare-and-swap; when a concurrent commit wins the
// swap, the change is rebuilt on the new table and tried again per the table's commit.retry.*
// properties. An attempt that does not land leaves nothing behind. Thread safe as the catalog is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

// How a commit retries after losing the catalog swap: the table's commit.retry.num-retries,
// min-wait-ms, max-wait-ms and total-timeout-ms (Iceberg's names and defaults). Read from
// properties that ValidateTableProperties (table_properties.h) has checked, so every value is in
// its range.
struct CommitRetryPolicy {
  int64_t num_retries = 4;
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60000;
  int64_t total_timeout_ms = 1800000;

  static CommitRetryPolicy Of(const TableMetadata& metadata);
  // The jittered wait before retry `attempt` (0: the first): doubling from the minimum, capped
  // at the maximum.
  int64_t WaitMs(int attempt) const;
};

// Records `base`'s metadata file in `next`'s metadata log, which keeps the newest
// write.metadata.previous-versions-max entries (validated properties, as above).
void RecordPreviousMetadata(const Table& base, TableMetadata* next);

struct CommitStats {
  int attempts = 0;  // 1 when no concurrent commit interfered
};

// One attempt of a change: the next metadata built on `base` (attempt 0 is the first), with its
// last_updated_ms set, or nullopt when there is nothing to commit. Files it writes are listed in
// `written` and removed when the attempt does not land. An error ends the commit: a validation
// that a concurrent commit broke (a file to replace is gone) is a conflict error that no retry
// can fix.
using TableChange = std::function<Result<std::optional<TableMetadata>>(
    const Table& base, int attempt, std::vector<std::string>* written)>;

// Runs `change` until its metadata lands: loads the table, validates its properties, then per
// attempt builds the change, records the base in the metadata log, writes the next metadata
// version and swaps the catalog pointer. A lost swap is retried after CommitRetryPolicy's wait
// until num-retries or total-timeout-ms is spent, then fails with a conflict error. Returns the
// committed table, or the loaded one when the change had nothing to commit.
Result<Table> CommitWithRetry(catalog::Catalog& catalog, const FileIO& io,
                              const catalog::TableIdentifier& id, const TableChange& change,
                              CommitStats* stats = nullptr);

}  // namespace floe::iceberg
