// `floe table rewrite NS.T --strategy binpack|sort|zorder|hilbert [--sort-by ORDER]
// [--columns A,B] [--target-file-size SIZE] [--where SQL] ...` and `floe table rewrite-manifests
// NS.T`: compaction through the iceberg module's rewrite_data_files / rewrite_manifests, with a
// progress bar and a one-line summary.
#include <optional>

#include <fmt/format.h>

#include "floe/base/progress.h"
#include "floe/bench/worksheet.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/rewrite_manifests.h"
#include "floe/iceberg/rewrite_position_deletes.h"
#include "floe/iceberg/row_order.h"
#include "floe/sql/table_filter.h"
#include "table_internal.h"

namespace floe::cli {
namespace {

struct RewriteArgs {
  std::string table;
  std::string strategy = "binpack";
  std::string sort_by;
  // Set when given, even empty (an error rather than the default).
  std::optional<std::string> target;
  std::optional<std::string> min_size;
  std::optional<std::string> max_size;
  std::optional<std::string> max_group;
  std::string where;
  int64_t min_input_files = 5;
  bool rewrite_all = false;
  std::optional<int64_t> partial_progress_commits;
  std::optional<int64_t> delete_file_threshold;
  std::optional<double> delete_ratio_threshold;
  bool remove_dangling_deletes = false;
  bool dry_run = false;
  std::string columns;
  std::optional<int64_t> var_length_contribution;
};

std::string Mb(int64_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6); }

Result<int64_t> SizeFlag(const std::string& flag, const std::string& text) {
  auto v = bench::ParseSize(text);
  if (!v) return InvalidInput("{} {}", flag, v.error().message);
  return v;
}

// The filter binds against the table's schema, so `w` and `id` are needed when --where is given.
Result<iceberg::RewriteOptions> OptionsFrom(const RewriteArgs& a, iceberg::Warehouse& w,
                                            const catalog::TableIdentifier& id) {
  iceberg::RewriteOptions o;
  const bool cluster = a.strategy == "zorder" || a.strategy == "hilbert";
  if (a.strategy == "sort" || cluster) {
    o.strategy = iceberg::RewriteStrategy::kSort;
  } else if (a.strategy != "binpack") {
    return InvalidInput("--strategy '{}': expected binpack, sort, zorder or hilbert", a.strategy);
  }
  if (!a.sort_by.empty() && a.strategy != "sort")
    return InvalidInput("--sort-by needs --strategy sort");
  if (!a.columns.empty() && !cluster)
    return InvalidInput("--columns needs --strategy zorder or hilbert");
  if (cluster && a.columns.empty())
    return InvalidInput("--strategy {} needs --columns, e.g. --columns a,b", a.strategy);
  o.sort_order_text = cluster ? fmt::format("{}({})", a.strategy, a.columns) : a.sort_by;
  if (a.var_length_contribution) {
    if (!cluster)
      return InvalidInput("--var-length-contribution needs --strategy zorder or hilbert");
    if (*a.var_length_contribution < 1 || *a.var_length_contribution > 1024)
      return InvalidInput("--var-length-contribution {} must be 1 to 1024",
                          *a.var_length_contribution);
    o.zorder.var_length_contribution = static_cast<int>(*a.var_length_contribution);
  }
  if (a.target) {
    FLOE_ASSIGN_OR_RETURN(o.target_file_size_bytes, SizeFlag("--target-file-size", *a.target));
  }
  if (a.min_size) {
    FLOE_ASSIGN_OR_RETURN(o.min_file_size_bytes, SizeFlag("--min-file-size", *a.min_size));
  }
  if (a.max_size) {
    FLOE_ASSIGN_OR_RETURN(o.max_file_size_bytes, SizeFlag("--max-file-size", *a.max_size));
  }
  if (a.max_group) {
    FLOE_ASSIGN_OR_RETURN(o.max_file_group_size_bytes,
                          SizeFlag("--max-file-group-size", *a.max_group));
  }
  if (!a.where.empty()) {
    FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::LoadTable(*w.catalog, *w.io, id));
    auto filter = sql::BindTableFilter(a.where, table);
    if (!filter) {
      return MakeError(filter.error().kind, "--where " + filter.error().message,
                       filter.error().transient);
    }
    o.filter = *filter;
  }
  if (a.min_input_files < 1 || a.min_input_files > INT32_MAX)
    return InvalidInput("--min-input-files {}: expected 1 to {}", a.min_input_files, INT32_MAX);
  o.min_input_files = static_cast<int>(a.min_input_files);
  o.rewrite_all = a.rewrite_all;
  if (a.partial_progress_commits) {
    if (*a.partial_progress_commits < 1 || *a.partial_progress_commits > INT32_MAX) {
      return InvalidInput("--partial-progress {}: expected a number of commits from 1 to {}",
                          *a.partial_progress_commits, INT32_MAX);
    }
    o.partial_progress_enabled = true;
    o.partial_progress_max_commits = static_cast<int>(*a.partial_progress_commits);
  }
  if (a.delete_file_threshold) {
    if (*a.delete_file_threshold < 0 || *a.delete_file_threshold > INT32_MAX) {
      return InvalidInput("--delete-file-threshold {}: expected 0 to {}", *a.delete_file_threshold,
                          INT32_MAX);
    }
    o.delete_file_threshold = *a.delete_file_threshold;
  }
  if (a.delete_ratio_threshold) {
    if (!(*a.delete_ratio_threshold > 0 && *a.delete_ratio_threshold <= 1)) {
      return InvalidInput("--delete-ratio-threshold {}: expected a share in (0, 1]",
                          *a.delete_ratio_threshold);
    }
    o.delete_ratio_threshold = *a.delete_ratio_threshold;
  }
  o.remove_dangling_deletes = a.remove_dangling_deletes;
  return o;
}

// Why a rewrite found nothing to do, and the flags that change it (Iceberg's rules).
std::string NothingToRewrite(const RewriteArgs& a) {
  const std::string range = a.min_size || a.max_size
                                ? std::string("outside --min-file-size/--max-file-size")
                                : std::string("outside 75%-180% of the target file size");
  return fmt::format(
      "nothing to rewrite: no partition has {} or more files (or files adding up to more than the "
      "target) {}{}, nor files with too many deletes; --rewrite-all rewrites every file, "
      "--min-input-files N, --target-file-size SIZE and --min/--max-file-size change the rules",
      a.min_input_files, range, a.where.empty() ? "" : " among those --where selects");
}

// `floe table rewrite` of table `id` in the opened warehouse `w`.
int RewriteIn(iceberg::Warehouse& w, const catalog::TableIdentifier& id, const RewriteArgs& a) {
  auto options = OptionsFrom(a, w, id);
  if (!options) return ReportError(options.error());
  auto plan = iceberg::PlanRewriteDataFiles(*w.catalog, *w.io, id, *options);
  if (!plan) return ReportError(plan.error());
  int64_t files = 0, bytes = 0;
  for (const auto& gr : *plan) {
    files += static_cast<int64_t>(gr.files.size());
    bytes += gr.bytes;
  }
  if (a.dry_run) {
    for (const auto& gr : *plan) {
      fmt::print("group {}: {} files, {}, {} records\n",
                 gr.partition.empty() ? "(unpartitioned)" : gr.partition, gr.files.size(),
                 Mb(gr.bytes), gr.records);
    }
    fmt::print("would rewrite {} files ({}) in {} groups\n", files, Mb(bytes), plan->size());
    if (files == 0) fmt::print("{}\n", NothingToRewrite(a));
    return 0;
  }
  Progress progress("rewrite " + a.table, static_cast<uint64_t>(files), "files");
  options->on_file_read = [&](int64_t n, int64_t) { progress.Advance(static_cast<uint64_t>(n)); };
  auto r = iceberg::RewriteDataFiles(*w.catalog, *w.io, id, *options);
  if (!r) {
    progress.Abandon();
    return ReportError(r.error());
  }
  progress.Finish();
  fmt::print(
      "rewrote {} ({}): files in {} -> out {}, bytes in {} -> out {}, {} records, {} groups, "
      "{} commits{}{}, {:.0f} ms\n",
      a.table, a.strategy, r->rewritten_data_files_count, r->added_data_files_count,
      Mb(r->rewritten_bytes_count), Mb(r->added_bytes_count), r->rewritten_records, r->file_groups,
      r->commits,
      r->failed_file_groups ? fmt::format(" ({} groups failed)", r->failed_file_groups) : "",
      r->removed_delete_files_count
          ? fmt::format(", {} dangling delete files removed", r->removed_delete_files_count)
          : "",
      r->elapsed_ms);
  if (r->rewritten_data_files_count == 0) fmt::print("{}\n", NothingToRewrite(a));
  return 0;
}

int Rewrite(const GlobalOptions& g, const RewriteArgs& a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  return RewriteIn(*w, *id, a);
}

// OPTIMIZE as Delta and Databricks users know it: every file (or those --where selects)
// rewritten by the table's own layout -- an OTree re-indexed under a new revision, a Z-order,
// Hilbert or sort order applied across files -- or bin-packed when it declares none.
int Optimize(const GlobalOptions& g, RewriteArgs a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  auto table = iceberg::LoadTable(*w->catalog, *w->io, *id);
  if (!table) return ReportError(table.error());
  const iceberg::TableMetadata& m = table->metadata;
  const bool laid_out = m.properties.contains(std::string(iceberg::kLayoutProperty)) ||
                        !m.DefaultSortOrder().unsorted();
  a.strategy = laid_out ? "sort" : "binpack";
  a.rewrite_all = true;
  a.min_input_files = 1;
  return RewriteIn(*w, *id, a);
}

int RewriteManifests(const GlobalOptions& g, const std::string& table,
                     const std::optional<std::string>& target) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(table);
  if (!id) return ReportError(id.error());
  iceberg::RewriteManifestsOptions o;
  if (target) {
    auto v = SizeFlag("--target-manifest-size", *target);
    if (!v) return ReportError(v.error());
    o.target_manifest_size_bytes = *v;
  }
  auto r = iceberg::RewriteManifests(*w->catalog, *w->io, *id, o);
  if (!r) return ReportError(r.error());
  fmt::print("rewrote manifests of {}: manifests in {} -> out {}, {} entries, {:.0f} ms\n", table,
             r->rewritten_manifests_count, r->added_manifests_count, r->entries, r->elapsed_ms);
  return 0;
}

struct RewriteDeletesArgs {
  std::string table;
  std::optional<std::string> target;
  int64_t min_input_files = 5;
  bool rewrite_all = false;
};

int RewriteDeletes(const GlobalOptions& g, const RewriteDeletesArgs& a) {
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  iceberg::RewritePositionDeletesOptions o;
  if (a.target) {
    auto v = SizeFlag("--target-file-size", *a.target);
    if (!v) return ReportError(v.error());
    o.target_file_size_bytes = *v;
  }
  if (a.min_input_files < 1 || a.min_input_files > INT32_MAX) {
    return ReportError(
        InvalidInput("--min-input-files {}: expected 1 to {}", a.min_input_files, INT32_MAX)
            .error());
  }
  o.min_input_files = static_cast<int>(a.min_input_files);
  o.rewrite_all = a.rewrite_all;
  auto r = iceberg::RewritePositionDeleteFiles(*w->catalog, *w->io, *id, o);
  if (!r) return ReportError(r.error());
  if (r->commits == 0) {
    fmt::print(
        "rewrote no position deletes of {}: no partition has {} delete files outside the "
        "size range (--rewrite-all takes every one)\n",
        a.table, o.min_input_files);
    return 0;
  }
  fmt::print(
      "rewrote position deletes of {}: delete files in {} -> out {}, bytes in {} -> out {}, "
      "{} dangling positions dropped\n",
      a.table, r->rewritten_delete_files_count, r->added_delete_files_count,
      Mb(r->rewritten_bytes_count), Mb(r->added_bytes_count), r->dangling_positions);
  return 0;
}

}  // namespace

void AddRewriteCommands(CLI::App& table_cmd, GlobalOptions& options) {
  auto a = std::make_shared<RewriteArgs>();
  auto* sub = table_cmd.add_subcommand(
      "rewrite", "Compact data files (rewrite_data_files): bin-pack, or sort across files");
  sub->add_option("table", a->table, "Table name, NAMESPACE.TABLE")->required();
  sub->add_option("--strategy", a->strategy,
                  "binpack (default), sort, zorder or hilbert (clustered by --columns)")
      ->check(CLI::IsMember({"binpack", "sort", "zorder", "hilbert"}));
  sub->add_option("--sort-by", a->sort_by,
                  "Sort order for --strategy sort, e.g. 'id ASC NULLS LAST, ts DESC' or "
                  "'zorder(a, b)' (default: the table's floe.layout, else its sort order)");
  sub->add_option("--columns", a->columns,
                  "Columns to cluster by for --strategy zorder|hilbert, e.g. a,b");
  sub->add_option("--var-length-contribution", a->var_length_contribution,
                  "Bytes of a string value in the clustering key (default 8, as Spark)");
  sub->add_option("--target-file-size", a->target,
                  "Output file size, e.g. 2MB, 512MiB (default: write.target-file-size-bytes)");
  sub->add_option("--min-file-size", a->min_size,
                  "Files below are rewritten (default 75% of target)");
  sub->add_option("--max-file-size", a->max_size,
                  "Files above are rewritten (default 180% of target)");
  sub->add_option("--max-file-group-size", a->max_group, "Bytes per file group (default 100GiB)");
  sub->add_option("--min-input-files", a->min_input_files,
                  "Files a group needs to be rewritten (default 5)");
  sub->add_flag("--rewrite-all", a->rewrite_all, "Rewrite every selected file, whatever its size");
  sub->add_option("--partial-progress", a->partial_progress_commits,
                  "Commit groups as they finish, in at most N commits");
  sub->add_option("--where", a->where,
                  "Only files that may hold matching rows: a SQL WHERE condition");
  sub->add_option("--delete-file-threshold", a->delete_file_threshold,
                  "Also rewrite files with at least this many delete files (default: never)");
  sub->add_option("--delete-ratio-threshold", a->delete_ratio_threshold,
                  "Also rewrite files whose own deletes remove this share of rows (default 0.3)");
  sub->add_flag("--remove-dangling-deletes", a->remove_dangling_deletes,
                "Then remove the delete files that apply to no live data file (one more commit)");
  sub->add_flag("--dry-run", a->dry_run, "Print the file groups, rewrite nothing");
  sub->callback([&options, a] {
    int rc = Rewrite(options, *a);
    if (rc != 0) std::exit(rc);
  });

  auto opt = std::make_shared<RewriteArgs>();
  auto* optimize = table_cmd.add_subcommand(
      "optimize",
      "Rewrite every file by the table's layout: re-index an OTree, re-cluster a Z-order or "
      "Hilbert layout, re-sort a sort order; bin-pack a table with none");
  optimize->add_option("table", opt->table, "Table name, NAMESPACE.TABLE")->required();
  optimize->add_option("--where", opt->where,
                       "Only files that may hold matching rows: a SQL WHERE condition");
  optimize->add_option("--target-file-size", opt->target,
                       "Output file size (default: write.target-file-size-bytes)");
  optimize->add_flag("--dry-run", opt->dry_run, "Print the file groups, rewrite nothing");
  optimize->callback([&options, opt] {
    int rc = Optimize(options, *opt);
    if (rc != 0) std::exit(rc);
  });

  auto d = std::make_shared<RewriteDeletesArgs>();
  auto* rd = table_cmd.add_subcommand(
      "rewrite-deletes",
      "Compact position delete files (rewrite_position_delete_files); on v3 tables, into DVs");
  rd->add_option("table", d->table, "Table name, NAMESPACE.TABLE")->required();
  rd->add_option("--target-file-size", d->target, "Output delete file size (default 64MiB)");
  rd->add_option("--min-input-files", d->min_input_files,
                 "Delete files a partition needs to be rewritten (default 5)");
  rd->add_flag("--rewrite-all", d->rewrite_all, "Rewrite every position delete file");
  rd->callback([&options, d] {
    int rc = RewriteDeletes(options, *d);
    if (rc != 0) std::exit(rc);
  });

  auto table = std::make_shared<std::string>();
  auto target = std::make_shared<std::optional<std::string>>();
  auto* rm = table_cmd.add_subcommand(
      "rewrite-manifests", "Regroup the current snapshot's manifest entries by partition");
  rm->add_option("table", *table, "Table name, NAMESPACE.TABLE")->required();
  rm->add_option("--target-manifest-size", *target,
                 "Manifest size (default: commit.manifest.target-size-bytes, 8MiB)");
  rm->callback([&options, table, target] {
    int rc = RewriteManifests(options, *table, *target);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
