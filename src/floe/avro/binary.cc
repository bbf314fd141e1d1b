#include "floe/avro/binary.h"

#include <bit>
#include <cstring>

namespace floe::avro {

Result<int64_t> Decoder::ReadLongSlow() {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= data_.size()) return Corrupt("avro varint runs past the end at byte {}", pos_);
    uint8_t b = data_[pos_++];
    if (shift == 63 && (b & 0x7E) != 0) return Corrupt("avro varint overflows at byte {}", pos_);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  return Corrupt("avro varint longer than 10 bytes at byte {}", pos_);
}

Result<int32_t> Decoder::ReadInt() {
  FLOE_ASSIGN_OR_RETURN(int64_t v, ReadLong());
  if (v < INT32_MIN || v > INT32_MAX) return Corrupt("avro int {} out of range", v);
  return static_cast<int32_t>(v);
}

Result<bool> Decoder::ReadBool() {
  if (pos_ >= data_.size()) return Corrupt("avro boolean past the end");
  uint8_t b = data_[pos_++];
  if (b > 1) return Corrupt("avro boolean byte {} is not 0 or 1", b);
  return b == 1;
}

Result<float> Decoder::ReadFloat() {
  if (remaining() < 4) return Corrupt("avro float past the end");
  uint32_t bits;
  std::memcpy(&bits, data_.data() + pos_, 4);
  pos_ += 4;
  if constexpr (std::endian::native == std::endian::big) bits = std::byteswap(bits);
  return std::bit_cast<float>(bits);
}

Result<double> Decoder::ReadDouble() {
  if (remaining() < 8) return Corrupt("avro double past the end");
  uint64_t bits;
  std::memcpy(&bits, data_.data() + pos_, 8);
  pos_ += 8;
  if constexpr (std::endian::native == std::endian::big) bits = std::byteswap(bits);
  return std::bit_cast<double>(bits);
}

Result<std::string_view> Decoder::ReadBytes() {
  FLOE_ASSIGN_OR_RETURN(int64_t n, ReadLong());
  if (n < 0 || static_cast<uint64_t>(n) > remaining()) {
    return Corrupt("avro bytes length {} exceeds the {} bytes left", n, remaining());
  }
  return ReadFixed(static_cast<size_t>(n));
}

Result<std::string_view> Decoder::ReadFixed(size_t n) {
  if (n > remaining()) return Corrupt("avro fixed({}) past the end", n);
  std::string_view v(reinterpret_cast<const char*>(data_.data()) + pos_, n);
  pos_ += n;
  return v;
}

void Encoder::WriteLong(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out_.push_back(static_cast<char>((z & 0x7F) | 0x80));
    z >>= 7;
  }
  out_.push_back(static_cast<char>(z));
}

void Encoder::WriteFloat(float v) {
  uint32_t bits = std::bit_cast<uint32_t>(v);
  if constexpr (std::endian::native == std::endian::big) bits = std::byteswap(bits);
  out_.append(reinterpret_cast<const char*>(&bits), 4);
}

void Encoder::WriteDouble(double v) {
  uint64_t bits = std::bit_cast<uint64_t>(v);
  if constexpr (std::endian::native == std::endian::big) bits = std::byteswap(bits);
  out_.append(reinterpret_cast<const char*>(&bits), 8);
}

void Encoder::WriteBytes(std::string_view v) {
  WriteLong(static_cast<int64_t>(v.size()));
  out_.append(v);
}

namespace {

constexpr int kMaxDepth = 64;
constexpr int64_t kMaxItems = int64_t{1} << 26;

std::unexpected<Error> InField(std::string_view field, Error e) {
  e.message = fmt::format("{} (in field '{}')", e.message, field);
  return std::unexpected(std::move(e));
}

Result<Value> Decode(const Schema& s, Decoder& in, int depth);

// Reads the blocks of an array or map, calling `item` for each element.
template <typename Fn>
Status ReadBlocks(Decoder& in, const Schema& item_schema, bool is_map, Fn&& item) {
  int64_t total = 0;
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(int64_t count, in.ReadLong());
    if (count == 0) return {};
    if (count < 0) {
      if (count == INT64_MIN) return Corrupt("avro block count out of range");
      count = -count;
      FLOE_ASSIGN_OR_RETURN(int64_t block_bytes, in.ReadLong());
      if (block_bytes < 0 || static_cast<uint64_t>(block_bytes) > in.remaining()) {
        return Corrupt("avro block size {} exceeds the {} bytes left", block_bytes, in.remaining());
      }
    }
    bool zero_size = !is_map && item_schema.type == Type::kNull;
    if ((!zero_size && static_cast<uint64_t>(count) > in.remaining()) ||
        total + count > kMaxItems) {
      return Corrupt("avro block of {} items cannot fit in the {} bytes left", count,
                     in.remaining());
    }
    total += count;
    for (int64_t i = 0; i < count; ++i) FLOE_RETURN_IF_ERROR(item());
  }
}

Result<Value> Decode(const Schema& s, Decoder& in, int depth) {
  if (depth > kMaxDepth) return Corrupt("avro value nested deeper than {}", kMaxDepth);
  switch (s.type) {
    case Type::kNull:
      return Value();
    case Type::kBoolean: {
      FLOE_ASSIGN_OR_RETURN(bool b, in.ReadBool());
      return Value(b);
    }
    case Type::kInt: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, in.ReadInt());
      return Value(v);
    }
    case Type::kLong: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, in.ReadLong());
      return Value(v);
    }
    case Type::kFloat: {
      FLOE_ASSIGN_OR_RETURN(float v, in.ReadFloat());
      return Value(v);
    }
    case Type::kDouble: {
      FLOE_ASSIGN_OR_RETURN(double v, in.ReadDouble());
      return Value(v);
    }
    case Type::kString: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, in.ReadBytes());
      return Value(std::string(v));
    }
    case Type::kBytes: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, in.ReadBytes());
      return Value::Bytes(std::string(v));
    }
    case Type::kFixed: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, in.ReadFixed(static_cast<size_t>(s.size)));
      return Value::Bytes(std::string(v));
    }
    case Type::kEnum: {
      FLOE_ASSIGN_OR_RETURN(int32_t i, in.ReadInt());
      if (i < 0 || static_cast<size_t>(i) >= s.symbols.size()) {
        return Corrupt("avro enum index {} out of range for '{}'", i, s.name);
      }
      return Value(EnumValue{i});
    }
    case Type::kUnion: {
      FLOE_ASSIGN_OR_RETURN(int64_t b, in.ReadLong());
      if (b < 0 || static_cast<size_t>(b) >= s.branches.size()) {
        return Corrupt("avro union branch {} out of range ({} branches)", b, s.branches.size());
      }
      return Decode(*s.branches[b], in, depth + 1);
    }
    case Type::kRecord: {
      RecordValue r;
      r.fields.reserve(s.fields.size());
      for (const auto& f : s.fields) {
        auto v = Decode(*f.schema, in, depth + 1);
        if (!v) return InField(f.name, std::move(v).error());
        r.fields.push_back(std::move(*v));
      }
      return Value(std::move(r));
    }
    case Type::kArray: {
      ArrayValue a;
      FLOE_RETURN_IF_ERROR(ReadBlocks(in, *s.items, false, [&]() -> Status {
        FLOE_ASSIGN_OR_RETURN(Value v, Decode(*s.items, in, depth + 1));
        a.items.push_back(std::move(v));
        return {};
      }));
      return Value(std::move(a));
    }
    case Type::kMap: {
      MapValue m;
      FLOE_RETURN_IF_ERROR(ReadBlocks(in, *s.values, true, [&]() -> Status {
        FLOE_ASSIGN_OR_RETURN(std::string_view k, in.ReadBytes());
        FLOE_ASSIGN_OR_RETURN(Value v, Decode(*s.values, in, depth + 1));
        m.entries.emplace_back(std::string(k), std::move(v));
        return {};
      }));
      return Value(std::move(m));
    }
  }
  return Internal("bad avro type");
}

// A read's status without its value.
template <typename T>
Status Drop(Result<T> r) {
  if (!r) return std::unexpected(std::move(r).error());
  return {};
}

Status Skip(const Schema& s, Decoder& in, int depth) {
  if (depth > kMaxDepth) return Corrupt("avro value nested deeper than {}", kMaxDepth);
  switch (s.type) {
    case Type::kNull:
      return {};
    case Type::kBoolean:
      return Drop(in.ReadBool());
    case Type::kInt:
      return Drop(in.ReadInt());
    case Type::kLong:
      return Drop(in.ReadLong());
    case Type::kFloat:
      return Drop(in.ReadFloat());
    case Type::kDouble:
      return Drop(in.ReadDouble());
    case Type::kString:
    case Type::kBytes:
      return Drop(in.ReadBytes());
    case Type::kFixed:
      return Drop(in.ReadFixed(static_cast<size_t>(s.size)));
    case Type::kEnum: {
      FLOE_ASSIGN_OR_RETURN(int32_t i, in.ReadInt());
      if (i < 0 || static_cast<size_t>(i) >= s.symbols.size()) {
        return Corrupt("avro enum index {} out of range for '{}'", i, s.name);
      }
      return {};
    }
    case Type::kUnion: {
      FLOE_ASSIGN_OR_RETURN(int64_t b, in.ReadLong());
      if (b < 0 || static_cast<size_t>(b) >= s.branches.size()) {
        return Corrupt("avro union branch {} out of range ({} branches)", b, s.branches.size());
      }
      return Skip(*s.branches[b], in, depth + 1);
    }
    case Type::kRecord:
      for (const auto& f : s.fields) {
        auto st = Skip(*f.schema, in, depth + 1);
        if (!st) return InField(f.name, std::move(st).error());
      }
      return {};
    case Type::kArray:
      return ReadBlocks(in, *s.items, false, [&] { return Skip(*s.items, in, depth + 1); });
    case Type::kMap:
      return ReadBlocks(in, *s.values, true, [&]() -> Status {
        FLOE_RETURN_IF_ERROR(in.ReadBytes());
        return Skip(*s.values, in, depth + 1);
      });
  }
  return Internal("bad avro type");
}

// Which union branch a value belongs to: null -> the null branch; otherwise the first branch
// whose type accepts the value's kind.
std::optional<size_t> PickBranch(const Schema& u, const Value& v) {
  for (size_t i = 0; i < u.branches.size(); ++i) {
    Type t = u.branches[i]->type;
    bool ok = std::visit(
        [&](const auto& x) -> bool {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::monostate>) return t == Type::kNull;
          if constexpr (std::is_same_v<X, bool>) return t == Type::kBoolean;
          if constexpr (std::is_same_v<X, int32_t>) return t == Type::kInt || t == Type::kLong;
          if constexpr (std::is_same_v<X, int64_t>) return t == Type::kLong;
          if constexpr (std::is_same_v<X, float>) return t == Type::kFloat || t == Type::kDouble;
          if constexpr (std::is_same_v<X, double>) return t == Type::kDouble;
          if constexpr (std::is_same_v<X, std::string>) return t == Type::kString;
          if constexpr (std::is_same_v<X, BytesValue>)
            return t == Type::kBytes || t == Type::kFixed;
          if constexpr (std::is_same_v<X, EnumValue>) return t == Type::kEnum;
          if constexpr (std::is_same_v<X, RecordValue>) return t == Type::kRecord;
          if constexpr (std::is_same_v<X, ArrayValue>) return t == Type::kArray;
          if constexpr (std::is_same_v<X, MapValue>) return t == Type::kMap;
          return false;
        },
        v.v);
    if (ok) return i;
  }
  return std::nullopt;
}

Status Mismatch(const Schema& s) {
  return InvalidInput("value does not match avro type {}", TypeName(s.type));
}

}  // namespace

Result<Value> DecodeValue(const Schema& schema, Decoder& in, int depth) {
  return Decode(schema, in, depth);
}

Status SkipValue(const Schema& schema, Decoder& in, int depth) { return Skip(schema, in, depth); }

Status EncodeValue(const Schema& s, const Value& v, Encoder& out) {
  switch (s.type) {
    case Type::kNull:
      if (!v.is_null()) return Mismatch(s);
      return {};
    case Type::kBoolean:
      if (!v.is<bool>()) return Mismatch(s);
      out.WriteBool(v.as<bool>());
      return {};
    case Type::kInt:
      if (!v.is<int32_t>()) return Mismatch(s);
      out.WriteInt(v.as<int32_t>());
      return {};
    case Type::kLong:
      if (v.is<int32_t>()) {
        out.WriteLong(v.as<int32_t>());
      } else if (v.is<int64_t>()) {
        out.WriteLong(v.as<int64_t>());
      } else {
        return Mismatch(s);
      }
      return {};
    case Type::kFloat:
      if (!v.is<float>()) return Mismatch(s);
      out.WriteFloat(v.as<float>());
      return {};
    case Type::kDouble:
      if (v.is<float>()) {
        out.WriteDouble(v.as<float>());
      } else if (v.is<double>()) {
        out.WriteDouble(v.as<double>());
      } else {
        return Mismatch(s);
      }
      return {};
    case Type::kString:
      if (!v.is<std::string>()) return Mismatch(s);
      out.WriteBytes(v.as<std::string>());
      return {};
    case Type::kBytes:
      if (!v.is<BytesValue>()) return Mismatch(s);
      out.WriteBytes(v.as<BytesValue>().data);
      return {};
    case Type::kFixed:
      if (!v.is<BytesValue>() || v.as<BytesValue>().data.size() != static_cast<size_t>(s.size)) {
        return InvalidInput("value is not {} bytes for avro fixed '{}'", s.size, s.name);
      }
      out.WriteFixed(v.as<BytesValue>().data);
      return {};
    case Type::kEnum:
      if (!v.is<EnumValue>() || v.as<EnumValue>().index < 0 ||
          static_cast<size_t>(v.as<EnumValue>().index) >= s.symbols.size()) {
        return Mismatch(s);
      }
      out.WriteInt(v.as<EnumValue>().index);
      return {};
    case Type::kUnion: {
      auto b = PickBranch(s, v);
      if (!b) return InvalidInput("value matches no branch of an avro union");
      out.WriteLong(static_cast<int64_t>(*b));
      return EncodeValue(*s.branches[*b], v, out);
    }
    case Type::kRecord: {
      if (!v.is<RecordValue>() || v.as<RecordValue>().fields.size() != s.fields.size()) {
        return InvalidInput("value is not a record of {} fields for '{}'", s.fields.size(), s.name);
      }
      const auto& fields = v.as<RecordValue>().fields;
      for (size_t i = 0; i < fields.size(); ++i) {
        auto st = EncodeValue(*s.fields[i].schema, fields[i], out);
        if (!st) return InField(s.fields[i].name, std::move(st).error());
      }
      return {};
    }
    case Type::kArray: {
      if (!v.is<ArrayValue>()) return Mismatch(s);
      const auto& items = v.as<ArrayValue>().items;
      if (!items.empty()) {
        out.WriteLong(static_cast<int64_t>(items.size()));
        for (const auto& item : items) FLOE_RETURN_IF_ERROR(EncodeValue(*s.items, item, out));
      }
      out.WriteLong(0);
      return {};
    }
    case Type::kMap: {
      if (!v.is<MapValue>()) return Mismatch(s);
      const auto& entries = v.as<MapValue>().entries;
      if (!entries.empty()) {
        out.WriteLong(static_cast<int64_t>(entries.size()));
        for (const auto& [k, val] : entries) {
          out.WriteBytes(k);
          FLOE_RETURN_IF_ERROR(EncodeValue(*s.values, val, out));
        }
      }
      out.WriteLong(0);
      return {};
    }
  }
  return Internal("bad avro type");
}

}  // namespace floe::avro
