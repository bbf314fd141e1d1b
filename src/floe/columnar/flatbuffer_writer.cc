#include "floe/columnar/flatbuffer_writer.h"

#include <algorithm>

namespace floe::columnar {
namespace {

int Width(const FlatBufferWriter::Slot& s) { return s.size == 0 ? 4 : s.size; }

}  // namespace

FlatBufferWriter::FlatBufferWriter() { Put<uint32_t>(0); }

void FlatBufferWriter::Pad(size_t align, size_t phase) {
  while (bytes_.size() % align != phase) bytes_.push_back(0);
}

size_t FlatBufferWriter::Table(std::initializer_list<Slot> slots, std::vector<size_t>* offsets) {
  // Widest first: after the 4-byte vtable offset every field then sits at its own alignment.
  std::vector<Slot> sorted(slots);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Slot& a, const Slot& b) { return Width(a) > Width(b); });
  int num_slots = 0;
  int widest = 4;
  for (const Slot& s : sorted) {
    num_slots = std::max(num_slots, s.id + 1);
    widest = std::max(widest, Width(s));
  }
  std::vector<uint16_t> field_at(static_cast<size_t>(num_slots), 0);
  size_t inline_size = 4;
  for (const Slot& s : sorted) {
    field_at[static_cast<size_t>(s.id)] = static_cast<uint16_t>(inline_size);
    inline_size += static_cast<size_t>(Width(s));
  }
  Pad(2);
  const size_t vtable = bytes_.size();
  Put<uint16_t>(static_cast<uint16_t>(4 + 2 * num_slots));
  Put<uint16_t>(static_cast<uint16_t>(inline_size));
  for (uint16_t at : field_at) Put<uint16_t>(at);
  // An 8-byte field needs the table to start 4 bytes before an 8-byte boundary.
  if (widest == 8) {
    Pad(8, 4);
  } else {
    Pad(4);
  }
  const size_t table = bytes_.size();
  Put<int32_t>(static_cast<int32_t>(table - vtable));  // the vtable sits that far before
  for (const Slot& s : sorted) {
    const size_t at = bytes_.size();
    bytes_.resize(at + static_cast<size_t>(Width(s)));
    std::memcpy(bytes_.data() + at, &s.bits, static_cast<size_t>(Width(s)));
  }
  if (offsets != nullptr) {
    for (const Slot& s : slots) {
      if (s.size == 0) offsets->push_back(table + field_at[static_cast<size_t>(s.id)]);
    }
  }
  return table;
}

size_t FlatBufferWriter::String(std::string_view text) {
  Pad(4);
  const size_t at = bytes_.size();
  Put<uint32_t>(static_cast<uint32_t>(text.size()));
  bytes_.insert(bytes_.end(), text.begin(), text.end());
  bytes_.push_back(0);  // FlatBuffers strings end in a NUL the length leaves out
  return at;
}

size_t FlatBufferWriter::StructVector(const void* bytes, size_t count, size_t size, size_t align) {
  // The length is 4 bytes just before the first element, which is aligned to `align`.
  Pad(std::max<size_t>(align, 4), std::max<size_t>(align, 4) - 4);
  const size_t at = bytes_.size();
  Put<uint32_t>(static_cast<uint32_t>(count));
  const auto* b = static_cast<const uint8_t*>(bytes);
  if (count > 0) bytes_.insert(bytes_.end(), b, b + count * size);
  return at;
}

size_t FlatBufferWriter::OffsetVector(size_t count, std::vector<size_t>* elements) {
  Pad(4);
  const size_t at = bytes_.size();
  Put<uint32_t>(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) {
    elements->push_back(bytes_.size());
    Put<uint32_t>(0);
  }
  return at;
}

void FlatBufferWriter::Link(size_t at, size_t target) {
  const auto distance = static_cast<uint32_t>(target - at);
  std::memcpy(bytes_.data() + at, &distance, 4);
}

std::vector<uint8_t> FlatBufferWriter::Finish(size_t root) {
  Link(0, root);
  Pad(8);
  return std::move(bytes_);
}

}  // namespace floe::columnar
