// Helpers for the Parquet reader tests: a corpus file opened in memory, read through a plan with
// the whole file (or only the planned ranges) as the fetched bytes, and rows rendered as the JSON
// text of columnar::AppendJsonValue so expectations read like pyarrow's values. Test-only.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/columnar/value_format.h"
#include "floe/parquet/file_reader.h"
#include "parquet/parquet_test_util.h"

namespace floe::parquet::testing {

struct LoadedFile {
  std::vector<uint8_t> bytes;
  std::optional<FileReader> reader;
  Buffer all() const { return Buffer(bytes); }
};

inline LoadedFile LoadFile(const std::filesystem::path& path) {
  LoadedFile f;
  f.bytes = ReadFileBytes(path);
  auto opened = FileReader::Open(path.filename().string(), f.bytes.size(), f.bytes);
  EXPECT_TRUE(opened.has_value()) << opened.error().ToString();
  if (opened.has_value()) {
    EXPECT_TRUE(opened->reader.has_value());
    f.reader = std::move(opened->reader);
  }
  return f;
}

// The buffers of exactly `ranges`, each as its own buffer.
inline FetchedBytes OnlyRanges(const LoadedFile& f, const std::vector<PlannedRange>& ranges) {
  FetchedBytes out;
  Buffer all = f.all();
  for (const PlannedRange& r : ranges) {
    out.Add(r.range.offset,
            all.Slice(static_cast<size_t>(r.range.offset), static_cast<size_t>(r.range.length)));
  }
  return out;
}

// Plans, applies the page index when asked, and decodes with only the planned ranges supplied.
inline Result<std::vector<columnar::RecordBatch>> ReadFile(const LoadedFile& f,
                                                           const ReadOptions& options = {}) {
  FLOE_ASSIGN_OR_RETURN(ReadPlan plan, f.reader->Plan(options));
  if (plan.index_pending) {
    FLOE_RETURN_IF_ERROR(f.reader->ApplyPageIndex(OnlyRanges(f, plan.IndexRanges()), &plan));
  }
  FetchedBytes bytes = OnlyRanges(f, plan.DataRanges());
  return f.reader->ReadAll(std::move(plan), std::move(bytes));
}

inline std::string JsonValue(const columnar::Column& c, int64_t row) {
  std::string s;
  columnar::AppendJsonValue(c, row, &s);
  return s;
}

// Every row as "[v1, v2, ...]".
inline std::vector<std::string> JsonRows(const std::vector<columnar::RecordBatch>& batches) {
  std::vector<std::string> rows;
  for (const auto& b : batches) {
    EXPECT_TRUE(b.Validate().has_value()) << b.Validate().error().ToString();
    for (int64_t r = 0; r < b.num_rows; ++r) {
      std::string s = "[";
      for (int c = 0; c < b.num_columns(); ++c) {
        if (c) s += ", ";
        s += JsonValue(*b.column(c), r);
      }
      rows.push_back(s + "]");
    }
  }
  return rows;
}

// One column's values, as JSON text.
inline std::vector<std::string> JsonColumn(const std::vector<columnar::RecordBatch>& batches,
                                           int column) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b.num_rows; ++r) out.push_back(JsonValue(*b.column(column), r));
  }
  return out;
}

inline int64_t CountRows(const std::vector<columnar::RecordBatch>& batches) {
  int64_t n = 0;
  for (const auto& b : batches) n += b.num_rows;
  return n;
}

}  // namespace floe::parquet::testing
