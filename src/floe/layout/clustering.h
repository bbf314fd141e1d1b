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

// kOTree (`otree(a, b)`, table property only) is not a row order but a layout of files: the
// writer builds it (iceberg/otree_index.h), ClusterRows refuses it.
enum class ClusterMethod { kZOrder, kHilbert, kOTree };

struct ClusterSpec {
  ClusterMethod method = ClusterMethod::kZOrder;
  std::vector<std::string> columns;  // as written, unquoted
  ZOrderOptions zorder;
  HilbertOptions hilbert;

  std::string ToString() const;  // "zorder(a, b)"
  bool is_otree() const { return method == ClusterMethod::kOTree; }
};

// Whether `text` names a clustering (`zorder(`, `hilbert(` or `otree(`, any case) rather than a
// sort order.
bool IsClusterSpec(std::string_view text);

// "zorder(a, b)", "hilbert(a, b)" or "otree(a, b)": a method and one or more distinct column
// names (plain, or quoted with "" or ``; an OTree 1 to 8). Errors name the text and what is wrong
// with it.
Result<ClusterSpec> ParseClusterSpec(std::string_view text);

// Orders `rows` (indices into the key columns, which are the spec's columns in order) by the
// spec's key; rows with equal keys keep their order. With a pool, keys are computed and sorted on
// it too (the order is the same).
Status ClusterRows(const ClusterSpec& spec, const std::vector<const columnar::Column*>& keys,
                   std::vector<int64_t>* rows, ThreadPool* pool = nullptr);

}  // namespace floe::layout
