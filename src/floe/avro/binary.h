// Avro's binary encoding: zig-zag varints, little-endian floats, length-prefixed bytes, blocked
// arrays and maps. The Decoder is bounds-checked (corrupt input is an error, never a read past the
// end); `DecodeValue`/`EncodeValue` walk a schema. Errors name the field path.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::avro {

class Decoder {
 public:
  explicit Decoder(ByteView data) : data_(data) {}

  Result<int64_t> ReadLong() {
    // Most varints of a manifest (branch indexes, lengths, small ids and counts) are one byte.
    if (pos_ < data_.size() && (data_[pos_] & 0x80) == 0) {
      const uint64_t b = data_[pos_++];
      return static_cast<int64_t>((b >> 1) ^ (~(b & 1) + 1));
    }
    return ReadLongSlow();
  }
  Result<int32_t> ReadInt();
  Result<bool> ReadBool();
  Result<float> ReadFloat();
  Result<double> ReadDouble();
  Result<std::string_view> ReadBytes();  // also strings
  Result<std::string_view> ReadFixed(size_t n);
  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  // Moves to byte `pos` of the data (at most its size), e.g. back to a value read before.
  void Seek(size_t pos) { pos_ = pos < data_.size() ? pos : data_.size(); }

 private:
  Result<int64_t> ReadLongSlow();

  ByteView data_;
  size_t pos_ = 0;
};

class Encoder {
 public:
  void WriteLong(int64_t v);
  void WriteInt(int32_t v) { WriteLong(v); }
  void WriteBool(bool v) { out_.push_back(v ? 1 : 0); }
  void WriteFloat(float v);
  void WriteDouble(double v);
  void WriteBytes(std::string_view v);
  void WriteFixed(std::string_view v) { out_.append(v); }
  std::string& bytes() { return out_; }
  size_t size() const { return out_.size(); }
  void clear() { out_.clear(); }

 private:
  std::string out_;
};

// `depth`: how deep the value lies in an enclosing one being read piecewise (the nesting limit
// counts from the outermost value).
Result<Value> DecodeValue(const Schema& schema, Decoder& in, int depth = 0);
// Moves past one value of `schema` without building it, checking what DecodeValue checks (lengths,
// union branches, enum indexes, block counts, nesting): it fails exactly where DecodeValue would.
Status SkipValue(const Schema& schema, Decoder& in, int depth = 0);
Status EncodeValue(const Schema& schema, const Value& value, Encoder& out);

}  // namespace floe::avro
