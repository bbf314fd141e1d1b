#include "floe/columnar/arrow_ipc.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "floe/columnar/column_builder.h"

namespace floe::columnar {
namespace {

// The bytes a writer produced.
struct Captured {
  std::vector<uint8_t> bytes;
  ArrowIpcWriter::Sink Sink() {
    return [this](ByteView b) -> Status {
      bytes.insert(bytes.end(), b.begin(), b.end());
      return {};
    };
  }
};

template <typename T>
T At(const std::vector<uint8_t>& b, size_t pos) {
  T v;
  std::memcpy(&v, b.data() + pos, sizeof(T));
  return v;
}

// A reader of FlatBuffers tables written for these tests from the format's description (a root
// offset, tables found through their vtables, offsets relative to where they are stored), so that
// the writer is checked against the format rather than against itself.
class FlatView {
 public:
  FlatView(const std::vector<uint8_t>& bytes, size_t begin) : b_(bytes), begin_(begin) {}
  size_t Root() const { return Follow(begin_); }
  // Where field `slot` of the table at `table` is stored, or 0 when it is absent.
  size_t Field(size_t table, int slot) const {
    const size_t vtable = table - At<int32_t>(b_, table);
    const auto vsize = At<uint16_t>(b_, vtable);
    const size_t entry = 4 + 2 * static_cast<size_t>(slot);
    if (entry >= vsize) return 0;
    const auto off = At<uint16_t>(b_, vtable + entry);
    return off == 0 ? 0 : table + off;
  }
  size_t Follow(size_t at) const { return at + At<uint32_t>(b_, at); }
  template <typename T>
  T Scalar(size_t table, int slot) const {
    const size_t at = Field(table, slot);
    EXPECT_NE(at, 0u) << "slot " << slot;
    EXPECT_EQ((at - begin_) % sizeof(T), 0u) << "slot " << slot << " is not aligned";
    return at == 0 ? T{} : At<T>(b_, at);
  }
  std::string String(size_t at) const {
    const auto n = At<uint32_t>(b_, at);
    return std::string(reinterpret_cast<const char*>(b_.data() + at + 4), n);
  }
  // The (first, second) int64 pairs of a vector of 16-byte structs.
  std::vector<std::pair<int64_t, int64_t>> Pairs(size_t vector) const {
    const auto n = At<uint32_t>(b_, vector);
    EXPECT_EQ((vector + 4 - begin_) % 8, 0u) << "struct vector not 8-aligned";
    std::vector<std::pair<int64_t, int64_t>> out;
    for (uint32_t i = 0; i < n; ++i) {
      out.emplace_back(At<int64_t>(b_, vector + 4 + 16 * i), At<int64_t>(b_, vector + 12 + 16 * i));
    }
    return out;
  }

 private:
  const std::vector<uint8_t>& b_;
  size_t begin_;
};

SchemaPtr IdNameSchema() {
  return std::make_shared<Schema>(
      Schema{{Field{"id", Int32(), true, 1}, Field{"name", String(), false, 2}}});
}

RecordBatch IdNameBatch() {
  FixedWidthBuilder<int32_t> ids(Int32());
  ids.Append(1);
  ids.AppendNull();
  ids.Append(3);
  BinaryBuilder names(String());
  EXPECT_TRUE(names.Append("a").has_value());
  EXPECT_TRUE(names.Append("").has_value());
  EXPECT_TRUE(names.Append("xyz").has_value());
  RecordBatch batch;
  batch.schema = IdNameSchema();
  batch.columns = {ids.Finish(), names.Finish()};
  batch.num_rows = 3;
  return batch;
}

const std::vector<uint8_t> kMagic = {'A', 'R', 'R', 'O', 'W', '1'};

TEST(ArrowIpc, EmptyFileIsMagicSchemaEndOfStreamFooterLengthMagic) {
  Captured out;
  auto w = ArrowIpcWriter::Open(IdNameSchema(), IpcFormat::kFile, out.Sink());
  ASSERT_TRUE(w.has_value()) << w.error().ToString();
  ASSERT_TRUE((*w)->Close().has_value());
  const auto& b = out.bytes;
  ASSERT_GT(b.size(), 34u);
  EXPECT_EQ(std::vector<uint8_t>(b.begin(), b.begin() + 8),
            (std::vector<uint8_t>{'A', 'R', 'R', 'O', 'W', '1', 0, 0}));
  EXPECT_EQ(At<uint32_t>(b, 8), 0xFFFFFFFFu);  // continuation marker
  const auto schema_length = At<int32_t>(b, 12);
  EXPECT_EQ(schema_length % 8, 0);
  const size_t eos = 16 + static_cast<size_t>(schema_length);
  EXPECT_EQ(At<uint32_t>(b, eos), 0xFFFFFFFFu);
  EXPECT_EQ(At<int32_t>(b, eos + 4), 0);
  const size_t footer = eos + 8;
  const auto footer_length = At<int32_t>(b, b.size() - 10);
  EXPECT_EQ(footer + static_cast<size_t>(footer_length) + 10, b.size());
  EXPECT_EQ(std::vector<uint8_t>(b.end() - 6, b.end()), kMagic);

  // The Schema message: version V5, header Schema, no body; fields named and typed.
  FlatView message(b, 16);
  const size_t m = message.Root();
  EXPECT_EQ(message.Scalar<int16_t>(m, 0), 4);
  EXPECT_EQ(message.Scalar<uint8_t>(m, 1), 1);
  EXPECT_EQ(message.Scalar<int64_t>(m, 3), 0);
  const size_t schema = message.Follow(message.Field(m, 2));
  const size_t fields = message.Follow(message.Field(schema, 1));
  ASSERT_EQ(At<uint32_t>(b, fields), 2u);
  const size_t id = message.Follow(fields + 4);
  EXPECT_EQ(message.String(message.Follow(message.Field(id, 0))), "id");
  EXPECT_EQ(message.Scalar<uint8_t>(id, 1), 1);  // nullable
  EXPECT_EQ(message.Scalar<uint8_t>(id, 2), 2);  // Type.Int
  const size_t int_type = message.Follow(message.Field(id, 3));
  EXPECT_EQ(message.Scalar<int32_t>(int_type, 0), 32);
  EXPECT_EQ(message.Scalar<uint8_t>(int_type, 1), 1);
  const size_t name = message.Follow(fields + 8);
  EXPECT_EQ(message.String(message.Follow(message.Field(name, 0))), "name");
  EXPECT_EQ(message.Scalar<uint8_t>(name, 1), 0);
  EXPECT_EQ(message.Scalar<uint8_t>(name, 2), 5);  // Type.Utf8

  // The footer: V5, the schema again, no dictionaries, no record batches.
  EXPECT_EQ(footer % 8, 0u);
  FlatView f(b, footer);
  const size_t root = f.Root();
  EXPECT_EQ(f.Scalar<int16_t>(root, 0), 4);
  const size_t footer_fields = f.Follow(f.Field(f.Follow(f.Field(root, 1)), 1));
  EXPECT_EQ(At<uint32_t>(b, footer_fields), 2u);
  EXPECT_EQ(At<uint32_t>(b, f.Follow(f.Field(root, 2))), 0u);
  EXPECT_EQ(At<uint32_t>(b, f.Follow(f.Field(root, 3))), 0u);
}

TEST(ArrowIpc, StreamIsTheFilesMessagesWithoutMagicOrFooter) {
  Captured file, stream;
  for (auto [format, out] : {std::pair{IpcFormat::kFile, &file}, {IpcFormat::kStream, &stream}}) {
    auto w = ArrowIpcWriter::Open(IdNameSchema(), format, out->Sink());
    ASSERT_TRUE(w.has_value());
    ASSERT_TRUE((*w)->Write(IdNameBatch()).has_value());
    ASSERT_TRUE((*w)->Close().has_value());
    EXPECT_EQ((*w)->bytes_written(), static_cast<int64_t>(out->bytes.size()));
    EXPECT_EQ((*w)->rows_written(), 3);
  }
  ASSERT_LT(stream.bytes.size() + 8, file.bytes.size());
  EXPECT_EQ(std::vector<uint8_t>(file.bytes.begin() + 8,
                                 file.bytes.begin() + 8 + static_cast<long>(stream.bytes.size())),
            stream.bytes);
  EXPECT_EQ(At<uint32_t>(stream.bytes, 0), 0xFFFFFFFFu);
  EXPECT_EQ(std::vector<uint8_t>(stream.bytes.end() - 8, stream.bytes.end()),
            (std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}));
}

TEST(ArrowIpc, RecordBatchBuffersAreEightByteAlignedAndPaddedWithZeros) {
  Captured out;
  auto w = ArrowIpcWriter::Open(IdNameSchema(), IpcFormat::kFile, out.Sink());
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->Write(IdNameBatch()).has_value());
  ASSERT_TRUE((*w)->Close().has_value());
  const auto& b = out.bytes;
  const size_t batch = 16 + static_cast<size_t>(At<int32_t>(b, 12));
  EXPECT_EQ(batch % 8, 0u);
  EXPECT_EQ(At<uint32_t>(b, batch), 0xFFFFFFFFu);
  const auto metadata_length = At<int32_t>(b, batch + 4);
  EXPECT_EQ(metadata_length % 8, 0);
  FlatView message(b, batch + 8);
  const size_t m = message.Root();
  EXPECT_EQ(message.Scalar<int16_t>(m, 0), 4);
  EXPECT_EQ(message.Scalar<uint8_t>(m, 1), 3);  // MessageHeader.RecordBatch
  // id: validity 1 byte at 0, values 12 bytes at 8; name: no validity, 4 offsets at 24, 4 bytes
  // of data at 40; 48 in all, each buffer padded to 8.
  EXPECT_EQ(message.Scalar<int64_t>(m, 3), 48);
  const size_t rb = message.Follow(message.Field(m, 2));
  EXPECT_EQ(message.Scalar<int64_t>(rb, 0), 3);
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(message.Pairs(message.Follow(message.Field(rb, 1))), (Pairs{{3, 1}, {3, 0}}));
  EXPECT_EQ(message.Pairs(message.Follow(message.Field(rb, 2))),
            (Pairs{{0, 1}, {8, 12}, {24, 0}, {24, 16}, {40, 4}}));
  EXPECT_EQ(message.Field(rb, 3), 0u);  // no compression

  const size_t body = batch + 8 + static_cast<size_t>(metadata_length);
  EXPECT_EQ(b[body] & 0x07, 0b101);  // rows 0 and 2 valid
  for (size_t i = 1; i < 8; ++i) EXPECT_EQ(b[body + i], 0) << "validity padding " << i;
  EXPECT_EQ(At<int32_t>(b, body + 8), 1);
  EXPECT_EQ(At<int32_t>(b, body + 16), 3);
  EXPECT_EQ(At<int32_t>(b, body + 20), 0) << "values padding";
  EXPECT_EQ(At<int32_t>(b, body + 24), 0);
  EXPECT_EQ(At<int32_t>(b, body + 28), 1);
  EXPECT_EQ(At<int32_t>(b, body + 32), 1);
  EXPECT_EQ(At<int32_t>(b, body + 36), 4);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&b[body + 40]), 8),
            std::string("axyz\0\0\0\0", 8));
  EXPECT_EQ(At<uint32_t>(b, body + 48), 0xFFFFFFFFu);  // end of stream
  EXPECT_EQ(At<int32_t>(b, body + 52), 0);

  // The footer's Block: the message's offset, metadata length with its 8-byte prefix, body.
  const size_t footer = body + 56;
  EXPECT_EQ(static_cast<size_t>(At<int32_t>(b, b.size() - 10)) + footer + 10, b.size());
  FlatView f(b, footer);
  const size_t blocks = f.Follow(f.Field(f.Root(), 3));
  ASSERT_EQ(At<uint32_t>(b, blocks), 1u);
  EXPECT_EQ((blocks + 4 - footer) % 8, 0u);
  EXPECT_EQ(At<int64_t>(b, blocks + 4), static_cast<int64_t>(batch));
  EXPECT_EQ(At<int32_t>(b, blocks + 12), metadata_length + 8);
  EXPECT_EQ(At<int64_t>(b, blocks + 20), 48);
}

TEST(ArrowIpc, TimestampCarriesItsZoneAndTime64MillisIsRefused) {
  auto ms =
      ArrowIpcWriter::Open(std::make_shared<Schema>(Schema{{Field{"t", Time64(TimeUnit::kMilli)}}}),
                           IpcFormat::kFile, [](ByteView) -> Status { return {}; });
  ASSERT_FALSE(ms.has_value());
  EXPECT_EQ(ms.error().message,
            "time64[ms] column 't' has no Arrow IPC type (Arrow uses time32 for ms)");

  Captured out;
  auto w = ArrowIpcWriter::Open(
      std::make_shared<Schema>(Schema{{Field{"ts", Timestamp(TimeUnit::kNano, "UTC")}}}),
      IpcFormat::kStream, out.Sink());
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->Close().has_value());
  FlatView message(out.bytes, 8);
  const size_t fields =
      message.Follow(message.Field(message.Follow(message.Field(message.Root(), 2)), 1));
  const size_t ts = message.Follow(fields + 4);
  EXPECT_EQ(message.Scalar<uint8_t>(ts, 2), 10);  // Type.Timestamp
  const size_t type = message.Follow(message.Field(ts, 3));
  EXPECT_EQ(message.Scalar<int16_t>(type, 0), 3);  // NANOSECOND
  EXPECT_EQ(message.String(message.Follow(message.Field(type, 1))), "UTC");
}

TEST(ArrowIpc, ABatchOfAnotherShapeAndASinkErrorAreErrors) {
  Captured out;
  auto w = ArrowIpcWriter::Open(
      std::make_shared<Schema>(Schema{{Field{"id", Int64()}, Field{"name", String()}}}),
      IpcFormat::kFile, out.Sink());
  ASSERT_TRUE(w.has_value());
  auto s = (*w)->Write(IdNameBatch());
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message, "Arrow IPC: column 'id' is int32 in a batch, int64 in the schema");

  auto failing = ArrowIpcWriter::Open(IdNameSchema(), IpcFormat::kFile,
                                      [](ByteView) -> Status { return IOError("disk full"); });
  ASSERT_TRUE(failing.has_value());  // nothing written yet
  auto written = (*failing)->Write(IdNameBatch());
  ASSERT_FALSE(written.has_value());
  EXPECT_EQ(written.error().message, "disk full");
}

}  // namespace
}  // namespace floe::columnar
