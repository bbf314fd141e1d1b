#include "floe/catalog/catalog.h"

namespace floe::catalog {

Result<TableIdentifier> TableIdentifier::Parse(std::string_view text) {
  TableIdentifier id;
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view part =
        text.substr(start, dot == std::string_view::npos ? text.size() - start : dot - start);
    if (part.empty()) {
      return InvalidInput("bad table name '{}': expected namespace.table with non-empty parts",
                          text);
    }
    parts.emplace_back(part);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() < 2) {
    return InvalidInput("bad table name '{}': expected namespace.table", text);
  }
  id.name = parts.back();
  parts.pop_back();
  id.ns = std::move(parts);
  return id;
}

std::string TableIdentifier::NamespaceString() const {
  std::string s;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i) s += ".";
    s += ns[i];
  }
  return s;
}

std::string TableIdentifier::ToString() const { return NamespaceString() + "." + name; }

}  // namespace floe::catalog
