#include "floe/columnar/take.h"

#include <cstring>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::columnar {
namespace {

ColumnPtr Int32s(std::vector<int32_t> v) {
  FixedWidthBuilder<int32_t> b(Int32());
  for (int32_t x : v) b.Append(x);
  return b.Finish();
}

// list<int32> of rows [1, 2], NULL, [], [3]: a child of 3 values, with one unused leading value
// (offsets start at 1), as a slice of a larger column would have.
ColumnPtr SampleList() {
  auto c = std::make_shared<Column>();
  c->type = List(Field{"element", Int32(), true});
  c->length = 4;
  c->null_count = 1;
  std::vector<uint8_t> validity = {0b1101};
  c->validity = Buffer(std::move(validity));
  std::vector<int32_t> offsets = {1, 3, 3, 3, 4};
  std::vector<uint8_t> bytes(offsets.size() * 4);
  std::memcpy(bytes.data(), offsets.data(), bytes.size());
  c->offsets = Buffer(std::move(bytes));
  c->children = {Int32s({99, 1, 2, 3})};
  return c;
}

std::string Render(const Column& c) {
  std::string out;
  const int32_t* o = reinterpret_cast<const int32_t*>(c.offsets.data());
  for (int64_t r = 0; r < c.length; ++r) {
    if (r) out += " ";
    if (c.IsNull(r)) {
      out += "NULL";
      continue;
    }
    out += "[";
    for (int32_t k = o[r]; k < o[r + 1]; ++k) {
      if (k > o[r]) out += ",";
      out += std::to_string(c.children[0]->Value<int32_t>(k));
    }
    out += "]";
  }
  return out;
}

TEST(Take, ListsAreTakenWithTheirElements) {
  ColumnPtr l = SampleList();
  ASSERT_EQ(Render(*l), "[1,2] NULL [] [3]");
  auto t = Take(*l, {3, 0, 1, 0});
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(Render(**t), "[3] [1,2] NULL [1,2]");
  EXPECT_EQ((*t)->null_count, 1);
  EXPECT_EQ((*t)->children[0]->length, 5);
}

TEST(Take, StructsTakeEveryChild) {
  auto s = std::make_shared<Column>();
  s->type = Struct({Field{"a", Int32(), true}, Field{"b", Int32(), true}});
  s->length = 3;
  s->children = {Int32s({1, 2, 3}), Int32s({10, 20, 30})};
  auto t = Take(*s, {2, 0});
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ((*t)->length, 2);
  EXPECT_EQ((*t)->children[0]->Value<int32_t>(0), 3);
  EXPECT_EQ((*t)->children[1]->Value<int32_t>(1), 10);
}

TEST(Concatenate, NestedColumnsJoinWithShiftedOffsets) {
  RecordBatch a, b;
  a.schema = b.schema =
      std::make_shared<Schema>(Schema{{Field{"l", List(Field{"element", Int32(), true}), true}}});
  a.columns = {SampleList()};
  a.num_rows = 4;
  b.columns = {Take(*SampleList(), {3, 0}).value()};
  b.num_rows = 2;
  auto c = Concatenate({a, b});
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(Render(*c->columns[0]), "[1,2] NULL [] [3] [3] [1,2]");
  EXPECT_EQ(c->columns[0]->null_count, 1);
  EXPECT_EQ(c->columns[0]->children[0]->length, 6);  // the unused leading value is dropped
}

// A selection that drops a few rows (a delete mask) is taken run by run: every kept row's value,
// null and dictionary code where it was, for strings, bools and fixed widths alike.
TEST(Take, RunsOfKeptRowsKeepValuesNullsAndCodes) {
  const char* words[] = {"shipped", "delivered", "processing"};
  BinaryBuilder dict;
  for (const char* w : words) ASSERT_TRUE(dict.Append(w));
  BinaryBuilder s;
  BoolBuilder flags;
  FixedWidthBuilder<int32_t> n(Int32());
  std::vector<int32_t> codes;
  for (int r = 0; r < 1000; ++r) {
    if (r % 97 == 3) {
      s.AppendNull();
      flags.AppendNull();
      n.AppendNull();
    } else {
      ASSERT_TRUE(s.Append(words[r % 3]));
      flags.Append(r % 5 == 0);
      n.Append(r * 3);
    }
    codes.push_back(r % 3);
  }
  auto strings = std::make_shared<Column>(*s.Finish());
  strings->dictionary = dict.Finish();
  strings->codes = Buffer::Adopt(codes);
  RecordBatch b;
  b.schema = std::make_shared<Schema>(
      Schema{{Field{"s", String(), true}, Field{"b", Bool(), true}, Field{"n", Int32(), true}}});
  b.columns = {strings, flags.Finish(), n.Finish()};
  b.num_rows = 1000;
  std::vector<int64_t> keep;
  for (int64_t r = 0; r < 1000; ++r) {
    if (r % 150 != 7 && (r < 400 || r >= 420)) keep.push_back(r);
  }
  auto t = Take(b, keep);
  ASSERT_TRUE(t) << t.error().ToString();
  ASSERT_EQ(t->num_rows, static_cast<int64_t>(keep.size()));
  const Column& ts = *t->columns[0];
  const Column& tb = *t->columns[1];
  const Column& tn = *t->columns[2];
  for (const auto* c : {&ts, &tb, &tn}) ASSERT_TRUE(c->Validate());
  ASSERT_EQ(ts.dictionary, strings->dictionary);
  ASSERT_GE(ts.codes.size(), keep.size() * 4);
  int64_t nulls = 0;
  for (size_t i = 0; i < keep.size(); ++i) {
    const int64_t r = keep[i];
    const auto row = static_cast<int64_t>(i);
    int32_t code;
    std::memcpy(&code, ts.codes.data() + i * 4, 4);
    EXPECT_EQ(code, r % 3) << r;
    if (r % 97 == 3) {
      ++nulls;
      EXPECT_TRUE(ts.IsNull(row) && tb.IsNull(row) && tn.IsNull(row)) << r;
      continue;
    }
    EXPECT_EQ(ts.BytesAt(row), words[r % 3]) << r;
    EXPECT_EQ(tb.BoolAt(row), r % 5 == 0) << r;
    EXPECT_EQ(tn.Value<int32_t>(row), r * 3) << r;
  }
  EXPECT_EQ(ts.null_count, nulls);
  EXPECT_EQ(tn.null_count, nulls);
}

// Runs of rows give the batch Take gives for the same rows listed one by one: strings with their
// codes, a column with nulls, a list, and an empty run among them.
TEST(Take, RunsGiveTheRowsTheyListAsIndicesDo) {
  BinaryBuilder dict;
  for (const char* w : {"a", "bb", "ccc"}) ASSERT_TRUE(dict.Append(w));
  BinaryBuilder s;
  FixedWidthBuilder<int64_t> n(Int64());
  std::vector<int32_t> codes;
  for (int r = 0; r < 300; ++r) {
    ASSERT_TRUE(
        s.Append(std::string(static_cast<size_t>(r % 3 + 1), static_cast<char>('a' + r % 3))));
    codes.push_back(r % 3);
    if (r % 11 == 0) {
      n.AppendNull();
    } else {
      n.Append(r * 5);
    }
  }
  auto strings = std::make_shared<Column>(*s.Finish());
  strings->dictionary = dict.Finish();
  strings->codes = Buffer::Adopt(codes);
  ColumnPtr list = SampleList();
  RecordBatch b;
  b.schema =
      std::make_shared<Schema>(Schema{{Field{"s", String(), false}, Field{"n", Int64(), true}}});
  b.columns = {strings, n.Finish()};
  b.num_rows = 300;
  const std::vector<RowRun> runs = {{0, 3}, {4, 0}, {5, 100}, {120, 1}, {299, 1}};
  std::vector<int64_t> indices;
  for (const RowRun& r : runs) {
    for (int64_t k = 0; k < r.length; ++k) indices.push_back(r.from + k);
  }
  auto by_runs = TakeRuns(b, runs);
  ASSERT_TRUE(by_runs) << by_runs.error().ToString();
  ASSERT_EQ(by_runs->num_rows, 105);
  for (const ColumnPtr& c : by_runs->columns) ASSERT_TRUE(c->Validate());
  const Column& ts = *by_runs->columns[0];
  const Column& tn = *by_runs->columns[1];
  EXPECT_EQ(ts.dictionary, strings->dictionary);
  int64_t nulls = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const int64_t r = indices[i];
    const auto row = static_cast<int64_t>(i);
    EXPECT_EQ(ts.BytesAt(row),
              std::string(static_cast<size_t>(r % 3 + 1), static_cast<char>('a' + r % 3)));
    int32_t code;
    std::memcpy(&code, ts.codes.data() + i * 4, 4);
    EXPECT_EQ(code, r % 3) << r;
    if (r % 11 == 0) {
      ++nulls;
      EXPECT_TRUE(tn.IsNull(row)) << r;
    } else {
      EXPECT_EQ(tn.Value<int64_t>(row), r * 5) << r;
    }
  }
  EXPECT_EQ(tn.null_count, nulls);

  // A list column: the elements of the rows of the runs.
  RecordBatch lb;
  lb.schema = std::make_shared<Schema>(Schema{{Field{"l", list->type, true}}});
  lb.columns = {list};
  lb.num_rows = list->length;
  auto lists = TakeRuns(lb, {{0, 1}, {1, 0}, {3, 1}});
  ASSERT_TRUE(lists) << lists.error().ToString();
  ASSERT_EQ(lists->num_rows, 2);
  ASSERT_TRUE(lists->columns[0]->Validate());
  EXPECT_EQ(Render(*lists->columns[0]), "[1,2] [3]");

  EXPECT_FALSE(TakeRuns(b, {{290, 11}}).has_value());  // past the last row
}

// Scatter puts row r at dest[r]: strings with their codes, nulls, bools and a list (nested
// columns go by the inverse permutation) come out as Take by the inverse gives them; places that
// are not a permutation are an error.
TEST(Take, ScatterPutsEachRowAtItsPlace) {
  BinaryBuilder dict;
  for (const char* w : {"x", "yy"}) ASSERT_TRUE(dict.Append(w));
  BinaryBuilder s;
  BoolBuilder flags;
  FixedWidthBuilder<int32_t> n(Int32());
  std::vector<int32_t> codes;
  for (int r = 0; r < 4; ++r) {
    ASSERT_TRUE(s.Append(r % 2 == 0 ? "x" : "yy"));
    codes.push_back(r % 2);
    flags.Append(r == 1);
    if (r == 2) {
      n.AppendNull();
    } else {
      n.Append(r * 10);
    }
  }
  auto strings = std::make_shared<Column>(*s.Finish());
  strings->dictionary = dict.Finish();
  strings->codes = Buffer::Adopt(codes);
  ColumnPtr list = SampleList();  // [1, 2], NULL, [], [3]
  RecordBatch b;
  b.schema =
      std::make_shared<Schema>(Schema{{Field{"s", String(), false}, Field{"b", Bool(), false},
                                       Field{"n", Int32(), true}, Field{"l", list->type, true}}});
  b.columns = {strings, flags.Finish(), n.Finish(), list};
  b.num_rows = 4;
  const std::vector<int64_t> dest = {2, 0, 3, 1};  // rows 1, 3, 0, 2 in that order
  auto moved = Scatter(b, dest);
  ASSERT_TRUE(moved) << moved.error().ToString();
  ASSERT_EQ(moved->num_rows, 4);
  for (const ColumnPtr& c : moved->columns) ASSERT_TRUE(c->Validate());
  const std::vector<int64_t> from = {1, 3, 0, 2};
  const Column& ts = *moved->columns[0];
  EXPECT_EQ(ts.dictionary, strings->dictionary);
  for (int64_t i = 0; i < 4; ++i) {
    const int64_t r = from[static_cast<size_t>(i)];
    EXPECT_EQ(ts.BytesAt(i), r % 2 == 0 ? "x" : "yy");
    int32_t code;
    std::memcpy(&code, ts.codes.data() + i * 4, 4);
    EXPECT_EQ(code, r % 2);
    EXPECT_EQ(moved->columns[1]->BoolAt(i), r == 1);
    if (r == 2) {
      EXPECT_TRUE(moved->columns[2]->IsNull(i));
    } else {
      EXPECT_EQ(moved->columns[2]->Value<int32_t>(i), r * 10);
    }
  }
  EXPECT_EQ(moved->columns[2]->null_count, 1);
  EXPECT_EQ(Render(*moved->columns[3]), "NULL [3] [1,2] []");

  EXPECT_FALSE(Scatter(b, {0, 0, 1, 2}).has_value());  // row 0 and row 1 to one place
  EXPECT_FALSE(Scatter(b, {0, 1, 2}).has_value());     // a row without a place
}

// A permutation of more than a million rows is done in blocks (two passes); every row still
// lands where the permutation puts it, nulls and strings included, on a pool and without one.
TEST(Take, ALargePermutationPutsEveryRowInPlace) {
  const int64_t n = (int64_t{1} << 20) + 5;
  FixedWidthBuilder<int64_t> v(Int64());
  BinaryBuilder s;
  for (int64_t r = 0; r < n; ++r) {
    if (r % 13 == 0) {
      v.AppendNull();
    } else {
      v.Append(r * 3);
    }
    ASSERT_TRUE(s.Append(std::string(static_cast<size_t>(r % 5), static_cast<char>('a' + r % 7))));
  }
  RecordBatch b;
  b.schema =
      std::make_shared<Schema>(Schema{{Field{"v", Int64(), true}, Field{"s", String(), false}}});
  b.columns = {v.Finish(), s.Finish()};
  b.num_rows = n;
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = (i * 7919) % n;  // n is odd
  ThreadPool pool(2);
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    auto t = Take(b, perm, p);
    ASSERT_TRUE(t) << t.error().ToString();
    ASSERT_EQ(t->num_rows, n);
    const Column& tv = *t->columns[0];
    const Column& ts = *t->columns[1];
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = perm[static_cast<size_t>(i)];
      const bool ok =
          (r % 13 == 0 ? tv.IsNull(i) : tv.IsValid(i) && tv.Value<int64_t>(i) == r * 3) &&
          ts.BytesAt(i) == std::string(static_cast<size_t>(r % 5), static_cast<char>('a' + r % 7));
      wrong += ok ? 0 : 1;
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(tv.null_count, (n + 12) / 13);
  }
}

// Scatter over several batches puts their rows, numbered one after the other, where `dest` says:
// as Scatter of their concatenation does, nulls of one part only, strings whose parts share a
// dictionary (codes kept) and a list (nested: by the inverse permutation) included.
TEST(Take, ScatterOfSeveralBatchesIsScatterOfTheirConcatenation) {
  BinaryBuilder dict;
  for (const char* w : {"x", "yy"}) ASSERT_TRUE(dict.Append(w));
  ColumnPtr shared = dict.Finish();
  auto part = [&](int first, int rows, bool with_null) {
    BinaryBuilder s;
    FixedWidthBuilder<int64_t> n(Int64());
    BoolBuilder flags;
    std::vector<int32_t> codes;
    for (int r = first; r < first + rows; ++r) {
      EXPECT_TRUE(s.Append(r % 2 == 0 ? "x" : "yy"));
      codes.push_back(r % 2);
      flags.Append(r % 3 == 0);
      if (with_null && r == first) {
        n.AppendNull();
      } else {
        n.Append(r * 10);
      }
    }
    auto strings = std::make_shared<Column>(*s.Finish());
    strings->dictionary = shared;
    strings->codes = Buffer::Adopt(codes);
    RecordBatch b;
    b.schema = std::make_shared<Schema>(
        Schema{{Field{"s", String(), false}, Field{"n", Int64(), true}, Field{"b", Bool(), false},
                Field{"l", SampleList()->type, true}}});
    b.columns = {strings, n.Finish(), flags.Finish(), SampleList()};
    b.num_rows = rows;
    return b;
  };
  // Lists need 4 rows a part (SampleList): parts of 4 rows, the second with a NULL.
  const std::vector<RecordBatch> parts = {part(0, 4, false), part(4, 4, true), part(8, 4, false)};
  const std::vector<int64_t> dest = {5, 11, 0, 7, 3, 1, 10, 2, 9, 4, 8, 6};
  auto whole = Concatenate(parts);
  ASSERT_TRUE(whole);
  auto want = Scatter(*whole, dest);
  ASSERT_TRUE(want);
  ThreadPool pool(2);
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    auto got = Scatter(parts, dest, p);
    ASSERT_TRUE(got) << got.error().ToString();
    ASSERT_EQ(got->num_rows, 12);
    for (const ColumnPtr& c : got->columns) ASSERT_TRUE(c->Validate());
    for (int64_t i = 0; i < 12; ++i) {
      EXPECT_EQ(got->columns[0]->BytesAt(i), want->columns[0]->BytesAt(i)) << i;
      EXPECT_EQ(got->columns[1]->IsNull(i), want->columns[1]->IsNull(i)) << i;
      if (got->columns[1]->IsValid(i))
        EXPECT_EQ(got->columns[1]->Value<int64_t>(i), want->columns[1]->Value<int64_t>(i)) << i;
      EXPECT_EQ(got->columns[2]->BoolAt(i), want->columns[2]->BoolAt(i)) << i;
    }
    // Row 4 (the second part's NULL) went to place 3.
    EXPECT_TRUE(got->columns[1]->IsNull(3));
    EXPECT_EQ(got->columns[1]->null_count, 1);
    EXPECT_EQ(got->columns[0]->dictionary, shared);
    EXPECT_EQ(got->columns[0]->BytesAt(1), "yy");  // row 5
    for (int64_t i = 0; i < 12; ++i) {
      int32_t code;
      std::memcpy(&code, got->columns[0]->codes.data() + i * 4, 4);
      EXPECT_EQ(code, got->columns[0]->BytesAt(i) == "yy" ? 1 : 0) << i;
    }
    EXPECT_EQ(Render(*got->columns[3]), Render(*want->columns[3]));
  }
  // Parts with different dictionaries keep the strings, not the codes.
  std::vector<RecordBatch> mixed = parts;
  auto other = std::make_shared<Column>(*mixed[1].columns[0]);
  BinaryBuilder dict2;
  for (const char* w : {"x", "yy"}) ASSERT_TRUE(dict2.Append(w));
  other->dictionary = dict2.Finish();
  mixed[1].columns[0] = other;
  auto got = Scatter(mixed, dest);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->columns[0]->dictionary, nullptr);
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(got->columns[0]->BytesAt(i), want->columns[0]->BytesAt(i));
  EXPECT_FALSE(Scatter(parts, {0, 1, 2}).has_value());  // rows without a place
}

// Permute of several batches gives Take of their concatenation: above a million rows in two
// passes from the batches themselves, below it by Concatenate and Take; indices that are no
// permutation are an error.
TEST(Take, PermuteOfSeveralBatchesIsTakeOfTheirConcatenation) {
  for (const int64_t n : {int64_t{3001}, (int64_t{1} << 20) + 7}) {
    FixedWidthBuilder<int64_t> v(Int64());
    BinaryBuilder s;
    for (int64_t r = 0; r < n; ++r) {
      if (r % 11 == 0) {
        v.AppendNull();
      } else {
        v.Append(r * 5);
      }
      ASSERT_TRUE(
          s.Append(std::string(static_cast<size_t>(r % 4), static_cast<char>('a' + r % 9))));
    }
    RecordBatch b;
    b.schema =
        std::make_shared<Schema>(Schema{{Field{"v", Int64(), true}, Field{"s", String(), false}}});
    b.columns = {v.Finish(), s.Finish()};
    b.num_rows = n;
    // Three parts of unequal size.
    std::vector<RecordBatch> parts;
    const int64_t cut1 = n / 5, cut2 = n / 2;
    for (auto [from, to] : {std::pair{int64_t{0}, cut1}, {cut1, cut2}, {cut2, n}}) {
      auto piece = TakeRuns(b, {{from, to - from}});
      ASSERT_TRUE(piece);
      parts.push_back(*piece);
    }
    std::vector<int64_t> perm(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = (i * 7919 + 3) % n;
    ThreadPool pool(2);
    auto got = Permute(parts, perm, &pool);
    ASSERT_TRUE(got) << got.error().ToString();
    ASSERT_EQ(got->num_rows, n);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = perm[static_cast<size_t>(i)];
      const Column& tv = *got->columns[0];
      const bool ok =
          (r % 11 == 0 ? tv.IsNull(i) : tv.IsValid(i) && tv.Value<int64_t>(i) == r * 5) &&
          got->columns[1]->BytesAt(i) ==
              std::string(static_cast<size_t>(r % 4), static_cast<char>('a' + r % 9));
      wrong += ok ? 0 : 1;
    }
    EXPECT_EQ(wrong, 0) << n;
    perm[0] = perm[1];
    EXPECT_FALSE(Permute(parts, perm).has_value()) << n;
  }
}

// ConcatenateNamed keeps the named columns in the order named, once each, and leaves out a name
// the batches lack.
TEST(Concatenate, NamedColumnsOnly) {
  RecordBatch a, b;
  a.schema = b.schema = std::make_shared<Schema>(
      Schema{{Field{"x", Int32(), false}, Field{"y", Int32(), false}, Field{"z", Int32(), false}}});
  a.columns = {Int32s({1, 2}), Int32s({3, 4}), Int32s({5, 6})};
  a.num_rows = 2;
  b.columns = {Int32s({7}), Int32s({8}), Int32s({9})};
  b.num_rows = 1;
  auto c = ConcatenateNamed({a, b}, {"z", "x", "z", "nope"});
  ASSERT_TRUE(c) << c.error().ToString();
  ASSERT_EQ(c->num_columns(), 2);
  EXPECT_EQ(c->schema->fields[0].name, "z");
  EXPECT_EQ(c->schema->fields[1].name, "x");
  ASSERT_EQ(c->num_rows, 3);
  EXPECT_EQ(c->columns[0]->Value<int32_t>(2), 9);
  EXPECT_EQ(c->columns[1]->Value<int32_t>(1), 2);
}

// Strings of several batches: each part's bytes land after the last (a taken part whose offsets
// start past 0 among them), nulls where they were, and a part without nulls adds none.
TEST(Concatenate, StringsAndFixedWidthKeepEveryRowAndNull) {
  BinaryBuilder s1, s2;
  ASSERT_TRUE(s1.Append("alpha"));
  s1.AppendNull();
  ASSERT_TRUE(s1.Append(""));
  ASSERT_TRUE(s2.Append("skipped"));
  ASSERT_TRUE(s2.Append("bravo"));
  ASSERT_TRUE(s2.Append("charlie"));
  ColumnPtr whole2 = s2.Finish();
  // Rows 1..2 of whole2 as a slice: offsets that start at 7, not 0.
  auto slice = std::make_shared<Column>(*whole2);
  slice->length = 2;
  slice->offsets = Buffer::Copy(ByteView(whole2->offsets.data() + 4, 12));
  FixedWidthBuilder<int64_t> i1(Int64()), i2(Int64());
  i1.Append(-1);
  i1.AppendNull();
  i1.Append(int64_t{1} << 40);
  i2.Append(7);
  i2.Append(8);
  RecordBatch a, b;
  a.schema = b.schema =
      std::make_shared<Schema>(Schema{{Field{"s", String(), true}, Field{"i", Int64(), true}}});
  a.columns = {s1.Finish(), i1.Finish()};
  a.num_rows = 3;
  b.columns = {slice, i2.Finish()};
  b.num_rows = 2;
  auto c = Concatenate({a, b, b});
  ASSERT_TRUE(c) << c.error().ToString();
  ASSERT_EQ(c->num_rows, 7);
  const Column& s = *c->columns[0];
  ASSERT_TRUE(s.Validate());
  const char* want[] = {"alpha", nullptr, "", "bravo", "charlie", "bravo", "charlie"};
  for (int r = 0; r < 7; ++r) {
    if (want[r] == nullptr) {
      EXPECT_TRUE(s.IsNull(r)) << r;
    } else {
      EXPECT_TRUE(s.IsValid(r)) << r;
      EXPECT_EQ(s.BytesAt(r), want[r]) << r;
    }
  }
  EXPECT_EQ(s.null_count, 1);
  EXPECT_EQ(s.values.size(), 5u + 2 * 12u);  // the slice's leading "skipped" is not copied
  const Column& i = *c->columns[1];
  ASSERT_TRUE(i.Validate());
  EXPECT_EQ(i.null_count, 1);
  EXPECT_TRUE(i.IsNull(1));
  const int64_t want_i[] = {-1, 0, int64_t{1} << 40, 7, 8, 7, 8};
  for (int r = 0; r < 7; ++r) {
    if (r != 1) EXPECT_EQ(i.Value<int64_t>(r), want_i[r]) << r;
  }
}

// A permutation of many rows, taken column by column on a pool, as without one: every value of
// every type (short and long strings, the common widths, decimals, booleans, NULLs) where the
// indices say.
TEST(Take, APermutationOnAPoolTakesEveryColumnAsWithoutOne) {
  const int64_t n = 70000;
  FixedWidthBuilder<int32_t> i32(Int32());
  FixedWidthBuilder<int64_t> i64(Int64());
  FixedWidthBuilder<__int128> dec(Decimal128(20, 2));
  BinaryBuilder str;
  BoolBuilder flags;
  for (int64_t r = 0; r < n; ++r) {
    i32.Append(static_cast<int32_t>(r * 3));
    if (r % 7 == 0) {
      i64.AppendNull();
    } else {
      i64.Append(r * 1000003);
    }
    dec.Append(static_cast<__int128>(r) << 70);
    ASSERT_TRUE(
        str.Append(std::string(static_cast<size_t>(r % 40), static_cast<char>('a' + r % 26))));
    flags.Append(r % 3 == 0);
  }
  RecordBatch batch;
  auto schema = std::make_shared<Schema>();
  for (const char* name : {"i32", "i64", "dec", "str", "flag"})
    schema->fields.push_back(Field{name, Int32(), true});
  batch.schema = schema;
  batch.columns = {i32.Finish(), i64.Finish(), dec.Finish(), str.Finish(), flags.Finish()};
  batch.num_rows = n;
  std::vector<int64_t> perm(n);
  for (int64_t r = 0; r < n; ++r) perm[r] = (r * 40503) % n;  // 40503 is coprime with n
  ThreadPool pool(2);
  auto serial = Take(batch, perm);
  auto pooled = Take(batch, perm, &pool);
  ASSERT_TRUE(serial && pooled);
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    const Column& a = *serial->columns[c];
    const Column& b = *pooled->columns[c];
    ASSERT_EQ(a.length, n);
    ASSERT_EQ(b.length, n);
    for (int64_t r = 0; r < n; ++r) {
      ASSERT_EQ(ValueToString(a, r), ValueToString(b, r)) << "column " << c << " row " << r;
      ASSERT_EQ(ValueToString(b, r), ValueToString(*batch.columns[c], perm[r])) << c << " " << r;
    }
  }
}

}  // namespace
}  // namespace floe::columnar
