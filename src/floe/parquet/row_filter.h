// RowFilter: exact row filtering inside the Parquet reader, in the spirit of arrow-rs's
// RowFilter. The caller prunes with ReadOptions::predicates (statistics, page index) and gives
// here the exact test of a row; the reader decodes the filter's fields first, finds the matching
// rows (RowSelection), and decodes the other fields only there (late materialisation), or -- when
// that cannot pay -- filters each decoded batch. The caller's evaluator is the only judge of a row.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::parquet {

// A top-level field of a file: by field id when the file carries ids, else by name.
struct FieldKey {
  int32_t field_id = -1;
  std::string name;

  bool Matches(const columnar::Field& f) const {
    return f.field_id >= 0 ? f.field_id == field_id : f.name == name;
  }
};

// One byte per row of `batch`: 1 where the row matches.
using BatchPredicate = std::function<Result<std::vector<uint8_t>>(const columnar::RecordBatch&)>;

struct RowFilter {
  // The fields the filter reads. `evaluate` receives batches holding those of them the file has,
  // in this order, with the file's types (a field the file lacks is absent from the batch).
  std::vector<FieldKey> fields;
  BatchPredicate evaluate;
  // Optional, one per entry of `fields` (or empty): when the filter is the AND of one condition
  // per field, each false on NULL, each field is tested on its own -- a batch of that field alone
  // -- and a flat field's dictionary entries once each rather than every row's value.
  std::vector<BatchPredicate> per_field;
  // The filter is exactly the AND of ReadOptions::predicates: rows the statistics or the page
  // index prove match (RowGroupPlan::certain) are not evaluated, as long as every predicate bound
  // to the file.
  bool predicates_are_filter = false;
  // `evaluate` counts what it sees (equality deletes add the rows they drop to the scan's
  // metrics): each row is evaluated once, so a large plan is not first judged on its first rows.
  bool evaluate_once = false;
  // The fields the output carries (others were read for the filter only); nullopt = all.
  std::optional<std::vector<FieldKey>> output;
};

}  // namespace floe::parquet
