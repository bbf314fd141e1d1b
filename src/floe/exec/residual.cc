#include "floe/exec/residual.h"

#include <set>

#include "floe/exec/functions.h"
#include "floe/iceberg/arrow_schema.h"

namespace floe::exec {
namespace {

using iceberg::Op;

// Nanosecond timestamps are compared as their raw int64 nanoseconds: exec's normalised
// timestamps are micros, which would blur a comparison within one microsecond.
bool IsNanos(const iceberg::Type& t) {
  return t.id == iceberg::TypeId::kTimestampNs || t.id == iceberg::TypeId::kTimestampTzNs;
}

// A literal in exec's value domain (the column's type is the bound one): decimals unscaled at the
// column's scale, binary values as bytes.
Result<Value> LiteralValue(const iceberg::Literal& lit) {
  if (lit.is_null()) return Value::Null();
  return std::visit(
      [&](const auto& x) -> Result<Value> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return Value::Null();
        } else if constexpr (std::is_same_v<T, bool>) {
          return Value::Bool(x);
        } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
          return Value::Int(static_cast<int64_t>(x));
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return Value::Double(static_cast<double>(x));
        } else if constexpr (std::is_same_v<T, std::string>) {
          return Value::Str(x);
        } else if constexpr (std::is_same_v<T, iceberg::BinaryValue>) {
          return Value::Str(std::string(x.bytes.begin(), x.bytes.end()));
        } else {
          return Value{x.unscaled};
        }
      },
      lit.storage());
}

class Converter {
 public:
  explicit Converter(const iceberg::Schema& schema) : schema_(schema) {}

  Result<ExprPtr> Convert(const iceberg::ExprPtr& e) {
    switch (e->op) {
      case Op::kTrue:
        return Constant(Value::Bool(true), columnar::Bool());
      case Op::kFalse:
        return Constant(Value::Bool(false), columnar::Bool());
      case Op::kAnd:
      case Op::kOr: {
        FLOE_ASSIGN_OR_RETURN(ExprPtr l, Convert(e->children[0]));
        FLOE_ASSIGN_OR_RETURN(ExprPtr r, Convert(e->children[1]));
        return MakeCall(e->op == Op::kAnd ? Fn::kAnd : Fn::kOr, {l, r});
      }
      case Op::kNot: {
        // Iceberg's NOT is of a two-valued child (unknown counts as false): NOT(coalesce(c,
        // false)).
        FLOE_ASSIGN_OR_RETURN(ExprPtr c, Convert(e->children[0]));
        FLOE_ASSIGN_OR_RETURN(ExprPtr known, Known(std::move(c)));
        return MakeCall(Fn::kNot, {known});
      }
      default:
        break;
    }
    FLOE_ASSIGN_OR_RETURN(ExprPtr col, Column(*e));
    auto lit = [&](size_t i) -> Result<ExprPtr> {
      FLOE_ASSIGN_OR_RETURN(Value v, LiteralValue(e->literals[i]));
      return Constant(std::move(v), col->type);
    };
    auto compare = [&](Fn fn) -> Result<ExprPtr> {
      FLOE_ASSIGN_OR_RETURN(ExprPtr v, lit(0));
      return MakeCall(fn, {col, v});
    };
    switch (e->op) {
      case Op::kIsNull:
        return MakeCall(Fn::kIsNull, {col});
      case Op::kNotNull:
        return MakeCall(Fn::kIsNotNull, {col});
      case Op::kEq:
        return compare(Fn::kEq);
      case Op::kNotEq:
        return compare(Fn::kNotEq);
      case Op::kLt:
        return compare(Fn::kLt);
      case Op::kLtEq:
        return compare(Fn::kLtEq);
      case Op::kGt:
        return compare(Fn::kGt);
      case Op::kGtEq:
        return compare(Fn::kGtEq);
      case Op::kIn:
      case Op::kNotIn: {
        if (e->literals.empty()) {
          return Constant(Value::Bool(e->op == Op::kNotIn), columnar::Bool());
        }
        std::vector<ExprPtr> args{col};
        for (size_t i = 0; i < e->literals.size(); ++i) {
          FLOE_ASSIGN_OR_RETURN(ExprPtr v, lit(i));
          args.push_back(std::move(v));
        }
        FLOE_ASSIGN_OR_RETURN(ExprPtr in, MakeCall(Fn::kIn, std::move(args)));
        if (e->op == Op::kIn) return in;
        return MakeCall(Fn::kNot, {in});
      }
      case Op::kStartsWith:
      case Op::kNotStartsWith: {
        const FunctionLookup f = FindFunction("starts_with");
        if (f.function == nullptr) return Internal("no starts_with function");
        FLOE_ASSIGN_OR_RETURN(ExprPtr v, lit(0));
        FLOE_ASSIGN_OR_RETURN(ExprPtr call, MakeCall(*f.function, {col, v}));
        if (e->op == Op::kStartsWith) return call;
        return MakeCall(Fn::kNot, {call});
      }
      default:
        return Unsupported("residual operator {} on '{}'", static_cast<int>(e->op), e->column);
    }
  }

 private:
  // coalesce(e, false).
  Result<ExprPtr> Known(ExprPtr e) {
    const FunctionLookup f = FindFunction("coalesce");
    if (f.function == nullptr) return Internal("no coalesce function");
    return MakeCall(*f.function, {std::move(e), Constant(Value::Bool(false), columnar::Bool())});
  }

  Result<ExprPtr> Column(const iceberg::Expr& e) {
    const auto& fields = schema_.fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].id != e.field_id) continue;
      if (IsNanos(*fields[i].type)) {
        return ColumnRef(static_cast<int>(i), columnar::Int64(), fields[i].name);
      }
      FLOE_ASSIGN_OR_RETURN(columnar::DataType t, iceberg::ToColumnarType(*fields[i].type));
      return ColumnRef(static_cast<int>(i), NormalizedType(t), fields[i].name);
    }
    return Unsupported("filtering on nested column '{}'", e.column);
  }

  const iceberg::Schema& schema_;
};

void CollectIds(const iceberg::ExprPtr& e, std::set<int32_t>* out) {
  if (e->is_predicate()) out->insert(e->field_id);
  for (const iceberg::ExprPtr& c : e->children) CollectIds(c, out);
}

// The compiled residual `expr` over `batch`: `inputs` are the columns it reads (and whether they
// hold nanoseconds, compared as the raw int64 they are).
Result<std::vector<uint8_t>> MatchCompiled(const Expr& expr,
                                           const std::vector<std::pair<size_t, bool>>& inputs,
                                           const columnar::RecordBatch& batch) {
  const size_t rows = static_cast<size_t>(batch.num_rows);
  columnar::RecordBatch input = batch;
  for (const auto& [i, nanos] : inputs) {
    if (i >= input.columns.size()) continue;
    if (nanos) {
      auto raw = std::make_shared<columnar::Column>(*input.columns[i]);
      raw->type = columnar::Int64();  // the same int64 values, as plain integers
      input.columns[i] = std::move(raw);
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(input.columns[i], NormalizeColumn(input.columns[i]));
  }
  FLOE_ASSIGN_OR_RETURN(ColumnPtr result, Evaluate(expr, input));
  if (result->length != batch.num_rows) {
    return Internal("the residual gave {} answers for {} rows", result->length, batch.num_rows);
  }
  if (result->type.id != columnar::TypeId::kBool) {
    std::vector<uint8_t> match(rows, 0);  // a NULL literal's type: nothing matches
    return match;
  }
  // The answer's bits as bytes, 8 rows a step; a NULL answer does not match.
  std::vector<uint8_t> match(rows);
  auto unpack = [&](const uint8_t* bits, bool keep_bits) {
    const size_t whole = rows / 8;
    for (size_t k = 0; k < whole; ++k) {
      const uint8_t v = bits[k];
      for (size_t j = 0; j < 8; ++j) {
        const uint8_t bit = static_cast<uint8_t>((v >> j) & 1u);
        match[k * 8 + j] = keep_bits ? bit : static_cast<uint8_t>(match[k * 8 + j] & bit);
      }
    }
    for (size_t r = whole * 8; r < rows; ++r) {
      const uint8_t bit = static_cast<uint8_t>((bits[r / 8] >> (r % 8)) & 1u);
      match[r] = keep_bits ? bit : static_cast<uint8_t>(match[r] & bit);
    }
  };
  if (rows > 0) {
    unpack(result->values.data(), true);
    if (!result->validity.empty()) unpack(result->validity.data(), false);
  }
  return match;
}

}  // namespace

Result<ExprPtr> ResidualExpr(const iceberg::ExprPtr& residual, const iceberg::Schema& schema) {
  if (!residual) return Constant(Value::Bool(true), columnar::Bool());
  return Converter(schema).Convert(residual);
}

Result<iceberg::BatchMatcher> CompileResidual(const iceberg::ExprPtr& residual,
                                              const iceberg::Schema& schema) {
  if (!residual || residual->op == Op::kTrue) {
    return iceberg::BatchMatcher(
        [](const columnar::RecordBatch& batch) -> Result<std::vector<uint8_t>> {
          return std::vector<uint8_t>(static_cast<size_t>(batch.num_rows), 1);
        });
  }
  FLOE_ASSIGN_OR_RETURN(ExprPtr expr, ResidualExpr(residual, schema));
  // The columns the residual reads (normalised, nanosecond ones as raw int64): the others are
  // never looked at.
  std::set<int32_t> ids;
  CollectIds(residual, &ids);
  std::vector<std::pair<size_t, bool>> inputs;  // column, nanos
  const auto& fields = schema.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (ids.count(fields[i].id)) inputs.emplace_back(i, IsNanos(*fields[i].type));
  }
  return iceberg::BatchMatcher(
      [expr = std::shared_ptr<const Expr>(std::move(expr)),
       inputs](const columnar::RecordBatch& batch) -> Result<std::vector<uint8_t>> {
        return MatchCompiled(*expr, inputs, batch);
      });
}

Result<std::vector<uint8_t>> MatchResidual(const columnar::RecordBatch& batch,
                                           const iceberg::ExprPtr& residual,
                                           const iceberg::Schema& schema) {
  FLOE_ASSIGN_OR_RETURN(iceberg::BatchMatcher match, CompileResidual(residual, schema));
  return match(batch);
}

iceberg::ResidualEvaluator ResidualMatcher() { return &CompileResidual; }

}  // namespace floe::exec
