#include "floe/parquet/column_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "floe/parquet/bit_util_internal.h"
#include "floe/parquet/delta_binary_packed.h"
#include "floe/parquet/dictionary_encoder.h"
#include "floe/parquet/metadata_checksum.h"
#include "floe/parquet/page_header.h"
#include "floe/parquet/rle_bit_packed_hybrid.h"

namespace floe::parquet {

namespace {

using columnar::Column;

// Rows appended per step: page size and row limits are checked between steps.
constexpr int64_t kMiniBatch = 1024;

// ---- bitmaps --------------------------------------------------------------------------------

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t n) {
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + n;
  for (; i < end && (i & 7) != 0; ++i) count += columnar::GetBit(bits, i);
  for (; i + 64 <= end; i += 64) {
    uint64_t w;
    std::memcpy(&w, bits + i / 8, 8);
    count += std::popcount(w);
  }
  for (; i + 8 <= end; i += 8) count += std::popcount(static_cast<unsigned>(bits[i / 8]));
  for (; i < end; ++i) count += columnar::GetBit(bits, i);
  return count;
}

// Appends bits [src_offset, src_offset + n) of `src` after the *dst_bits bits of *dst (which
// keeps every bit past *dst_bits zero).
void AppendBits(const uint8_t* src, int64_t src_offset, int64_t n, std::vector<uint8_t>* dst,
                int64_t* dst_bits) {
  dst->resize(static_cast<size_t>(columnar::BitmapBytes(*dst_bits + n)), 0);
  uint8_t* out = dst->data();
  int64_t d = *dst_bits;
  if ((d & 7) == 0 && (src_offset & 7) == 0) {
    std::memcpy(out + d / 8, src + src_offset / 8, static_cast<size_t>(n / 8));
    for (int64_t i = n / 8 * 8; i < n; ++i) {
      if (columnar::GetBit(src, src_offset + i)) columnar::SetBit(out, d + i);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (columnar::GetBit(src, src_offset + i)) columnar::SetBit(out, d + i);
    }
  }
  *dst_bits += n;
}

void AppendOnes(int64_t n, std::vector<uint8_t>* dst, int64_t* dst_bits) {
  dst->resize(static_cast<size_t>(columnar::BitmapBytes(*dst_bits + n)), 0);
  uint8_t* out = dst->data();
  int64_t i = *dst_bits;
  const int64_t end = i + n;
  for (; i < end && (i & 7) != 0; ++i) columnar::SetBit(out, i);
  if (i + 8 <= end) {
    std::memset(out + i / 8, 0xFF, static_cast<size_t>((end - i) / 8));
    i += (end - i) / 8 * 8;
  }
  for (; i < end; ++i) columnar::SetBit(out, i);
  *dst_bits = end;
}

// The RLE / bit-packed hybrid of n values of bit width 1 held in a bitmap (bits past n zero):
// runs of four or more whole bytes of 0x00 or 0xFF become RLE runs, the rest bit-packed groups
// (a bitmap byte is exactly one group of eight 1-bit values).
void EncodeBitmapHybrid(const uint8_t* bits, int64_t n, std::vector<uint8_t>* out) {
  const int64_t full = n / 8;
  const int64_t total = columnar::BitmapBytes(n);
  int64_t literal_start = 0;
  auto flush_literal = [&](int64_t end) {
    if (end <= literal_start) return;
    internal::WriteUleb128(static_cast<uint64_t>(end - literal_start) << 1 | 1, out);
    out->insert(out->end(), bits + literal_start, bits + end);
  };
  int64_t i = 0;
  while (i < full) {
    const uint8_t b = bits[i];
    if (b != 0 && b != 0xFF) {
      ++i;
      continue;
    }
    int64_t j = i + 1;
    while (j < full && bits[j] == b) ++j;
    if (j - i >= 4) {
      flush_literal(i);
      internal::WriteUleb128(static_cast<uint64_t>((j - i) * 8) << 1, out);
      out->push_back(b == 0 ? 0 : 1);
      literal_start = j;
    }
    i = j;
  }
  flush_literal(total);
}

Status CompressInto(const Codec* codec, ByteView input, std::vector<uint8_t>* out) {
  if (codec->codec() == CompressionCodec::kUncompressed) {
    out->assign(input.begin(), input.end());
    return {};
  }
  out->resize(codec->MaxCompressedLength(input.size()));
  FLOE_ASSIGN_OR_RETURN(size_t n, codec->Compress(input, *out));
  out->resize(n);
  return {};
}

// ---- Bloom filter hashes --------------------------------------------------------------------

// Collects a chunk's value hashes until the chunk ends, so the filter can be sized from the
// chunk's own distinct count; past the count that already needs the largest filter it inserts
// straight into one of that size.
class BloomCollector {
 public:
  explicit BloomCollector(const ColumnWriterOptions& o) : options_(o) { Reset(); }

  bool enabled() const { return options_.bloom_filter; }

  void Add(uint64_t hash) {
    if (direct_) {
      direct_->InsertHash(hash);
      return;
    }
    hashes_.push_back(hash);
    if (hashes_.size() >= compact_at_) Compact();
  }

  std::optional<BloomFilter> Finish() {
    if (!enabled()) return std::nullopt;
    if (!direct_) {
      Compact();
      if (!direct_) {
        direct_.emplace(BloomFilter::OptimalNumBytes(static_cast<int64_t>(hashes_.size()),
                                                     options_.bloom_filter_fpp,
                                                     options_.bloom_filter_max_bytes));
        for (uint64_t h : hashes_) direct_->InsertHash(h);
      }
    }
    std::optional<BloomFilter> out = std::move(direct_);
    Reset();
    return out;
  }

 private:
  void Reset() {
    hashes_.clear();
    direct_.reset();
    if (!enabled()) return;
    const int64_t max_bytes = BloomFilter::OptimalNumBytes(
        int64_t{1} << 40, options_.bloom_filter_fpp, options_.bloom_filter_max_bytes);
    if (options_.bloom_filter_ndv) {
      direct_.emplace(BloomFilter::OptimalNumBytes(
          *options_.bloom_filter_ndv, options_.bloom_filter_fpp, options_.bloom_filter_max_bytes));
      return;
    }
    // The distinct count at which the filter reaches its largest size.
    full_ndv_ = 1;
    while (full_ndv_ < (int64_t{1} << 40) &&
           BloomFilter::OptimalNumBytes(full_ndv_ * 2, options_.bloom_filter_fpp,
                                        options_.bloom_filter_max_bytes) < max_bytes) {
      full_ndv_ *= 2;
    }
    full_ndv_ *= 2;
    compact_at_ = static_cast<size_t>(std::max<int64_t>(4096, full_ndv_ * 2));
  }

  void Compact() {
    std::sort(hashes_.begin(), hashes_.end());
    hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
    if (static_cast<int64_t>(hashes_.size()) >= full_ndv_) {
      direct_.emplace(BloomFilter::OptimalNumBytes(static_cast<int64_t>(hashes_.size()),
                                                   options_.bloom_filter_fpp,
                                                   options_.bloom_filter_max_bytes));
      for (uint64_t h : hashes_) direct_->InsertHash(h);
      hashes_.clear();
      hashes_.shrink_to_fit();
    } else {
      compact_at_ = std::max(compact_at_, hashes_.size() * 2);
    }
  }

  const ColumnWriterOptions& options_;
  std::vector<uint64_t> hashes_;
  std::optional<BloomFilter> direct_;
  int64_t full_ndv_ = 0;
  size_t compact_at_ = 4096;
};

// ---- the parts every physical type shares ---------------------------------------------------

class ColumnWriterBase : public ColumnChunkWriter {
 public:
  ColumnWriterBase(const LeafColumn& leaf, const ColumnWriterOptions& options)
      : leaf_(leaf),
        options_(options),
        order_(ValueOrder::For(leaf.element)),
        page_stats_(order_),
        chunk_stats_(order_),
        bloom_(options_) {}

  int64_t buffered_bytes() const override {
    return static_cast<int64_t>(pages_.size()) + EstimatedPageBytes() + DictionaryBytes();
  }

  int64_t measured_bytes() const override {
    const SizeCalibration c = calibration();
    const double page = c.page_ratio > 0 ? c.page_ratio : 1.0;
    const double dict = c.dictionary_ratio > 0 ? c.dictionary_ratio : page;
    // The open page and the dictionary each add a header (the average seen; 24 bytes before).
    const int64_t header = headers_ > 0 ? header_bytes_ / headers_ : 24;
    const int64_t dictionary = DictionaryBytes();
    return static_cast<int64_t>(pages_.size()) +
           (page_rows_ > 0
                ? header + static_cast<int64_t>(static_cast<double>(EstimatedPageBytes()) * page)
                : 0) +
           (dictionary > 0 ? header + static_cast<int64_t>(static_cast<double>(dictionary) * dict)
                           : 0);
  }
  SizeCalibration calibration() const override {
    SizeCalibration c;
    c.page_ratio = page_estimated_ > 0 ? static_cast<double>(page_stored_) / page_estimated_
                                       : options_.page_size_ratio;
    c.dictionary_ratio = dict_estimated_ > 0 ? static_cast<double>(dict_stored_) / dict_estimated_
                                             : options_.dictionary_size_ratio;
    return c;
  }
  bool calibrated() const override { return calibration().page_ratio > 0 && EstimateSettled(); }
  Status ClosePage() override { return FinishPage(); }
  int64_t pages() const override {
    return static_cast<int64_t>(offset_index_.page_locations.size()) + (page_rows_ > 0 ? 1 : 0);
  }

  Result<ColumnChunkResult> Flush(OutputSink* sink) override;

  Status WriteShredded(const ShreddedLeaf& s) override {
    const auto& def = s.definition_levels;
    const auto& rep = s.repetition_levels;
    const int64_t total = static_cast<int64_t>(def.size());
    if (rep.size() != def.size() || (total > 0 && rep[0] != 0)) {
      return Internal("column '{}': shredded levels do not start a row", leaf_.dotted_path());
    }
    const int16_t max_def = leaf_.max_definition_level;
    int64_t done = 0, values_done = 0;
    while (done < total) {
      const int64_t room = options_.page_row_limit - page_rows_;
      if (room <= 0) {
        FLOE_RETURN_IF_ERROR(FinishPage());
        continue;
      }
      // Whole rows only: up to `room` of them, about kMiniBatch level entries, and values of
      // about a page's bytes (so rows of large strings still make pages near the page size).
      int64_t end = done, rows = 0, defined = 0;
      while (end < total && rows < room) {
        int64_t next = end + 1;
        while (next < total && rep[static_cast<size_t>(next)] != 0) ++next;
        int64_t row_defined = 0;
        for (int64_t i = end; i < next; ++i) row_defined += def[static_cast<size_t>(i)] == max_def;
        if (rows > 0 &&
            (next - done > kMiniBatch ||
             (row_defined > 0 && DenseBytes(*s.values, values_done, defined + row_defined) >
                                     options_.page_size_bytes))) {
          break;
        }
        end = next;
        defined += row_defined;
        ++rows;
      }
      page_def_levels_.insert(page_def_levels_.end(), def.begin() + done, def.begin() + end);
      page_rep_levels_.insert(page_rep_levels_.end(), rep.begin() + done, rep.begin() + end);
      const int64_t n = end - done;
      page_rows_ += rows;
      page_values_ += n;
      page_levels_ += n * level_bits_;
      const int64_t nulls = n - defined;
      page_nulls_ += nulls;
      page_stats_.AddNulls(nulls);
      if (defined > 0) {
        if (!s.values || s.values->length < values_done + defined) {
          return Internal("column '{}': shredded values run short", leaf_.dotted_path());
        }
        FLOE_RETURN_IF_ERROR(AppendDense(*s.values, values_done, defined));
      }
      values_done += defined;
      done = end;
      if (PageFull()) FLOE_RETURN_IF_ERROR(FinishPage());
    }
    return {};
  }

 protected:
  // Appends values [offset, offset + n) of `values` (the leaf's type, no nulls) to the open
  // page; their levels are already counted.
  virtual Status AppendDense(const Column& values, int64_t offset, int64_t n) = 0;
  // PLAIN bytes of values [offset, offset + n) of `values` when they vary in size, else 0.
  virtual int64_t DenseBytes(const Column& values, int64_t offset, int64_t n) const { return 0; }

  // -- what each physical type provides --
  // Encoded bytes of the open page's values, roughly.
  virtual int64_t EstimatedValueBytes() const = 0;
  // PLAIN bytes of the dictionary that pages of this chunk use (0 when none).
  virtual int64_t DictionaryBytes() const = 0;
  // Last look at the open page before it is encoded (bounds, the dictionary decision).
  virtual Status BeforeEncodePage() { return {}; }
  // Appends the open page's values section; returns its encoding and resets the page's values.
  virtual Result<Encoding> EncodePageValues(std::vector<uint8_t>* out) = 0;
  // The PLAIN dictionary page body and its entry count; only when a page used the dictionary.
  virtual int32_t WriteDictionary(std::vector<uint8_t>* out) { return 0; }
  // Forget the chunk's dictionary and encoding state for the next row group.
  virtual void ResetChunk() = 0;
  // Whether the open page's estimate is in the same terms as finished pages' were (false while a
  // dictionary column has not yet decided whether its first page stays dictionary-encoded).
  virtual bool EstimateSettled() const { return true; }

  int64_t EstimatedPageBytes() const { return page_levels_ / 8 + EstimatedValueBytes(); }

  // Appends rows [offset, offset + n)'s definition levels to the open page and counts its nulls;
  // returns the null count.
  int64_t AppendLevels(const Column& column, int64_t offset, int64_t n) {
    page_rows_ += n;
    page_values_ += n;
    if (leaf_.max_definition_level == 0) return 0;
    int64_t nulls = 0;
    if (column.null_count == 0 || column.validity.empty()) {
      AppendOnes(n, &page_def_bits_, &page_levels_);
    } else {
      AppendBits(column.validity.data(), offset, n, &page_def_bits_, &page_levels_);
      nulls = n - CountSetBits(column.validity.data(), offset, n);
    }
    page_nulls_ += nulls;
    page_stats_.AddNulls(nulls);
    return nulls;
  }

  int64_t page_rows() const { return page_rows_; }

  bool PageFull() const {
    return page_rows_ >= options_.page_row_limit ||
           EstimatedPageBytes() >= options_.page_size_bytes;
  }

  Status FinishPage();

  LeafColumn leaf_;
  ColumnWriterOptions options_;
  ValueOrder order_;
  StatisticsBuilder page_stats_;
  StatisticsBuilder chunk_stats_;
  BloomCollector bloom_;
  bool used_dictionary_pages_ = false;

 private:
  // Appends the hybrid encoding of `levels` for a maximum level of `max_level`.
  static void EncodeLevels(const std::vector<int16_t>& levels, int16_t max_level,
                           std::vector<uint8_t>* out) {
    RleBitPackedHybridEncoder encoder(internal::BitWidth(static_cast<uint64_t>(max_level)));
    encoder.Put(std::span<const int16_t>(levels));
    encoder.Flush(out);
  }
  // Appends the open page's repetition levels (nested leaves with any), then its definition
  // levels, each behind a 4-byte length when `length_prefix` (v1 pages).
  void AppendPageLevels(bool length_prefix, std::vector<uint8_t>* out, size_t* rep_bytes,
                        size_t* def_bytes) const {
    auto section = [&](auto&& encode) {
      const size_t at = out->size();
      if (length_prefix) out->resize(at + 4);
      encode();
      const size_t len = out->size() - at - (length_prefix ? 4 : 0);
      if (length_prefix) {
        const auto l = static_cast<uint32_t>(len);
        std::memcpy(out->data() + at, &l, 4);
      }
      return len;
    };
    *rep_bytes = *def_bytes = 0;
    if (leaf_.max_repetition_level > 0) {
      *rep_bytes =
          section([&] { EncodeLevels(page_rep_levels_, leaf_.max_repetition_level, out); });
    }
    if (leaf_.max_definition_level > 0) {
      *def_bytes = section([&] {
        if (leaf_.nested()) {
          EncodeLevels(page_def_levels_, leaf_.max_definition_level, out);
        } else {
          EncodeBitmapHybrid(page_def_bits_.data(), page_levels_, out);
        }
      });
    }
  }

  // Open page.
  std::vector<uint8_t> page_def_bits_;  // flat leaves: definition levels as a bitmap
  // Nested leaves: the levels themselves.
  std::vector<int16_t> page_def_levels_, page_rep_levels_;
  // Flat: definition levels appended (0 for a required column); nested: their bits, roughly.
  int64_t page_levels_ = 0;
  const int64_t level_bits_ =
      internal::BitWidth(static_cast<uint64_t>(leaf_.max_definition_level)) +
      internal::BitWidth(static_cast<uint64_t>(leaf_.max_repetition_level));
  int64_t page_rows_ = 0;
  int64_t page_values_ = 0;  // level entries (= rows for a flat leaf)
  int64_t chunk_values_ = 0;
  int64_t page_nulls_ = 0;
  // Finished pages of the open chunk.
  std::vector<uint8_t> pages_;
  OffsetIndex offset_index_;  // offsets relative to the first data page until Flush
  ColumnIndex column_index_;
  bool column_index_valid_ = true;
  int64_t chunk_rows_ = 0;
  int64_t data_uncompressed_ = 0;  // data page headers + uncompressed page bytes
  // Over the writer's life: finished pages' estimates (when open) and their bytes as written.
  int64_t page_estimated_ = 0, page_stored_ = 0;  // bodies
  int64_t dict_estimated_ = 0, dict_stored_ = 0;
  int64_t header_bytes_ = 0, headers_ = 0;
  std::vector<PageEncodingStats> encoding_stats_;
  // Scratch.
  std::vector<uint8_t> levels_, values_, body_, stored_;
};

Status ColumnWriterBase::FinishPage() {
  if (page_rows_ == 0) return {};
  // A page sized while its estimate was unsettled (a first page that may yet go PLAIN) says
  // nothing of how later estimates relate to written bytes: it is left out of the ratio.
  const int64_t estimated = EstimateSettled() ? EstimatedPageBytes() : -1;
  FLOE_RETURN_IF_ERROR(BeforeEncodePage());
  const bool v2 = options_.page_version == DataPageVersion::kV2;

  PageHeader header;
  int64_t uncompressed = 0;
  Encoding encoding = Encoding::kPlain;
  if (!v2) {
    // One buffer: length-prefixed levels, then the values, compressed together.
    body_.clear();
    size_t rep_bytes = 0, def_bytes = 0;
    AppendPageLevels(true, &body_, &rep_bytes, &def_bytes);
    FLOE_ASSIGN_OR_RETURN(encoding, EncodePageValues(&body_));
    uncompressed = static_cast<int64_t>(body_.size());
    FLOE_RETURN_IF_ERROR(CompressInto(options_.codec, body_, &stored_));
    header.type = PageType::kDataPage;
    DataPageHeader dp;
    dp.num_values = static_cast<int32_t>(page_values_);
    dp.encoding = encoding;
    dp.definition_level_encoding = Encoding::kRle;
    dp.repetition_level_encoding = Encoding::kRle;
    if (options_.write_page_header_statistics) {
      dp.statistics = page_stats_.ToStatistics(options_.statistics_truncate_length);
    }
    header.data_page_header = dp;
  } else {
    // Levels stay uncompressed in front of the (compressed) values.
    levels_.clear();
    size_t rep_bytes = 0, def_bytes = 0;
    AppendPageLevels(false, &levels_, &rep_bytes, &def_bytes);
    values_.clear();
    FLOE_ASSIGN_OR_RETURN(encoding, EncodePageValues(&values_));
    body_.clear();
    FLOE_RETURN_IF_ERROR(CompressInto(options_.codec, values_, &body_));
    stored_.assign(levels_.begin(), levels_.end());
    stored_.insert(stored_.end(), body_.begin(), body_.end());
    uncompressed = static_cast<int64_t>(levels_.size() + values_.size());
    header.type = PageType::kDataPageV2;
    DataPageHeaderV2 dp;
    dp.num_values = static_cast<int32_t>(page_values_);
    dp.num_nulls = static_cast<int32_t>(page_nulls_);
    dp.num_rows = static_cast<int32_t>(page_rows_);
    dp.encoding = encoding;
    dp.definition_levels_byte_length = static_cast<int32_t>(def_bytes);
    dp.repetition_levels_byte_length = static_cast<int32_t>(rep_bytes);
    dp.is_compressed = options_.codec->codec() != CompressionCodec::kUncompressed;
    if (options_.write_page_header_statistics) {
      dp.statistics = page_stats_.ToStatistics(options_.statistics_truncate_length);
    }
    header.data_page_header_v2 = dp;
  }
  if (encoding == Encoding::kRleDictionary) used_dictionary_pages_ = true;
  if (uncompressed > INT32_MAX || static_cast<int64_t>(stored_.size()) > INT32_MAX) {
    return InvalidInput("column '{}': a page of {} bytes passes Parquet's 2 GiB page limit",
                        leaf_.dotted_path(), uncompressed);
  }
  header.uncompressed_page_size = static_cast<int32_t>(uncompressed);
  header.compressed_page_size = static_cast<int32_t>(stored_.size());
  if (options_.write_page_checksums) header.crc = static_cast<int32_t>(Crc32(stored_));
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> header_bytes, SerializePageHeader(header));

  PageLocation location;
  location.offset = static_cast<int64_t>(pages_.size());
  location.compressed_page_size = static_cast<int32_t>(header_bytes.size() + stored_.size());
  location.first_row_index = chunk_rows_;
  offset_index_.page_locations.push_back(location);
  pages_.insert(pages_.end(), header_bytes.begin(), header_bytes.end());
  pages_.insert(pages_.end(), stored_.begin(), stored_.end());
  data_uncompressed_ += static_cast<int64_t>(header_bytes.size()) + uncompressed;
  // Headers are a fixed cost per page: the ratio relates bodies only.
  header_bytes_ += static_cast<int64_t>(header_bytes.size());
  ++headers_;
  if (estimated >= 0) {
    page_estimated_ += std::max<int64_t>(estimated, 1);
    page_stored_ += static_cast<int64_t>(stored_.size());
  }

  const PageType page_type = header.type;
  auto it = std::find_if(encoding_stats_.begin(), encoding_stats_.end(), [&](const auto& s) {
    return s.page_type == page_type && s.encoding == encoding;
  });
  if (it == encoding_stats_.end()) {
    encoding_stats_.push_back({page_type, encoding, 1});
  } else {
    ++it->count;
  }

  // The page's column index entry.
  const bool null_page = page_stats_.non_null_count() == 0;
  column_index_.null_pages.push_back(null_page);
  std::string min, max;
  if (!null_page) {
    if (!page_stats_.has_min_max()) {
      // All NaN: TYPE_ORDER has no bounds for it, and the spec then forbids the column index.
      column_index_valid_ = false;
    } else {
      min = page_stats_.EncodeMin();
      max = page_stats_.EncodeMax();
      const int32_t limit = options_.column_index_truncate_length;
      if (order_.type == PhysicalType::kByteArray && limit > 0) {
        min = TruncateLowerBound(min, static_cast<size_t>(limit), order_.utf8);
        // No incrementable prefix: the page keeps its exact (long) max.
        if (auto upper = TruncateUpperBound(max, static_cast<size_t>(limit), order_.utf8)) {
          max = std::move(*upper);
        }
      }
    }
  }
  column_index_.min_values.push_back(std::move(min));
  column_index_.max_values.push_back(std::move(max));
  if (!column_index_.null_counts) column_index_.null_counts.emplace();
  column_index_.null_counts->push_back(page_nulls_);
  if (order_.kind == ValueOrder::Kind::kFloat) {
    if (!column_index_.nan_counts) column_index_.nan_counts.emplace();
    column_index_.nan_counts->push_back(page_stats_.nan_count());
  }

  chunk_stats_.Merge(page_stats_);
  page_stats_.Reset();
  chunk_rows_ += page_rows_;
  chunk_values_ += page_values_;
  page_rows_ = 0;
  page_values_ = 0;
  page_nulls_ = 0;
  page_levels_ = 0;
  page_def_bits_.clear();
  page_def_levels_.clear();
  page_rep_levels_.clear();
  return {};
}

Result<ColumnChunkResult> ColumnWriterBase::Flush(OutputSink* sink) {
  FLOE_RETURN_IF_ERROR(FinishPage());
  const int64_t start = sink->position();
  ColumnMetaData md;
  md.type = leaf_.physical_type();
  md.path_in_schema = leaf_.path;
  md.codec = options_.codec->codec();
  md.num_values = chunk_values_;

  int64_t dictionary_total = 0, dictionary_uncompressed = 0;
  std::vector<Encoding> encodings;
  auto add_encoding = [&](Encoding e) {
    if (std::find(encodings.begin(), encodings.end(), e) == encodings.end()) encodings.push_back(e);
  };
  std::vector<PageEncodingStats> stats;
  if (used_dictionary_pages_) {
    dict_estimated_ += std::max<int64_t>(DictionaryBytes(), 1);
    body_.clear();
    const int32_t entries = WriteDictionary(&body_);
    FLOE_RETURN_IF_ERROR(CompressInto(options_.codec, body_, &stored_));
    if (body_.size() > INT32_MAX) {
      return InvalidInput("column '{}': dictionary page of {} bytes passes 2 GiB",
                          leaf_.dotted_path(), body_.size());
    }
    PageHeader header;
    header.type = PageType::kDictionaryPage;
    header.uncompressed_page_size = static_cast<int32_t>(body_.size());
    header.compressed_page_size = static_cast<int32_t>(stored_.size());
    if (options_.write_page_checksums) header.crc = static_cast<int32_t>(Crc32(stored_));
    DictionaryPageHeader dh;
    dh.num_values = entries;
    dh.encoding = Encoding::kPlain;
    header.dictionary_page_header = dh;
    FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> header_bytes, SerializePageHeader(header));
    FLOE_RETURN_IF_ERROR(sink->Write(header_bytes));
    FLOE_RETURN_IF_ERROR(sink->Write(stored_));
    dictionary_total = static_cast<int64_t>(header_bytes.size() + stored_.size());
    dict_stored_ += static_cast<int64_t>(stored_.size());
    dictionary_uncompressed = static_cast<int64_t>(header_bytes.size() + body_.size());
    md.dictionary_page_offset = start;
    add_encoding(Encoding::kPlain);
    stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
  }
  const int64_t data_start = start + dictionary_total;
  FLOE_RETURN_IF_ERROR(sink->Write(pages_));
  add_encoding(Encoding::kRle);  // levels (and the page headers' level encodings)
  for (const auto& s : encoding_stats_) {
    add_encoding(s.encoding);
    stats.push_back(s);
  }
  std::sort(encodings.begin(), encodings.end());
  md.encodings = std::move(encodings);
  md.encoding_stats = std::move(stats);
  md.data_page_offset = data_start;
  md.total_compressed_size = dictionary_total + static_cast<int64_t>(pages_.size());
  md.total_uncompressed_size = dictionary_uncompressed + data_uncompressed_;
  md.statistics = chunk_stats_.ToStatistics(options_.statistics_truncate_length);

  ColumnChunkResult result{.chunk = {},
                           .column_index = std::nullopt,
                           .offset_index = std::nullopt,
                           .bloom_filter = bloom_.Finish(),
                           .statistics = chunk_stats_};
  result.chunk.file_offset = start;
  result.chunk.meta_data = std::move(md);
  if (options_.write_page_index) {
    for (auto& loc : offset_index_.page_locations) loc.offset += data_start;
    result.offset_index = std::move(offset_index_);
    if (column_index_valid_) {
      column_index_.boundary_order = ComputeBoundaryOrder(
          order_, column_index_.null_pages, column_index_.min_values, column_index_.max_values);
      result.column_index = std::move(column_index_);
    }
  }

  // The next chunk starts from nothing.
  offset_index_ = {};
  column_index_ = {};
  column_index_valid_ = true;
  pages_.clear();
  encoding_stats_.clear();
  chunk_rows_ = 0;
  chunk_values_ = 0;
  data_uncompressed_ = 0;
  used_dictionary_pages_ = false;
  chunk_stats_.Reset();
  ResetChunk();
  return result;
}

// ---- values ---------------------------------------------------------------------------------

template <typename T>
struct DictionaryOf {
  using type = NumericDictionary<T>;
};
template <>
struct DictionaryOf<std::string_view> {
  using type = BytesDictionary;
};

template <typename T>
bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

// INT32, INT64, FLOAT, DOUBLE (T = int32_t, int64_t, float, double) and BYTE_ARRAY /
// FIXED_LEN_BYTE_ARRAY (T = std::string_view).
template <typename T>
class ValueColumnWriter final : public ColumnWriterBase {
  static constexpr bool kBytes = std::is_same_v<T, std::string_view>;
  static constexpr bool kInteger = std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

 public:
  ValueColumnWriter(const LeafColumn& leaf, const ColumnWriterOptions& options)
      : ColumnWriterBase(leaf, options), dict_(MakeDictionary(leaf)) {
    dict_mode_ = options.enable_dictionary;
  }

  Status WriteFlat(const Column& column, int64_t offset, int64_t length) override {
    int64_t done = 0;
    while (done < length) {
      const int64_t room = options_.page_row_limit - page_rows();
      if (room <= 0) {
        FLOE_RETURN_IF_ERROR(FinishPage());
        continue;
      }
      int64_t n = std::min({length - done, room, kMiniBatch});
      if constexpr (kBytes) n = FitPage(column, offset + done, n);
      AppendLevels(column, offset + done, n);
      FLOE_RETURN_IF_ERROR(AppendValues(column, offset + done, n));
      done += n;
      if (PageFull()) FLOE_RETURN_IF_ERROR(FinishPage());
    }
    return {};
  }

 protected:
  Status AppendDense(const Column& values, int64_t offset, int64_t n) override {
    return AppendValues(values, offset, n);
  }
  int64_t DenseBytes(const Column& values, int64_t offset, int64_t n) const override {
    if (leaf_.conversion != ValueConversion::kByteArray || offset + n > values.length) return 0;
    return values.Offsets()[offset + n] - values.Offsets()[offset] + 4 * n;
  }

  // The non-null values of rows [offset, offset + n) of `column` into the open page (which may
  // end here when the dictionary grows past its limit: a row boundary either way).
  Status AppendValues(const Column& column, int64_t offset, int64_t n) {
    bool by_codes = false;
    if constexpr (kBytes) {
      by_codes = dict_mode_ && leaf_.conversion == ValueConversion::kByteArray &&
                 !bloom_.enabled() && column.dictionary != nullptr &&
                 column.codes.size() >= static_cast<size_t>(column.length) * 4;
    }
    if (by_codes) {
      FLOE_RETURN_IF_ERROR(AppendCodes(column, offset, n));
    } else {
      FLOE_ASSIGN_OR_RETURN(std::span<const T> values, Gather(column, offset, n));
      if (dict_mode_) {
        AppendDictionaryIndices(values);
      } else {
        AppendPlain(values);
      }
    }
    if (dict_mode_) {
      if (dict_.plain_size() > options_.dictionary_size_limit) {
        FLOE_RETURN_IF_ERROR(FinishPage());
        dict_mode_ = false;  // the pages so far keep the dictionary; the rest do without
      }
    }
    return {};
  }

  // Byte arrays decoded from dictionary pages (Column::dictionary and codes): each input entry is
  // looked up in the chunk's dictionary once, on first use, and the rows then map by their codes
  // -- the same indices in the same order as inserting every row's bytes, without hashing them.
  Status AppendCodes(const Column& column, int64_t offset, int64_t n) {
    if constexpr (!kBytes) {
      return Internal("column '{}': dictionary codes on a {} column", leaf_.dotted_path(),
                      column.type.ToString());
    } else {
      const Column& entries = *column.dictionary;
      if (remap_source_ != column.dictionary) {
        remap_source_ = column.dictionary;
        remap_.assign(static_cast<size_t>(entries.length), -1);
      }
      const auto* codes = reinterpret_cast<const int32_t*>(column.codes.data());
      const uint8_t* valid =
          column.null_count > 0 && !column.validity.empty() ? column.validity.data() : nullptr;
      // Room for every entry this call may add.
      const size_t most = static_cast<size_t>(dict_.size()) + remap_.size();
      if (seen_.size() < most) seen_.resize(most * 2, 0);
      int64_t plain = 0;
      for (int64_t r = offset; r < offset + n; ++r) {
        if (valid != nullptr && !columnar::GetBit(valid, r)) continue;
        const int32_t code = codes[r];
        if (code < 0 || static_cast<size_t>(code) >= remap_.size()) {
          return Internal("column '{}': dictionary code {} past its {} entries",
                          leaf_.dotted_path(), code, remap_.size());
        }
        int32_t& index = remap_[static_cast<size_t>(code)];
        const std::string_view v = entries.BytesAt(code);
        if (index < 0) {
          added_.clear();
          dict_.Insert(std::span<const std::string_view>(&v, 1), &index, &added_);
        }
        page_indices_.push_back(index);
        if (!seen_[static_cast<size_t>(index)]) {
          seen_[static_cast<size_t>(index)] = 1;
          seen_list_.push_back(index);
        }
        plain += static_cast<int64_t>(v.size()) + 4;
      }
      page_plain_size_ += plain;
      return {};
    }
  }

  int64_t EstimatedValueBytes() const override {
    if (dict_mode_) {
      if (page_indices_.empty()) return 0;
      const int width = internal::BitWidth(static_cast<uint64_t>(std::max(dict_.size(), 1)));
      const int64_t indices = static_cast<int64_t>(page_indices_.size()) * width / 8 + 1;
      // Until rule 2 has decided, the first page may still become PLAIN: size it as such.
      return dictionary_decided_ ? indices : std::max(indices, page_plain_size_);
    }
    if constexpr (kBytes) {
      return static_cast<int64_t>(page_plain_.size());
    } else {
      return static_cast<int64_t>(page_values_.size() * sizeof(T));
    }
  }

  int64_t DictionaryBytes() const override {
    return dict_mode_ || used_dictionary_pages_ ? dict_.plain_size() : 0;
  }

  bool EstimateSettled() const override { return !dict_mode_ || dictionary_decided_; }

  Status BeforeEncodePage() override {
    if (!dict_mode_) return {};
    if constexpr (kBytes) {
      // Bounds once per distinct value of the page rather than once per row.
      for (int32_t i : seen_list_) {
        page_stats_.Update(dict_.value(i));
        seen_[static_cast<size_t>(i)] = 0;
      }
      page_stats_.AddCounted(static_cast<int64_t>(page_indices_.size() - seen_list_.size()));
      seen_list_.clear();
    }
    if (!dictionary_decided_) {
      // Rule 2: keep the dictionary only if it pays for itself on the first page.
      dictionary_decided_ = true;
      if (EstimatedValueBytes() + dict_.plain_size() >= page_plain_size_) {
        dict_mode_ = false;
        for (int32_t i : page_indices_) AppendPlainValue(dict_.value(i));
        page_indices_.clear();
        dict_.Reset();
        remap_source_.reset();
      }
    }
    return {};
  }

  Result<Encoding> EncodePageValues(std::vector<uint8_t>* out) override {
    page_plain_size_ = 0;
    if (dict_mode_) {
      EncodeDictionaryIndices(page_indices_, out);
      page_indices_.clear();
      return Encoding::kRleDictionary;
    }
    if constexpr (kBytes) {
      out->insert(out->end(), page_plain_.begin(), page_plain_.end());
      page_plain_.clear();
      return Encoding::kPlain;
    } else {
      Encoding encoding = Encoding::kPlain;
      const size_t plain_bytes = page_values_.size() * sizeof(T);
      if constexpr (kInteger) {
        if (options_.delta_binary_packed_for_integers && !page_values_.empty()) {
          DeltaBinaryPackedEncoder delta(std::is_same_v<T, int32_t> ? PhysicalType::kInt32
                                                                    : PhysicalType::kInt64);
          FLOE_RETURN_IF_ERROR(delta.Put(std::span<const T>(page_values_)));
          const size_t at = out->size();
          FLOE_RETURN_IF_ERROR(delta.Flush(out));
          if (out->size() - at < plain_bytes) {
            page_values_.clear();
            return Encoding::kDeltaBinaryPacked;
          }
          out->resize(at);
        }
      }
      const auto* bytes = reinterpret_cast<const uint8_t*>(page_values_.data());
      out->insert(out->end(), bytes, bytes + plain_bytes);
      page_values_.clear();
      return encoding;
    }
  }

  int32_t WriteDictionary(std::vector<uint8_t>* out) override {
    dict_.WritePlain(out);
    return dict_.size();
  }

  void ResetChunk() override {
    dict_.Reset();
    remap_source_.reset();
    dict_mode_ = options_.enable_dictionary;
    dictionary_decided_ = false;
    seen_.clear();
    seen_list_.clear();
  }

 private:
  using Dictionary = typename DictionaryOf<T>::type;

  static Dictionary MakeDictionary(const LeafColumn& leaf) {
    if constexpr (kBytes) {
      return BytesDictionary(
          leaf.physical_type() == PhysicalType::kFixedLenByteArray ? leaf.type_length() : 0);
    } else {
      return NumericDictionary<T>();
    }
  }

  void AppendPlainValue(T v) {
    if constexpr (kBytes) {
      if (!fixed_) {
        uint32_t len = static_cast<uint32_t>(v.size());
        const auto* l = reinterpret_cast<const uint8_t*>(&len);
        page_plain_.insert(page_plain_.end(), l, l + 4);
      }
      page_plain_.insert(page_plain_.end(), v.begin(), v.end());
    } else {
      page_values_.push_back(v);
    }
  }

  void AppendDictionaryIndices(std::span<const T> values) {
    const size_t at = page_indices_.size();
    page_indices_.resize(at + values.size());
    added_.clear();
    dict_.Insert(values, page_indices_.data() + at, &added_);
    if (bloom_.enabled()) {
      for (int32_t i : added_) bloom_.Add(BloomFilter::Hash(dict_.value(i)));
    }
    if constexpr (kBytes) {
      if (seen_.size() < static_cast<size_t>(dict_.size())) {
        seen_.resize(static_cast<size_t>(dict_.size()) * 2, 0);
      }
      int64_t plain = 0;
      for (size_t k = 0; k < values.size(); ++k) {
        const int32_t i = page_indices_[at + k];
        if (!seen_[static_cast<size_t>(i)]) {
          seen_[static_cast<size_t>(i)] = 1;
          seen_list_.push_back(i);
        }
        plain += static_cast<int64_t>(values[k].size()) + (fixed_ ? 0 : 4);
      }
      page_plain_size_ += plain;
    } else {
      page_stats_.Update(values);
      page_plain_size_ += static_cast<int64_t>(values.size() * sizeof(T));
    }
  }

  void AppendPlain(std::span<const T> values) {
    if constexpr (kBytes) {
      for (std::string_view v : values) {
        AppendPlainValue(v);
        page_stats_.Update(v);
        if (bloom_.enabled()) bloom_.Add(BloomFilter::Hash(v));
      }
    } else {
      page_values_.insert(page_values_.end(), values.begin(), values.end());
      page_stats_.Update(values);
      if (bloom_.enabled()) {
        for (T v : values) bloom_.Add(BloomFilter::Hash(v));
      }
    }
  }

  // Fewer rows than `n` when their bytes alone would pass the page size, so that large values
  // still make pages of about page_size_bytes (and never one past Parquet's 2 GiB page limit).
  int64_t FitPage(const Column& c, int64_t offset, int64_t n) const {
    auto bytes = [&](int64_t k) -> int64_t {
      if (leaf_.conversion == ValueConversion::kByteArray) {
        return c.Offsets()[offset + k] - c.Offsets()[offset] + 4 * k;
      }
      return k * leaf_.type_length();
    };
    while (n > 1 && bytes(n) > options_.page_size_bytes) n = (n + 1) / 2;
    return n;
  }

  // The non-null values of rows [offset, offset + n), as the physical type.
  Result<std::span<const T>> Gather(const Column& c, int64_t offset, int64_t n);

  Dictionary dict_;
  bool dict_mode_ = true;
  bool dictionary_decided_ = false;
  const bool fixed_ = leaf_.physical_type() == PhysicalType::kFixedLenByteArray;
  // Open page: dictionary indices, or values (numbers) / PLAIN bytes (byte arrays).
  std::vector<int32_t> page_indices_;
  std::vector<T> page_values_;
  std::vector<uint8_t> page_plain_;
  int64_t page_plain_size_ = 0;  // what the page's values take PLAIN-encoded
  // Byte arrays in dictionary mode: which entries the open page uses.
  std::vector<uint8_t> seen_;
  std::vector<int32_t> seen_list_;
  // Scratch.
  std::vector<int32_t> added_;
  std::vector<T> gathered_;
  // AppendCodes: the input dictionary the map is of, and each entry's index in dict_ (-1: none
  // yet).
  columnar::ColumnPtr remap_source_;
  std::vector<int32_t> remap_;
  std::vector<char> fixed_scratch_;
};

template <typename T>
Result<std::span<const T>> ValueColumnWriter<T>::Gather(const Column& c, int64_t offset,
                                                        int64_t n) {
  const uint8_t* valid = c.null_count > 0 && !c.validity.empty() ? c.validity.data() : nullptr;
  auto is_valid = [valid](int64_t i) { return valid == nullptr || columnar::GetBit(valid, i); };
  const int64_t end = offset + n;
  gathered_.clear();
  if constexpr (kBytes) {
    switch (leaf_.conversion) {
      case ValueConversion::kByteArray:
      case ValueConversion::kFixed:
        for (int64_t i = offset; i < end; ++i) {
          if (is_valid(i)) gathered_.push_back(c.BytesAt(i));
        }
        return std::span<const T>(gathered_);
      case ValueConversion::kDecimalToFixed: {
        const size_t width = static_cast<size_t>(leaf_.type_length());
        fixed_scratch_.resize(static_cast<size_t>(n) * width);  // no growth below: views stay
        char* out = fixed_scratch_.data();
        for (int64_t i = offset; i < end; ++i) {
          if (!is_valid(i)) continue;
          const uint8_t* src = c.values.data() + i * 16;  // little-endian 128-bit
          const uint8_t sign = (src[width - 1] & 0x80) != 0 ? 0xFF : 0x00;
          for (size_t j = width; j < 16; ++j) {
            if (src[j] != sign) {
              return InvalidInput("column '{}': the decimal at row {} does not fit {}",
                                  leaf_.dotted_path(), i, leaf_.source_type.ToString());
            }
          }
          for (size_t j = 0; j < width; ++j) out[j] = static_cast<char>(src[width - 1 - j]);
          gathered_.push_back(std::string_view(out, width));
          out += width;
        }
        return std::span<const T>(gathered_);
      }
      default:
        break;
    }
  } else {
    switch (leaf_.conversion) {
      case ValueConversion::kInt32:
      case ValueConversion::kInt64:
      case ValueConversion::kFloat:
      case ValueConversion::kDouble:
      case ValueConversion::kUInt32ToInt32:
      case ValueConversion::kUInt64ToInt64: {
        const uint8_t* base = c.values.data() + offset * static_cast<int64_t>(sizeof(T));
        if (valid == nullptr && Aligned<T>(base)) {
          return std::span<const T>(reinterpret_cast<const T*>(base), static_cast<size_t>(n));
        }
        for (int64_t i = offset; i < end; ++i) {
          if (is_valid(i)) gathered_.push_back(c.Value<T>(i));
        }
        return std::span<const T>(gathered_);
      }
      case ValueConversion::kInt8ToInt32:
        for (int64_t i = offset; i < end; ++i) {
          if (is_valid(i)) gathered_.push_back(static_cast<T>(c.Value<int8_t>(i)));
        }
        return std::span<const T>(gathered_);
      case ValueConversion::kInt16ToInt32:
        for (int64_t i = offset; i < end; ++i) {
          if (is_valid(i)) gathered_.push_back(static_cast<T>(c.Value<int16_t>(i)));
        }
        return std::span<const T>(gathered_);
      case ValueConversion::kUInt8ToInt32:
        for (int64_t i = offset; i < end; ++i) {
          if (is_valid(i)) gathered_.push_back(static_cast<T>(c.Value<uint8_t>(i)));
        }
        return std::span<const T>(gathered_);
      case ValueConversion::kUInt16ToInt32:
        for (int64_t i = offset; i < end; ++i) {
          if (is_valid(i)) gathered_.push_back(static_cast<T>(c.Value<uint16_t>(i)));
        }
        return std::span<const T>(gathered_);
      case ValueConversion::kDecimalToInt32:
      case ValueConversion::kDecimalToInt64:
        for (int64_t i = offset; i < end; ++i) {
          if (!is_valid(i)) continue;
          int64_t lo, hi;
          std::memcpy(&lo, c.values.data() + i * 16, 8);
          std::memcpy(&hi, c.values.data() + i * 16 + 8, 8);
          const bool fits =
              hi == (lo < 0 ? -1 : 0) && (sizeof(T) == 8 || (lo >= INT32_MIN && lo <= INT32_MAX));
          if (!fits) {
            return InvalidInput("column '{}': the decimal at row {} does not fit {}",
                                leaf_.dotted_path(), i, leaf_.source_type.ToString());
          }
          gathered_.push_back(static_cast<T>(lo));
        }
        return std::span<const T>(gathered_);
      default:
        break;
    }
  }
  return Internal("column '{}': no conversion from {} to {}", leaf_.dotted_path(),
                  leaf_.source_type.ToString(), PhysicalTypeName(leaf_.physical_type()));
}

// BOOLEAN: no dictionary (two values never need one); PLAIN bit-packed in v1 pages, RLE in v2.
class BoolColumnWriter final : public ColumnWriterBase {
 public:
  using ColumnWriterBase::ColumnWriterBase;

  Status WriteFlat(const Column& c, int64_t offset, int64_t length) override {
    int64_t done = 0;
    while (done < length) {
      const int64_t room = options_.page_row_limit - page_rows();
      if (room <= 0) {
        FLOE_RETURN_IF_ERROR(FinishPage());
        continue;
      }
      const int64_t n = std::min({length - done, room, kMiniBatch});
      const int64_t start = offset + done;
      const int64_t nulls = AppendLevels(c, start, n);
      AppendBools(c, start, n, nulls);
      done += n;
      if (PageFull()) FLOE_RETURN_IF_ERROR(FinishPage());
    }
    return {};
  }

 protected:
  Status AppendDense(const Column& values, int64_t offset, int64_t n) override {
    AppendBools(values, offset, n, 0);
    return {};
  }

  void AppendBools(const Column& c, int64_t start, int64_t n, int64_t nulls) {
    const int64_t before = count_;
    if (nulls == 0) {
      AppendBits(c.values.data(), start, n, &bits_, &count_);
    } else {
      bits_.resize(static_cast<size_t>(columnar::BitmapBytes(count_ + n)), 0);
      for (int64_t i = start; i < start + n; ++i) {
        if (!c.IsValid(i)) continue;
        if (c.BoolAt(i)) columnar::SetBit(bits_.data(), count_);
        ++count_;
      }
    }
    trues_ += CountSetBits(bits_.data(), before, count_ - before);
  }

  int64_t EstimatedValueBytes() const override { return count_ / 8; }
  int64_t DictionaryBytes() const override { return 0; }

  Status BeforeEncodePage() override {
    bool bounds[2];
    size_t k = 0;
    if (trues_ < count_) bounds[k++] = false;
    if (trues_ > 0) bounds[k++] = true;
    page_stats_.Update(std::span<const bool>(bounds, k));
    page_stats_.AddCounted(count_ - static_cast<int64_t>(k));
    return {};
  }

  Result<Encoding> EncodePageValues(std::vector<uint8_t>* out) override {
    Encoding encoding = Encoding::kPlain;
    if (options_.page_version == DataPageVersion::kV1) {
      out->insert(out->end(), bits_.begin(),
                  bits_.begin() + static_cast<ptrdiff_t>(columnar::BitmapBytes(count_)));
    } else {
      const size_t at = out->size();
      out->resize(at + 4);
      EncodeBitmapHybrid(bits_.data(), count_, out);
      const uint32_t len = static_cast<uint32_t>(out->size() - at - 4);
      std::memcpy(out->data() + at, &len, 4);
      encoding = Encoding::kRle;
    }
    bits_.clear();
    count_ = 0;
    trues_ = 0;
    return encoding;
  }

  void ResetChunk() override {}

 private:
  std::vector<uint8_t> bits_;  // the open page's non-null values
  int64_t count_ = 0;
  int64_t trues_ = 0;
};

}  // namespace

Result<std::unique_ptr<ColumnChunkWriter>> ColumnChunkWriter::Make(
    const LeafColumn& leaf, const ColumnWriterOptions& options) {
  const std::string path = leaf.dotted_path();
  if (options.codec == nullptr) return InvalidInput("column '{}': no codec given", path);
  if (options.page_row_limit <= 0 || options.page_row_limit > INT32_MAX ||
      options.page_size_bytes <= 0 || options.page_size_bytes > INT32_MAX) {
    return InvalidInput("column '{}': page limits must be in 1..2^31-1 (rows {}, bytes {})", path,
                        options.page_row_limit, options.page_size_bytes);
  }
  if (!leaf.nested() && (leaf.max_repetition_level > 0 || leaf.max_definition_level > 1)) {
    return Internal("column '{}': a flat leaf with levels {}/{}", path, leaf.max_repetition_level,
                    leaf.max_definition_level);
  }
  switch (leaf.physical_type()) {
    case PhysicalType::kBoolean:
      if (options.bloom_filter) {
        return Unsupported("column '{}': Bloom filters on BOOLEAN columns", path);
      }
      return std::make_unique<BoolColumnWriter>(leaf, options);
    case PhysicalType::kInt32:
      return std::make_unique<ValueColumnWriter<int32_t>>(leaf, options);
    case PhysicalType::kInt64:
      return std::make_unique<ValueColumnWriter<int64_t>>(leaf, options);
    case PhysicalType::kFloat:
      return std::make_unique<ValueColumnWriter<float>>(leaf, options);
    case PhysicalType::kDouble:
      return std::make_unique<ValueColumnWriter<double>>(leaf, options);
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return std::make_unique<ValueColumnWriter<std::string_view>>(leaf, options);
    case PhysicalType::kInt96:
      break;
  }
  return Unsupported("column '{}': writing {} values", path,
                     PhysicalTypeName(leaf.physical_type()));
}

}  // namespace floe::parquet
