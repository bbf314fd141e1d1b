#include "floe/iceberg/projection.h"

#include <algorithm>

namespace floe::iceberg {
namespace {

ExprPtr PartitionPredicate(Op op, const PartitionField& pf, TypePtr type,
                           std::vector<Literal> lits) {
  Expr e;
  e.op = op;
  e.column = pf.name;
  e.field_id = pf.field_id;
  e.type = std::move(type);
  e.literals = std::move(lits);
  return std::make_shared<const Expr>(std::move(e));
}

// The projection of one predicate through one partition field, or nullptr when it can't prune.
ExprPtr ProjectPredicate(const Expr& p, const PartitionField& pf, const Type& source) {
  const Transform& t = pf.transform;
  auto rtype = t.ResultType(source);
  if (!rtype) return nullptr;
  auto apply = [&](const Literal& v) -> std::optional<Literal> {
    auto r = t.Apply(v);
    if (!r) return std::nullopt;
    return *r;
  };
  if (t.kind == TransformKind::kVoid) return nullptr;
  if (p.op == Op::kIsNull || p.op == Op::kNotNull) {
    // Every transform but void maps null to null and non-null to non-null.
    return PartitionPredicate(p.op, pf, *rtype, {});
  }
  if (t.kind == TransformKind::kIdentity) return PartitionPredicate(p.op, pf, *rtype, p.literals);
  switch (p.op) {
    case Op::kEq:
    case Op::kIn: {
      std::vector<Literal> out;
      for (const auto& v : p.literals) {
        auto x = apply(v);
        if (!x) return nullptr;
        if (std::find(out.begin(), out.end(), *x) == out.end()) out.push_back(*x);
      }
      return PartitionPredicate(p.op == Op::kEq || out.size() == 1 ? Op::kEq : Op::kIn, pf, *rtype,
                                out);
    }
    case Op::kLt:
    case Op::kLtEq:
    case Op::kGt:
    case Op::kGtEq: {
      if (!t.PreservesOrder()) return nullptr;
      auto x = apply(p.literals.at(0));
      if (!x) return nullptr;
      // Order-preserving transforms are monotone but not injective: a < v only implies t(a) <=
      // t(v).
      Op op = (p.op == Op::kLt || p.op == Op::kLtEq) ? Op::kLtEq : Op::kGtEq;
      return PartitionPredicate(op, pf, *rtype, {*x});
    }
    case Op::kStartsWith: {
      if (t.kind != TransformKind::kTruncate || source.id != TypeId::kString) return nullptr;
      const std::string& prefix = p.literals.at(0).AsString();
      auto x = apply(p.literals.at(0));
      if (!x) return nullptr;
      size_t code_points = 0;
      for (unsigned char c : prefix) code_points += (c & 0xC0) != 0x80;
      // A prefix of at least W code points fixes the truncated value; a shorter one only starts it.
      if (code_points >= static_cast<size_t>(t.param))
        return PartitionPredicate(Op::kEq, pf, *rtype, {*x});
      return PartitionPredicate(Op::kStartsWith, pf, *rtype, {*x});
    }
    default:
      return nullptr;  // NOT EQ, NOT IN, NOT STARTS WITH: no inclusive projection
  }
}

ExprPtr Project(const ExprPtr& e, const PartitionSpec& spec, const Schema& schema) {
  switch (e->op) {
    case Op::kTrue:
    case Op::kFalse:
      return e;
    case Op::kAnd:
      return And(Project(e->children[0], spec, schema), Project(e->children[1], spec, schema));
    case Op::kOr:
      return Or(Project(e->children[0], spec, schema), Project(e->children[1], spec, schema));
    case Op::kNot:
      return True();  // RewriteNot runs first; a NOT left here cannot be projected
    default:
      break;
  }
  ExprPtr result = True();
  const NestedField* src = schema.FindById(e->field_id);
  if (src == nullptr) return result;
  for (const auto& pf : spec.fields()) {
    if (pf.source_id != e->field_id) continue;
    if (ExprPtr p = ProjectPredicate(*e, pf, *src->type)) result = And(result, p);
  }
  return result;
}

}  // namespace

ExprPtr ProjectInclusive(const ExprPtr& bound, const PartitionSpec& spec, const Schema& schema) {
  return Simplify(Project(RewriteNot(bound), spec, schema));
}

}  // namespace floe::iceberg
