#include "floe/layout/clustering.h"

#include <algorithm>
#include <cctype>

#include "floe/base/parallel_for.h"

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
  std::string out = method == ClusterMethod::kZOrder    ? "zorder("
                    : method == ClusterMethod::kHilbert ? "hilbert("
                                                        : "otree(";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += columns[i];
  }
  return out + ")";
}

bool IsClusterSpec(std::string_view text) {
  const std::string l = Lower(Trim(text));
  for (std::string_view m : {"zorder", "hilbert", "otree"}) {
    if (l.starts_with(m) && Trim(std::string_view(l).substr(m.size())).starts_with('(')) {
      return true;
    }
  }
  return false;
}

Result<ClusterSpec> ParseClusterSpec(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidInput(
        "layout '{}': {} (expected zorder(col, ...), hilbert(col, ...) or otree(col, ...))", text,
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
  } else if (method == "otree") {
    spec.method = ClusterMethod::kOTree;
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
  if (spec.method == ClusterMethod::kOTree && spec.columns.size() > 8) {
    return bad("an otree indexes at most 8 columns");
  }
  return spec;
}

Status ClusterRows(const ClusterSpec& spec, const std::vector<const columnar::Column*>& keys,
                   std::vector<int64_t>* rows, ThreadPool* pool) {
  if (spec.is_otree()) {
    return Unsupported(
        "{} is a layout of files, not a row order: it applies on write ({}) and "
        "in floe table optimize",
        spec.ToString(), "floe.layout");
  }
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
  const bool hilbert = spec.method == ClusterMethod::kHilbert && keys.size() >= 2;
  HilbertRanges ranges;
  if (hilbert) {
    FLOE_ASSIGN_OR_RETURN(ranges, SampleRanges(keys, *rows, spec.hilbert));
  }
  ZOrderOptions z = spec.zorder;
  if (spec.method == ClusterMethod::kHilbert) {
    z.var_length_contribution = spec.hilbert.var_length_contribution;
  }
  // The keys of chunks of rows at once on the pool (each row's key depends on that row alone,
  // and on the ranges sampled from all of them), into one array.
  const size_t n = rows->size();
  constexpr size_t kChunk = size_t{1} << 18;
  const size_t chunks = pool != nullptr && pool->size() > 0 ? (n + kChunk - 1) / kChunk : 1;
  std::vector<Result<KeyBytes>> parts(std::max<size_t>(chunks, 1));
  auto one = [&](size_t c) {
    const size_t from = std::min(n, c * kChunk);
    const size_t to = chunks == 1 ? n : std::min(n, from + kChunk);
    const std::vector<int64_t> part(rows->begin() + static_cast<std::ptrdiff_t>(from),
                                    rows->begin() + static_cast<std::ptrdiff_t>(to));
    parts[c] = hilbert ? HilbertKeys(keys, part, ranges) : ZOrderKeys(keys, part, z);
  };
  if (parts.size() == 1) {
    one(0);
  } else {
    ParallelFor(*pool, parts.size(), one);
  }
  KeyBytes all;
  for (Result<KeyBytes>& p : parts) {
    if (!p) return std::unexpected(p.error());
  }
  if (parts.size() == 1) {
    all = std::move(*parts[0]);
  } else {
    all.width = parts[0]->width;
    all.bytes.reserve(n * static_cast<size_t>(all.width));
    for (Result<KeyBytes>& p : parts)
      all.bytes.insert(all.bytes.end(), p->bytes.begin(), p->bytes.end());
  }
  SortByKeys(all, rows);
  return {};
}

}  // namespace floe::layout
