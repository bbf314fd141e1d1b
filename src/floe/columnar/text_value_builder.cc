#include "floe/columnar/text_value_builder.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "floe/base/calendar.h"
#include "floe/base/uuid.h"
#include "floe/columnar/text_types.h"

namespace floe::columnar {
namespace {

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

TextValueBuilder::TextValueBuilder(const DataType& t)
    : type_(t), strings_(t.IsBinaryLike() || t.id == TypeId::kFixedSizeBinary ? t : String()) {}

void TextValueBuilder::Null() {
  if (type_.IsBinaryLike() || type_.id == TypeId::kFixedSizeBinary) {
    strings_.AppendNull();
  } else if (type_.id == TypeId::kBool) {
    bools_.AppendNull();
  } else {
    values_.insert(values_.end(), type_.FixedWidth(), 0);
    validity_.AppendNull();
  }
}

Status TextValueBuilder::Add(std::string_view text) {
  auto not_a = [&]() { return InvalidInput("'{}' is not a {} value", text, type_.ToString()); };
  // Text keeps its blanks; any other type is read without the spaces and tabs around it.
  const std::string_view s =
      type_.IsBinaryLike() || type_.id == TypeId::kFixedSizeBinary ? text : TrimBlanks(text);
  switch (type_.id) {
    case TypeId::kBool: {
      auto is = [&](std::initializer_list<std::string_view> words) {
        return std::any_of(words.begin(), words.end(), [&](std::string_view w) {
          return s.size() == w.size() && std::equal(s.begin(), s.end(), w.begin(),
                                                    [](char a, char b) { return (a | 0x20) == b; });
        });
      };
      if (is({"true", "t", "yes", "y", "1"})) {
        bools_.Append(true);
      } else if (is({"false", "f", "no", "n", "0"})) {
        bools_.Append(false);
      } else {
        return not_a();
      }
      return {};
    }
    case TypeId::kInt32: {
      int32_t v;
      if (!ParseNumber(s, &v)) return not_a();
      Push(v);
      return {};
    }
    case TypeId::kInt64: {
      int64_t v;
      if (!ParseNumber(s, &v)) return not_a();
      Push(v);
      return {};
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double v;
      if (s == "NaN" || s == "nan") {
        v = std::nan("");
      } else if (s == "inf" || s == "Infinity") {
        v = INFINITY;
      } else if (s == "-inf" || s == "-Infinity") {
        v = -INFINITY;
      } else if (!ParseNumber(s, &v)) {
        return not_a();
      }
      if (type_.id == TypeId::kFloat32) {
        Push(static_cast<float>(v));
      } else {
        Push(v);
      }
      return {};
    }
    case TypeId::kDecimal128: {
      auto v = ParseDecimalText(s, type_.scale);
      if (!v) return not_a();
      if (!DecimalFits(*v, type_.precision)) {
        return InvalidInput("'{}' has more digits than {} holds", s, type_.ToString());
      }
      Push(*v);
      return {};
    }
    case TypeId::kDate32: {
      auto d = ParseIsoDate(s);
      if (!d) return not_a();
      Push(*d);
      return {};
    }
    case TypeId::kTime64: {
      auto n = ParseIsoTimeNanos(s);
      if (!n) return not_a();
      Push(type_.unit == TimeUnit::kNano ? *n : *n / 1000);
      return {};
    }
    case TypeId::kTimestamp: {
      const int64_t per_second = type_.unit == TimeUnit::kNano    ? 1000000000
                                 : type_.unit == TimeUnit::kMicro ? 1000000
                                                                  : 1000;
      FLOE_ASSIGN_OR_RETURN(int64_t v, ParseIsoTimestamp(s, per_second, type_.ToString()));
      Push(v);
      return {};
    }
    case TypeId::kFixedSizeBinary:
      if (type_.byte_width == 16 && s.size() == 36) {  // a uuid in its text form
        auto u = ParseUuid(s);
        if (!u) return not_a();
        return strings_.Append(*u);
      }
      if (!strings_.Append(s)) return not_a();
      return {};
    case TypeId::kString:
    case TypeId::kBinary:
      if (!strings_.Append(s)) return not_a();
      return {};
    default:
      return not_a();
  }
}

Result<ColumnPtr> TextValueBuilder::Finish() {
  if (type_.IsBinaryLike() || type_.id == TypeId::kFixedSizeBinary) return strings_.Finish();
  if (type_.id == TypeId::kBool) return bools_.Finish();
  auto c = std::make_shared<Column>();
  c->type = type_;
  c->length = validity_.length();
  c->null_count = validity_.null_count();
  c->validity = validity_.Finish();
  c->values = Buffer(std::move(values_));
  return ColumnPtr(c);
}

}  // namespace floe::columnar
