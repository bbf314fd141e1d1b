// `floe table add-files NS.T PATH... [--partition K=V]... [--allow-duplicates]`: registers Parquet
// files where they are (no copy, no rewrite) as data files of a table, in one commit, through
// iceberg::AddFiles -- Iceberg's add_files procedure.
#include <filesystem>

#include <fmt/format.h>

#include "floe/iceberg/add_files.h"
#include "table_internal.h"

namespace floe::cli {
namespace {

struct AddFilesArgs {
  std::string table;
  std::vector<std::string> paths;
  std::vector<std::string> partitions;  // K=V
  bool allow_duplicates = false;
};

int AddFiles(const GlobalOptions& g, const AddFilesArgs& a) {
  iceberg::AddFilesOptions o;
  o.check_duplicate_files = !a.allow_duplicates;
  for (const std::string& p : a.partitions) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return ReportError(Error{ErrorKind::kInvalidInput,
                               fmt::format("--partition '{}': expected COLUMN=VALUE", p)});
    }
    o.partition_filter.emplace_back(p.substr(0, eq), p.substr(eq + 1));
  }
  // Local paths become absolute locations; store URIs pass as they are.
  std::vector<std::string> locations;
  for (const std::string& p : a.paths) {
    if (p.find("://") != std::string::npos || p.starts_with("file:")) {
      locations.push_back(p);
      continue;
    }
    std::error_code ec;
    auto abs = std::filesystem::absolute(p, ec);
    if (ec) {
      return ReportError(
          Error{ErrorKind::kInvalidInput, fmt::format("path '{}': {}", p, ec.message())});
    }
    // A store lists no folder of its own, so an empty one would read as a missing path.
    if (std::filesystem::is_directory(abs, ec) && std::filesystem::is_empty(abs, ec)) {
      return ReportError(
          Error{ErrorKind::kInvalidInput, fmt::format("folder '{}' holds no .parquet files", p)});
    }
    locations.push_back(abs.lexically_normal().string());
  }
  auto w = OpenWarehouseFor(g);
  if (!w) return ReportError(w.error());
  auto id = catalog::TableIdentifier::Parse(a.table);
  if (!id) return ReportError(id.error());
  auto r = iceberg::AddFiles(*w->catalog, *w->io, *id, locations, o);
  if (!r) return ReportError(r.error());
  if (r->files.empty()) {
    fmt::print("added 0 files to {}: none matched the --partition filter, nothing committed\n",
               id->ToString());
    return 0;
  }
  fmt::print("added {} file{} to {}: {} rows, {:.1f} MB, {} partition{}{}, snapshot {}\n",
             r->files.size(), r->files.size() == 1 ? "" : "s", id->ToString(), r->rows,
             static_cast<double>(r->bytes) / 1e6, r->changed_partitions,
             r->changed_partitions == 1 ? "" : "s",
             r->name_mapping_set ? ", name mapping set (the files carry no field ids)" : "",
             r->snapshot_id.value_or(0));
  return 0;
}

}  // namespace

void AddAddFilesCommand(CLI::App& table_cmd, GlobalOptions& options) {
  auto a = std::make_shared<AddFilesArgs>();
  auto* sub = table_cmd.add_subcommand(
      "add-files",
      "Register existing Parquet files (or folders of them) without rewriting them, in one "
      "commit (Iceberg's add_files)");
  sub->add_option("table", a->table, "Table name, NAMESPACE.TABLE")->required();
  sub->add_option("paths", a->paths,
                  "Parquet files or folders (every .parquet below), local or store URIs; they "
                  "stay where they are")
      ->required();
  sub->add_option("--partition", a->partitions,
                  "Only files of this partition, COLUMN=VALUE (repeatable); a partition value "
                  "comes from a COLUMN=VALUE directory in the path or the file's column bounds")
      ->allow_extra_args(false);  // one value per --partition, so paths may follow it
  sub->add_flag("--allow-duplicates", a->allow_duplicates,
                "Add files the table already holds (or paths given twice) again");
  sub->footer(
      "The table then references the files: removing the snapshots that hold them (table "
      "expire) deletes them, as Iceberg does.");
  sub->callback([&options, a] {
    int rc = AddFiles(options, *a);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace floe::cli
