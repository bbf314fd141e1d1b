#include "floe/iceberg/table_location.h"

#include <fmt/format.h>

#include "floe/iceberg/table.h"

namespace floe::iceberg {
namespace {

// One path segment: '%' and '/' escaped, and a segment of only dots ("." and ".." are not names).
std::string EscapeSegment(std::string_view s) {
  const bool only_dots = s.find_first_not_of('.') == std::string_view::npos;
  std::string out;
  for (char c : s) {
    if (c == '%' || c == '/' || (only_dots && c == '.')) {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

// The directory a file lies in.
Location Parent(Location l) {
  size_t slash = l.path.rfind('/');
  l.path = slash == std::string::npos ? "" : l.path.substr(0, slash);
  return l;
}

// Where a table lives when its metadata cannot be read: above the "metadata/" directory its
// metadata file sits in (Iceberg's layout), else that directory.
Location LocationOfMetadataDir(const Location& dir) {
  if (dir.path == "metadata" || dir.path.ends_with("/metadata")) return Parent(dir);
  return dir;
}

}  // namespace

std::string DefaultTableLocation(std::string_view warehouse_root,
                                 const catalog::TableIdentifier& id) {
  std::string root(warehouse_root);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::string ns = EscapeSegment(id.NamespaceString());
  // "<warehouse>/catalog.db" is a local warehouse's catalog file (docs/cli.md), not a directory.
  // '%' is always escaped, so "%63" (a 'c') names no other namespace.
  if (ns == "catalog") ns = "%63atalog";
  return fmt::format("{}/{}.db/{}", root, ns, EscapeSegment(id.name));
}

Result<OtherTables> OtherTables::Load(catalog::Catalog& catalog, const FileIO& io,
                                      const catalog::TableIdentifier& id,
                                      std::string_view location) {
  OtherTables out;
  out.id_ = id;
  FLOE_ASSIGN_OR_RETURN(out.location_, Location::Parse(location));
  const Location& mine = out.location_;
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> namespaces, catalog.ListNamespaces());
  for (const auto& ns : namespaces) {
    FLOE_ASSIGN_OR_RETURN(std::vector<catalog::TableIdentifier> tables, catalog.ListTables(ns));
    for (const auto& other : tables) {
      if (other == id) continue;
      auto metadata_location = catalog.LoadTable(other);
      if (!metadata_location) continue;  // dropped meanwhile
      // The directories the other table writes: its location's data and metadata (or the paths
      // its properties name instead), and where its current metadata file is.
      std::optional<Location> theirs;
      std::vector<Location> writes;
      if (auto t = LoadStaticTable(io, *metadata_location)) {
        if (auto l = Location::Parse(t->metadata.location)) theirs = *l;
        for (const char* key : {"write.data.path", "write.metadata.path",
                                "write.object-storage.path", "write.folder-storage.path"}) {
          if (auto it = t->metadata.properties.find(key); it != t->metadata.properties.end()) {
            if (auto l = Location::Parse(it->second)) writes.push_back(*l);
          }
        }
      }
      auto file = Location::Parse(*metadata_location);
      if (!file) continue;
      const Location metadata_dir = Parent(*file);
      if (!theirs) theirs = LocationOfMetadataDir(metadata_dir);
      for (const char* sub : {"data", "metadata"}) {
        Location l = *theirs;
        l.path = l.path.empty() ? sub : l.path + "/" + sub;
        writes.push_back(std::move(l));
      }
      writes.push_back(metadata_dir);
      if (*theirs == mine || mine.Contains(*theirs)) {
        out.claims_.push_back({*theirs, other});
        continue;
      }
      for (auto& w : writes) {
        if (w == mine || mine.Contains(w) || w.Contains(mine)) {
          out.claims_.push_back({std::move(w), other});
        }
      }
    }
  }
  return out;
}

const catalog::TableIdentifier* OtherTables::Owner(std::string_view location) const {
  auto loc = Location::Parse(location);
  if (!loc) return nullptr;
  for (const auto& c : claims_) {
    if (c.at == *loc || c.at.Contains(*loc)) return &c.table;
  }
  return nullptr;
}

Status OtherTables::CheckRemovable(std::string_view what) const {
  for (const auto& c : claims_) {
    if (c.at == location_) {
      return Conflict("will not {} '{}': table '{}' shares its location '{}'", what, id_.ToString(),
                      c.table.ToString(), location_.ToString());
    }
    if (c.at.Contains(location_)) {
      return Conflict(
          "will not {} '{}': its location '{}' lies inside '{}', where table '{}' "
          "writes its files",
          what, id_.ToString(), location_.ToString(), c.at.ToString(), c.table.ToString());
    }
  }
  return {};
}

}  // namespace floe::iceberg
