#include "floe/layout/clustering.h"

#include <algorithm>
#include <cctype>

namespace floe::layout {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string ClusterSpec::ToString() const {
  std::string out = method == ClusterMethod::kZOrder ? "zorder(" : "hilbert(";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += columns[i];
  }
  return out + ")";
}

bool IsClusterSpec(std::string_view text) {
  const std::string l = Lower(Trim(text));
  for (std::string_view m : {"zorder", "hilbert"}) {
    if (l.starts_with(m) && Trim(std::string_view(l).substr(m.size())).starts_with('(')) {
      return true;
    }
  }
  return false;
}

Result<ClusterSpec> ParseClusterSpec(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidInput("layout '{}': {} (expected zorder(col, ...) or hilbert(col, ...))", text,
                        why);
  };
  const std::string_view t = Trim(text);
  const size_t open = t.find('(');
  if (open == std::string_view::npos || !t.ends_with(')')) return bad("no parenthesised columns");
  ClusterSpec spec;
  const std::string method = Lower(Trim(t.substr(0, open)));
  if (method == "zorder") {
    spec.method = ClusterMethod::kZOrder;
  } else if (method == "hilbert") {
    spec.method = ClusterMethod::kHilbert;
  } else {
    return bad(method.empty() ? std::string("no method") : "unknown method '" + method + "'");
  }
  std::string_view rest = t.substr(open + 1, t.size() - open - 2);
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view name = Trim(rest.substr(0, comma));
    if (name.size() >= 2 && ((name.front() == '"' && name.back() == '"') ||
                             (name.front() == '`' && name.back() == '`'))) {
      name = name.substr(1, name.size() - 2);
    }
    if (name.empty()) return bad("an empty column name");
    if (name.find_first_of("()\"`") != std::string_view::npos) {
      return bad("column '" + std::string(name) + "' is not a column name");
    }
    if (std::find(spec.columns.begin(), spec.columns.end(), name) != spec.columns.end()) {
      return bad("column '" + std::string(name) + "' twice");
    }
    spec.columns.emplace_back(name);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (spec.method == ClusterMethod::kHilbert && spec.columns.size() > 16) {
    return bad("hilbert takes at most 16 columns");
  }
  return spec;
}

Status ClusterRows(const ClusterSpec& spec, const std::vector<const columnar::Column*>& keys,
                   std::vector<int64_t>* rows) {
  if (keys.size() != spec.columns.size()) {
    return Internal("clustering {} given {} key columns", spec.ToString(), keys.size());
  }
  for (const columnar::Column* k : keys) {
    for (int64_t r : *rows) {
      if (r < 0 || r >= k->length) {
        return Internal("row {} outside a clustering key of {} rows", r, k->length);
      }
    }
  }
  KeyBytes k;
  if (spec.method == ClusterMethod::kZOrder) {
    FLOE_ASSIGN_OR_RETURN(k, ZOrderKeys(keys, *rows, spec.zorder));
  } else {
    FLOE_ASSIGN_OR_RETURN(k, HilbertKeys(keys, *rows, spec.hilbert));
  }
  SortByKeys(k, rows);
  return {};
}

}  // namespace floe::layout
