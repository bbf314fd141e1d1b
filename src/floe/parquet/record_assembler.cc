#include "floe/parquet/record_assembler.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace floe::parquet {

namespace {

using columnar::Column;
using columnar::ColumnPtr;

// The levels of one leaf as seen by a node: which entries start the node's values and whether
// each of those values is non-null.
struct Slots {
  bool all = false;          // every entry is a slot (flat leaf at the top)
  std::vector<int64_t> pos;  // entry index of each slot, unless `all`
  int64_t count = 0;
  std::vector<uint8_t> valid;  // 1 when the slot's value is non-null; empty when all are
  int64_t null_count = 0;
};

int16_t DefAt(const LeafBatch& b, int64_t i) { return b.def.empty() ? b.def_when_empty : b.def[i]; }
int16_t RepAt(const LeafBatch& b, int64_t i) { return b.rep.empty() ? 0 : b.rep[i]; }

Slots FindSlots(const FieldNode& node, const LeafBatch& b) {
  Slots s;
  if (b.rep.empty() && node.def_slot == 0) {
    s.all = true;
    s.count = b.num_levels;
  } else {
    s.pos.reserve(static_cast<size_t>(b.num_levels));
    for (int64_t i = 0; i < b.num_levels; ++i) {
      if (RepAt(b, i) <= node.rep_slot && DefAt(b, i) >= node.def_slot) s.pos.push_back(i);
    }
    s.count = static_cast<int64_t>(s.pos.size());
  }
  if (node.def_valid > 0 && !b.def.empty()) {
    s.valid.resize(static_cast<size_t>(s.count));
    const int16_t* def = b.def.data();
    const int16_t def_valid = node.def_valid;
    uint8_t* valid = s.valid.data();
    // Locals, not members: stores through `valid` (uint8_t may alias anything) would otherwise
    // make the compiler reload s.count and s.pos each iteration. Branch-free: this runs once per
    // value of every nullable column.
    const int64_t count = s.count;
    int64_t valid_count = 0;
    if (s.all) {
      for (int64_t k = 0; k < count; ++k) {
        const uint8_t v = def[k] >= def_valid;
        valid[k] = v;
        valid_count += v;
      }
    } else {
      const int64_t* pos = s.pos.data();
      for (int64_t k = 0; k < count; ++k) {
        const uint8_t v = def[pos[k]] >= def_valid;
        valid[k] = v;
        valid_count += v;
      }
    }
    s.null_count = s.count - valid_count;
    if (s.null_count == 0) s.valid.clear();
  }
  return s;
}

// Packs `n` 0/1 bytes into an LSB-first bitmap, eight at a time.
std::vector<uint8_t> PackBytes(const uint8_t* flags, int64_t n) {
  std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    uint64_t w;
    std::memcpy(&w, flags + k, 8);
    // Each byte is 0 or 1: the multiply gathers byte j's low bit into bit 56 + j.
    bits[static_cast<size_t>(k / 8)] = static_cast<uint8_t>((w * 0x0102040810204080ull) >> 56);
  }
  for (; k < n; ++k) {
    if (flags[k]) columnar::SetBit(bits.data(), k);
  }
  return bits;
}

Buffer ValidityBitmap(const Slots& s) {
  if (s.null_count == 0) return {};
  return Buffer(PackBytes(s.valid.data(), s.count));
}

bool IsValid(const Slots& s, int64_t k) { return s.valid.empty() || s.valid[k] != 0; }

// Spreads the dense non-null values over the slots, nulls zero. A null slot reads the next
// value too and keeps zero instead (a select, not a branch); `next` never passes the last value
// read because the final read is clamped.
template <typename T>
void SpreadFixed(const Slots& s, const uint8_t* src, uint8_t* dst) {
  const uint8_t* valid = s.valid.data();
  const int64_t last = s.count - s.null_count - 1;
  T* out = reinterpret_cast<T*>(dst);
  int64_t next = 0;
  for (int64_t k = 0; k < s.count; ++k) {
    T x = 0;
    if (last >= 0) std::memcpy(&x, src + std::min(next, last) * sizeof(T), sizeof(T));
    out[k] = valid[k] ? x : T{0};
    next += valid[k];
  }
}

Result<ColumnPtr> BuildLeaf(const FieldNode& node, const ColumnDescriptor& leaf, LeafBatch& b) {
  Slots s = FindSlots(node, b);
  auto c = std::make_shared<Column>();
  c->type = leaf.type;
  c->length = s.count;
  if (leaf.conversion == ReadConversion::kNull) {
    c->null_count = s.count;
    c->validity =
        Buffer(std::vector<uint8_t>(static_cast<size_t>(columnar::BitmapBytes(s.count)), 0));
    return c;
  }
  c->null_count = s.null_count;
  c->validity = ValidityBitmap(s);
  DenseValues& v = b.values;  // each leaf's values belong to one node: moved out
  const int64_t non_null = s.count - s.null_count;
  if (v.count != non_null) {
    return Corrupt("column '{}': {} values for {} non-null entries", leaf.path, v.count, non_null);
  }
  if (leaf.conversion == ReadConversion::kBool && s.null_count == 0) {
    c->values = Buffer(PackBytes(v.data.data(), s.count));
    return c;
  }
  if (leaf.conversion == ReadConversion::kBool) {
    std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(s.count)), 0);
    int64_t next = 0;
    for (int64_t k = 0; k < s.count; ++k) {
      if (IsValid(s, k) && v.data[static_cast<size_t>(next++)] != 0)
        columnar::SetBit(bits.data(), k);
    }
    c->values = Buffer(std::move(bits));
    return c;
  }
  if (v.width > 0) {
    const size_t w = static_cast<size_t>(v.width);
    if (s.null_count == 0) {
      c->values = Buffer(std::move(v.data));
    } else {
      // SpreadFixed writes every slot; the other widths leave null slots to the zero fill.
      ByteVector out(static_cast<size_t>(s.count) * w);
      switch (w) {
        case 1:  // booleans' bytes before packing, and matched flags (ValueMatcher)
          SpreadFixed<uint8_t>(s, v.data.data(), out.data());
          break;
        case 2:
          SpreadFixed<uint16_t>(s, v.data.data(), out.data());
          break;
        case 4:
          SpreadFixed<uint32_t>(s, v.data.data(), out.data());
          break;
        case 8:
          SpreadFixed<uint64_t>(s, v.data.data(), out.data());
          break;
        default: {
          std::memset(out.data(), 0, out.size());
          int64_t next = 0;
          for (int64_t k = 0; k < s.count; ++k) {
            if (IsValid(s, k)) {
              std::memcpy(out.data() + static_cast<size_t>(k) * w,
                          v.data.data() + static_cast<size_t>(next++) * w, w);
            }
          }
        }
      }
      c->values = Buffer(std::move(out));
    }
    return c;
  }
  // Binary: offsets repeat over nulls.
  if (static_cast<int64_t>(v.offsets.size()) != v.count + 1) {
    return Internal("column '{}': {} offsets for {} values", leaf.path, v.offsets.size(), v.count);
  }
  if (s.null_count == 0) {
    c->offsets = Buffer::Adopt(std::move(v.offsets));  // one per value already: no copy
  } else {
    ByteVector offsets(static_cast<size_t>(s.count + 1) * 4);  // every one written below
    auto* o = reinterpret_cast<int32_t*>(offsets.data());
    // Branch-free: nulls fall at random, and a mispredicted branch per null cost more than the
    // copy.
    const uint8_t* valid = s.valid.data();
    const int32_t* from = v.offsets.data();
    int64_t next = 0;
    o[0] = 0;
    for (int64_t k = 0; k < s.count; ++k) {
      next += valid[k];
      o[k + 1] = from[next];
    }
    c->offsets = Buffer(std::move(offsets));
  }
  c->values = Buffer(std::move(v.data));
  if (v.code_dictionary && v.codes_complete && static_cast<int64_t>(v.codes.size()) == v.count) {
    // One code per row: the value's entry, 0 where the row is NULL.
    if (s.null_count == 0) {
      c->dictionary = v.code_dictionary;
      c->codes = Buffer::Adopt(std::move(v.codes));
      return c;
    }
    ByteVector codes(static_cast<size_t>(s.count) * 4);
    SpreadFixed<uint32_t>(s, reinterpret_cast<const uint8_t*>(v.codes.data()), codes.data());
    c->dictionary = v.code_dictionary;
    c->codes = Buffer(std::move(codes));
  }
  return c;
}

Result<ColumnPtr> Build(const FieldNode& node, const std::vector<ColumnDescriptor>& leaves,
                        std::span<LeafBatch* const> batches) {
  if (node.leaf < 0 || static_cast<size_t>(node.leaf) >= batches.size() || !batches[node.leaf]) {
    return Internal("field '{}' has no decoded leaf", node.path);
  }
  LeafBatch& b = *batches[node.leaf];
  if (node.kind == FieldNode::Kind::kLeaf) return BuildLeaf(node, leaves[node.leaf], b);

  Slots s = FindSlots(node, b);
  auto c = std::make_shared<Column>();
  c->type = node.field.type;
  c->length = s.count;
  c->null_count = s.null_count;
  c->validity = ValidityBitmap(s);
  if (node.kind == FieldNode::Kind::kStruct) {
    for (const FieldNode& child : node.children) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr col, Build(child, leaves, batches));
      if (col->length != s.count) {
        return Corrupt("fields of '{}' disagree on its length: '{}' has {} values, '{}' has {}",
                       node.path, child.path, col->length, leaves[node.leaf].path, s.count);
      }
      c->children.push_back(std::move(col));
    }
    return c;
  }
  // List or map: the child's slots between two of this node's make one value.
  const FieldNode& child = node.children.at(0);
  ByteVector offsets(static_cast<size_t>(s.count + 1) * 4);  // every one written below
  auto* o = reinterpret_cast<int32_t*>(offsets.data());
  int64_t children = 0;
  int64_t k = 0;  // next slot of this node
  o[0] = 0;
  for (int64_t i = 0; i < b.num_levels; ++i) {
    const bool starts_slot = s.all ? true : (k < s.count && s.pos[k] == i);
    if (starts_slot) {
      if (k > 0) o[k] = static_cast<int32_t>(children);
      ++k;
    }
    if (RepAt(b, i) <= child.rep_slot && DefAt(b, i) >= child.def_slot) {
      if (k == 0) return Corrupt("column '{}': list values before the first row", node.path);
      ++children;
      if (children > std::numeric_limits<int32_t>::max()) {
        return Unsupported("list '{}' holds more than 2^31 values in one batch", node.path);
      }
    }
  }
  if (k != s.count) return Internal("list '{}': {} of {} slots placed", node.path, k, s.count);
  o[s.count] = static_cast<int32_t>(children);
  c->offsets = Buffer(std::move(offsets));
  FLOE_ASSIGN_OR_RETURN(ColumnPtr items, Build(child, leaves, batches));
  if (items->length != children) {
    return Corrupt("list '{}' counts {} values, its items {}", node.path, children, items->length);
  }
  c->children.push_back(std::move(items));
  return c;
}

}  // namespace

Result<ColumnPtr> AssembleColumn(const FieldNode& node, const std::vector<ColumnDescriptor>& leaves,
                                 std::span<LeafBatch* const> batches) {
  return Build(node, leaves, batches);
}

Result<ColumnPtr> ValuesAsColumn(const ColumnDescriptor& leaf, DenseValues values) {
  FieldNode node;
  node.kind = FieldNode::Kind::kLeaf;
  node.path = leaf.path;
  node.field.type = leaf.type;
  LeafBatch b;
  b.num_levels = values.count;
  b.num_rows = values.count;
  b.def_when_empty = 0;  // every value present: the node's def_slot and def_valid are 0
  b.values = std::move(values);
  return BuildLeaf(node, leaf, b);
}

}  // namespace floe::parquet
