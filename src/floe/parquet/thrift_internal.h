// Internal to src/floe/parquet: the Thrift-generated format types and the only two ways floe moves
// them in and out of bytes. Reading is bounded by the input (lengths, counts, nesting) and every
// Thrift exception becomes a `corrupt:` error naming what was parsed. Never include elsewhere.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/logical_type.h"
#include "floe/parquet/parquet_types.h"  // generated from parquet.thrift into the build tree
#include "floe/parquet/statistics.h"

namespace floe::parquet::internal {

namespace format = ::floe::parquet::format;

// Compact protocol that also refuses a list, set or map claiming more elements than bytes remain:
// every element takes at least one byte on the wire, and the generated code sizes its vector
// before reading the elements, so this caps what a corrupt count can make it allocate.
class BoundedCompactProtocol
    : public apache::thrift::protocol::TCompactProtocolT<apache::thrift::transport::TMemoryBuffer> {
 public:
  using Base =
      apache::thrift::protocol::TCompactProtocolT<apache::thrift::transport::TMemoryBuffer>;
  BoundedCompactProtocol(const std::shared_ptr<apache::thrift::transport::TMemoryBuffer>& buffer,
                         int32_t limit)
      : Base(buffer, limit, limit), buffer_(buffer.get()) {}

  uint32_t readListBegin(apache::thrift::protocol::TType& elem_type, uint32_t& size) {
    uint32_t n = Base::readListBegin(elem_type, size);
    CheckElements(size);
    return n;
  }
  uint32_t readSetBegin(apache::thrift::protocol::TType& elem_type, uint32_t& size) {
    uint32_t n = Base::readSetBegin(elem_type, size);
    CheckElements(size);
    return n;
  }
  uint32_t readMapBegin(apache::thrift::protocol::TType& key_type,
                        apache::thrift::protocol::TType& value_type, uint32_t& size) {
    uint32_t n = Base::readMapBegin(key_type, value_type, size);
    CheckElements(size);
    return n;
  }

 private:
  void CheckElements(uint32_t size) {
    if (size > buffer_->available_read()) {
      throw apache::thrift::protocol::TProtocolException(
          apache::thrift::protocol::TProtocolException::SIZE_LIMIT,
          "container claims more elements than bytes remain");
    }
  }

  apache::thrift::transport::TMemoryBuffer* buffer_;
};

// A Thrift exception's text with its control bytes as \xNN: some quote the byte they choke on,
// which may be a newline, and an error is one line.
inline std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

// Reads one T from the front of `bytes`; *consumed (if given) receives the bytes it took.
// Memory: a corrupt count or length fails before anything is sized by it; a well-formed message
// can still make the generated structs take a few hundred times its size (an empty struct is one
// byte on the wire), which footer.h bounds by capping the footer length.
template <typename T>
Status ReadThrift(ByteView bytes, T* out, size_t* consumed, std::string_view what) {
  using apache::thrift::TConfiguration;
  using apache::thrift::transport::TMemoryBuffer;
  static uint8_t empty = 0;
  // Thrift's buffer sizes are 32-bit; larger inputs (never a real footer or page header) are cut.
  uint32_t size = static_cast<uint32_t>(std::min<size_t>(bytes.size(), INT32_MAX));
  uint8_t* data = size == 0 ? &empty : const_cast<uint8_t*>(bytes.data());  // only read
  try {
    auto config = std::make_shared<TConfiguration>(static_cast<int>(size));
    // First walk the structure without building it: a corrupt length or count fails here, before
    // the generated code sizes any vector by it. Only a well-formed message reaches `read`, and
    // its element counts are backed by bytes that are really there.
    {
      auto buffer = std::make_shared<TMemoryBuffer>(data, size, TMemoryBuffer::OBSERVE, config);
      BoundedCompactProtocol protocol(buffer, static_cast<int32_t>(size));
      protocol.skip(apache::thrift::protocol::T_STRUCT);
    }
    auto buffer = std::make_shared<TMemoryBuffer>(data, size, TMemoryBuffer::OBSERVE, config);
    BoundedCompactProtocol protocol(buffer, static_cast<int32_t>(size));
    out->read(&protocol);
    if (consumed != nullptr) *consumed = size - buffer->available_read();
  } catch (const apache::thrift::TException& e) {
    return Corrupt("{} is not valid Thrift compact data ({})", what, Printable(e.what()));
  } catch (const std::bad_alloc&) {
    return Corrupt("{} claims more memory than can be allocated", what);
  } catch (const std::exception& e) {
    return Corrupt("{} could not be parsed ({})", what, Printable(e.what()));
  }
  return {};
}

template <typename T>
Result<std::vector<uint8_t>> WriteThrift(const T& value, std::string_view what) {
  using apache::thrift::transport::TMemoryBuffer;
  try {
    auto buffer = std::make_shared<TMemoryBuffer>();
    apache::thrift::protocol::TCompactProtocolT<TMemoryBuffer> protocol(buffer);
    value.write(&protocol);
    uint8_t* data = nullptr;
    uint32_t size = 0;
    buffer->getBuffer(&data, &size);
    return std::vector<uint8_t>(data, data + size);
  } catch (const std::exception& e) {
    return Internal("serialising {} failed: {}", what, e.what());
  }
}

// Conversions shared by the footer and the page header (statistics.cc, logical_type.cc).
Statistics FromThrift(const format::Statistics& in);
format::Statistics ToThrift(const Statistics& in);
LogicalType LogicalTypeFromThrift(const format::LogicalType& in);
format::LogicalType LogicalTypeToThrift(const LogicalType& in);

}  // namespace floe::parquet::internal
