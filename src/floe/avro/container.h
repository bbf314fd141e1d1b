// Avro object container files (the format of Iceberg manifests and manifest lists): a header with
// magic, key/value metadata (avro.schema, avro.codec and the caller's keys, in the caller's order)
// and a sync marker, then blocks of encoded values. Reads null, deflate, snappy and zstandard
// blocks; writes null and deflate. The reader checks every length and the sync marker after each
// block; corrupt input is an error naming the file, never a crash. A header's schema is parsed
// once per distinct text in the process (the manifests of a table all carry the same one).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/avro/binary.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::avro {

enum class Codec { kNull, kDeflate, kSnappy, kZstandard };

std::string_view CodecName(Codec c);

class ContainerReader {
 public:
  // `name` is used in errors (a path or key). The buffer is kept alive by the reader.
  static Result<ContainerReader> Open(Buffer file, std::string name);

  const SchemaPtr& schema() const { return schema_; }
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  std::optional<std::string> Meta(std::string_view key) const;
  Codec codec() const { return codec_; }

  // Every value of the file, in order.
  Result<std::vector<Value>> ReadAll();

  // A block's values, decompressed but still encoded: for readers that decode only what they
  // need (SkipValue over the rest) and come back for a value (Decoder::Seek).
  struct Block {
    std::string data;
    int64_t count = 0;
  };
  // Every block of the file, in order, checked as ReadAll checks them (lengths, sync markers).
  Result<std::vector<Block>> ReadBlocks() const;

 private:
  ContainerReader() = default;
  Result<std::string> DecompressBlock(std::string_view block, int64_t index) const;
  // Checks and decompresses each block in turn, handing it to `fn` with its index before the
  // next is looked at (so the first bad thing in file order is the error).
  Status VisitBlocks(const std::function<Status(Block&&, int64_t)>& fn) const;

  Buffer file_;
  std::string name_;
  SchemaPtr schema_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  Codec codec_ = Codec::kNull;
  std::string sync_;
  size_t data_start_ = 0;
};

class ContainerWriter {
 public:
  // `metadata` follows avro.schema and avro.codec in the header, in the given order.
  ContainerWriter(SchemaPtr schema, std::vector<std::pair<std::string, std::string>> metadata,
                  Codec codec = Codec::kDeflate, size_t block_bytes = 1 << 20);

  Status Append(const Value& value);
  // The whole file. The writer is finished afterwards.
  Result<std::string> Finish();
  int64_t count() const { return total_; }

 private:
  Status FlushBlock();

  SchemaPtr schema_;
  Codec codec_;
  size_t block_bytes_;
  std::string sync_;
  std::string out_;
  Encoder block_;
  int64_t block_count_ = 0;
  int64_t total_ = 0;
};

}  // namespace floe::avro
