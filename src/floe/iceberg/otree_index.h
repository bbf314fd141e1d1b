// OTree index: what a table laid out as an OTree (table property floe.layout = otree(a, b, ...);
// the algorithm is layout/otree.h) keeps beyond plain Iceberg, so that every other engine reads it
// as an ordinary table:
//   - the current revision (each indexed column's transform and span, the cube size) in the table
//     property floe.otree.revision (JSON), which every engine carries along;
//   - each data file's cubes (name, rows, max weight) and the range of its rows' weights in its
//     Parquet key-value metadata (floe.otree.*), where the file goes;
//   - the same for every live file of the table, and the revisions they were written under, in an
//     index: a Puffin file (one blob of type floe-otree-index-v1, JSON; named *-floe-otree-
//     index.stats) registered in the table metadata's "statistics" for the snapshot that wrote it,
//     with no blob listed there -- pyiceberg refuses a table whose statistics list a blob type the
//     spec does not name, and Trino reads the blobs listed as column statistics. Chosen over a
//     snapshot-summary key or
//     a file named in a table property because Iceberg itself tracks statistics files: Spark's
//     expire_snapshots and remove_orphan_files (and floe's) keep it while its snapshot lives and
//     never take it for an orphan, and a REST catalog commits it with the snapshot
//     (set-statistics) in one atomic update.
// Every entry is a fact about an immutable data file, so any index of the table is safe to use:
// a file it does not list (written by another engine, or by a rewrite that kept no index) is
// simply not pruned by cubes, and sampled row by row. Reads take the index of the newest snapshot
// that has one, at or before the snapshot read.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/layout/clustering.h"
#include "floe/layout/otree.h"

namespace floe::iceberg {

inline constexpr std::string_view kOTreeRevisionProperty = "floe.otree.revision";
inline constexpr std::string_view kOTreeRowsPerFileProperty = "floe.otree.target-rows-per-file";
inline constexpr std::string_view kOTreeIndexBlobType = "floe-otree-index-v1";
// The end of an index's file name, which is how the table's statistics entries mark it.
inline constexpr std::string_view kOTreeIndexSuffix = "-floe-otree-index.stats";

// One cube's rows in one data file, and the cube's max weight when the file was written
// (UINT32_MAX: the cube was still open).
struct OTreeFileCube {
  std::string id;
  int64_t rows = 0;
  uint32_t max_weight = UINT32_MAX;
};

// What the index knows of one data file.
struct OTreeFileInfo {
  int64_t revision = 0;
  std::vector<OTreeFileCube> cubes;
  uint32_t min_weight = 0;  // inclusive, of the rows in the file
  uint32_t max_weight = 0;  // inclusive

  // The Parquet key-value metadata that carries it in the file itself.
  std::vector<std::pair<std::string, std::string>> KeyValues() const;
};

// What a writer attaches to each data file it lays out (DataFile::otree).
struct OTreeFileEntry {
  layout::OTreeRevision revision;
  OTreeFileInfo info;
};

struct OTreeTableIndex {
  std::map<int64_t, layout::OTreeRevision> revisions;
  std::map<std::string, OTreeFileInfo> files;  // by data file location

  // The cubes of one revision as writers add to them: rows summed over the files, each cube's
  // max weight the least any file recorded (a cube closes once), its min weight its parent's.
  layout::OTreeIndex Cubes(int64_t revision) const;
  std::string ToJson() const;
  static Result<OTreeTableIndex> FromJson(std::string_view json, const std::string& name);
};

// The table's OTree layout (floe.layout = otree(...), columns resolved), if it has one. An OTree
// on a partitioned table is an error naming the property: the index is the table's partitioning.
Result<std::optional<layout::ClusterSpec>> OTreeLayoutOf(const TableMetadata& m);

// The revision in floe.otree.revision, if the table has one.
Result<std::optional<layout::OTreeRevision>> CurrentOTreeRevision(const TableMetadata& m);

// LoadOTreeIndex, or an empty index (and a warning) when it cannot be read: the index only saves
// work, so a lost one costs pruning, never a read or a write.
OTreeTableIndex LoadOrForget(const FileIO& io, const TableMetadata& m, const Snapshot* snapshot);

// Whether the table's metadata registers an OTree index (no request).
bool HasOTreeIndex(const TableMetadata& m);

// The index a read of `snapshot` (null: the current one) uses: that of the newest snapshot at or
// before it that has one, else the newest there is; empty when the table has none. One cached
// metadata read.
Result<OTreeTableIndex> LoadOTreeIndex(const FileIO& io, const TableMetadata& m,
                                       const Snapshot* snapshot);

// One write's layout as an OTree: the rows of each data file (indices into the write's rows) and
// the entry each file carries.
struct OTreeWritePlan {
  std::vector<std::vector<int64_t>> file_rows;
  std::vector<std::shared_ptr<const OTreeFileEntry>> entries;
};
// Lays out `rows` (the whole write, conformed to the table schema) by the table's OTree `spec`:
// under the current revision, adding to the cubes of the table's index -- or under a new revision
// (spans from these rows, cube size floe.otree.target-rows-per-file, else `rows_per_file()`) when
// the table has none, indexes other columns, the rows fall far outside its spans (spans then
// widened), or `reindex` (floe table optimize: every row of the table is being rewritten). The
// files in `replacing` (those a rewrite of these rows removes) no longer count in the cubes.
Result<OTreeWritePlan> PlanOTreeWrite(const FileIO& io, const TableMetadata& m,
                                      const layout::ClusterSpec& spec,
                                      const columnar::RecordBatch& rows, bool reindex,
                                      const std::vector<std::string>& replacing,
                                      const std::function<Result<int64_t>()>& rows_per_file);

// A write split into tasks (write_plan.h) lays its rows out by a plan fixed beforehand, so that
// each row's cube is a function of the row and the plan alone, whichever task writes it:
//   - the table's side of it, read once on the driver (OTreeWriteBaseOf): the indexed columns, the
//     current revision and the cubes of the table's index under it;
//   - a sample of the write's rows -- those InOTreeSample keeps, by a scatter of their weights, so
//     the sample does not depend on how the rows are split -- with each linear column's extreme
//     rows, so spans come out as the whole write's;
//   - PlanOTreeFromSample: the revision chosen as PlanOTreeWrite chooses it, and the cubes filled
//     on the sample with their room scaled by the sample's fraction, so each closes at about the
//     weight it would close at on the whole write;
//   - LayOutPlannedOTree, in each task: every row to the first planned cube on its path whose max
//     weight it is below (an open cube, or one no sample row reached, takes all that come), then
//     the cubes rolled up into files as PlanOTreeWrite does.
// With a fraction of 1 (the sample is the write) the cubes are exactly PlanOTreeWrite's.
struct OTreeWriteBase {
  std::vector<std::string> columns;
  std::optional<layout::OTreeRevision> current;
  int64_t last_revision_id = 0;
  layout::OTreeIndex cubes;  // of `current`
};
Result<OTreeWriteBase> OTreeWriteBaseOf(const FileIO& io, const TableMetadata& m);
bool InOTreeSample(uint32_t weight, double fraction);

struct PlannedOTree {
  layout::OTreeRevision revision;
  layout::OTreeIndex cubes;  // max weights fixed; rows: estimates for the whole write
};
// `sample`: the samples' rows conformed to the table schema, the extreme rows among them (which
// give the spans, not the fill), in an order that does not depend on the split. `rows_per_file` as
// PlanOTreeWrite's.
Result<PlannedOTree> PlanOTreeFromSample(const TableMetadata& m, const OTreeWriteBase& base,
                                         const columnar::RecordBatch& sample, double fraction,
                                         const std::function<Result<int64_t>()>& rows_per_file);
Result<OTreeWritePlan> LayOutPlannedOTree(const PlannedOTree& planned,
                                          const columnar::RecordBatch& rows);

// In a commit that adds data files with OTree entries (DataFile::otree), or removes files the
// table's index lists: the parent's index without `removed_paths`, with the added files, written
// as a Puffin file under metadata/ (its location appended to `written`) and registered as the
// statistics of `snapshot_id`; the newest revision of the added files becomes
// floe.otree.revision. Nothing happens otherwise (a table without an index costs no request).
Status RecordOTreeIndex(const FileIO& io, TableMetadata& m, const Snapshot* parent,
                        int64_t snapshot_id, int64_t sequence_number,
                        const std::vector<DataFile>& added,
                        const std::vector<std::string>& removed_paths,
                        std::vector<std::string>* written);

// The part of the 31-bit OTree space a filter can match, per indexed dimension: [lo, hi]
// inclusive (the whole span where the filter says nothing of the column).
struct OTreeBox {
  std::vector<uint32_t> lo, hi;
  bool empty = false;
};
// `filter` bound to `schema`; conservative: a row the filter matches lies in the box.
Result<OTreeBox> FilterBox(const layout::OTreeRevision& revision, const ExprPtr& filter,
                           const Schema& schema);
// Whether any cube of the file meets the box (false: the file holds no row the filter matches).
bool FileMeetsBox(const OTreeFileInfo& file, const OTreeBox& box, size_t dimensions);

}  // namespace floe::iceberg
