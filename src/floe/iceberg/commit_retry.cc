#include "floe/iceberg/commit_retry.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "floe/base/clock.h"
#include "floe/base/log.h"
#include "floe/base/random.h"
#include "floe/iceberg/table_properties.h"
#include "floe/iceberg/table_update.h"

namespace floe::iceberg {

CommitRetryPolicy CommitRetryPolicy::Of(const TableMetadata& m) {
  CommitRetryPolicy p;
  p.num_retries = m.PropertyInt("commit.retry.num-retries", p.num_retries);
  p.min_wait_ms = m.PropertyInt("commit.retry.min-wait-ms", p.min_wait_ms);
  p.max_wait_ms = m.PropertyInt("commit.retry.max-wait-ms", p.max_wait_ms);
  p.total_timeout_ms = m.PropertyInt("commit.retry.total-timeout-ms", p.total_timeout_ms);
  return p;
}

int64_t CommitRetryPolicy::WaitMs(int attempt) const {
  const int64_t cap =
      std::min(max_wait_ms, std::max<int64_t>(1, min_wait_ms) << std::min(attempt, 20));
  return cap / 2 + static_cast<int64_t>(RandomU64() % static_cast<uint64_t>(cap / 2 + 1));
}

void RecordPreviousMetadata(const Table& base, TableMetadata* next) {
  const int64_t keep = next->PropertyInt("write.metadata.previous-versions-max", 100);
  auto& log = next->metadata_log;
  log.push_back({base.metadata.last_updated_ms, base.metadata_location});
  if (static_cast<int64_t>(log.size()) > keep) log.erase(log.begin(), log.end() - keep);
}

namespace {

// A pointer catalog's commit: the next metadata version written beside the base's, then swapped
// in. A lost swap is a conflict error; a swap that failed otherwise but landed is a success.
Result<Table> SwapPointer(catalog::Catalog& catalog, const FileIO& io,
                          const catalog::TableIdentifier& id, const Table& base, TableMetadata m,
                          std::vector<std::string>* written) {
  RecordPreviousMetadata(base, &m);
  const int version = std::max(MetadataVersion(base.metadata_location), 0) + 1;
  Table t{base.id, NewMetadataLocation(m.location, version), std::move(m)};
  std::string json = t.metadata.ToJson().dump();
  FLOE_RETURN_IF_ERROR(io.WriteIfAbsent(t.metadata_location, AsBytes(json)));
  written->push_back(t.metadata_location);
  auto swapped = catalog.CommitTable(id, base.metadata_location, t.metadata_location);
  if (swapped) return t;
  if (swapped.error().kind != ErrorKind::kConflict) {
    // The swap may have landed before the error surfaced: check before cleaning up.
    auto now = catalog.LoadTable(id);
    if (now && *now == t.metadata_location) return t;
  }
  return std::unexpected(swapped.error());
}

// A service catalog's commit: the change sent as updates under requirements. A failed
// requirement is a conflict error. A failure that leaves the outcome unknown (the service or the
// connection failed after the request went out) is resolved by looking: the change landed when
// the table now holds every snapshot it added; otherwise `*outcome_unknown` is set, since a
// service may still apply it, and the caller keeps its files.
Result<Table> SendChanges(catalog::Catalog& catalog, const FileIO& io,
                          const catalog::TableIdentifier& id, const Table& base,
                          const TableMetadata& m, bool* outcome_unknown) {
  catalog::TableChanges changes = ChangesBetween(base.metadata, m);
  if (changes.updates.empty()) return base;
  auto committed = catalog.CommitChanges(id, changes);
  if (committed) return TableFromCatalog(io, id, *committed);
  const ErrorKind kind = committed.error().kind;
  if (kind == ErrorKind::kConflict || kind == ErrorKind::kInvalidInput ||
      kind == ErrorKind::kNotFound || kind == ErrorKind::kUnsupported) {
    return std::unexpected(committed.error());
  }
  std::vector<int64_t> added;
  for (const auto& s : m.snapshots) {
    if (base.metadata.SnapshotById(s.snapshot_id) == nullptr) added.push_back(s.snapshot_id);
  }
  if (!added.empty()) {
    if (auto now = LoadTable(catalog, io, id); now) {
      bool all = true;
      for (int64_t s : added) all = all && now->metadata.SnapshotById(s) != nullptr;
      if (all) return now;
    }
  }
  *outcome_unknown = true;
  Error e = committed.error();
  e.message += "; the commit's outcome is unknown, so the files it wrote were kept";
  return std::unexpected(e);
}

}  // namespace

Result<Table> CommitWithRetry(catalog::Catalog& catalog, const FileIO& io,
                              const catalog::TableIdentifier& id, const TableChange& change,
                              CommitStats* stats) {
  Stopwatch watch;
  FLOE_ASSIGN_OR_RETURN(Table base, LoadTable(catalog, io, id));
  FLOE_RETURN_IF_ERROR(ValidateTableProperties(base.metadata.properties));
  const CommitRetryPolicy retry = CommitRetryPolicy::Of(base.metadata);
  for (int attempt = 0;; ++attempt) {
    if (stats) stats->attempts = attempt + 1;
    if (attempt > 0) {
      FLOE_ASSIGN_OR_RETURN(base, LoadTable(catalog, io, id));
    }
    std::vector<std::string> written;
    auto cleanup = [&] {
      for (const auto& w : written) (void)io.Delete(w);
      written.clear();
    };
    auto next = change(base, attempt, &written);
    if (!next) {
      cleanup();
      return std::unexpected(next.error());
    }
    if (!next->has_value()) {
      cleanup();
      return base;  // nothing to commit
    }
    TableMetadata m = std::move(**next);
    bool outcome_unknown = false;
    auto landed = catalog.WritesMetadata()
                      ? SendChanges(catalog, io, id, base, m, &outcome_unknown)
                      : SwapPointer(catalog, io, id, base, std::move(m), &written);
    if (landed) {
      // A change that differed from its base in nothing a service keeps wrote nothing it uses.
      if (landed->metadata_location == base.metadata_location) cleanup();
      return landed;
    }
    if (outcome_unknown) return landed;  // the files may be the table's now: keep them
    if (landed.error().kind != ErrorKind::kConflict) {
      cleanup();
      return landed;
    }
    cleanup();
    if (attempt >= retry.num_retries) {
      return Conflict(
          "commit to '{}' lost to concurrent commits {} times; giving up "
          "(commit.retry.num-retries={})",
          id.ToString(), attempt + 1, retry.num_retries);
    }
    const auto elapsed = static_cast<int64_t>(watch.ElapsedMs());
    if (elapsed >= retry.total_timeout_ms) {
      return Conflict(
          "commit to '{}' lost to concurrent commits {} times in {} ms; giving up "
          "(commit.retry.total-timeout-ms={})",
          id.ToString(), attempt + 1, elapsed, retry.total_timeout_ms);
    }
    const int64_t wait = std::min(retry.WaitMs(attempt), retry.total_timeout_ms - elapsed);
    Log(LogLevel::kInfo, "commit to {} conflicted; retrying in {} ms", id.ToString(), wait);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
}

}  // namespace floe::iceberg
