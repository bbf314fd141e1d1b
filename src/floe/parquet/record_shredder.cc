#include "floe/parquet/record_shredder.h"

#include "floe/columnar/take.h"

namespace floe::parquet {

namespace {

using columnar::Column;
using columnar::Field;
using columnar::TypeId;

class Shredder {
 public:
  Shredder(const LeafColumn& leaf, ShreddedLeaf* out) : leaf_(leaf), out_(out) {}

  // Value `i` of `column` (the field at depth `depth` of the leaf's path), reached with
  // definition level `def`; `rep` is the repetition level of its first level entry and
  // `repeated` the number of repeated fields above it.
  Status Visit(const Column& column, const Field& field, size_t depth, int64_t i, int16_t def,
               int16_t rep, int16_t repeated) {
    if (!column.IsValid(i)) {
      if (!field.nullable) {
        return InvalidInput("column '{}': required field '{}' holds a null", leaf_.dotted_path(),
                            field.name);
      }
      Emit(def, rep);
      return {};
    }
    if (field.nullable) ++def;
    if (depth == leaf_.child_path.size()) {
      if (field.type.IsNested()) {
        return Internal("column '{}': the leaf path ends at a nested field", leaf_.dotted_path());
      }
      leaf_column_ = &column;
      indices_.push_back(i);
      Emit(def, rep);
      return {};
    }
    const int k = leaf_.child_path[depth];
    if (k < 0 || static_cast<size_t>(k) >= column.children.size() ||
        static_cast<size_t>(k) >= field.type.children.size()) {
      return Internal("column '{}': no child {} at depth {}", leaf_.dotted_path(), k, depth);
    }
    const Column& child = *column.children[static_cast<size_t>(k)];
    const Field& child_field = field.type.children[static_cast<size_t>(k)];
    switch (field.type.id) {
      case TypeId::kStruct:
        return Visit(child, child_field, depth + 1, i, def, rep, repeated);
      case TypeId::kList:
      case TypeId::kMap: {
        const int32_t* offsets = column.Offsets();
        const int32_t begin = offsets[i], end = offsets[i + 1];
        if (begin == end) {
          Emit(def, rep);
          return {};
        }
        const auto inner = static_cast<int16_t>(repeated + 1);
        for (int32_t j = begin; j < end; ++j) {
          FLOE_RETURN_IF_ERROR(Visit(child, child_field, depth + 1, j,
                                     static_cast<int16_t>(def + 1), j == begin ? rep : inner,
                                     inner));
        }
        return {};
      }
      default:
        return Internal("column '{}': {} has no children", leaf_.dotted_path(),
                        field.type.ToString());
    }
  }

  Status Finish() {
    if (leaf_column_ == nullptr) return {};  // no defined value in these rows
    FLOE_ASSIGN_OR_RETURN(out_->values, columnar::Take(*leaf_column_, indices_));
    return {};
  }

 private:
  void Emit(int16_t def, int16_t rep) {
    out_->definition_levels.push_back(def);
    out_->repetition_levels.push_back(rep);
  }

  const LeafColumn& leaf_;
  ShreddedLeaf* out_;
  const Column* leaf_column_ = nullptr;
  std::vector<int64_t> indices_;
};

}  // namespace

Status ShredLeaf(const LeafColumn& leaf, const Field& field, const Column& column, int64_t offset,
                 int64_t length, ShreddedLeaf* out) {
  out->definition_levels.clear();
  out->repetition_levels.clear();
  out->values.reset();
  out->num_rows = length;
  Shredder s(leaf, out);
  for (int64_t i = offset; i < offset + length; ++i) {
    FLOE_RETURN_IF_ERROR(s.Visit(column, field, 0, i, 0, 0, 0));
  }
  return s.Finish();
}

}  // namespace floe::parquet
