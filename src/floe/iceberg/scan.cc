#include "floe/iceberg/scan.h"

#include <cmath>
#include <map>
#include <set>

#include "floe/base/parallel_for.h"
#include "floe/base/thread_pool.h"
#include "floe/iceberg/delete_index.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/otree_index.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/runtime.h"

namespace floe::iceberg {
namespace {

// `l` moved by `delta` in its own integer domain; nullopt for other types or on overflow.
std::optional<Literal> Shifted(const Literal& l, int64_t delta) {
  int64_t v;
  if (const auto* i = std::get_if<int32_t>(&l.storage())) {
    v = *i;
  } else if (const auto* j = std::get_if<int64_t>(&l.storage())) {
    v = *j;
  } else {
    return std::nullopt;
  }
  if (__builtin_add_overflow(v, delta, &v)) return std::nullopt;
  return Literal::OfInteger(l.type(), v);
}

// Whether every row of a partition whose field `pf` holds `value` satisfies the range predicate
// `e` on pf's integer-valued source column, through an order-preserving transform t (day, hour,
// month, year, truncate). t is monotone, so t(x) = value < t(L) implies x < L; likewise
// value > t(L) implies x > L. x <= L is x < L + 1 and x >= L is x > L - 1 (integers).
bool HoldsForWholePartition(const Expr& e, const PartitionField& pf, const Literal& value) {
  if (!pf.transform.PreservesOrder() || value.is_null() || e.literals.size() != 1) return false;
  std::optional<Literal> bound;
  bool below = false;  // the rows must lie below the bound (else above)
  switch (e.op) {
    case Op::kLt:
      bound = e.literals[0];
      below = true;
      break;
    case Op::kLtEq:
      bound = Shifted(e.literals[0], 1);
      below = true;
      break;
    case Op::kGt:
      bound = e.literals[0];
      break;
    case Op::kGtEq:
      bound = Shifted(e.literals[0], -1);
      break;
    default:
      return false;
  }
  if (!bound || !Shifted(*bound, 0)) return false;  // integer-valued sources only
  auto t = pf.transform.Apply(*bound);
  if (!t || t->is_null()) return false;
  const std::partial_ordering c = Compare(value, *t);
  return below ? c == std::partial_ordering::less : c == std::partial_ordering::greater;
}

// The filter with the predicates the file's partition decides left out: those on identity-
// partitioned columns, and ranges that an order-preserving transform's partition value shows
// every row satisfies (a day partition under ts >= that day's midnight).
ExprPtr Residual(const ExprPtr& e, const PartitionSpec& spec,
                 const std::vector<Literal>& partition) {
  switch (e->op) {
    case Op::kAnd:
      return And(Residual(e->children[0], spec, partition),
                 Residual(e->children[1], spec, partition));
    case Op::kOr:
      return Or(Residual(e->children[0], spec, partition),
                Residual(e->children[1], spec, partition));
    case Op::kTrue:
    case Op::kFalse:
    case Op::kNot:
      return e;
    default:
      break;
  }
  for (size_t i = 0; i < spec.fields().size() && i < partition.size(); ++i) {
    const PartitionField& pf = spec.fields()[i];
    if (pf.source_id != e->field_id) continue;
    if (pf.transform.kind == TransformKind::kIdentity) {
      return EvalPredicate(*e, partition[i]) ? True() : False();
    }
    if (HoldsForWholePartition(*e, pf, partition[i])) return True();
  }
  return e;
}

}  // namespace

namespace {

// A location's hash, the same on every machine (FNV-1a, then a 64-bit finaliser).
uint64_t LocationHash(std::string_view location) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char ch : location) {
    h ^= static_cast<uint8_t>(ch);
    h *= 0x100000001b3ULL;
  }
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdULL;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

// What an OTree table's index prunes (otree_index.h), and TABLESAMPLE.
Status PruneByLayout(const FileIO& io, const TableMetadata& m, const Snapshot& snap,
                     const ScanOptions& options, std::vector<ManifestEntry>* entries,
                     ScanPlan* plan) {
  const bool filtered = plan->filter->op != Op::kTrue;
  const std::optional<double> sample = options.sample_fraction;
  if (!filtered && !sample) return {};
  if (sample && !(*sample > 0 && *sample <= 1)) {
    return InvalidInput("a sample of {} of the rows: the fraction must be in (0, 1]", *sample);
  }
  // A layout property that no longer fits the table (set by hand) only costs the pruning.
  std::optional<layout::ClusterSpec> otree;
  if (auto o = OTreeLayoutOf(m); o) otree = *o;
  // The index only saves reads: one that cannot be read costs the pruning, not the query.
  const OTreeTableIndex index = HasOTreeIndex(m) ? LoadOrForget(io, m, &snap) : OTreeTableIndex{};
  constexpr uint64_t kWeights = uint64_t{1} << 32;
  const uint64_t threshold =
      sample ? static_cast<uint64_t>(std::ceil(*sample * static_cast<double>(kWeights))) : kWeights;
  if (sample && otree && threshold < kWeights) {
    plan->weight_sample = ScanPlan::WeightSample{otree->columns, threshold};
  }
  std::map<int64_t, std::optional<OTreeBox>> boxes;  // per revision; none: the filter says nothing
  auto box_of = [&](int64_t revision) -> const std::optional<OTreeBox>* {
    auto it = boxes.find(revision);
    if (it != boxes.end()) return &it->second;
    std::optional<OTreeBox> box;
    auto r = index.revisions.find(revision);
    if (filtered && r != index.revisions.end()) {
      auto b = FilterBox(r->second, plan->filter, m.CurrentSchema());
      if (b) box = std::move(*b);  // else: a revision the schema no longer fits prunes nothing
    }
    return &(boxes[revision] = std::move(box));
  };
  // A file's lightest row says whether it holds any of the sample, if its weights are those of
  // the current layout's columns.
  auto same_columns = [&](int64_t revision) {
    auto r = index.revisions.find(revision);
    if (!otree || r == index.revisions.end() ||
        r->second.dimensions.size() != otree->columns.size()) {
      return false;
    }
    for (size_t k = 0; k < otree->columns.size(); ++k) {
      if (r->second.dimensions[k].column != otree->columns[k]) return false;
    }
    return true;
  };
  std::vector<ManifestEntry> kept;
  kept.reserve(entries->size());
  for (ManifestEntry& e : *entries) {
    auto info = index.files.find(e.file.file_path);
    if (info != index.files.end() && filtered) {
      const std::optional<OTreeBox>* box = box_of(info->second.revision);
      const size_t d = index.revisions.at(info->second.revision).dimensions.size();
      if (*box && !FileMeetsBox(info->second, **box, d)) {
        ++plan->stats.files_skipped_index;
        continue;
      }
    }
    if (sample && threshold < kWeights) {
      bool skip = false;
      if (otree) {
        skip = info != index.files.end() && same_columns(info->second.revision) &&
               info->second.min_weight >= threshold;
      } else {
        // A block sample: whole files, each kept with the sample's probability.
        skip = (LocationHash(e.file.file_path) >> 32) >= threshold;
      }
      if (skip) {
        ++plan->stats.files_skipped_sample;
        continue;
      }
    }
    kept.push_back(std::move(e));
  }
  *entries = std::move(kept);
  return {};
}

}  // namespace

Result<ScanPlan> PlanFiles(const Table& table, const FileIO& io, const ScanOptions& options) {
  const TableMetadata& m = table.metadata;
  const Schema& schema = m.CurrentSchema();
  ScanPlan plan;
  ExprPtr filter = options.filter ? options.filter : True();
  // The rows' filter; the files' adds files_filter.
  FLOE_ASSIGN_OR_RETURN(const ExprPtr rows_filter, Bind(filter, schema));
  plan.filter = rows_filter;
  if (options.files_filter) {
    FLOE_ASSIGN_OR_RETURN(plan.filter, Bind(And(filter, options.files_filter), schema));
  }
  ExprPtr pruning;
  if (options.prune_filter) {
    FLOE_ASSIGN_OR_RETURN(pruning, Bind(options.prune_filter, schema));
    plan.filter = And(plan.filter, pruning);
  }

  const Snapshot* snap = nullptr;
  if (options.snapshot_id) {
    snap = m.SnapshotById(*options.snapshot_id);
    if (snap == nullptr) return NotFound("table has no snapshot {}", *options.snapshot_id);
  } else if (options.as_of_timestamp_ms) {
    FLOE_ASSIGN_OR_RETURN(snap, m.SnapshotAsOf(*options.as_of_timestamp_ms));
  } else {
    snap = m.CurrentSnapshot();
  }
  if (snap == nullptr) return plan;
  plan.snapshot = *snap;

  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, table.Manifests(io, *snap));
  plan.stats.manifests_total = static_cast<int64_t>(manifests.size());

  // Project the filter once per spec, then prune manifests by their partition summaries.
  std::map<int32_t, std::pair<ExprPtr, TypePtr>> per_spec;
  auto projection = [&](int32_t spec_id) -> Result<std::pair<ExprPtr, TypePtr>> {
    if (auto it = per_spec.find(spec_id); it != per_spec.end()) return it->second;
    const PartitionSpec* spec = m.SpecById(spec_id);
    if (spec == nullptr)
      return Corrupt("a manifest uses partition spec {} that the table lacks", spec_id);
    FLOE_ASSIGN_OR_RETURN(TypePtr ptype, spec->PartitionType(schema));
    auto entry = std::make_pair(ProjectInclusive(plan.filter, *spec, schema), ptype);
    per_spec[spec_id] = entry;
    return entry;
  };
  std::vector<const ManifestFile*> to_read;
  for (const auto& mf : manifests) {
    // A manifest that only records deletions lists no live file: nothing to read in it.
    if (mf.added_files_count == 0 && mf.existing_files_count == 0 && mf.deleted_files_count > 0) {
      ++plan.stats.manifests_skipped;
      continue;
    }
    // Delete manifests too: a delete file applies only to data files of its own partition, or to
    // all of them when its spec is unpartitioned (whose summaries match every filter).
    FLOE_ASSIGN_OR_RETURN(auto proj, projection(mf.partition_spec_id));
    if (!SummariesMightMatch(proj.first, *proj.second, mf.partitions)) {
      ++plan.stats.manifests_skipped;
      continue;
    }
    to_read.push_back(&mf);
  }

  // Read the surviving manifests at once.
  std::vector<std::string> locations;
  locations.reserve(to_read.size());
  for (const ManifestFile* mf : to_read) locations.push_back(mf->manifest_path);
  auto bodies = io.ReadMetadataAll(locations, options.max_concurrent_manifest_reads);

  // Decode them on every core: each manifest's entries are judged in place (its index) and only
  // the files the filter keeps, and delete files, are built.
  const ExprPtr rewritten = RewriteNot(plan.filter);
  std::vector<std::pair<ExprPtr, TypePtr>> projections;
  projections.reserve(to_read.size());
  for (const ManifestFile* mf : to_read) {
    FLOE_ASSIGN_OR_RETURN(auto proj, projection(mf->partition_spec_id));
    projections.push_back(std::move(proj));
  }
  struct Read {
    Result<std::vector<ManifestEntry>> entries = std::vector<ManifestEntry>();
    ScanStats stats;
  };
  std::vector<Read> reads(to_read.size());
  ParallelFor(io.runtime().decode_pool(), to_read.size(), [&](size_t i) {
    if (!bodies[i]) return;
    const auto& [partition_expr, partition_type] = projections[i];
    auto index = io.runtime().decoded_metadata().DecodeManifestIndex(*bodies[i], *to_read[i],
                                                                     *partition_type);
    if (!index) {
      reads[i].entries = std::unexpected(index.error());
      return;
    }
    const ManifestIndex& m = **index;
    ScanStats& stats = reads[i].stats;
    std::vector<ManifestEntry>& kept = *reads[i].entries;
    for (size_t e = 0; e < m.size(); ++e) {
      if (m.status(e) == EntryStatus::kDeleted) continue;
      if (m.content(e) == FileContent::kData) {
        ++stats.data_files_total;
        if (!MatchesPartition(partition_expr, *partition_type, m.partition(e))) {
          ++stats.files_skipped_partition;
          continue;
        }
        if (!MetricsMightMatch(rewritten, schema, m.metrics(e))) {
          ++stats.files_skipped_bounds;
          continue;
        }
      } else {
        ++stats.delete_files;
        if (!MatchesPartition(partition_expr, *partition_type, m.partition(e))) {
          ++stats.delete_files_skipped;
          continue;
        }
      }
      auto entry = m.Entry(e);
      if (!entry) {
        reads[i].entries = std::unexpected(entry.error());
        return;
      }
      kept.push_back(std::move(*entry));
    }
  });

  std::vector<ManifestEntry> data_entries;
  DeleteIndex deletes;
  for (size_t i = 0; i < to_read.size(); ++i) {
    const ManifestFile& mf = *to_read[i];
    if (!bodies[i]) {
      Error e = bodies[i].error();
      e.message = "reading manifest '" + mf.manifest_path + "': " + e.message;
      return std::unexpected(e);
    }
    if (!reads[i].entries) return std::unexpected(reads[i].entries.error());
    plan.stats.data_files_total += reads[i].stats.data_files_total;
    plan.stats.files_skipped_partition += reads[i].stats.files_skipped_partition;
    plan.stats.files_skipped_bounds += reads[i].stats.files_skipped_bounds;
    plan.stats.delete_files += reads[i].stats.delete_files;
    plan.stats.delete_files_skipped += reads[i].stats.delete_files_skipped;
    for (ManifestEntry& e : *reads[i].entries) {
      if (e.file.content != FileContent::kData) {
        deletes.Add(e);
      } else {
        data_entries.push_back(std::move(e));
      }
    }
  }
  deletes.Finish();
  FLOE_RETURN_IF_ERROR(PruneByLayout(io, m, *snap, options, &data_entries, &plan));
  std::set<std::string> applied;
  const std::set<std::string> only(options.only_files.begin(), options.only_files.end());
  for (auto& e : data_entries) {
    if (!only.empty() && !only.contains(e.file.file_path)) continue;
    FileScanTask task;
    const PartitionSpec* spec = m.SpecById(e.file.spec_id);
    task.residual = Simplify(spec ? Residual(rows_filter, *spec, e.file.partition) : rows_filter);
    task.pruning = pruning;
    for (size_t i = 0; spec && i < spec->fields().size() && i < e.file.partition.size(); ++i) {
      const PartitionField& pf = spec->fields()[i];
      if (pf.transform.kind == TransformKind::kIdentity && !e.file.partition[i].is_null())
        task.identity_values.emplace(pf.source_id, e.file.partition[i]);
    }
    task.data_sequence_number = e.sequence_number.value_or(0);
    task.deletes = deletes.For(e);
    for (const DataFile& d : task.deletes) applied.insert(DeleteFileKey(d));
    task.file = std::move(e.file);
    plan.tasks.push_back(std::move(task));
  }
  for (DataFile& d : deletes.All()) {
    if (!applied.contains(DeleteFileKey(d))) plan.unapplied_deletes.push_back(std::move(d));
  }
  return plan;
}

}  // namespace floe::iceberg
