#include "floe/columnar/csv_sniffer.h"

#include <gtest/gtest.h>

#include "floe/columnar/csv_reader.h"

namespace floe::columnar {
namespace {

// "name type, ..." of a sniffed schema, types as floe prints them.
std::string Columns(const Schema& s) {
  std::string out;
  for (const auto& f : s.fields) {
    if (!out.empty()) out += ", ";
    out += f.name + " " + f.type.ToString();
  }
  return out;
}

CsvSniff Sniff(std::string_view text, const CsvSniffOptions& o = {}) {
  auto s = SniffCsv(text, "f.csv", o);
  EXPECT_TRUE(s) << s.error().ToString();
  return s ? *s : CsvSniff{};
}

// Every value of a batch as text, rows joined by '|', NULL as "null".
std::string Rows(const RecordBatch& b) {
  std::string out;
  for (int64_t r = 0; r < b.num_rows; ++r) {
    if (r) out += "|";
    for (size_t c = 0; c < b.columns.size(); ++c) {
      if (c) out += ",";
      const Column& col = *b.columns[c];
      if (col.IsNull(r)) {
        out += "null";
      } else if (col.type.id == TypeId::kString) {
        out += std::string(col.BytesAt(r));
      } else if (col.type.id == TypeId::kInt64) {
        out += std::to_string(col.Value<int64_t>(r));
      } else if (col.type.id == TypeId::kFloat64) {
        out += std::to_string(col.Value<double>(r));
      } else if (col.type.id == TypeId::kBool) {
        out += col.BoolAt(r) ? "true" : "false";
      } else {
        out += "?";
      }
    }
  }
  return out;
}

// Sniffs, then reads with what was sniffed, as read_csv does.
std::string ReadSniffed(std::string_view text, const CsvSniffOptions& o = {}) {
  CsvSniff s = Sniff(text, o);
  CsvOptions options;
  options.dialect = s.dialect;
  options.null_value = o.null_value;
  options.match_by_name = false;
  auto b = ReadCsv(text, s.schema, "f.csv", options);
  if (!b) return "error: " + b.error().message;
  return Rows(*b);
}

TEST(CsvSniffer, CommaFileWithHeaderAndTypes) {
  CsvSniff s = Sniff(
      "id,price,ok,day,at,name\n1,1.5,true,2024-01-03,2024-01-03 10:00:00,ann\n"
      "2,2,false,2024-01-04,2024-01-04T11:30:00.25,bob\n");
  EXPECT_EQ(s.dialect.ToString(), "delimiter ',' quote '\"' escape '\"' header true");
  EXPECT_EQ(Columns(s.schema),
            "id int64, price double, ok bool, day date32, at timestamp[us], name string");
}

TEST(CsvSniffer, SemicolonPipeAndTabDelimiters) {
  EXPECT_EQ(Sniff("a;b;c\n1;2,5;x\n3;4,5;y\n").dialect.delimiter, ';');
  EXPECT_EQ(Columns(Sniff("a;b;c\n1;2,5;x\n3;4,5;y\n").schema), "a int64, b string, c string");
  EXPECT_EQ(Sniff("a|b\n1|2\n").dialect.delimiter, '|');
  CsvSniff tab = Sniff("a\ttime\n1.5\t10:00:00\n2\t11:30:00.5\n");
  EXPECT_EQ(tab.dialect.delimiter, '\t');
  EXPECT_EQ(Columns(tab.schema), "a double, time time64[us]");
}

TEST(CsvSniffer, QuotedFieldsHoldDelimitersNewlinesAndQuotes) {
  const std::string text = "a,b\n\"x, y\",1\n\"two\nlines\",2\n\"say \"\"hi\"\"\",3\n";
  CsvSniff s = Sniff(text);
  EXPECT_EQ(s.dialect.ToString(), "delimiter ',' quote '\"' escape '\"' header true");
  EXPECT_EQ(Columns(s.schema), "a string, b int64");
  EXPECT_EQ(ReadSniffed(text), "x, y,1|two\nlines,2|say \"hi\",3");
}

TEST(CsvSniffer, SingleQuotesAndBackslashEscapes) {
  CsvSniff sq = Sniff("a,b\n'x,y',2\n'z',3\n");
  EXPECT_EQ(sq.dialect.quote, '\'');
  EXPECT_EQ(ReadSniffed("a,b\n'x,y',2\n'z',3\n"), "x,y,2|z,3");
  const std::string bs = "a,b\n\"x\\\"y\",2\n\"p,q\",3\n";
  EXPECT_EQ(Sniff(bs).dialect.ToString(), "delimiter ',' quote '\"' escape '\\' header true");
  EXPECT_EQ(ReadSniffed(bs), "x\"y,2|p,q,3");
}

TEST(CsvSniffer, HeaderOrNot) {
  // Numbers under a word: a header. Numbers all the way: none, columns named as DuckDB does.
  EXPECT_TRUE(Sniff("n\n1\n2\n").dialect.header);
  CsvSniff none = Sniff("1,2\n3,4\n");
  EXPECT_FALSE(none.dialect.header);
  EXPECT_EQ(Columns(none.schema), "column0 int64, column1 int64");
  EXPECT_EQ(ReadSniffed("1,2\n3,4\n"), "1,2|3,4");
  // One line of numbers is a row; one line of words a header.
  EXPECT_FALSE(Sniff("1,2\n").dialect.header);
  CsvSniff words = Sniff("a,b\n");
  EXPECT_TRUE(words.dialect.header);
  EXPECT_EQ(Columns(words.schema), "a string, b string");
  // Text columns: a header when the first line's values are non-empty words.
  EXPECT_TRUE(Sniff("x,y\nfoo,bar\nbaz,qux\n").dialect.header);
  EXPECT_FALSE(Sniff("x,\nfoo,bar\n").dialect.header);
  // A first row that fits the typed columns is data.
  CsvSniff data = Sniff("bob,3\nalice,4\n");
  EXPECT_FALSE(data.dialect.header);
  EXPECT_EQ(Columns(data.schema), "column0 string, column1 int64");
  // What the caller says wins.
  CsvSniffOptions o;
  o.header = false;
  EXPECT_EQ(Columns(Sniff("a,b\n1,2\n", o).schema), "column0 string, column1 string");
}

TEST(CsvSniffer, DuplicateAndEmptyHeaderNamesMadeUnique) {
  EXPECT_EQ(Columns(Sniff("a,a,,b,a\n1,2,3,4,5\n").schema),
            "a int64, a_1 int64, column2 int64, b int64, a_2 int64");
}

TEST(CsvSniffer, BomCrlfAndNoFinalNewline) {
  const std::string text = "\xEF\xBB\xBFid,name\r\n1,ann\r\n2,bob";
  CsvSniff s = Sniff(text);
  EXPECT_EQ(Columns(s.schema), "id int64, name string");
  EXPECT_EQ(ReadSniffed(text), "1,ann|2,bob");
}

TEST(CsvSniffer, NullsEmptyAndNullString) {
  EXPECT_EQ(Columns(Sniff("x,y\n1,\n,2\n").schema), "x int64, y int64");
  EXPECT_EQ(ReadSniffed("x,y\n1,\n,2\n"), "1,null|null,2");
  CsvSniffOptions o;
  o.null_value = "NA";
  EXPECT_EQ(Columns(Sniff("x,y\n1,NA\nNA,2\n", o).schema), "x int64, y int64");
  EXPECT_EQ(ReadSniffed("x,y\n1,NA\nNA,2\n", o), "1,null|null,2");
  // A column of no values is text.
  EXPECT_EQ(Columns(Sniff("x,y\n1,\n2,\n").schema), "x int64, y string");
}

TEST(CsvSniffer, TypesAsDuckDbReadsThem) {
  // 0/1 beside true is text; a date beside a timestamp is text; offsets make TIMESTAMPTZ.
  EXPECT_EQ(Columns(Sniff("a,b\n0,2024-01-01\n1,2024-01-01 10:00:00\ntrue,2024-01-02\n").schema),
            "a string, b string");
  EXPECT_EQ(Columns(Sniff("t\n2024-01-01T10:00:00Z\n2024-01-01 10:00:00+02:00\n").schema),
            "t timestamp[us, UTC]");
  EXPECT_EQ(Columns(Sniff("v\n1\n2.5\n1e3\n").schema), "v double");
  EXPECT_EQ(Columns(Sniff("v\n1\n99999999999999999999\n").schema), "v double");
  EXPECT_EQ(Columns(Sniff("v\nTRUE\nfalse\n").schema), "v bool");
}

TEST(CsvSniffer, DuckDbsRulesForZerosWordsBlanksAndSpecialNumbers) {
  // A leading zero keeps a number text (zip codes, ids): as DuckDB's sniffer; "0" and "0.5" are
  // numbers, and so is "-01", as DuckDB has it.
  EXPECT_EQ(Columns(Sniff("zip,n,m\n007,0,-01\n010,0.5,2\n3,1,3\n").schema),
            "zip string, n double, m int64");
  // Booleans: true/false, t/f, yes/no in any case; 1/0 alone stay integers.
  EXPECT_EQ(Columns(Sniff("a,b,c\nt,yes,1\nF,No,0\nTRUE,YES,1\n").schema),
            "a bool, b bool, c int64");
  EXPECT_EQ(ReadSniffed("a,b\nt,yes\nF,No\n"), "true,true|false,false");
  // nan and inf among numbers are doubles.
  EXPECT_EQ(Columns(Sniff("v\n1.5\nnan\n-inf\nInfinity\n").schema), "v double");
  // Spaces around a value do not change its type and are not part of a number or of a header's
  // name; text keeps them.
  CsvSniff s = Sniff("a, b, c\n1, hello , 2024-01-03\n 2 ,  x,2024-01-04\n");
  EXPECT_EQ(Columns(s.schema), "a int64, b string, c date32");
  EXPECT_EQ(ReadSniffed("a, b\n1, hello \n 2 ,  x\n"), "1, hello |2,  x");
}

TEST(CsvSniffer, SkipAndFixedDelimiter) {
  CsvSniffOptions o;
  o.skip = 2;
  EXPECT_EQ(ReadSniffed("junk line\nmore, junk, here\na,b\n1,2\n", o), "1,2");
  o = {};
  o.delimiter = '|';
  EXPECT_EQ(Columns(Sniff("a|b,c\n1|2,3\n", o).schema), "a int64, b,c string");
}

TEST(CsvSniffer, InconsistentLinesAreOneError) {
  auto s = SniffCsv("a,b\n1,2\n3\n4,5,6\n", "bad.csv");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "bad.csv: no delimiter gives every line the same number of fields (with ',' line 1 "
            "has 2, line 3 has 1)");
}

TEST(CsvSniffer, SampleCutInsideAQuotedFieldStillSniffs) {
  std::string text = "a,b\n";
  for (int i = 0; i < 50; ++i) text += std::to_string(i) + ",\"x\ny\"\n";
  CsvSniffOptions o;
  o.sample_lines = 6;  // ends inside a quoted field
  CsvSniff s = Sniff(text, o);
  EXPECT_EQ(Columns(s.schema), "a int64, b string");
}

TEST(CsvReaderDialect, ReadsAsTheTableByNameOrPosition) {
  Schema t;
  t.fields = {{"id", Int64(), false}, {"name", String(), true}};
  // A header naming the table's columns in another order.
  auto b = ReadCsvAs("name;id\nann;1\nbob;2\n", t, "h.csv");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(Rows(*b), "1,ann|2,bob");
  // No header: by position.
  b = ReadCsvAs("1\tann\n2\tbob\n", t, "p.tsv");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(Rows(*b), "1,ann|2,bob");
  // A header of text columns only, which the types alone could not tell from data.
  Schema words;
  words.fields = {{"a", String(), true}, {"b", String(), true}};
  b = ReadCsvAs("b,a\nx,y\n", words, "w.csv");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(Rows(*b), "y,x");
  // A value that does not fit names file, line and column.
  b = ReadCsvAs("id,name\n1,ann\nzz,bob\n", t, "bad.csv");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message, "bad.csv: line 3: 'zz' is not a int64 value for column 'id'");
  // Empty file: no rows.
  b = ReadCsvAs("", t, "empty.csv");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(b->num_rows, 0);
}

}  // namespace
}  // namespace floe::columnar
