// WritePlan: a table write split the way a distributed engine runs one (Ray tasks, Spark's
// mapInArrow, processes of one's own) -- a plan on the driver, independent file tasks anywhere,
// one commit on the driver (write_task.h runs the tasks and commits them):
//   - PlanWrite fixes what every data file depends on: the table's schema, partition spec, sort
//     order and write properties as of one metadata version, and a write id that names every file.
//   - An OTree table (floe.layout = otree(...)) also needs the revision and cubes rows go to,
//     fixed before any task writes, so that a row's cube does not depend on which task writes it:
//     each task samples its rows (SampleForPlan), and the driver fixes the layout from the samples
//     (FixPlanLayout; otree_index.h says how).
// A plan is plain data and crosses processes as JSON (ToJson / FromJson); it holds no secret (an
// s3:// table's keys come from each task's environment).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/s3_store.h"

namespace floe::iceberg {

struct WritePlan {
  catalog::TableIdentifier table;
  std::string metadata_location;  // the version planned against
  std::optional<int64_t> base_snapshot_id;
  // That version's metadata without its snapshot history (a task needs none of it).
  TableMetadata metadata;
  std::string write_id;  // a UUID every file of the write is named by
  // How a task reaches an s3:// table location (its keys: the task's environment).
  std::string s3_endpoint;
  std::string s3_region;
  bool s3_path_style = false;
  // An OTree table: the table's side of the layout, the fraction of the rows the tasks sample,
  // and -- once fixed from the samples -- the layout itself.
  std::optional<OTreeWriteBase> otree_base;
  double sample_fraction = 1.0;
  std::optional<PlannedOTree> otree;

  bool NeedsSample() const { return otree_base.has_value() && !otree.has_value(); }
  std::string ToJson() const;
  // `text` of any shape gives a plan or an invalid-input error naming what is wrong.
  static Result<WritePlan> FromJson(std::string_view text);
};

struct PlanWriteOptions {
  io::S3Options s3;  // endpoint, region and path style go into the plan
  // About how many rows the write adds (0: unknown). An OTree plan samples `sample_rows` of
  // them; all of them when unknown.
  int64_t expected_rows = 0;
  int64_t sample_rows = 200000;
};

Result<WritePlan> PlanWrite(catalog::Catalog& catalog, const FileIO& io,
                            const catalog::TableIdentifier& id, const PlanWriteOptions& options);

// In a task: the rows of `batch` (conformed to the plan's schema; an error names a column that
// does not fit) that an OTree plan samples, with every column. Empty for other plans.
Result<columnar::RecordBatch> SampleForPlan(const WritePlan& plan,
                                            const columnar::RecordBatch& batch);

// On the driver: the OTree layout from the tasks' samples (any number, in any order: the layout is
// the same however the rows were split). A plan that needs no sample is left as it is.
Status FixPlanLayout(WritePlan* plan, const std::vector<columnar::RecordBatch>& samples);

// The FileIO a task writes through: a store for the root of the table's location, opened with the
// plan's S3 settings and the environment's keys.
Result<std::shared_ptr<FileIO>> OpenPlanIO(const WritePlan& plan);

}  // namespace floe::iceberg
