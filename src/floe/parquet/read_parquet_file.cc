#include "floe/parquet/read_parquet_file.h"

#include <algorithm>
#include <cstring>

#include "floe/parquet/footer.h"

namespace floe::parquet {

namespace {

std::string Name(io::ObjectStore& store, std::string_view key) {
  return io::JoinKey(store.Uri(), key);
}

}  // namespace

Result<FileReader> OpenParquetFile(io::ObjectStore& store, std::string_view key,
                                   uint64_t file_length, uint64_t tail_bytes, FetchedBytes* tail,
                                   StoreReadStats* stats) {
  const std::string name = Name(store, key);
  if (tail_bytes < kFooterTrailerLength) tail_bytes = kFooterTrailerLength;
  Buffer last;
  if (file_length > 0) {
    const uint64_t n = std::min(tail_bytes, file_length);
    ++stats->requests;
    FLOE_ASSIGN_OR_RETURN(last, store.Get(key, io::Range::Bounded(file_length - n, n)));
  } else {
    ++stats->requests;
    FLOE_ASSIGN_OR_RETURN(last, store.Get(key, io::Range::Suffix(tail_bytes)));
    if (last.size() < tail_bytes) {
      file_length = last.size();  // the whole object came back
    } else {
      ++stats->requests;
      ++stats->heads;
      FLOE_ASSIGN_OR_RETURN(io::ObjectInfo info, store.Head(key));
      file_length = info.size;
    }
  }
  stats->bytes_fetched += static_cast<int64_t>(last.size());
  if (last.size() > file_length) {
    return Corrupt("parquet file '{}': read {} tail bytes of a {}-byte file", name, last.size(),
                   file_length);
  }
  FLOE_ASSIGN_OR_RETURN(auto opened, FileReader::Open(name, file_length, last.view()));
  if (!opened.reader) {
    // One more read for the rest of a long footer, then the two pieces side by side.
    const uint64_t need = opened.tail_length_needed;
    const uint64_t more = need - last.size();
    ++stats->requests;
    FLOE_ASSIGN_OR_RETURN(Buffer front,
                          store.Get(key, io::Range::Bounded(file_length - need, more)));
    stats->bytes_fetched += static_cast<int64_t>(front.size());
    if (front.size() != more) {
      return Corrupt("parquet file '{}': read {} of the {} footer bytes wanted", name, front.size(),
                     more);
    }
    std::vector<uint8_t> joined(need);
    std::memcpy(joined.data(), front.data(), front.size());
    std::memcpy(joined.data() + front.size(), last.data(), last.size());
    last = Buffer(std::move(joined));
    FLOE_ASSIGN_OR_RETURN(opened, FileReader::Open(name, file_length, last.view()));
    if (!opened.reader) {
      return Corrupt("parquet file '{}': the footer needs {} bytes after reading {}", name,
                     opened.tail_length_needed, need);
    }
  }
  if (tail != nullptr) tail->Add(static_cast<int64_t>(file_length - last.size()), last);
  return std::move(*opened.reader);
}

Status FetchRanges(io::ObjectStore& store, std::string_view key,
                   const std::vector<PlannedRange>& ranges, int64_t gap, FetchedBytes* have,
                   StoreReadStats* stats) {
  std::vector<ByteRange> wanted;
  for (const PlannedRange& r : ranges) {
    if (r.range.length > 0 && !have->Covers(r.range)) wanted.push_back(r.range);
  }
  std::vector<ByteRange> merged = CoalesceRanges(std::move(wanted), gap);
  if (merged.empty()) return {};
  std::vector<io::ReadRequest> requests;
  requests.reserve(merged.size());
  for (const ByteRange& r : merged) {
    requests.push_back({std::string(key), io::Range::Bounded(static_cast<uint64_t>(r.offset),
                                                             static_cast<uint64_t>(r.length))});
  }
  auto results = store.ReadAll(std::move(requests));
  for (size_t i = 0; i < results.size(); ++i) {
    ++stats->requests;
    if (!results[i]) return std::unexpected(std::move(results[i]).error());
    stats->bytes_fetched += static_cast<int64_t>(results[i]->size());
    if (static_cast<int64_t>(results[i]->size()) != merged[i].length) {
      // A range past the end comes back short: the file shrank since its footer was read.
      return Corrupt("parquet file '{}': read {} of the {} bytes at offset {}", Name(store, key),
                     results[i]->size(), merged[i].length, merged[i].offset);
    }
    have->Add(merged[i].offset, std::move(*results[i]));
  }
  return {};
}

Result<ParquetFileContents> ReadParquetFile(io::ObjectStore& store, std::string_view key,
                                            uint64_t file_length, const StoreReadOptions& options) {
  ParquetFileContents out;
  FetchedBytes bytes;
  FLOE_ASSIGN_OR_RETURN(FileReader reader, OpenParquetFile(store, key, file_length,
                                                           options.tail_bytes, &bytes, &out.stats));
  FLOE_ASSIGN_OR_RETURN(ReadPlan plan, reader.Plan(options.read));
  if (plan.index_pending) {
    FLOE_RETURN_IF_ERROR(
        FetchRanges(store, key, plan.IndexRanges(), options.coalesce_gap, &bytes, &out.stats));
    FLOE_RETURN_IF_ERROR(reader.ApplyPageIndex(bytes, &plan));
  }
  FLOE_RETURN_IF_ERROR(
      FetchRanges(store, key, plan.DataRanges(), options.coalesce_gap, &bytes, &out.stats));
  FLOE_ASSIGN_OR_RETURN(bool replanned, reader.ReplanIfIndexDisagrees(options.read, bytes, &plan));
  if (replanned) {
    FLOE_RETURN_IF_ERROR(
        FetchRanges(store, key, plan.DataRanges(), options.coalesce_gap, &bytes, &out.stats));
  }
  FLOE_RETURN_IF_ERROR(reader.CheckPageHeaders(bytes, &plan));
  out.schema = plan.schema;
  out.stats.plan = plan.counts;
  FLOE_ASSIGN_OR_RETURN(out.batches, reader.ReadAll(std::move(plan), std::move(bytes)));
  return out;
}

}  // namespace floe::parquet
