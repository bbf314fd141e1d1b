// JoinHashTable: equal keys pair up (in probe order, then build order), NULL keys match nothing,
// -0.0 equals 0.0 and NaN equals NaN, several key columns must all be equal, and key columns of
// different types are an internal error rather than a wrong answer.
#include "floe/exec/hash_join.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "floe/columnar/column_builder.h"

namespace floe::exec {
namespace {

namespace c = columnar;

c::ColumnPtr Ints(const std::vector<std::optional<int64_t>>& v) {
  c::FixedWidthBuilder<int64_t> b(c::Int64());
  for (const auto& x : v) x ? b.Append(*x) : b.AppendNull();
  return b.Finish();
}

c::ColumnPtr Doubles(const std::vector<double>& v) {
  c::FixedWidthBuilder<double> b(c::Float64());
  for (double x : v) b.Append(x);
  return b.Finish();
}

c::ColumnPtr Strings(const std::vector<std::optional<std::string>>& v) {
  c::BinaryBuilder b(c::String());
  for (const auto& x : v) {
    if (x) {
      EXPECT_TRUE(b.Append(*x));
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

using Pairs = std::vector<std::pair<int64_t, int64_t>>;

Pairs Probe(const JoinHashTable& t, const std::vector<c::ColumnPtr>& keys) {
  std::vector<int64_t> p, b;
  auto st = t.Probe(keys, keys[0]->length, &p, &b);
  EXPECT_TRUE(st) << st.error().ToString();
  Pairs out;
  for (size_t i = 0; i < p.size(); ++i) out.emplace_back(p[i], b[i]);
  return out;
}

TEST(JoinHashTable, IntegerKeysPairInProbeThenBuildOrderAndNullMatchesNothing) {
  auto t = JoinHashTable::Build({Ints({5, 7, 5, std::nullopt, 9})}, 5).value();
  EXPECT_EQ(Probe(t, {Ints({7, 5, std::nullopt, 4, 9})}), (Pairs{{0, 1}, {1, 0}, {1, 2}, {4, 4}}));
}

// Every pair a nested loop finds (SQL equality: NULL matches nothing), in its order: probe rows
// ascending, each one's build rows ascending.
template <typename T>
Pairs NestedLoop(const std::vector<std::optional<T>>& build,
                 const std::vector<std::optional<T>>& probe) {
  Pairs out;
  for (size_t p = 0; p < probe.size(); ++p) {
    for (size_t b = 0; b < build.size(); ++b) {
      if (probe[p] && build[b] && *probe[p] == *build[b]) out.emplace_back(p, b);
    }
  }
  return out;
}

// One integer key is indexed by value when its build range is narrow (dense keys, duplicates,
// NULLs, probe values below, above and far outside it, the 64-bit extremes whose difference
// wraps) and hashed when it is wide; 32-bit dates either way. Both answer as a nested loop does.
TEST(JoinHashTable, IntegerKeysDenseOrSparseAgreeWithANestedLoop) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  using Keys = std::vector<std::optional<int64_t>>;
  const Keys probe = {3, 10, std::nullopt, -1, 2, 1000, kMin, kMax, 7, 3, 0, -5, 9, 11};
  for (const Keys& build : {Keys{3, 4, 3, std::nullopt, 10, 9, 7, 3, 5},  // 3..10: direct
                            Keys{-5, 11, std::nullopt, 0, -5},            // -5..11: direct
                            Keys{3, 1000000000, 7, 3},                    // wide: hashed
                            Keys{kMin, 3, kMax, 7},                       // 2^64 wide: hashed
                            Keys{std::nullopt, std::nullopt}}) {          // no value
    auto t = JoinHashTable::Build({Ints(build)}, static_cast<int64_t>(build.size())).value();
    EXPECT_EQ(Probe(t, {Ints(probe)}), NestedLoop(build, probe));
  }
  auto dates = [](const std::vector<std::optional<int32_t>>& v) {
    c::FixedWidthBuilder<int32_t> b(c::Date32());
    for (const auto& x : v) x ? b.Append(*x) : b.AppendNull();
    return b.Finish();
  };
  using Dates = std::vector<std::optional<int32_t>>;
  const Dates days = {-3, 19000, std::nullopt, 19001, -2147483647 - 1, 2147483647, 18999, 0};
  for (const Dates& build : {Dates{19000, 18999, std::nullopt, 19000, 19002},
                             Dates{-2147483647 - 1, 19000, 2147483647, -3}}) {
    auto t = JoinHashTable::Build({dates(build)}, static_cast<int64_t>(build.size())).value();
    EXPECT_EQ(Probe(t, {dates(days)}), NestedLoop(build, days));
  }
}

TEST(JoinHashTable, StringKeysAndSeveralColumnsMustAllBeEqual) {
  auto t = JoinHashTable::Build({Strings({"a", "b", "a"}), Ints({1, 1, 2})}, 3).value();
  EXPECT_EQ(Probe(t, {Strings({"a", "a", "b", std::nullopt}), Ints({2, 1, 2, 1})}),
            (Pairs{{0, 2}, {1, 0}}));
  // An empty string is a value like any other.
  auto e = JoinHashTable::Build({Strings({"", std::nullopt})}, 2).value();
  EXPECT_EQ(Probe(e, {Strings({std::nullopt, ""})}), (Pairs{{1, 0}}));
}

TEST(JoinHashTable, NegativeZeroEqualsZeroAndNaNEqualsNaN) {
  auto t = JoinHashTable::Build({Doubles({0.0, std::nan(""), 1.5})}, 3).value();
  EXPECT_EQ(Probe(t, {Doubles({-0.0, std::nan(""), 1.5, 2.5})}), (Pairs{{0, 0}, {1, 1}, {2, 2}}));
}

TEST(JoinHashTable, KeysOfAnotherTypeAreAnInternalError) {
  auto t = JoinHashTable::Build({Ints({1})}, 1).value();
  std::vector<int64_t> p, b;
  auto st = t.Probe({Strings({"1"})}, 1, &p, &b);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kInternal);
  EXPECT_FALSE(JoinHashTable::Build({}, 0));
}

}  // namespace
}  // namespace floe::exec
