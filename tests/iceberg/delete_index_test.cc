// DeleteIndex: each rule of the spec's "Scan Planning" for which delete files apply to a data
// file -- sequence numbers (<= for position deletes and DVs, < for equality deletes), partition
// (spec id and values), referenced_data_file, file_path bounds, a DV replacing the position
// deletes of its file, and unpartitioned equality deletes applying everywhere.
#include "floe/iceberg/delete_index.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace floe::iceberg {
namespace {

ManifestEntry Entry(FileContent content, const std::string& path, int64_t seq,
                    std::vector<Literal> partition, int32_t spec_id = 0) {
  ManifestEntry e;
  e.sequence_number = seq;
  e.file.content = content;
  e.file.file_path = path;
  e.file.partition = std::move(partition);
  e.file.spec_id = spec_id;
  return e;
}

ManifestEntry Data(const std::string& path, int64_t seq, const std::string& day = "d1") {
  return Entry(FileContent::kData, path, seq, {Literal::String(day)});
}

ManifestEntry Positions(const std::string& path, int64_t seq, const std::string& day = "d1") {
  return Entry(FileContent::kPositionDeletes, path, seq, {Literal::String(day)});
}

ManifestEntry Equality(const std::string& path, int64_t seq, const std::string& day = "d1") {
  return Entry(FileContent::kEqualityDeletes, path, seq, {Literal::String(day)});
}

ManifestEntry Dv(const std::string& puffin, const std::string& data, int64_t seq) {
  ManifestEntry e = Positions(puffin, seq);
  e.file.file_format = "PUFFIN";
  e.file.referenced_data_file = data;
  e.file.content_offset = 4;
  e.file.content_size_in_bytes = 40;
  return e;
}

std::vector<std::string> Paths(const std::vector<DataFile>& files) {
  std::vector<std::string> out;
  for (const DataFile& f : files) out.push_back(f.file_path);
  return out;
}

std::vector<std::string> Applying(const std::vector<ManifestEntry>& deletes,
                                  const ManifestEntry& data) {
  DeleteIndex index;
  for (const ManifestEntry& d : deletes) index.Add(d);
  index.Finish();
  return Paths(index.For(data));
}

using Names = std::vector<std::string>;

TEST(DeleteIndex, PositionDeletesApplyFromTheirOwnSequenceNumberOn) {
  const std::vector<ManifestEntry> deletes = {Positions("p3", 3), Positions("p5", 5)};
  EXPECT_EQ(Applying(deletes, Data("a", 2)), (Names{"p3", "p5"}));
  EXPECT_EQ(Applying(deletes, Data("a", 3)), (Names{"p3", "p5"}));  // <=: the same commit
  EXPECT_EQ(Applying(deletes, Data("a", 4)), (Names{"p5"}));
  EXPECT_EQ(Applying(deletes, Data("a", 6)), (Names{}));
}

TEST(DeleteIndex, EqualityDeletesApplyOnlyToOlderData) {
  const std::vector<ManifestEntry> deletes = {Equality("e3", 3)};
  EXPECT_EQ(Applying(deletes, Data("a", 2)), (Names{"e3"}));
  EXPECT_EQ(Applying(deletes, Data("a", 3)), (Names{}));  // <: not rows of the same commit
}

TEST(DeleteIndex, DeletesApplyWithinTheirPartitionAndSpec) {
  const std::vector<ManifestEntry> deletes = {Positions("p", 5, "d1"), Equality("e", 5, "d1")};
  EXPECT_EQ(Applying(deletes, Data("a", 1, "d1")), (Names{"p", "e"}));
  EXPECT_EQ(Applying(deletes, Data("b", 1, "d2")), (Names{}));
  ManifestEntry other_spec = Data("c", 1, "d1");
  other_spec.file.spec_id = 1;
  EXPECT_EQ(Applying(deletes, other_spec), (Names{}));
  // A null partition value is its own partition, not a match for every value.
  ManifestEntry null_part = Entry(FileContent::kData, "n", 1, {Literal::Null(TypeId::kString)});
  EXPECT_EQ(Applying(deletes, null_part), (Names{}));
}

TEST(DeleteIndex, UnpartitionedEqualityDeletesAreGlobal) {
  const std::vector<ManifestEntry> deletes = {
      Entry(FileContent::kEqualityDeletes, "global", 5, {}, 1),
      Entry(FileContent::kPositionDeletes, "unpartitioned-pos", 5, {}, 1)};
  EXPECT_EQ(Applying(deletes, Data("a", 1, "d1")), (Names{"global"}));
  EXPECT_EQ(Applying(deletes, Data("a", 5, "d1")), (Names{}));
}

TEST(DeleteIndex, ReferencedDataFileAndPathBoundsScopePositionDeletes) {
  ManifestEntry scoped = Positions("scoped", 5);
  scoped.file.referenced_data_file = "s3://b/t/data/a.parquet";
  ManifestEntry by_bounds = Positions("one-file-by-bounds", 5);
  by_bounds.file.lower_bounds[kDeleteFilePathFieldId] = "s3://b/t/data/b.parquet";
  by_bounds.file.upper_bounds[kDeleteFilePathFieldId] = "s3://b/t/data/b.parquet";
  ManifestEntry range = Positions("range", 5);
  range.file.lower_bounds[kDeleteFilePathFieldId] = "s3://b/t/data/b";
  range.file.upper_bounds[kDeleteFilePathFieldId] = "s3://b/t/data/c";
  const std::vector<ManifestEntry> deletes = {scoped, by_bounds, range};
  EXPECT_EQ(Applying(deletes, Data("s3://b/t/data/a.parquet", 1)), (Names{"scoped"}));
  EXPECT_EQ(Applying(deletes, Data("s3://b/t/data/b.parquet", 1)),
            (Names{"one-file-by-bounds", "range"}));
  EXPECT_EQ(Applying(deletes, Data("s3://b/t/data/bz.parquet", 1)), (Names{"range"}));
  EXPECT_EQ(Applying(deletes, Data("s3://b/t/data/d.parquet", 1)), (Names{}));
}

TEST(DeleteIndex, ADeletionVectorReplacesThePositionDeletesOfItsFile) {
  const std::vector<ManifestEntry> deletes = {Positions("p2", 2), Dv("dv.puffin", "a", 4),
                                              Equality("e3", 3)};
  // The DV applies to "a" (seq 1 <= 4): the position delete file is ignored, equality stays.
  EXPECT_EQ(Applying(deletes, Data("a", 1)), (Names{"dv.puffin", "e3"}));
  // Other data files keep their position deletes.
  EXPECT_EQ(Applying(deletes, Data("b", 1)), (Names{"p2", "e3"}));
  // A data file newer than the DV gets neither.
  EXPECT_EQ(Applying(deletes, Data("a", 5)), (Names{}));
}

}  // namespace
}  // namespace floe::iceberg
