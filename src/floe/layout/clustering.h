// Clustering: a multidimensional row order named the way users write it -- `zorder(a, b)` or
// `hilbert(a, b, c)` -- in the table property `floe.layout` (applied within every write), in
// `floe table rewrite --strategy zorder|hilbert --columns a,b`, and in Spark's
// `rewrite_data_files(strategy => 'sort', sort_order => 'zorder(a,b)')`. The caller resolves the
// names to key columns; this orders rows by them (zorder.h, hilbert.h). Pure functions, thread
// safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/thread_pool.h"
#include "floe/columnar/column.h"
#include "floe/layout/hilbert.h"
#include "floe/layout/zorder.h"

namespace floe::layout {

enum class ClusterMethod { kZOrder, kHilbert };

struct ClusterSpec {
  ClusterMethod method = ClusterMethod::kZOrder;
  std::vector<std::string> columns;  // as written, unquoted
  ZOrderOptions zorder;
  HilbertOptions hilbert;

  std::string ToString() const;  // "zorder(a, b)"
};

// Whether `text` names a clustering (`zorder(` or `hilbert(`, any case) rather than a sort order.
bool IsClusterSpec(std::string_view text);

// "zorder(a, b)" or "hilbert(a, b)": a method and one or more distinct column names (plain, or
// quoted with "" or ``). Errors name the text and what is wrong with it.
Result<ClusterSpec> ParseClusterSpec(std::string_view text);

// Orders `rows` (indices into the key columns, which are the spec's columns in order) by the
// spec's key; rows with equal keys keep their order. With a pool, keys are computed and sorted on
// it too (the order is the same).
Status ClusterRows(const ClusterSpec& spec, const std::vector<const columnar::Column*>& keys,
                   std::vector<int64_t>* rows, ThreadPool* pool = nullptr);

}  // namespace floe::layout
