#include "floe/parquet/schema.h"

#include <fmt/format.h>

namespace floe::parquet {

namespace {

using columnar::DataType;
using columnar::Field;
using columnar::TimeUnit;

// The flat, depth-first schema list as a tree of indices.
struct Tree {
  std::vector<std::vector<int>> children;  // per schema index
};

Tree BuildTree(const std::vector<SchemaElement>& schema) {
  Tree t;
  t.children.resize(schema.size());
  std::vector<std::pair<int, int64_t>> open = {{0, schema[0].num_children.value_or(0)}};
  for (size_t i = 1; i < schema.size() && !open.empty(); ++i) {
    while (!open.empty() && open.back().second == 0) open.pop_back();
    if (open.empty()) break;
    --open.back().second;
    t.children[open.back().first].push_back(static_cast<int>(i));
    if (schema[i].num_children.value_or(0) > 0) {
      open.emplace_back(static_cast<int>(i), *schema[i].num_children);
    }
  }
  return t;
}

bool HasLogical(const SchemaElement& e, LogicalType::Kind kind) {
  return e.logical_type && e.logical_type->kind == kind;
}

bool IsListGroup(const SchemaElement& e) {
  return HasLogical(e, LogicalType::Kind::kList) ||
         (!e.logical_type && e.converted_type == ConvertedType::kList);
}

bool IsMapGroup(const SchemaElement& e) {
  if (HasLogical(e, LogicalType::Kind::kMap)) return true;
  if (e.logical_type && e.logical_type->kind != LogicalType::Kind::kUnrecognized) return false;
  return e.converted_type == ConvertedType::kMap || e.converted_type == ConvertedType::kMapKeyValue;
}

LeafType Leaf(DataType type, ReadConversion conversion, StatsDomain domain, int64_t mul = 1) {
  return LeafType{std::move(type), conversion, domain, mul};
}

// The physical type's own mapping, used when there is no annotation or it does not apply.
LeafType PhysicalLeaf(const SchemaElement& e) {
  switch (*e.type) {
    case PhysicalType::kBoolean:
      return Leaf(columnar::Bool(), ReadConversion::kBool, StatsDomain::kBool);
    case PhysicalType::kInt32:
      return Leaf(columnar::Int32(), ReadConversion::kCopy, StatsDomain::kSigned);
    case PhysicalType::kInt64:
      return Leaf(columnar::Int64(), ReadConversion::kCopy, StatsDomain::kSigned);
    case PhysicalType::kInt96:
      return Leaf(columnar::Timestamp(TimeUnit::kNano), ReadConversion::kInt96ToNanos,
                  StatsDomain::kNone);
    case PhysicalType::kFloat:
      return Leaf(columnar::Float32(), ReadConversion::kCopy, StatsDomain::kFloat);
    case PhysicalType::kDouble:
      return Leaf(columnar::Float64(), ReadConversion::kCopy, StatsDomain::kFloat);
    case PhysicalType::kByteArray:
      return Leaf(columnar::Binary(), ReadConversion::kBinary, StatsDomain::kBytes);
    case PhysicalType::kFixedLenByteArray:
      return Leaf(columnar::FixedSizeBinary(e.type_length.value_or(0)), ReadConversion::kFixed,
                  StatsDomain::kBytes);
  }
  return Leaf(columnar::Binary(), ReadConversion::kBinary, StatsDomain::kNone);
}

Result<LeafType> DecimalLeaf(const SchemaElement& e, int32_t precision, int32_t scale) {
  if (precision < 1 || precision > 38) {
    return Unsupported("decimal({}, {}) column '{}': floe reads precision 1..38 (decimal128)",
                       precision, scale, e.name);
  }
  if (scale < 0 || scale > precision) {
    return Corrupt("decimal column '{}' has scale {} outside 0..{}", e.name, scale, precision);
  }
  DataType t = columnar::Decimal128(precision, scale);
  switch (*e.type) {
    case PhysicalType::kInt32:
      return Leaf(t, ReadConversion::kInt32ToDecimal, StatsDomain::kDecimal);
    case PhysicalType::kInt64:
      return Leaf(t, ReadConversion::kInt64ToDecimal, StatsDomain::kDecimal);
    case PhysicalType::kFixedLenByteArray:
    case PhysicalType::kByteArray:
      return Leaf(t, ReadConversion::kBytesToDecimal, StatsDomain::kDecimal);
    default:
      return PhysicalLeaf(e);
  }
}

LeafType IntegerLeaf(const SchemaElement& e, int bits, bool is_signed) {
  if (*e.type == PhysicalType::kInt32) {
    if (is_signed) {
      if (bits == 8)
        return Leaf(columnar::Int8(), ReadConversion::kInt32ToInt8, StatsDomain::kSigned);
      if (bits == 16) {
        return Leaf(columnar::Int16(), ReadConversion::kInt32ToInt16, StatsDomain::kSigned);
      }
      if (bits == 32) return Leaf(columnar::Int32(), ReadConversion::kCopy, StatsDomain::kSigned);
    } else {
      if (bits == 8) {
        return Leaf(columnar::UInt8(), ReadConversion::kInt32ToUInt8, StatsDomain::kUnsigned);
      }
      if (bits == 16) {
        return Leaf(columnar::UInt16(), ReadConversion::kInt32ToUInt16, StatsDomain::kUnsigned);
      }
      if (bits == 32) {
        return Leaf(columnar::UInt32(), ReadConversion::kCopy, StatsDomain::kUnsigned);
      }
    }
  } else if (*e.type == PhysicalType::kInt64 && bits == 64) {
    return is_signed ? Leaf(columnar::Int64(), ReadConversion::kCopy, StatsDomain::kSigned)
                     : Leaf(columnar::UInt64(), ReadConversion::kCopy, StatsDomain::kUnsigned);
  }
  return PhysicalLeaf(e);
}

LeafType TimeLeaf(const SchemaElement& e, LogicalType::TimeUnit unit) {
  if (*e.type == PhysicalType::kInt32 && unit == LogicalType::TimeUnit::kMillis) {
    return Leaf(columnar::Time64(TimeUnit::kMicro), ReadConversion::kMillisToMicros,
                StatsDomain::kSigned, 1000);
  }
  if (*e.type == PhysicalType::kInt64 && unit == LogicalType::TimeUnit::kMicros) {
    return Leaf(columnar::Time64(TimeUnit::kMicro), ReadConversion::kCopy, StatsDomain::kSigned);
  }
  if (*e.type == PhysicalType::kInt64 && unit == LogicalType::TimeUnit::kNanos) {
    return Leaf(columnar::Time64(TimeUnit::kNano), ReadConversion::kCopy, StatsDomain::kSigned);
  }
  return PhysicalLeaf(e);
}

LeafType TimestampLeaf(const SchemaElement& e, LogicalType::TimeUnit unit, bool utc) {
  if (*e.type != PhysicalType::kInt64) return PhysicalLeaf(e);
  TimeUnit u;
  switch (unit) {
    case LogicalType::TimeUnit::kMillis:
      u = TimeUnit::kMilli;
      break;
    case LogicalType::TimeUnit::kMicros:
      u = TimeUnit::kMicro;
      break;
    case LogicalType::TimeUnit::kNanos:
      u = TimeUnit::kNano;
      break;
    default:
      return PhysicalLeaf(e);
  }
  return Leaf(columnar::Timestamp(u, utc ? "UTC" : ""), ReadConversion::kCopy,
              StatsDomain::kSigned);
}

LeafType StringLeaf(const SchemaElement& e) {
  if (*e.type == PhysicalType::kByteArray) {
    return Leaf(columnar::String(), ReadConversion::kBinary, StatsDomain::kBytes);
  }
  return PhysicalLeaf(e);
}

Result<LeafType> FromLogical(const SchemaElement& e, const LogicalType& lt) {
  using K = LogicalType::Kind;
  switch (lt.kind) {
    case K::kString:
    case K::kEnum:
    case K::kJson:
      return StringLeaf(e);
    case K::kDecimal:
      return DecimalLeaf(e, lt.precision, lt.scale);
    case K::kDate:
      if (*e.type == PhysicalType::kInt32) {
        return Leaf(columnar::Date32(), ReadConversion::kCopy, StatsDomain::kSigned);
      }
      return PhysicalLeaf(e);
    case K::kTime:
      return TimeLeaf(e, lt.unit);
    case K::kTimestamp:
      return TimestampLeaf(e, lt.unit, lt.is_adjusted_to_utc);
    case K::kInteger:
      return IntegerLeaf(e, lt.bit_width, lt.is_signed);
    case K::kUnknown:
      return Leaf(DataType{}, ReadConversion::kNull, StatsDomain::kNone);
    case K::kUuid:
      if (*e.type == PhysicalType::kFixedLenByteArray && e.type_length == 16) {
        return Leaf(columnar::FixedSizeBinary(16), ReadConversion::kFixed, StatsDomain::kBytes);
      }
      return PhysicalLeaf(e);
    case K::kFloat16:
      if (*e.type == PhysicalType::kFixedLenByteArray && e.type_length == 2) {
        return Leaf(columnar::Float16(), ReadConversion::kFixed, StatsDomain::kFloat);
      }
      return PhysicalLeaf(e);
    default:  // BSON, VARIANT, GEOMETRY, GEOGRAPHY, MAP/LIST on a leaf, unrecognized
      return PhysicalLeaf(e);
  }
}

Result<LeafType> FromConverted(const SchemaElement& e, ConvertedType ct) {
  using C = ConvertedType;
  switch (ct) {
    case C::kUtf8:
    case C::kEnum:
    case C::kJson:
      return StringLeaf(e);
    case C::kDecimal:
      return DecimalLeaf(e, e.precision.value_or(0), e.scale.value_or(0));
    case C::kDate:
      return FromLogical(e, LogicalType::Of(LogicalType::Kind::kDate));
    case C::kTimeMillis:
      return TimeLeaf(e, LogicalType::TimeUnit::kMillis);
    case C::kTimeMicros:
      return TimeLeaf(e, LogicalType::TimeUnit::kMicros);
    case C::kTimestampMillis:
      return TimestampLeaf(e, LogicalType::TimeUnit::kMillis, true);
    case C::kTimestampMicros:
      return TimestampLeaf(e, LogicalType::TimeUnit::kMicros, true);
    case C::kUint8:
      return IntegerLeaf(e, 8, false);
    case C::kUint16:
      return IntegerLeaf(e, 16, false);
    case C::kUint32:
      return IntegerLeaf(e, 32, false);
    case C::kUint64:
      return IntegerLeaf(e, 64, false);
    case C::kInt8:
      return IntegerLeaf(e, 8, true);
    case C::kInt16:
      return IntegerLeaf(e, 16, true);
    case C::kInt32:
      return IntegerLeaf(e, 32, true);
    case C::kInt64:
      return IntegerLeaf(e, 64, true);
    case C::kInterval: {
      LeafType t = PhysicalLeaf(e);
      t.domain = StatsDomain::kNone;  // the spec leaves INTERVAL's order undefined
      return t;
    }
    default:
      return PhysicalLeaf(e);
  }
}

// Walks the tree once for every leaf's levels, path and top-level field, independently of the
// Arrow mapping (which must agree with it).
struct LeafLevels {
  int schema_index;
  int16_t max_def, max_rep;
  std::vector<std::string> path;
  int top_field;
};

void WalkLeaves(const std::vector<SchemaElement>& schema, const Tree& tree, int node, int16_t def,
                int16_t rep, std::vector<std::string>* path, int top,
                std::vector<LeafLevels>* out) {
  for (size_t k = 0; k < tree.children[node].size(); ++k) {
    int c = tree.children[node][k];
    const SchemaElement& e = schema[c];
    int16_t d = def, r = rep;
    if (e.repetition_type != FieldRepetitionType::kRequired) ++d;
    if (e.repetition_type == FieldRepetitionType::kRepeated) ++r;
    path->push_back(e.name);
    int t = node == 0 ? static_cast<int>(k) : top;
    if (e.is_leaf()) {
      out->push_back({c, d, r, *path, t});
    } else {
      WalkLeaves(schema, tree, c, d, r, path, t, out);
    }
    path->pop_back();
  }
}

std::string Join(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) s += '.';
    s += parts[i];
  }
  return s;
}

// Where a node sits: the definition/repetition levels of its parent and the slot thresholds it
// inherits.
struct Context {
  int16_t parent_def = 0;
  int16_t parent_rep = 0;
  int16_t def_slot = 0;
  int16_t rep_slot = 0;
  std::string parent_path;  // dotted Arrow path of the parent, empty at the top
};

class Builder {
 public:
  Builder(const std::vector<SchemaElement>& schema, const Tree& tree,
          const std::vector<int>& column_of, std::vector<ColumnDescriptor>* leaves)
      : schema_(schema), tree_(tree), column_of_(column_of), leaves_(leaves) {}

  // Builds the field of schema node `n`; `as_required` when the node's repetition was already
  // accounted for by an enclosing list (a repeated field that is its own list element).
  Result<FieldNode> Build(int n, bool as_required, const Context& ctx) {
    const SchemaElement& e = schema_[n];
    FieldRepetitionType rep = as_required
                                  ? FieldRepetitionType::kRequired
                                  : e.repetition_type.value_or(FieldRepetitionType::kRequired);
    const std::string path = ctx.parent_path.empty() ? e.name : ctx.parent_path + "." + e.name;
    if (rep == FieldRepetitionType::kRepeated) {
      // A repeated field outside a LIST annotation: a required list of required elements.
      FieldNode list = Node(FieldNode::Kind::kList, e.name, path, ctx, ctx.parent_def);
      list.field.nullable = false;
      Context inner = Inner(ctx, path);
      FLOE_ASSIGN_OR_RETURN(FieldNode element, Build(n, true, inner));
      return FinishList(std::move(list), std::move(element));
    }
    const int16_t def = ctx.parent_def + (rep == FieldRepetitionType::kOptional ? 1 : 0);
    const bool nullable = rep == FieldRepetitionType::kOptional;
    if (!e.is_leaf()) {
      const auto& kids = tree_.children[n];
      if (kids.empty()) return Unsupported("group '{}' has no fields", path);
      if (IsListGroup(e)) return BuildList(n, path, def, nullable, ctx);
      if (IsMapGroup(e)) return BuildMap(n, path, def, nullable, ctx);
      FieldNode s = Node(FieldNode::Kind::kStruct, e.name, path, ctx, def, e.field_id.value_or(-1));
      s.field.nullable = nullable;
      Context inner = ctx;
      inner.parent_def = def;
      inner.parent_path = path;
      std::vector<Field> fields;
      for (int c : kids) {
        FLOE_ASSIGN_OR_RETURN(FieldNode child, Build(c, false, inner));
        fields.push_back(child.field);
        s.children.push_back(std::move(child));
      }
      s.field.type = columnar::Struct(std::move(fields));
      Collect(&s);
      return s;
    }
    // A leaf.
    const int column = column_of_[n];
    ColumnDescriptor& leaf = (*leaves_)[column];
    if (leaf.max_def != def || leaf.max_rep != ctx.parent_rep) {
      return Internal("column '{}': mapped levels ({}, {}) differ from the schema's ({}, {})",
                      leaf.path, def, ctx.parent_rep, leaf.max_def, leaf.max_rep);
    }
    FLOE_ASSIGN_OR_RETURN(LeafType t, MapLeafType(e));
    leaf.type = t.type;
    leaf.conversion = t.conversion;
    leaf.domain = t.domain;
    leaf.stats_multiplier = t.stats_multiplier;
    leaf.field_path = path;
    FieldNode node = Node(FieldNode::Kind::kLeaf, e.name, path, ctx, def, e.field_id.value_or(-1));
    node.field.type = t.type;
    node.field.nullable = nullable || t.conversion == ReadConversion::kNull;
    node.leaf = column;
    node.leaves = {column};
    return node;
  }

 private:
  FieldNode Node(FieldNode::Kind kind, const std::string& name, const std::string& path,
                 const Context& ctx, int16_t def_valid, int32_t field_id = -1) {
    FieldNode node;
    node.kind = kind;
    node.field.name = name;
    node.field.field_id = field_id;
    node.path = path;
    node.def_slot = ctx.def_slot;
    node.rep_slot = ctx.rep_slot;
    node.def_valid = def_valid;
    return node;
  }

  // The context of a list's element: one more repetition, present once the list is non-empty.
  static Context Inner(const Context& ctx, const std::string& path, int16_t list_def) {
    Context inner;
    inner.parent_def = list_def + 1;
    inner.parent_rep = ctx.parent_rep + 1;
    inner.def_slot = inner.parent_def;
    inner.rep_slot = inner.parent_rep;
    inner.parent_path = path;
    return inner;
  }
  static Context Inner(const Context& ctx, const std::string& path) {
    return Inner(ctx, path, ctx.parent_def);
  }

  static void Collect(FieldNode* node) {
    node->leaves.clear();
    for (const auto& c : node->children) {
      node->leaves.insert(node->leaves.end(), c.leaves.begin(), c.leaves.end());
    }
    node->leaf = node->leaves.empty() ? -1 : node->leaves.front();
  }

  Result<FieldNode> FinishList(FieldNode list, FieldNode element) {
    list.field.type = columnar::List(element.field);
    list.children.push_back(std::move(element));
    Collect(&list);
    return list;
  }

  // The LogicalTypes spec: a LIST group holds one repeated field; its element is that field
  // itself when it is a primitive, a group of several fields, or (backward compatibility) a
  // one-field group named "array" or "<list>_tuple"; otherwise the repeated group's only field.
  Result<FieldNode> BuildList(int n, const std::string& path, int16_t def, bool nullable,
                              const Context& ctx) {
    const SchemaElement& e = schema_[n];
    const auto& kids = tree_.children[n];
    if (kids.size() != 1 || schema_[kids[0]].repetition_type != FieldRepetitionType::kRepeated) {
      return Corrupt("LIST group '{}' must hold exactly one repeated field", path);
    }
    const int r = kids[0];
    const SchemaElement& re = schema_[r];
    FieldNode list = Node(FieldNode::Kind::kList, e.name, path, ctx, def, e.field_id.value_or(-1));
    list.field.nullable = nullable;
    Context inner = Inner(ctx, path, def);
    const auto& rkids = tree_.children[r];
    const bool element_is_repeated =
        re.is_leaf() || rkids.size() != 1 || re.name == "array" || re.name == e.name + "_tuple";
    FieldNode element;
    if (element_is_repeated) {
      FLOE_ASSIGN_OR_RETURN(element, Build(r, true, inner));
    } else {
      FLOE_ASSIGN_OR_RETURN(element, Build(rkids[0], false, inner));
    }
    return FinishList(std::move(list), std::move(element));
  }

  // MAP (and the legacy MAP_KEY_VALUE): a repeated group of key and value. A repeated group with
  // the key alone reads as a list of keys, as pyarrow does.
  Result<FieldNode> BuildMap(int n, const std::string& path, int16_t def, bool nullable,
                             const Context& ctx) {
    const SchemaElement& e = schema_[n];
    const auto& kids = tree_.children[n];
    if (kids.size() != 1 || schema_[kids[0]].repetition_type != FieldRepetitionType::kRepeated) {
      return Corrupt("MAP group '{}' must hold exactly one repeated field", path);
    }
    const int r = kids[0];
    const SchemaElement& re = schema_[r];
    const auto& rkids = tree_.children[r];
    Context inner = Inner(ctx, path, def);
    if (re.is_leaf() || rkids.size() == 1) {
      FieldNode list =
          Node(FieldNode::Kind::kList, e.name, path, ctx, def, e.field_id.value_or(-1));
      list.field.nullable = nullable;
      FieldNode element;
      if (re.is_leaf()) {
        FLOE_ASSIGN_OR_RETURN(element, Build(r, true, inner));
      } else {
        FLOE_ASSIGN_OR_RETURN(element, Build(rkids[0], false, inner));
      }
      return FinishList(std::move(list), std::move(element));
    }
    if (rkids.size() != 2) {
      return Corrupt("MAP group '{}' has {} fields in its key-value group, not 2", path,
                     rkids.size());
    }
    const std::string entries_path = path + "." + re.name;
    FieldNode entries = Node(FieldNode::Kind::kStruct, re.name, entries_path, inner,
                             inner.parent_def, re.field_id.value_or(-1));
    entries.field.nullable = false;
    Context kv = inner;
    kv.parent_path = entries_path;
    FLOE_ASSIGN_OR_RETURN(FieldNode key, Build(rkids[0], false, kv));
    FLOE_ASSIGN_OR_RETURN(FieldNode value, Build(rkids[1], false, kv));
    entries.field.type = columnar::Struct({key.field, value.field});
    entries.children.push_back(std::move(key));
    entries.children.push_back(std::move(value));
    Collect(&entries);

    FieldNode map = Node(FieldNode::Kind::kMap, e.name, path, ctx, def, e.field_id.value_or(-1));
    map.field.nullable = nullable;
    map.field.type.id = columnar::TypeId::kMap;
    map.field.type.children = {entries.field};
    map.children.push_back(std::move(entries));
    Collect(&map);
    return map;
  }

  const std::vector<SchemaElement>& schema_;
  const Tree& tree_;
  const std::vector<int>& column_of_;
  std::vector<ColumnDescriptor>* leaves_;
};

const FieldNode* FindIn(const std::vector<FieldNode>& nodes, std::string_view path) {
  for (const auto& n : nodes) {
    if (n.path == path) return &n;
    if (path.size() > n.path.size() && path.starts_with(n.path) && path[n.path.size()] == '.') {
      if (const FieldNode* f = FindIn(n.children, path)) return f;
    }
  }
  return nullptr;
}

const FieldNode* FindId(const std::vector<FieldNode>& nodes, int32_t id) {
  for (const auto& n : nodes) {
    if (n.field.field_id == id) return &n;
    if (const FieldNode* f = FindId(n.children, id)) return f;
  }
  return nullptr;
}

}  // namespace

Result<LeafType> MapLeafType(const SchemaElement& e) {
  if (!e.type) return Internal("schema element '{}' is not a leaf", e.name);
  if (*e.type == PhysicalType::kFixedLenByteArray && e.type_length.value_or(0) <= 0) {
    return Corrupt("FIXED_LEN_BYTE_ARRAY column '{}' has no positive type_length", e.name);
  }
  if (e.logical_type && e.logical_type->kind != LogicalType::Kind::kUnrecognized) {
    return FromLogical(e, *e.logical_type);
  }
  if (e.converted_type) return FromConverted(e, *e.converted_type);
  return PhysicalLeaf(e);
}

Result<ParquetSchema> ParquetSchema::Make(const FileMetaData& metadata) {
  const auto& schema = metadata.schema;
  if (schema.empty()) return Corrupt("the schema is empty");
  Tree tree = BuildTree(schema);
  for (size_t i = 1; i < schema.size(); ++i) {
    if (!schema[i].repetition_type) {
      return Corrupt("schema element '{}' has no repetition type", schema[i].name);
    }
  }

  std::vector<LeafLevels> levels;
  std::vector<std::string> path;
  WalkLeaves(schema, tree, 0, 0, 0, &path, 0, &levels);
  ParquetSchema out;
  std::vector<int> column_of(schema.size(), -1);
  for (size_t i = 0; i < levels.size(); ++i) {
    const LeafLevels& l = levels[i];
    const SchemaElement& e = schema[l.schema_index];
    ColumnDescriptor leaf;
    leaf.column = static_cast<int>(i);
    leaf.schema_index = l.schema_index;
    leaf.path = Join(l.path);
    leaf.field_path = leaf.path;
    leaf.top_field = l.top_field;
    leaf.max_def = l.max_def;
    leaf.max_rep = l.max_rep;
    leaf.physical = *e.type;
    leaf.type_length = *e.type == PhysicalType::kInt96 ? 12 : e.type_length.value_or(0);
    out.leaves_.push_back(std::move(leaf));
    column_of[l.schema_index] = static_cast<int>(i);
  }

  Builder builder(schema, tree, column_of, &out.leaves_);
  for (int top : tree.children[0]) {
    auto node = builder.Build(top, false, Context{});
    if (node) {
      out.fields_.push_back(std::move(*node));
      out.errors_.emplace_back();
    } else {
      if (node.error().kind == ErrorKind::kInternal) return std::unexpected(node.error());
      FieldNode placeholder;
      placeholder.field.name = schema[top].name;
      placeholder.field.field_id = schema[top].field_id.value_or(-1);
      placeholder.path = schema[top].name;
      out.fields_.push_back(std::move(placeholder));
      out.errors_.emplace_back(node.error());
    }
  }
  for (const FieldNode& f : out.fields_) out.arrow_schema_.fields.push_back(f.field);
  return out;
}

const FieldNode* ParquetSchema::FindPath(std::string_view path) const {
  return FindIn(fields_, path);
}

const FieldNode* ParquetSchema::FindFieldId(int32_t id) const {
  if (id < 0) return nullptr;
  return FindId(fields_, id);
}

}  // namespace floe::parquet
