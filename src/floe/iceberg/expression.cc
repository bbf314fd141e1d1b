#include "floe/iceberg/expression.h"

#include <charconv>
#include <cmath>
#include <ranges>

#include <fmt/format.h>

#include "floe/base/uuid.h"

namespace floe::iceberg {
namespace {

ExprPtr Make(Expr e) { return std::make_shared<const Expr>(std::move(e)); }

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kIsNull:
      return "IS NULL";
    case Op::kNotNull:
      return "IS NOT NULL";
    case Op::kEq:
      return "=";
    case Op::kNotEq:
      return "!=";
    case Op::kLt:
      return "<";
    case Op::kLtEq:
      return "<=";
    case Op::kGt:
      return ">";
    case Op::kGtEq:
      return ">=";
    case Op::kIn:
      return "IN";
    case Op::kNotIn:
      return "NOT IN";
    case Op::kStartsWith:
      return "STARTS WITH";
    case Op::kNotStartsWith:
      return "NOT STARTS WITH";
    default:
      return "?";
  }
}

Result<ExprPtr> BindImpl(const ExprPtr& e, const Schema& schema) {
  if (!e->is_predicate()) {
    if (e->children.empty()) return e;
    Expr out = *e;
    out.children.clear();
    for (const auto& c : e->children) {
      FLOE_ASSIGN_OR_RETURN(ExprPtr b, BindImpl(c, schema));
      out.children.push_back(std::move(b));
    }
    return Make(std::move(out));
  }
  const NestedField* f = schema.FindByName(e->column);
  if (f == nullptr) return NotFound("column '{}' is not in the table schema", e->column);
  if (!f->type->IsPrimitive()) {
    return InvalidInput("column '{}' has type {}, which a filter cannot compare", e->column,
                        f->type->ToString());
  }
  Expr out = *e;
  out.field_id = f->id;
  out.type = f->type;
  out.literals.clear();
  if ((e->op == Op::kStartsWith || e->op == Op::kNotStartsWith) && f->type->id != TypeId::kString) {
    return InvalidInput("starts_with needs a string column; '{}' is {}", e->column,
                        f->type->ToString());
  }
  for (const auto& lit : e->literals) {
    auto cast = CastLiteral(lit, *f->type);
    if (!cast) {
      return InvalidInput("cannot compare column '{}' of type {} with {}", e->column,
                          f->type->ToString(), lit.ToString());
    }
    out.literals.push_back(std::move(*cast));
  }
  return Make(std::move(out));
}

Op Negate(Op op) {
  switch (op) {
    case Op::kIsNull:
      return Op::kNotNull;
    case Op::kNotNull:
      return Op::kIsNull;
    case Op::kEq:
      return Op::kNotEq;
    case Op::kNotEq:
      return Op::kEq;
    case Op::kLt:
      return Op::kGtEq;
    case Op::kLtEq:
      return Op::kGt;
    case Op::kGt:
      return Op::kLtEq;
    case Op::kGtEq:
      return Op::kLt;
    case Op::kIn:
      return Op::kNotIn;
    case Op::kNotIn:
      return Op::kIn;
    case Op::kStartsWith:
      return Op::kNotStartsWith;
    case Op::kNotStartsWith:
      return Op::kStartsWith;
    case Op::kTrue:
      return Op::kFalse;
    case Op::kFalse:
      return Op::kTrue;
    default:
      return op;
  }
}

}  // namespace

std::string Expr::ToString() const {
  switch (op) {
    case Op::kTrue:
      return "true";
    case Op::kFalse:
      return "false";
    case Op::kAnd:
      return fmt::format("({} AND {})", children[0]->ToString(), children[1]->ToString());
    case Op::kOr:
      return fmt::format("({} OR {})", children[0]->ToString(), children[1]->ToString());
    case Op::kNot:
      return fmt::format("NOT {}", children[0]->ToString());
    case Op::kIsNull:
    case Op::kNotNull:
      return fmt::format("{} {}", column, OpName(op));
    case Op::kIn:
    case Op::kNotIn: {
      std::string s;
      for (size_t i = 0; i < literals.size(); ++i) s += (i ? ", " : "") + literals[i].ToString();
      return fmt::format("{} {} ({})", column, OpName(op), s);
    }
    default:
      return fmt::format("{} {} {}", column, OpName(op),
                         literals.empty() ? "?" : literals[0].ToString());
  }
}

ExprPtr True() { return Make(Expr{Op::kTrue}); }
ExprPtr False() { return Make(Expr{Op::kFalse}); }
ExprPtr And(ExprPtr a, ExprPtr b) {
  return Make(Expr{Op::kAnd, "", -1, nullptr, {}, {std::move(a), std::move(b)}});
}
ExprPtr Or(ExprPtr a, ExprPtr b) {
  return Make(Expr{Op::kOr, "", -1, nullptr, {}, {std::move(a), std::move(b)}});
}
ExprPtr Not(ExprPtr a) { return Make(Expr{Op::kNot, "", -1, nullptr, {}, {std::move(a)}}); }
ExprPtr Predicate(Op op, std::string column, std::vector<Literal> literals) {
  return Make(Expr{op, std::move(column), -1, nullptr, std::move(literals), {}});
}

Result<Literal> CastLiteral(const Literal& v, const Type& t) {
  if (v.is_null()) return Literal::Null(t.id);
  auto bad = [&]() {
    return InvalidInput("{} cannot become a {} value", v.ToString(), t.ToString());
  };
  const auto& s = v.storage();
  auto as_int64 = [&]() -> std::optional<int64_t> {
    if (std::holds_alternative<int32_t>(s) && (v.type() == TypeId::kInt)) return v.AsInt();
    if (std::holds_alternative<int64_t>(s) && v.type() == TypeId::kLong) return v.AsLong();
    return std::nullopt;
  };
  auto as_string = [&]() -> std::optional<std::string> {
    if (v.type() == TypeId::kString) return v.AsString();
    return std::nullopt;
  };
  switch (t.id) {
    case TypeId::kBoolean:
      if (v.type() == TypeId::kBoolean) return v;
      if (auto str = as_string(); str && (*str == "true" || *str == "false"))
        return Literal::Boolean(*str == "true");
      return bad();
    case TypeId::kInt:
      if (auto i = as_int64(); i && *i >= INT32_MIN && *i <= INT32_MAX)
        return Literal::Int(static_cast<int32_t>(*i));
      return bad();
    case TypeId::kLong:
      if (auto i = as_int64()) return Literal::Long(*i);
      return bad();
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d;
      if (auto i = as_int64()) {
        d = static_cast<double>(*i);
      } else if (v.type() == TypeId::kFloat) {
        d = std::get<float>(s);
      } else if (v.type() == TypeId::kDouble) {
        d = std::get<double>(s);
      } else if (v.type() == TypeId::kDecimal) {
        d = static_cast<double>(v.AsDecimal().unscaled) / std::pow(10.0, v.AsDecimal().scale);
      } else {
        return bad();
      }
      return t.id == TypeId::kFloat ? Literal::Float(static_cast<float>(d)) : Literal::Double(d);
    }
    case TypeId::kDecimal: {
      if (auto i = as_int64()) {
        Int128 u = *i;
        for (int k = 0; k < t.scale; ++k) u *= 10;
        return Literal::Decimal(u, t.scale);
      }
      std::string text;
      if (v.type() == TypeId::kDecimal) {
        text = v.ToString();
      } else if (v.type() == TypeId::kDouble) {
        text = fmt::format("{}", std::get<double>(s));
      } else if (auto str = as_string()) {
        text = *str;
      } else {
        return bad();
      }
      auto u = ParseDecimalText(text, t.scale);
      if (!u) return bad();
      return Literal::Decimal(*u, t.scale);
    }
    case TypeId::kDate: {
      if (v.type() == TypeId::kDate) return v;
      if (auto str = as_string()) {
        if (auto d = ParseIsoDate(*str)) return Literal::Date(*d);
      }
      return bad();
    }
    case TypeId::kTime: {
      if (v.type() == TypeId::kTime) return v;
      if (auto str = as_string()) {
        if (auto n = ParseIsoTimeNanos(*str)) return Literal::Time(*n / 1000);
      }
      return bad();
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      // Everything through the parts of a date-time, so that a value outside the target unit's
      // range is an error, never a wrapped instant.
      const bool to_nanos = t.id == TypeId::kTimestampNs || t.id == TypeId::kTimestampTzNs;
      const int64_t per_second = to_nanos ? 1000000000 : 1000000;
      std::optional<int64_t> units;
      if (auto str = as_string()) {
        FLOE_ASSIGN_OR_RETURN(units, ParseIsoTimestamp(*str, per_second, t.ToString()));
      } else {
        IsoDateTime parts;
        int64_t from_per_second = 0, value = 0;
        if (v.type() == TypeId::kDate) {
          parts.days = v.AsInt();
        } else if (v.type() == TypeId::kTimestamp || v.type() == TypeId::kTimestampTz) {
          from_per_second = 1000000;
          value = v.AsLong();
        } else if (v.type() == TypeId::kTimestampNs || v.type() == TypeId::kTimestampTzNs) {
          from_per_second = 1000000000;
          value = v.AsLong();
        } else {
          return bad();
        }
        if (from_per_second != 0) {
          const int64_t per_day = from_per_second * 86400;
          parts.days = FloorDiv(value, per_day);
          parts.nanos_of_day = (value - parts.days * per_day) * (1000000000 / from_per_second);
        }
        units = EpochUnits(parts, per_second);
        if (!units) {
          return InvalidInput("{} is outside the range of {}", v.ToString(), t.ToString());
        }
      }
      switch (t.id) {
        case TypeId::kTimestamp:
          return Literal::Timestamp(*units);
        case TypeId::kTimestampTz:
          return Literal::TimestampTz(*units);
        case TypeId::kTimestampNs:
          return Literal::TimestampNs(*units);
        default:
          return Literal::TimestampTzNs(*units);
      }
    }
    case TypeId::kString:
      if (auto str = as_string()) return v;
      return bad();
    case TypeId::kUuid:
      if (v.type() == TypeId::kUuid) return v;
      if (auto str = as_string()) {
        if (auto u = ParseUuid(*str)) return Literal::Uuid(*u);
      }
      return bad();
    case TypeId::kBinary:
    case TypeId::kFixed:
      if (v.type() == TypeId::kBinary || v.type() == TypeId::kFixed) {
        return t.id == TypeId::kBinary ? Literal::Binary(v.AsBytes()) : Literal::Fixed(v.AsBytes());
      }
      if (auto str = as_string())
        return t.id == TypeId::kBinary ? Literal::Binary(*str) : Literal::Fixed(*str);
      return bad();
    default:
      return bad();
  }
}

Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema) { return BindImpl(expr, schema); }

ExprPtr RewriteNot(const ExprPtr& e) {
  switch (e->op) {
    case Op::kAnd:
    case Op::kOr: {
      Expr out = *e;
      out.children = {RewriteNot(e->children[0]), RewriteNot(e->children[1])};
      return Make(std::move(out));
    }
    case Op::kNot: {
      const ExprPtr& c = e->children[0];
      switch (c->op) {
        case Op::kNot:
          return RewriteNot(c->children[0]);
        case Op::kAnd:
          return Or(RewriteNot(Not(c->children[0])), RewriteNot(Not(c->children[1])));
        case Op::kOr:
          return And(RewriteNot(Not(c->children[0])), RewriteNot(Not(c->children[1])));
        default: {
          Expr out = *c;
          out.op = Negate(c->op);
          return Make(std::move(out));
        }
      }
    }
    default:
      return e;
  }
}

ExprPtr Simplify(const ExprPtr& e) {
  if (e->op != Op::kAnd && e->op != Op::kOr && e->op != Op::kNot) return e;
  if (e->op == Op::kNot) {
    ExprPtr c = Simplify(e->children[0]);
    if (c->op == Op::kTrue) return False();
    if (c->op == Op::kFalse) return True();
    return Not(c);
  }
  ExprPtr a = Simplify(e->children[0]), b = Simplify(e->children[1]);
  if (e->op == Op::kAnd) {
    if (a->op == Op::kFalse || b->op == Op::kFalse) return False();
    if (a->op == Op::kTrue) return b;
    if (b->op == Op::kTrue) return a;
    return And(a, b);
  }
  if (a->op == Op::kTrue || b->op == Op::kTrue) return True();
  if (a->op == Op::kFalse) return b;
  if (b->op == Op::kFalse) return a;
  return Or(a, b);
}

std::vector<ExprPtr> Conjuncts(const ExprPtr& e) {
  std::vector<ExprPtr> out;
  std::vector<const ExprPtr*> todo = {&e};  // a stack, right child first: output left to right
  while (!todo.empty()) {
    const ExprPtr& x = *todo.back();
    todo.pop_back();
    if (x->op == Op::kAnd) {
      for (const auto& c : std::ranges::reverse_view(x->children)) todo.push_back(&c);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

}  // namespace floe::iceberg
