// `floe table expire NS.T [--older-than TIME] [--retain-last N]` and
// `floe table remove-orphans NS.T [--older-than TIME] [--dry-run]`: snapshot expiry and orphan
// removal through the iceberg module, with a progress bar and a one-line summary. TIME is an age
// (30s, 15m, 12h, 3d), an ISO date or timestamp (UTC), or Unix milliseconds.
#include <cctype>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "floe/base/calendar.h"
#include "floe/base/clock.h"
#include "floe/base/progress.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/remove_orphan_files.h"
#include "table_internal.h"

namespace floe::cli {
namespace {

std::string Mb(int64_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6); }

struct ExpireArgs {
  std::string table;
  std::optional<std::string> older_than;  // set when given, even empty (an error)
  std::optional<int64_t> retain_last;
  bool dry_run = false;
  bool unsafe_allow_recent = false;
};

int Expire(const GlobalOptions& g, const ExpireArgs& a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  iceberg::ExpireSnapshotsOptions o;
  if (a.older_than) {
    auto t = ParseTimeOrAge(*a.older_than, UnixMillisNow(), "--older-than");
    if (!t) return ReportError(t.error());
    o.older_than_ms = *t;
  }
  if (a.retain_last) {
    if (*a.retain_last < 1 || *a.retain_last > INT32_MAX) {
      return ReportError(Error{ErrorKind::kInvalidInput,
                               fmt::format("--retain-last {}: expected a whole number from 1 to {}",
                                           *a.retain_last, INT32_MAX)});
    }
    o.retain_last = static_cast<int>(*a.retain_last);
  }
  Progress progress("expire " + a.table, 0, "files");
  o.on_deleted = [&](int64_t n) { progress.Advance(static_cast<uint64_t>(n)); };
  auto r = iceberg::ExpireSnapshots(*w->catalog, *w->io, *id, o);
  if (!r) {
    progress.Abandon();
    return ReportError(r.error());
  }
  progress.Finish();
  fmt::print(
      "expired {} snapshots of {}: deleted {} data files, {} position delete files, {} equality "
      "delete files ({}), {} manifests, {} manifest lists, {:.0f} ms\n",
      r->expired_snapshot_ids.size(), a.table, r->deleted_data_files_count,
      r->deleted_position_delete_files_count, r->deleted_equality_delete_files_count,
      Mb(r->deleted_bytes), r->deleted_manifest_files_count, r->deleted_manifest_lists_count,
      r->elapsed_ms);
  if (r->expired_snapshot_ids.empty()) {
    fmt::print(
        "nothing to expire: no snapshot is older than {}, or it is among the newest kept "
        "({}); --older-than AGE (e.g. 1h) and --retain-last N expire more\n",
        a.older_than ? "--older-than " + *a.older_than
                     : std::string("the table's history.expire.max-snapshot-age-ms (Iceberg's "
                                   "default: 5 days)"),
        a.retain_last ? fmt::format("--retain-last {}", *a.retain_last)
                      : std::string("history.expire.min-snapshots-to-keep, default 1"));
  }
  return 0;
}

int RemoveOrphans(const GlobalOptions& g, const ExpireArgs& a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  iceberg::RemoveOrphanFilesOptions o;
  if (a.older_than) {
    auto t = ParseTimeOrAge(*a.older_than, UnixMillisNow(), "--older-than");
    if (!t) return ReportError(t.error());
    o.older_than_ms = *t;
  }
  o.dry_run = a.dry_run;
  o.allow_recent_files = a.unsafe_allow_recent;
  const bool recent =
      o.older_than_ms && *o.older_than_ms > UnixMillisNow() - iceberg::kMinOrphanAgeMs;
  if (recent && !a.dry_run) {
    if (!a.unsafe_allow_recent) {
      return ReportError(Error{
          ErrorKind::kInvalidInput,
          fmt::format("--older-than {}: less than 24 hours ago, so the files of a write still in "
                      "flight would be deleted and its commit would reference missing files; use "
                      "an older time, or --unsafe-allow-recent when no write can be running",
                      *a.older_than)});
    }
    std::fprintf(stderr,
                 "floe: warning: --unsafe-allow-recent: deleting unreferenced files younger than "
                 "24 hours; a write in flight now loses its files\n");
  }
  Progress progress("remove-orphans " + a.table, 0, "files");
  o.on_deleted = [&](int64_t n) { progress.Advance(static_cast<uint64_t>(n)); };
  auto r = iceberg::RemoveOrphanFiles(*w->catalog, *w->io, *id, o);
  if (!r) {
    progress.Abandon();
    return ReportError(r.error());
  }
  progress.Finish();
  for (const auto& f : r->orphan_file_locations)
    fmt::print("{}{}\n", a.dry_run ? "orphan " : "deleted ", f);
  fmt::print(
      "{} {} orphan files of {} ({}); {} files listed, {} unreferenced but too new, {:.0f} ms\n",
      a.dry_run ? "found" : "removed", r->orphan_file_locations.size(), a.table,
      Mb(r->orphan_bytes), r->listed_files, r->too_new_files, r->elapsed_ms);
  return 0;
}

}  // namespace

void AddExpireCommands(CLI::App& table_cmd, GlobalOptions& options) {
  auto a = std::make_shared<ExpireArgs>();
  auto* ex = table_cmd.add_subcommand(
      "expire", "Expire old snapshots and delete the files only they referenced");
  ex->add_option("table", a->table, "Table name, NAMESPACE.TABLE")->required();
  ex->add_option("--older-than", a->older_than,
                 "Expire snapshots older than this: age (3d, 12h, 0s), ISO time, or Unix ms "
                 "(default: history.expire.max-snapshot-age-ms, 5 days)");
  ex->add_option("--retain-last", a->retain_last,
                 "Always keep this many latest snapshots of each branch (default: "
                 "history.expire.min-snapshots-to-keep, 1)");
  ex->callback([&options, a] {
    int rc = Expire(options, *a);
    if (rc != 0) std::exit(rc);
  });

  auto b = std::make_shared<ExpireArgs>();
  auto* ro = table_cmd.add_subcommand(
      "remove-orphans",
      "Delete files under the table's location that no metadata references and no other table's "
      "location holds, and temp files of killed writes");
  ro->add_option("table", b->table, "Table name, NAMESPACE.TABLE")->required();
  ro->add_option("--older-than", b->older_than,
                 "Only files last modified before this: age (3d, 12h), ISO time, or Unix ms "
                 "(default 3d, at least 24h: younger files may belong to a commit in flight)");
  ro->add_flag("--dry-run", b->dry_run, "List the orphan files, delete nothing");
  ro->add_flag("--unsafe-allow-recent", b->unsafe_allow_recent,
               "Allow --older-than less than 24 hours ago. Unsafe: the files of a write still "
               "in flight are deleted and its commit then references missing files");
  ro->callback([&options, b] {
    int rc = RemoveOrphans(options, *b);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
