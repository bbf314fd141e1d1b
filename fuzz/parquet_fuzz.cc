// libFuzzer target over Parquet footer, page-index and page decoding: the input is a whole file.
// It is opened from its tail, planned (all columns; then predicates through the page index, whose
// pages are checked against it) and decoded with checksums verified. Any outcome but a crash, a
// sanitizer report or a hang is fine: a bad file must come back as an error. Built with clang by
// scripts/fuzz.sh; the replay driver (replay_main.cc) runs the same function over saved inputs in
// every build and in ctest.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "floe/base/buffer.h"
#include "floe/parquet/column_predicate.h"
#include "floe/parquet/file_reader.h"

namespace {

using namespace floe;
using namespace floe::parquet;

void DecodeAll(const FileReader& reader, const FetchedBytes& bytes, const ReadOptions& options) {
  auto plan = reader.Plan(options);
  if (!plan) return;
  if (plan->index_pending && !reader.ApplyPageIndex(bytes, &*plan)) return;
  if (!reader.ReplanIfIndexDisagrees(options, bytes, &*plan)) return;
  auto batches = reader.Decode(std::move(*plan), bytes);
  if (!batches) return;
  for (int i = 0; i < 1 << 16; ++i) {
    auto batch = batches->Next();
    if (!batch || !*batch) return;
    (void)(*batch)->Validate();
  }
}

// Inputs that declare more than this much decoded data are left alone: decoding them is slow
// by right (a 4 KiB brotli file in the corpus inflates to 2 GiB), and libFuzzer's timeout
// should point at hangs, not at big files.
constexpr int64_t kMaxDeclaredBytes = 64 << 20;

bool DeclaresTooMuch(const FileReader& reader) {
  int64_t total = 0;
  for (const auto& rg : reader.metadata().row_groups) {
    for (const auto& chunk : rg.columns) {
      if (chunk.meta_data) total += std::max<int64_t>(chunk.meta_data->total_uncompressed_size, 0);
    }
  }
  return total > kMaxDeclaredBytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ByteView file(data, size);
  auto opened = FileReader::Open("fuzz.parquet", size, file);
  if (!opened || !opened->reader) return 0;
  const FileReader& reader = *opened->reader;
  if (DeclaresTooMuch(reader)) return 0;
  FetchedBytes bytes;
  bytes.Add(0, Buffer::Copy(file));

  ReadOptions all;
  all.verify_checksums = true;
  all.batch_rows = 1000;
  DecodeAll(reader, bytes, all);

  const auto& fields = reader.arrow_schema().fields;
  if (!fields.empty()) {
    ReadOptions pruned = all;
    pruned.use_page_index = true;
    pruned.limit = 5000;
    pruned.predicates.push_back(ColumnPredicate::IsNotNull(fields[0].name));
    DecodeAll(reader, bytes, pruned);
    // A range on the first integer leaf, without a limit: pages pruned and proven to match.
    for (const ColumnDescriptor& leaf : reader.schema().leaves()) {
      if (leaf.domain != StatsDomain::kSigned || leaf.max_rep > 0) continue;
      ReadOptions range = all;
      range.use_page_index = true;
      range.predicates.push_back(
          ColumnPredicate::Range(leaf.field_path, int64_t{100}, int64_t{200}));
      DecodeAll(reader, bytes, range);
      break;
    }
  }
  return 0;
}
