#include "floe/exec/grace_hash_join.h"

#include <algorithm>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/take.h"
#include "floe/exec/hash_join.h"
#include "floe/exec/key_partition.h"

namespace floe::exec {

namespace {

using columnar::ColumnPtr;
using columnar::RecordBatch;

// Partitions the build side is first split into; more come from splitting again.
constexpr uint32_t kFirstPartitions = 32;
// Splitting a partition again stops here; a partition still too big is joined in chunks.
constexpr int kMaxDepth = 3;
// A build row's share of the hash table beside its values (chain link, map node, bucket).
constexpr int64_t kTableRowBytes = 64;

Result<RecordBatch> Gather(const RecordBatch& b, const std::vector<int64_t>& idx) {
  RecordBatch out;
  out.num_rows = static_cast<int64_t>(idx.size());
  out.columns.resize(b.columns.size());
  for (size_t c = 0; c < b.columns.size(); ++c) {
    if (b.columns[c]) {
      FLOE_ASSIGN_OR_RETURN(out.columns[c], columnar::Take(*b.columns[c], idx));
    }
  }
  return out;
}

// One batch of the rows of `parts` (the same slots present in each).
Result<RecordBatch> ConcatSlots(std::vector<RecordBatch> parts) {
  if (parts.size() == 1) return std::move(parts[0]);
  RecordBatch out;
  out.columns.resize(parts[0].columns.size());
  for (const auto& p : parts) out.num_rows += p.num_rows;
  for (size_t c = 0; c < out.columns.size(); ++c) {
    if (!parts[0].columns[c]) continue;
    std::vector<RecordBatch> one(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
      one[i].num_rows = parts[i].num_rows;
      one[i].columns.push_back(std::move(parts[i].columns[c]));
    }
    FLOE_ASSIGN_OR_RETURN(RecordBatch all, columnar::Concatenate(one));
    out.columns[c] = std::move(all.columns[0]);
  }
  return out;
}

Result<std::vector<ColumnPtr>> EvaluateKeys(const std::vector<ExprPtr>& keys,
                                            const RecordBatch& b) {
  std::vector<ColumnPtr> out;
  for (const auto& k : keys) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*k, b));
    out.push_back(std::move(c));
  }
  return out;
}

bool AnyNull(const std::vector<ColumnPtr>& keys, int64_t r) {
  for (const auto& k : keys) {
    if (k->type.id == columnar::TypeId::kNull || k->IsNull(r)) return true;
  }
  return false;
}

}  // namespace

GraceHashJoin::GraceHashJoin(GraceJoinSpec spec, MemoryBudget* budget, SpillDirectory* dir)
    : spec_(std::move(spec)), budget_(budget), dir_(dir), parts_(kFirstPartitions) {}

int64_t GraceHashJoin::Limit() const {
  return budget_ != nullptr && budget_->limit() > 0 ? budget_->limit() : INT64_MAX / 4;
}

int64_t GraceHashJoin::TableBytes(const SpillFile& build) const {
  return build.bytes() + build.rows() * kTableRowBytes;
}

Status GraceHashJoin::OpenSide(Side* side, uint32_t parts, const char* what) {
  side->files.clear();
  for (uint32_t p = 0; p < parts; ++p) {
    FLOE_ASSIGN_OR_RETURN(auto f, SpillFile::Create(*dir_, what));
    side->files.push_back(std::move(f));
  }
  partitions_made_ += parts;
  return {};
}

Status GraceHashJoin::Partition(const RecordBatch& batch, const std::vector<ExprPtr>& keys,
                                uint64_t seed, Side* side, const char* what) {
  if (batch.num_rows == 0) return {};
  FLOE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> k, EvaluateKeys(keys, batch));
  const bool build = &keys == &spec_.build_keys;
  bool null_key = false;
  if (build && spec_.null_aware) {
    for (int64_t r = 0; r < batch.num_rows && !null_key; ++r) null_key = AnyNull(k, r);
  }
  std::lock_guard lock(mu_);
  if (null_key) build_null_key_ = true;
  if (side->files.empty()) FLOE_RETURN_IF_ERROR(OpenSide(side, parts_, what));
  const auto parts = static_cast<uint32_t>(side->files.size());
  FLOE_ASSIGN_OR_RETURN(std::vector<uint32_t> part, PartitionRows(k, batch.num_rows, seed, parts));
  FLOE_ASSIGN_OR_RETURN(std::vector<RecordBatch> split, SplitRows(batch, part, parts));
  for (uint32_t p = 0; p < parts; ++p) {
    if (split[p].num_rows > 0) FLOE_RETURN_IF_ERROR(side->files[p]->Append(split[p]));
  }
  return {};
}

Status GraceHashJoin::AddBuild(const RecordBatch& batch) {
  return Partition(batch, spec_.build_keys, 0, &build_, "join-build");
}

Status GraceHashJoin::AddProbe(const RecordBatch& batch) {
  return Partition(batch, spec_.probe_keys, 0, &probe_, "join-probe");
}

Status GraceHashJoin::Finish(const Emit& emit) {
  // NOT IN (a set holding NULL) is never true.
  if (spec_.type == JoinType::kAnti && spec_.null_aware && build_null_key_) return {};
  {
    std::lock_guard lock(mu_);
    if (build_.files.empty()) FLOE_RETURN_IF_ERROR(OpenSide(&build_, parts_, "join-build"));
    if (probe_.files.empty()) FLOE_RETURN_IF_ERROR(OpenSide(&probe_, parts_, "join-probe"));
  }
  for (size_t p = 0; p < build_.files.size(); ++p) {
    FLOE_RETURN_IF_ERROR(JoinPartition(*build_.files[p], *probe_.files[p], 0, emit));
    build_.files[p].reset();  // its disk space back
    probe_.files[p].reset();
  }
  return {};
}

Status GraceHashJoin::JoinPartition(SpillFile& build, SpillFile& probe, int depth,
                                    const Emit& emit) {
  const JoinType t = spec_.type;
  if (probe.rows() == 0 && t != JoinType::kFull) return {};
  if (build.rows() == 0 && (t == JoinType::kInner || t == JoinType::kSemi)) return {};
  if (TableBytes(build) <= Limit() || depth >= kMaxDepth || build.rows() <= 1) {
    return JoinChunks(build, probe, emit);
  }
  // Too big for the budget: split both sides again, by another hash.
  const int64_t want = (2 * TableBytes(build) + Limit() - 1) / Limit();
  const auto parts = static_cast<uint32_t>(std::clamp<int64_t>(want, 2, 64));
  Side b2, p2;
  FLOE_RETURN_IF_ERROR(OpenSide(&b2, parts, "join-build"));
  FLOE_RETURN_IF_ERROR(OpenSide(&p2, parts, "join-probe"));
  const uint64_t seed = static_cast<uint64_t>(depth) + 1;
  for (auto [from, to, keys] :
       {std::tuple{&build, &b2, &spec_.build_keys}, std::tuple{&probe, &p2, &spec_.probe_keys}}) {
    FLOE_RETURN_IF_ERROR(from->Rewind());
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(auto b, from->Next(spec_.slot_types));
      if (!b) break;
      FLOE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> k, EvaluateKeys(*keys, *b));
      FLOE_ASSIGN_OR_RETURN(std::vector<uint32_t> part, PartitionRows(k, b->num_rows, seed, parts));
      FLOE_ASSIGN_OR_RETURN(std::vector<RecordBatch> split, SplitRows(*b, part, parts));
      for (uint32_t p = 0; p < parts; ++p) {
        if (split[p].num_rows > 0) FLOE_RETURN_IF_ERROR(to->files[p]->Append(split[p]));
      }
    }
  }
  for (uint32_t p = 0; p < parts; ++p) {
    // A partition the split did not shrink holds one key: no hash will split it.
    const int next = b2.files[p]->rows() == build.rows() ? kMaxDepth : depth + 1;
    FLOE_RETURN_IF_ERROR(JoinPartition(*b2.files[p], *p2.files[p], next, emit));
    b2.files[p].reset();
    p2.files[p].reset();
  }
  return {};
}

// The partition's build rows a budget-sized chunk at a time (one chunk when they fit), each
// probed by every probe row; which probe rows matched is kept across chunks, so outer, semi and
// anti joins settle after the last one.
Status GraceHashJoin::JoinChunks(SpillFile& build, SpillFile& probe, const Emit& emit) {
  const JoinType t = spec_.type;
  const bool pairs_out = t == JoinType::kInner || t == JoinType::kLeft || t == JoinType::kFull ||
                         t == JoinType::kRight;
  const bool keep_build = t == JoinType::kFull || t == JoinType::kRight;
  const bool settle_probe = t != JoinType::kInner && t != JoinType::kRight;
  std::vector<char> probe_matched(settle_probe ? static_cast<size_t>(probe.rows()) : 0, 0);
  const int64_t chunk_limit = std::max<int64_t>(Limit() / 2, int64_t{1} << 20);
  const size_t nslots = spec_.slot_types.size();
  FLOE_RETURN_IF_ERROR(build.Rewind());
  for (bool done = false; !done;) {
    std::vector<RecordBatch> parts;
    int64_t bytes = 0;
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(auto b, build.Next(spec_.slot_types));
      if (!b) {
        done = true;
        break;
      }
      bytes += BatchBytes(*b) + b->num_rows * kTableRowBytes;
      parts.push_back(std::move(*b));
      if (bytes >= chunk_limit) break;
    }
    if (parts.empty()) break;
    FLOE_ASSIGN_OR_RETURN(RecordBatch chunk, ConcatSlots(std::move(parts)));
    MemoryReservation held(budget_);
    held.Set(bytes);
    FLOE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> build_keys, EvaluateKeys(spec_.build_keys, chunk));
    FLOE_ASSIGN_OR_RETURN(JoinHashTable table, JoinHashTable::Build(build_keys, chunk.num_rows));
    std::vector<char> build_matched(keep_build ? static_cast<size_t>(chunk.num_rows) : 0, 0);
    FLOE_RETURN_IF_ERROR(probe.Rewind());
    int64_t offset = 0;
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(auto pb, probe.Next(spec_.slot_types));
      if (!pb) break;
      const RecordBatch& p = *pb;
      FLOE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> keys, EvaluateKeys(spec_.probe_keys, p));
      std::vector<int64_t> pr, br;
      FLOE_RETURN_IF_ERROR(table.Probe(keys, p.num_rows, &pr, &br));
      if (!pr.empty() && (pairs_out || spec_.residual)) {
        RecordBatch out;
        out.num_rows = static_cast<int64_t>(pr.size());
        out.columns.resize(nslots);
        for (size_t i = 0; i < nslots; ++i) {
          if (p.columns[i]) {
            FLOE_ASSIGN_OR_RETURN(out.columns[i], columnar::Take(*p.columns[i], pr));
          } else if (chunk.columns[i]) {
            FLOE_ASSIGN_OR_RETURN(out.columns[i], columnar::Take(*chunk.columns[i], br));
          }
        }
        if (spec_.residual) {
          FLOE_ASSIGN_OR_RETURN(ColumnPtr mask, Evaluate(*spec_.residual, out));
          std::vector<int64_t> keep, kp, kb;
          for (int64_t r = 0; r < out.num_rows; ++r) {
            if (mask->type.id == columnar::TypeId::kBool && mask->IsValid(r) && mask->BoolAt(r)) {
              keep.push_back(r);
              kp.push_back(pr[static_cast<size_t>(r)]);
              kb.push_back(br[static_cast<size_t>(r)]);
            }
          }
          if (static_cast<int64_t>(keep.size()) != out.num_rows) {
            FLOE_ASSIGN_OR_RETURN(out, Gather(out, keep));
            pr = std::move(kp);
            br = std::move(kb);
          }
        }
        if (pairs_out && out.num_rows > 0) FLOE_RETURN_IF_ERROR(emit(std::move(out)));
      }
      if (!probe_matched.empty()) {
        for (int64_t r : pr) probe_matched[static_cast<size_t>(offset + r)] = 1;
      }
      for (int64_t r : br) {
        if (keep_build) build_matched[static_cast<size_t>(r)] = 1;
      }
      offset += p.num_rows;
    }
    if (keep_build) {
      std::vector<int64_t> unmatched;
      for (int64_t r = 0; r < chunk.num_rows; ++r) {
        if (!build_matched[static_cast<size_t>(r)]) unmatched.push_back(r);
      }
      if (!unmatched.empty()) {
        FLOE_ASSIGN_OR_RETURN(RecordBatch out, Gather(chunk, unmatched));
        for (size_t i = 0; i < nslots; ++i) {
          if (spec_.probe_slots[i]) {
            out.columns[i] = columnar::NullColumn(spec_.slot_types[i], out.num_rows);
          }
        }
        FLOE_RETURN_IF_ERROR(emit(std::move(out)));
      }
    }
  }
  if (!settle_probe) return {};
  // The probe rows settled by what matched them: an outer join's unmatched ones NULL-extended,
  // a semi join's matched ones, an anti join's unmatched ones.
  FLOE_RETURN_IF_ERROR(probe.Rewind());
  int64_t offset = 0;
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(auto pb, probe.Next(spec_.slot_types));
    if (!pb) break;
    const RecordBatch& p = *pb;
    std::vector<ColumnPtr> keys;
    if (t == JoinType::kAnti && spec_.null_aware) {
      FLOE_ASSIGN_OR_RETURN(keys, EvaluateKeys(spec_.probe_keys, p));
    }
    std::vector<int64_t> keep;
    for (int64_t r = 0; r < p.num_rows; ++r) {
      const bool matched = probe_matched[static_cast<size_t>(offset + r)] != 0;
      bool take = t == JoinType::kSemi ? matched : !matched;
      // NOT IN: a NULL key is unknown against a non-empty set.
      if (take && !keys.empty() && AnyNull(keys, r)) take = false;
      if (take) keep.push_back(r);
    }
    offset += p.num_rows;
    if (keep.empty()) continue;
    FLOE_ASSIGN_OR_RETURN(RecordBatch out, Gather(p, keep));
    if (pairs_out) {
      for (size_t i = 0; i < nslots; ++i) {
        if (spec_.build_slots[i]) {
          out.columns[i] = columnar::NullColumn(spec_.slot_types[i], out.num_rows);
        }
      }
    }
    FLOE_RETURN_IF_ERROR(emit(std::move(out)));
  }
  return {};
}

}  // namespace floe::exec
