// Row selection: which rows of a planned Parquet read are produced. A plan's row groups each carry
// their rows to produce (RowGroupPlan::rows) and the rows every predicate is known to hold for
// (RowGroupPlan::certain); this file holds the operations on them the reader's row filter and a
// caller's row mask need: set algebra on sorted ranges, the rows a filter matched as ranges,
// a plan narrowed to selected rows and fields, a mask of file positions taken out (deletes), the
// positions of the rows a plan produces, and a plan cut into pieces decoded on several threads.
// Pure: plans in, plans out.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "floe/parquet/read_plan.h"

namespace floe::parquet {

// Rows of `a` not in `b` (both sorted and disjoint).
std::vector<RowRange> SubtractRows(const std::vector<RowRange>& a, const std::vector<RowRange>& b);
// Rows in both `a` and `b` (both sorted and disjoint).
std::vector<RowRange> IntersectRows(const std::vector<RowRange>& a, const std::vector<RowRange>& b);

// The rows of a plan's row groups that a filter matched.
struct RowSelection {
  std::vector<std::vector<RowRange>> per_group;  // per plan row group, in plan order
  int64_t planned = 0;                           // rows the plan reads
  int64_t selected = 0;
  int64_t ranges = 0;  // runs of consecutive selected rows
  // CountMatches only: blocks of kMatchBlockRows rows (a row group's rows cut in order), and
  // those holding a selected row -- the share of the plan a narrowed read still decodes.
  int64_t blocks = 0;
  int64_t touched = 0;
};
inline constexpr int64_t kMatchBlockRows = 4096;

// The matching rows of every row group of `plan`: with `trust_certain` its certain ranges whole,
// the other rows from `match` (one byte per row in plan order, certain rows left out when
// `trust_certain`; 1 = matches). nullopt when `match` does not cover those rows exactly.
std::optional<RowSelection> SelectMatches(const ReadPlan& plan, const std::vector<uint8_t>& match,
                                          bool trust_certain);

// SelectMatches's counts (`per_group` left empty) in one pass over `match`, without building the
// ranges: whether narrowing a plan to its matches can pay is known before it is done. `ranges`
// counts a run that a certain range or a row group boundary cuts as two.
std::optional<RowSelection> CountMatches(const ReadPlan& plan, const std::vector<uint8_t>& match,
                                         bool trust_certain);

// One flag per row `plan` reads, in plan order (1 = matches): `match` (as SelectMatches reads it)
// with, when `trust_certain`, the certain rows it leaves out set.
std::vector<uint8_t> MatchFlags(const ReadPlan& plan, std::vector<uint8_t> match,
                                bool trust_certain);

// `plan`'s first `rows` rows (in plan order), each row group's certain ranges cut to them.
ReadPlan HeadOfPlan(const ReadPlan& plan, int64_t rows);

// `plan` producing only `fields` (indexes into plan.fields, ascending), its rows unchanged.
ReadPlan KeepFields(const ReadPlan& plan, const std::vector<size_t>& fields);

// `plan` producing only `fields` (indexes into plan.fields, ascending) and only the rows of
// `selection`, all of them certain to match, in batches of at most `batch_rows`.
ReadPlan NarrowPlan(const ReadPlan& plan, const std::vector<size_t>& fields, RowSelection selection,
                    int64_t batch_rows);

// `plan` without the rows of `excluded` (sorted, disjoint file row positions: row 0 is the first
// row of the file's first row group): row groups left without rows are dropped, and pages of a
// paged chunk holding none of the rows left are neither fetched nor decoded. `row_group_starts`
// gives each row group's first file position (FileRowStarts).
void ExcludeRows(const std::vector<RowRange>& excluded,
                 const std::vector<int64_t>& row_group_starts, ReadPlan* plan);
// The file position of each row group's first row.
std::vector<int64_t> FileRowStarts(const FileMetaData& metadata);

// Cuts a mask (sorted, disjoint) in two: the runs of at least `min_run` rows come back, to leave
// out of a plan (ExcludeRows); the shorter ones stay in `mask`. Passing over a few rows costs the
// decoder more than decoding them, so a scattered mask (merge-on-read's usual deletes) is better
// applied to the decoded batches, by their rows' positions (RowPositions).
std::vector<RowRange> TakeLongRuns(std::vector<RowRange>* mask, int64_t min_run);

// The file positions of the rows a plan produces, batch after batch, in plan order.
class RowPositions {
 public:
  RowPositions(const ReadPlan& plan, const std::vector<int64_t>& row_group_starts);
  // Appends the positions of the next `n` rows to `out`.
  void Next(int64_t n, std::vector<int64_t>* out);
  // Appends the next `n` rows' positions as ranges (in plan order, so ascending).
  void NextRanges(int64_t n, std::vector<RowRange>* out);

 private:
  std::vector<RowRange> runs_;  // file positions, in plan order
  size_t run_ = 0;
  int64_t at_ = 0;  // rows of runs_[run_] already given
};

// `plan` cut into at most `parts` plans to decode on their own threads, in plan order: blocks of
// whole row groups when there are enough of them, else each row group's rows cut into runs (each
// thread then reads the same dictionary page, and passes over the pages before its rows). Pieces
// keep at least `min_rows` rows; a plan not split comes back whole, as the only slice.
std::vector<ReadPlan> SplitPlan(ReadPlan plan, size_t parts, int64_t min_rows = int64_t{32} * 1024);

}  // namespace floe::parquet
