// OutputSink: where the Parquet writer puts a file's bytes, strictly in order, so a streaming or
// multipart-upload sink can replace the in-memory one without the writer changing. MemorySink
// keeps everything in one growable buffer. Not thread safe; one writer owns one sink.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::parquet {

class OutputSink {
 public:
  virtual ~OutputSink() = default;

  // Appends `bytes`; a failed write leaves the sink unusable (the file is abandoned).
  virtual Status Write(ByteView bytes) = 0;
  // Bytes accepted so far: the file offset of the next byte written.
  virtual int64_t position() const = 0;
  // Called once after the last byte (the footer); a multipart sink completes its upload here.
  virtual Status Close() { return {}; }
  // A hint: the file will likely reach about `total_bytes`, so a buffering sink can grow once
  // rather than by doublings (each a copy of what it holds, into pages never touched before).
  virtual void Reserve(int64_t total_bytes) { (void)total_bytes; }
};

class MemorySink final : public OutputSink {
 public:
  Status Write(ByteView bytes) override {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return {};
  }
  int64_t position() const override { return static_cast<int64_t>(bytes_.size()); }
  void Reserve(int64_t total_bytes) override {
    const size_t want = static_cast<size_t>(std::max<int64_t>(total_bytes, 0));
    if (want > bytes_.capacity()) bytes_.reserve(std::max(want, bytes_.capacity() * 2));
  }

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  // Hands the file over (the sink is empty afterwards).
  std::vector<uint8_t> Release() { return std::move(bytes_); }
  // An immutable Buffer holding the file, for an ObjectStore put.
  Buffer ToBuffer() { return Buffer(Release()); }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace floe::parquet
