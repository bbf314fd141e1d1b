// Partition transforms exactly as the table spec defines them: identity, bucket[N], truncate[W],
// year, month, day, hour, void. A Transform is a small value; applying it is a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/base/result.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

enum class TransformKind { kIdentity, kBucket, kTruncate, kYear, kMonth, kDay, kHour, kVoid };

struct Transform {
  TransformKind kind = TransformKind::kIdentity;
  int32_t param = 0;  // bucket count or truncate width

  static Transform Identity() { return {}; }
  static Transform Bucket(int32_t n) { return {TransformKind::kBucket, n}; }
  static Transform Truncate(int32_t w) { return {TransformKind::kTruncate, w}; }
  static Transform Year() { return {TransformKind::kYear, 0}; }
  static Transform Month() { return {TransformKind::kMonth, 0}; }
  static Transform Day() { return {TransformKind::kDay, 0}; }
  static Transform Hour() { return {TransformKind::kHour, 0}; }
  static Transform Void() { return {TransformKind::kVoid, 0}; }

  // "identity", "bucket[16]", "truncate[4]", "year", ... (metadata JSON form).
  static Result<Transform> Parse(std::string_view text);
  std::string ToString() const;

  // Whether the transform applies to a source type, and the type of its result.
  bool CanApply(const Type& source) const;
  Result<TypePtr> ResultType(const Type& source) const;

  // Applies the transform to one value of the source type; null stays null (void: always null).
  Result<Literal> Apply(const Literal& value) const;

  // Whether the transform keeps order (a <= b implies t(a) <= t(b)): all but bucket and void.
  bool PreservesOrder() const {
    return kind != TransformKind::kBucket && kind != TransformKind::kVoid;
  }

  friend bool operator==(const Transform&, const Transform&) = default;
};

// The bucket hash of one value (Appendix B), before the modulo.
Result<int32_t> BucketHash(const Literal& value);

}  // namespace floe::iceberg
