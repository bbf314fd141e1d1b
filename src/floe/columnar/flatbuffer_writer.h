// FlatBufferWriter: builds one FlatBuffers buffer front to back, without generated code -- enough
// for the Arrow IPC metadata (arrow_ipc.h). A table is written with its fields in their slots and
// its offsets left open; what they point to (strings, vectors, tables) is written after it and
// joined with Link, since FlatBuffers' offsets point forward. Scalars, vectors and structs land
// aligned to their size relative to the buffer's start, as verifiers require. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace floe::columnar {

class FlatBufferWriter {
 public:
  // One field of a table: a scalar of `size` bytes (1, 2, 4 or 8) with the little-endian value
  // `bits`, or an offset (size 0) to be joined later.
  struct Slot {
    int id = 0;  // the field's position in the schema's declaration order
    int size = 0;
    uint64_t bits = 0;

    template <typename T>
    static Slot Scalar(int id, T value) {
      uint64_t bits = 0;
      std::memcpy(&bits, &value, sizeof(T));
      return Slot{id, static_cast<int>(sizeof(T)), bits};
    }
    static Slot Offset(int id) { return Slot{id, 0, 0}; }
  };

  FlatBufferWriter();  // the root offset comes first

  // Writes a vtable and its table; returns the table's position. `offsets` receives the
  // positions of the offset slots, in the order they were given.
  size_t Table(std::initializer_list<Slot> slots, std::vector<size_t>* offsets = nullptr);
  size_t String(std::string_view text);
  // A vector of `count` structs, `bytes` their little-endian images, aligned to `align`.
  size_t StructVector(const void* bytes, size_t count, size_t size, size_t align);
  // A vector of `count` offsets; `elements` receives their positions, for Link.
  size_t OffsetVector(size_t count, std::vector<size_t>* elements);
  // Points the offset at `at` to `target` (written after it).
  void Link(size_t at, size_t target);

  // Makes `root` the root table and returns the bytes, padded to a multiple of 8.
  std::vector<uint8_t> Finish(size_t root);

 private:
  void Pad(size_t align, size_t phase = 0);  // until position % align == phase
  template <typename T>
  void Put(T v) {
    size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
  }

  std::vector<uint8_t> bytes_;
};

}  // namespace floe::columnar
