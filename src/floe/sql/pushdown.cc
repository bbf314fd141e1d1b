#include "floe/sql/pushdown.h"

#include <cmath>
#include <optional>
#include <string>

#include "floe/exec/functions.h"
#include "floe/exec/value.h"

namespace floe::sql {
namespace {

using exec::Fn;

// Pushdown: exec expressions over scan columns -> Iceberg predicates by column name.
struct Pushed {
  iceberg::ExprPtr expr;  // null: nothing pushable
  bool exact = false;     // expr holds exactly when the original does
  // The scan's row filter (EvalPredicate: NULL is false) keeps exactly the rows SQL's WHERE keeps:
  // exact, no NOT (SQL's NOT of unknown stays unknown; the row filter's NOT of false is true) and
  // no floating-point column (NaN ordering) or nanosecond timestamp (the literal is in micros).
  bool strict = false;
};

class Pusher {
 public:
  Pusher(const iceberg::Schema& schema, const std::vector<int32_t>& ids)
      : schema_(schema), ids_(ids) {}

  Pushed Convert(const exec::Expr& e) {
    if (e.kind != exec::Expr::Kind::kCall) return {};
    switch (e.fn) {
      case Fn::kAnd: {
        Pushed a = Convert(*e.args[0]), b = Convert(*e.args[1]);
        if (a.expr && b.expr) {
          return {iceberg::And(a.expr, b.expr), a.exact && b.exact, a.strict && b.strict};
        }
        if (a.expr) return {a.expr, false};
        if (b.expr) return {b.expr, false};
        return {};
      }
      case Fn::kOr: {
        Pushed a = Convert(*e.args[0]), b = Convert(*e.args[1]);
        if (a.expr && b.expr) {
          return {iceberg::Or(a.expr, b.expr), a.exact && b.exact, a.strict && b.strict};
        }
        return {};
      }
      case Fn::kNot: {
        Pushed a = Convert(*e.args[0]);
        if (a.expr && a.exact) return {iceberg::Not(a.expr), true};
        return {};
      }
      case Fn::kIsNull:
      case Fn::kIsNotNull: {
        const iceberg::NestedField* f = Column(*e.args[0]);
        if (!f) return {};
        return {iceberg::Predicate(
                    e.fn == Fn::kIsNull ? iceberg::Op::kIsNull : iceberg::Op::kNotNull, f->name),
                true, Strict(*f)};
      }
      case Fn::kEq:
      case Fn::kNotEq:
      case Fn::kLt:
      case Fn::kLtEq:
      case Fn::kGt:
      case Fn::kGtEq: {
        const exec::Expr* col = e.args[0].get();
        const exec::Expr* lit = e.args[1].get();
        Fn fn = e.fn;
        if (col->kind != exec::Expr::Kind::kColumn) {
          std::swap(col, lit);
          fn = fn == Fn::kLt     ? Fn::kGt
               : fn == Fn::kGt   ? Fn::kLt
               : fn == Fn::kLtEq ? Fn::kGtEq
               : fn == Fn::kGtEq ? Fn::kLtEq
                                 : fn;
        }
        const iceberg::NestedField* f = Column(*col);
        if (!f || lit->kind != exec::Expr::Kind::kLiteral) return {};
        auto l = ToIcebergLiteral(lit->value, lit->type, *f->type);
        if (!l) return {};
        iceberg::Op op = fn == Fn::kEq      ? iceberg::Op::kEq
                         : fn == Fn::kNotEq ? iceberg::Op::kNotEq
                         : fn == Fn::kLt    ? iceberg::Op::kLt
                         : fn == Fn::kLtEq  ? iceberg::Op::kLtEq
                         : fn == Fn::kGt    ? iceberg::Op::kGt
                                            : iceberg::Op::kGtEq;
        return {iceberg::Predicate(op, f->name, {*l}), true, Strict(*f)};
      }
      case Fn::kIn: {
        const iceberg::NestedField* f = Column(*e.args[0]);
        if (!f) return {};
        std::vector<iceberg::Literal> set;
        for (size_t i = 1; i < e.args.size(); ++i) {
          if (e.args[i]->kind != exec::Expr::Kind::kLiteral) return {};
          auto l = ToIcebergLiteral(e.args[i]->value, e.args[i]->type, *f->type);
          if (!l) return {};
          set.push_back(*l);
        }
        return {iceberg::Predicate(iceberg::Op::kIn, f->name, std::move(set)), true, Strict(*f)};
      }
      case Fn::kFunction:
        if (!exec::IsFunctionCall(e, "starts_with")) return {};
        [[fallthrough]];
      case Fn::kLike: {
        const iceberg::NestedField* f = Column(*e.args[0]);
        if (!f || f->type->id != iceberg::TypeId::kString) return {};
        if (e.args[1]->kind != exec::Expr::Kind::kLiteral || e.args[1]->value.is_null()) return {};
        std::string pattern = e.args[1]->value.s();
        if (e.fn == Fn::kFunction) {
          return {iceberg::Predicate(iceberg::Op::kStartsWith, f->name,
                                     {iceberg::Literal::String(pattern)}),
                  true, true};
        }
        size_t wild = pattern.find_first_of("%_\\");
        if (wild == std::string::npos) {
          return {
              iceberg::Predicate(iceberg::Op::kEq, f->name, {iceberg::Literal::String(pattern)}),
              true, true};
        }
        if (wild == 0) return {};
        bool exact = pattern[wild] == '%' && wild + 1 == pattern.size();
        return {iceberg::Predicate(iceberg::Op::kStartsWith, f->name,
                                   {iceberg::Literal::String(pattern.substr(0, wild))}),
                exact, exact};
      }
      default:
        return {};
    }
  }

 private:
  static bool Strict(const iceberg::NestedField& f) {
    switch (f.type->id) {
      case iceberg::TypeId::kFloat:
      case iceberg::TypeId::kDouble:
      case iceberg::TypeId::kTimestampNs:
      case iceberg::TypeId::kTimestampTzNs:
        return false;
      default:
        return true;
    }
  }

  const iceberg::NestedField* Column(const exec::Expr& e) {
    if (e.kind != exec::Expr::Kind::kColumn || e.column < 0 ||
        e.column >= static_cast<int>(ids_.size())) {
      return nullptr;
    }
    const iceberg::NestedField* f = schema_.FindById(ids_[e.column]);
    if (!f || !f->type->IsPrimitive()) return nullptr;
    return f;
  }

  const iceberg::Schema& schema_;
  const std::vector<int32_t>& ids_;
};

void Conjuncts(const exec::ExprPtr& e, std::vector<exec::ExprPtr>* out) {
  if (e->kind == exec::Expr::Kind::kCall && e->fn == Fn::kAnd) {
    Conjuncts(e->args[0], out);
    Conjuncts(e->args[1], out);
  } else {
    out->push_back(e);
  }
}

}  // namespace

std::optional<iceberg::Literal> ToIcebergLiteral(const exec::Value& v,
                                                 const columnar::DataType& type,
                                                 const iceberg::Type& col) {
  if (v.is_null()) return std::nullopt;
  switch (col.id) {
    case iceberg::TypeId::kDecimal:
      if (v.v.index() == 5 && type.id == columnar::TypeId::kDecimal128 && type.scale == col.scale) {
        return iceberg::Literal::Decimal(v.dec(), col.scale);
      }
      break;
    case iceberg::TypeId::kInt:
    case iceberg::TypeId::kLong:
      if (v.v.index() == 2) return iceberg::Literal::Long(v.i());
      break;
    case iceberg::TypeId::kDouble:
      if (v.v.index() == 3 && !std::isnan(v.d())) return iceberg::Literal::Double(v.d());
      break;
    case iceberg::TypeId::kString:
      if (v.v.index() == 4) return iceberg::Literal::String(v.s());
      break;
    case iceberg::TypeId::kDate:
      if (v.v.index() == 2) return iceberg::Literal::Date(static_cast<int32_t>(v.i()));
      break;
    case iceberg::TypeId::kTimestamp:
      if (v.v.index() == 2) return iceberg::Literal::Timestamp(v.i());
      break;
    case iceberg::TypeId::kTimestampTz:
      if (v.v.index() == 2) return iceberg::Literal::TimestampTz(v.i());
      break;
    case iceberg::TypeId::kBoolean:
      if (v.v.index() == 1) return iceberg::Literal::Boolean(v.b());
      break;
    default:
      break;
  }
  return std::nullopt;
}

PushedFilter PushableFilter(const exec::ExprPtr& predicate, const iceberg::Schema& schema,
                            const std::vector<int32_t>& field_ids) {
  std::vector<exec::ExprPtr> parts;
  Conjuncts(predicate, &parts);
  Pusher pusher(schema, field_ids);
  PushedFilter out;
  std::vector<exec::ExprPtr> left;
  for (const auto& p : parts) {
    Pushed c = pusher.Convert(*p);
    // Keep only what binds to the schema (a literal that cannot become the column's type).
    if (c.expr && !iceberg::Bind(c.expr, schema)) c = {};
    if (c.expr) out.filter = out.filter ? iceberg::And(out.filter, c.expr) : c.expr;
    if (!c.expr || !c.strict) left.push_back(p);
  }
  for (const auto& p : left) {
    if (!out.residual) {
      out.residual = p;
    } else {
      auto both = exec::MakeCall(Fn::kAnd, {out.residual, p});
      if (!both) return {out.filter, predicate};
      out.residual = *both;
    }
  }
  return out;
}

}  // namespace floe::sql
