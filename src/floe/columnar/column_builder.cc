#include "floe/columnar/column_builder.h"

#include <algorithm>
#include <cstring>

namespace floe::columnar {

void ValidityBuilder::Push(bool valid) {
  if (static_cast<int64_t>(bits_.size()) * 8 <= length_) bits_.push_back(0);
  if (valid) SetBit(bits_.data(), length_);
  ++length_;
}

void ValidityBuilder::AppendValid() {
  if (null_count_ == 0) {
    ++length_;
  } else {
    Push(true);
  }
}

void ValidityBuilder::AppendValid(int64_t n) {
  if (null_count_ == 0) {
    length_ += n;
  } else {
    for (int64_t i = 0; i < n; ++i) Push(true);
  }
}

void ValidityBuilder::AppendNull() {
  if (null_count_ == 0) {
    // First null: materialise the bitmap with every earlier row valid.
    bits_.assign(BitmapBytes(length_ + 1), 0);
    for (int64_t i = 0; i < length_; ++i) SetBit(bits_.data(), i);
  }
  ++null_count_;
  if (static_cast<int64_t>(bits_.size()) * 8 <= length_) bits_.push_back(0);
  ClearBit(bits_.data(), length_);
  ++length_;
}

Buffer ValidityBuilder::Finish() {
  Buffer out = null_count_ == 0 ? Buffer() : Buffer(std::move(bits_));
  bits_.clear();
  length_ = 0;
  null_count_ = 0;
  return out;
}

void BoolBuilder::Append(bool v) {
  int64_t i = validity_.length();
  if (BitmapBytes(i + 1) > static_cast<int64_t>(bits_.size())) bits_.push_back(0);
  if (v) SetBit(bits_.data(), i);
  validity_.AppendValid();
}

void BoolBuilder::AppendNull() {
  int64_t i = validity_.length();
  if (BitmapBytes(i + 1) > static_cast<int64_t>(bits_.size())) bits_.push_back(0);
  validity_.AppendNull();
}

ColumnPtr BoolBuilder::Finish() {
  auto c = std::make_shared<Column>();
  c->type = Bool();
  c->length = validity_.length();
  c->null_count = validity_.null_count();
  c->validity = validity_.Finish();
  c->values = Buffer(std::move(bits_));
  bits_.clear();
  return c;
}

BinaryBuilder::BinaryBuilder(DataType type) : type_(std::move(type)) {}

void BinaryBuilder::Reserve(int64_t rows, int64_t bytes) {
  offsets_.reserve(offsets_.size() + rows);
  data_.reserve(data_.size() + bytes);
}

Status BinaryBuilder::Append(std::string_view v) {
  if (type_.id == TypeId::kFixedSizeBinary) {
    if (static_cast<int32_t>(v.size()) != type_.byte_width) {
      return InvalidInput("value of {} bytes for {}", v.size(), type_.ToString());
    }
  } else if (data_.size() + v.size() > static_cast<size_t>(INT32_MAX)) {
    return InvalidInput("{} column passes 2 GiB of bytes in one batch", type_.ToString());
  }
  // Grown, then one memcpy: insert from char iterators copies byte by byte, several calls a byte
  // in the unoptimised sanitizer build (a third of the chapter tests' time there).
  if (!v.empty()) {
    const size_t at = data_.size();
    data_.resize(at + v.size());
    std::memcpy(data_.data() + at, v.data(), v.size());
  }
  if (type_.id != TypeId::kFixedSizeBinary) offsets_.push_back(static_cast<int32_t>(data_.size()));
  validity_.AppendValid();
  return {};
}

void BinaryBuilder::AppendNull() {
  if (type_.id == TypeId::kFixedSizeBinary) {
    data_.insert(data_.end(), type_.byte_width, 0);
  } else {
    offsets_.push_back(static_cast<int32_t>(data_.size()));
  }
  validity_.AppendNull();
}

ColumnPtr BinaryBuilder::Finish() {
  auto c = std::make_shared<Column>();
  c->type = type_;
  c->length = validity_.length();
  c->null_count = validity_.null_count();
  c->validity = validity_.Finish();
  c->values = Buffer(std::move(data_));
  if (type_.id != TypeId::kFixedSizeBinary) {
    std::vector<uint8_t> off(offsets_.size() * 4);
    std::memcpy(off.data(), offsets_.data(), off.size());
    c->offsets = Buffer(std::move(off));
  }
  data_.clear();
  offsets_.assign(1, 0);
  return c;
}

Result<ColumnPtr> RepeatedBinary(const DataType& type, std::string_view value, int64_t rows) {
  const auto width = static_cast<int64_t>(value.size());
  if (width > 0 && rows > static_cast<int64_t>(INT32_MAX) / width) {
    return InvalidInput("{} column of {} copies of {} bytes passes 2 GiB", type.ToString(), rows,
                        width);
  }
  ByteVector bytes(static_cast<size_t>(rows * width));
  if (rows > 0 && width > 0) {
    std::memcpy(bytes.data(), value.data(), value.size());
    // Each copy doubles what is there.
    for (size_t have = value.size(); have < bytes.size(); have *= 2) {
      std::memcpy(bytes.data() + have, bytes.data(), std::min(have, bytes.size() - have));
    }
  }
  ByteVector offsets(static_cast<size_t>(rows + 1) * 4);
  auto* off = reinterpret_cast<int32_t*>(offsets.data());
  for (int64_t i = 0; i <= rows; ++i) off[i] = static_cast<int32_t>(i * width);
  auto entry = std::make_shared<Column>();
  entry->type = type;
  entry->length = 1;
  entry->values = Buffer::Copy(AsBytes(value));
  std::vector<uint8_t> entry_offsets(8, 0);
  const auto end = static_cast<int32_t>(width);
  std::memcpy(entry_offsets.data() + 4, &end, 4);
  entry->offsets = Buffer(std::move(entry_offsets));
  auto c = std::make_shared<Column>();
  c->type = type;
  c->length = rows;
  c->values = Buffer(std::move(bytes));
  c->offsets = Buffer(std::move(offsets));
  c->dictionary = std::move(entry);
  c->codes = Buffer(std::vector<uint8_t>(static_cast<size_t>(rows) * 4, 0));
  return ColumnPtr(std::move(c));
}

ColumnPtr NullColumn(const DataType& t, int64_t rows) {
  auto out = std::make_shared<Column>();
  out->type = t;
  out->length = rows;
  out->null_count = rows;
  out->validity = Buffer(std::vector<uint8_t>(BitmapBytes(rows), 0));
  if (t.IsBinaryLike() || t.id == TypeId::kList || t.id == TypeId::kMap) {
    out->offsets = Buffer(std::vector<uint8_t>((rows + 1) * 4, 0));
  } else if (t.id == TypeId::kBool) {
    out->values = Buffer(std::vector<uint8_t>(BitmapBytes(rows), 0));
  } else if (!t.IsNested()) {
    out->values = Buffer(std::vector<uint8_t>(rows * std::max(0, t.FixedWidth()), 0));
  }
  if (t.id == TypeId::kStruct) {
    for (const Field& f : t.children) out->children.push_back(NullColumn(f.type, rows));
  } else if (t.id == TypeId::kList || t.id == TypeId::kMap) {
    for (const Field& f : t.children) out->children.push_back(NullColumn(f.type, 0));
  }
  return out;
}

}  // namespace floe::columnar
