#include "floe/sql/ddl.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "floe/columnar/column_builder.h"
#include "floe/exec/expression.h"
#include "floe/exec/value.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/table.h"
#include "floe/sql/bind_internal.h"
#include "floe/sql/dml_target.h"
#include "floe/sql/parser.h"
#include "floe/sql/sql_tokens.h"

namespace floe::sql {
namespace {

namespace c = columnar;
using K = DdlStatement::Kind;

using internal::Lower;

// Walks the tokens of one statement; errors point at the token where it went astray.
class Cursor {
 public:
  Cursor(std::string_view sql, std::string what)
      : sql_(sql), tokens_(Tokenize(sql)), what_(std::move(what)) {
    while (!tokens_.empty() && !tokens_.back().quoted && tokens_.back().word == ";") {
      tokens_.pop_back();
    }
  }

  bool AtEnd() const { return at_ >= tokens_.size(); }
  size_t Offset() const { return AtEnd() ? sql_.size() : tokens_[at_].begin; }
  bool Is(std::string_view word, size_t ahead = 0) const {
    return at_ + ahead < tokens_.size() && !tokens_[at_ + ahead].quoted &&
           tokens_[at_ + ahead].word == word;
  }
  bool Accept(std::string_view word) {
    if (!Is(word)) return false;
    ++at_;
    return true;
  }
  Status Expect(std::string_view word) {
    if (Accept(word)) return {};
    return std::unexpected(Bad(fmt::format("expected {} {}", Upper(word), Found())));
  }
  Status ExpectEnd() {
    if (AtEnd()) return {};
    return std::unexpected(Bad(fmt::format("unexpected '{}'", Current())));
  }

  // A name: a word, a "quoted" or `backquoted` identifier (as written, case kept).
  Result<std::string> Name(std::string_view what) {
    if (AtEnd()) return std::unexpected(Bad(fmt::format("expected {} at the end", what)));
    const Token& t = tokens_[at_];
    if (!t.quoted && (t.word == "\"" || t.word == "`")) {
      size_t close = t.word == "\"" ? t.end - 1 : sql_.find('`', t.begin + 1);
      if (close == std::string_view::npos || close <= t.begin) {
        return std::unexpected(Bad("unterminated quoted name"));
      }
      std::string name(sql_.substr(t.begin + 1, close - t.begin - 1));
      while (at_ < tokens_.size() && tokens_[at_].begin <= close) ++at_;
      return name;
    }
    if (t.quoted || t.word.empty() ||
        !(std::isalpha(static_cast<unsigned char>(t.word[0])) || t.word[0] == '_')) {
      return std::unexpected(Bad(fmt::format("expected {} {}", what, Found())));
    }
    ++at_;
    return std::string(sql_.substr(t.begin, t.end - t.begin));  // as written
  }
  Result<std::string> DottedName(std::string_view what) {
    FLOE_ASSIGN_OR_RETURN(std::string name, Name(what));
    while (Accept(".")) {
      FLOE_ASSIGN_OR_RETURN(std::string part, Name(what));
      name += "." + part;
    }
    return name;
  }
  Result<std::string> String(std::string_view what) {
    if (AtEnd() || !tokens_[at_].quoted) {
      return std::unexpected(Bad(fmt::format("expected {} as a 'string' {}", what, Found())));
    }
    return tokens_[at_++].word;
  }
  // A property key or value: a 'string', a number, true/false, or a dotted name.
  Result<std::string> PropertyText(std::string_view what) {
    if (!AtEnd() &&
        (tokens_[at_].quoted || std::isdigit(static_cast<unsigned char>(tokens_[at_].word[0])))) {
      return tokens_[at_++].word;
    }
    return DottedName(what);
  }

  // The text from here up to (not including) the first token, outside () and <>, that `stop`
  // accepts, or to the end; empty when there is none.
  std::string TextUntil(const std::function<bool(const Token&)>& stop) {
    const size_t start = at_;
    int depth = 0;
    while (at_ < tokens_.size()) {
      const Token& t = tokens_[at_];
      if (!t.quoted) {
        if (depth == 0 && stop(t)) break;
        if (t.word == "(" || t.word == "<") ++depth;
        if ((t.word == ")" || t.word == ">") && --depth < 0) break;
      }
      ++at_;
    }
    if (at_ == start) return "";
    return std::string(
        sql_.substr(tokens_[start].begin, tokens_[at_ - 1].end - tokens_[start].begin));
  }
  // The text inside a balanced ( ... ) starting here.
  Result<std::string> Parenthesized(std::string_view what) {
    FLOE_RETURN_IF_ERROR(Expect("("));
    std::string inner = TextUntil([](const Token& t) { return t.word == ")"; });
    FLOE_RETURN_IF_ERROR(Expect(")"));
    if (inner.empty()) return std::unexpected(Bad(fmt::format("{} is empty", what)));
    return inner;
  }
  // The rest of the statement from here, with everything before it blanked (newlines kept).
  std::string Rest() const {
    std::string out(sql_);
    const size_t from = Offset();
    for (size_t i = 0; i < from; ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
    return out;
  }

  Error Bad(std::string message) const { return BadAt(Offset(), std::move(message)); }
  // Valid SQL (Spark's or Postgres's) that floe does not run.
  Error Unsupported(std::string message) const {
    return ErrorAt(ErrorKind::kUnsupported, sql_, static_cast<int>(Offset()),
                   fmt::format("{}: {}", what_, message));
  }
  Error BadAt(size_t offset, std::string message) const {
    return ErrorAt(ErrorKind::kInvalidInput, sql_, static_cast<int>(offset),
                   fmt::format("{}: {}", what_, message));
  }
  std::string Current() const {
    return AtEnd() ? ""
                   : std::string(
                         sql_.substr(tokens_[at_].begin, tokens_[at_].end - tokens_[at_].begin));
  }
  std::string Found() const { return AtEnd() ? "at the end" : fmt::format("at '{}'", Current()); }
  static std::string Upper(std::string_view s) {
    std::string out(s);
    for (char& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return out;
  }

 private:
  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  std::string what_;
};

bool IsWord(const Token& t, std::initializer_list<std::string_view> words) {
  if (t.quoted) return false;
  return std::ranges::find(words, t.word) != words.end();
}

// A column definition: name type [NOT NULL] [COMMENT '...'] and, for ALTER's ADD, [FIRST | AFTER
// c].
Result<iceberg::AddColumn> ColumnDefinition(Cursor& in, bool positions) {
  iceberg::AddColumn col;
  FLOE_ASSIGN_OR_RETURN(col.name, in.DottedName("a column name"));
  const size_t at = in.Offset();
  std::string type_text = in.TextUntil([](const Token& t) {
    return IsWord(t, {",", ")", "not", "comment", "first", "after", "null", "default"});
  });
  if (type_text.empty()) return std::unexpected(in.Bad("expected the column's type " + in.Found()));
  auto type = iceberg::ParseSqlType(type_text);
  if (!type) return std::unexpected(in.BadAt(at, type.error().message));
  col.type = *type;
  while (!in.AtEnd()) {
    if (in.Accept("not")) {
      FLOE_RETURN_IF_ERROR(in.Expect("null"));
      col.required = true;
    } else if (in.Accept("null")) {
      col.required = false;
    } else if (in.Accept("comment")) {
      FLOE_ASSIGN_OR_RETURN(col.doc, in.String("the comment"));
    } else if (positions && in.Accept("first")) {
      col.first = true;
    } else if (positions && in.Accept("after")) {
      FLOE_ASSIGN_OR_RETURN(col.after, in.DottedName("a column name"));
    } else if (in.Is("default")) {
      return std::unexpected(in.Unsupported("column defaults are not supported"));
    } else {
      break;
    }
  }
  return col;
}

Result<std::map<std::string, std::string>> Properties(Cursor& in) {
  std::map<std::string, std::string> out;
  FLOE_RETURN_IF_ERROR(in.Expect("("));
  do {
    FLOE_ASSIGN_OR_RETURN(std::string key, in.PropertyText("a property name"));
    FLOE_RETURN_IF_ERROR(in.Expect("="));
    FLOE_ASSIGN_OR_RETURN(std::string value, in.PropertyText("the property's value"));
    out[key] = value;
  } while (in.Accept(","));
  FLOE_RETURN_IF_ERROR(in.Expect(")"));
  return out;
}

Result<DdlStatement> ParseCreate(std::string_view sql) {
  Cursor in(sql, "CREATE TABLE");
  DdlStatement st;
  st.kind = K::kCreate;
  FLOE_RETURN_IF_ERROR(in.Expect("create"));
  if (in.Is("or")) return std::unexpected(in.Unsupported("CREATE OR REPLACE is not supported"));
  FLOE_RETURN_IF_ERROR(in.Expect("table"));
  if (in.Accept("if")) {
    FLOE_RETURN_IF_ERROR(in.Expect("not"));
    FLOE_RETURN_IF_ERROR(in.Expect("exists"));
    st.if_not_exists = true;
  }
  FLOE_ASSIGN_OR_RETURN(st.table, in.DottedName("the table's name"));
  if (in.Accept("(")) {
    if (!in.Is(")")) {
      do {
        FLOE_ASSIGN_OR_RETURN(iceberg::AddColumn col, ColumnDefinition(in, false));
        if (col.name.find('.') != std::string::npos) {
          return std::unexpected(in.Bad(fmt::format("bad column name '{}'", col.name)));
        }
        iceberg::NestedField f;
        f.name = col.name;
        f.type = col.type;
        f.required = col.required;
        f.doc = col.doc;
        st.columns.push_back(std::move(f));
      } while (in.Accept(","));
    }
    FLOE_RETURN_IF_ERROR(in.Expect(")"));
    if (st.columns.empty()) return std::unexpected(in.Bad("a table needs at least one column"));
  }
  while (!in.AtEnd()) {
    if (in.Accept("using")) {
      FLOE_ASSIGN_OR_RETURN(std::string format, in.Name("a table format"));
      if (Lower(format) != "iceberg") {
        return std::unexpected(in.Bad(fmt::format("USING {}: floe makes Iceberg tables", format)));
      }
    } else if (in.Accept("partitioned")) {
      FLOE_RETURN_IF_ERROR(in.Expect("by"));
      FLOE_ASSIGN_OR_RETURN(st.partitioned_by, in.Parenthesized("PARTITIONED BY"));
    } else if (in.Accept("location")) {
      FLOE_ASSIGN_OR_RETURN(st.location, in.String("the location"));
    } else if (in.Accept("comment")) {
      FLOE_ASSIGN_OR_RETURN(st.properties["comment"], in.String("the comment"));
    } else if (in.Accept("tblproperties")) {
      FLOE_ASSIGN_OR_RETURN(auto props, Properties(in));
      st.properties.insert(props.begin(), props.end());
    } else if (in.Accept("as")) {
      if (!st.columns.empty()) {
        return std::unexpected(
            in.Bad("CREATE TABLE ... AS takes its columns from the query; drop the column list"));
      }
      if (in.AtEnd()) return std::unexpected(in.Bad("expected a query after AS"));
      st.query = in.Rest();
      break;
    } else {
      return std::unexpected(in.Bad(fmt::format("unexpected '{}'", in.Current())));
    }
  }
  if (st.columns.empty() && st.query.empty()) {
    return std::unexpected(in.Bad("expected (columns) or AS query"));
  }
  return st;
}

Result<DdlStatement> ParseDrop(std::string_view sql) {
  Cursor in(sql, "DROP TABLE");
  DdlStatement st;
  st.kind = K::kDrop;
  FLOE_RETURN_IF_ERROR(in.Expect("drop"));
  FLOE_RETURN_IF_ERROR(in.Expect("table"));
  if (in.Accept("if")) {
    FLOE_RETURN_IF_ERROR(in.Expect("exists"));
    st.if_exists = true;
  }
  FLOE_ASSIGN_OR_RETURN(st.table, in.DottedName("the table's name"));
  st.purge = in.Accept("purge");
  FLOE_RETURN_IF_ERROR(in.ExpectEnd());
  return st;
}

// The sort order of WRITE ... ORDERED BY: the rest of the statement.
Result<std::string> OrderText(Cursor& in) {
  std::string text = in.TextUntil([](const Token&) { return false; });
  if (text.empty()) return std::unexpected(in.Bad("expected the sort order after ORDERED BY"));
  return text;
}

Result<iceberg::TableAlteration> ParseWrite(Cursor& in) {
  iceberg::SetWriteOrder w;
  if (in.Accept("unordered")) {
    w.sort_order = "";
    w.distribution_mode = "none";
  } else if (in.Accept("distributed")) {
    FLOE_RETURN_IF_ERROR(in.Expect("by"));
    FLOE_RETURN_IF_ERROR(in.Expect("partition"));
    w.distribution_mode = "hash";
    w.sort_order = "";
    if (in.Accept("locally")) {
      FLOE_RETURN_IF_ERROR(in.Expect("ordered"));
      FLOE_RETURN_IF_ERROR(in.Expect("by"));
      FLOE_ASSIGN_OR_RETURN(w.sort_order, OrderText(in));
    }
  } else {
    const bool locally = in.Accept("locally");
    FLOE_RETURN_IF_ERROR(in.Expect("ordered"));
    FLOE_RETURN_IF_ERROR(in.Expect("by"));
    FLOE_ASSIGN_OR_RETURN(w.sort_order, OrderText(in));
    w.distribution_mode = locally ? "none" : "range";
  }
  return w;
}

// A partition field's transform, up to AS or WITH.
Result<std::string> TransformText(Cursor& in) {
  std::string text = in.TextUntil([](const Token& t) { return IsWord(t, {"as", "with"}); });
  if (text.empty()) return std::unexpected(in.Bad("expected a partition field " + in.Found()));
  return text;
}

Result<DdlStatement> ParseAlter(std::string_view sql) {
  Cursor in(sql, "ALTER TABLE");
  DdlStatement st;
  st.kind = K::kAlter;
  FLOE_RETURN_IF_ERROR(in.Expect("alter"));
  FLOE_RETURN_IF_ERROR(in.Expect("table"));
  FLOE_ASSIGN_OR_RETURN(st.table, in.DottedName("the table's name"));
  auto& out = st.alterations;
  if (in.Accept("add")) {
    if (in.Accept("partition")) {
      FLOE_RETURN_IF_ERROR(in.Expect("field"));
      iceberg::AddPartitionField f;
      FLOE_ASSIGN_OR_RETURN(f.transform, TransformText(in));
      if (in.Accept("as")) {
        FLOE_ASSIGN_OR_RETURN(f.name, in.Name("the partition field's name"));
      }
      out.emplace_back(std::move(f));
    } else {
      if (!in.Accept("columns")) FLOE_RETURN_IF_ERROR(in.Expect("column"));
      const bool parenthesized = in.Accept("(");
      do {
        FLOE_ASSIGN_OR_RETURN(iceberg::AddColumn col, ColumnDefinition(in, true));
        out.emplace_back(std::move(col));
      } while (in.Accept(","));
      if (parenthesized) FLOE_RETURN_IF_ERROR(in.Expect(")"));
    }
  } else if (in.Accept("drop")) {
    if (in.Accept("partition")) {
      FLOE_RETURN_IF_ERROR(in.Expect("field"));
      FLOE_ASSIGN_OR_RETURN(std::string field, TransformText(in));
      out.emplace_back(iceberg::DropPartitionField{field});
    } else {
      if (!in.Accept("columns")) FLOE_RETURN_IF_ERROR(in.Expect("column"));
      const bool parenthesized = in.Accept("(");
      do {
        FLOE_ASSIGN_OR_RETURN(std::string name, in.DottedName("a column name"));
        out.emplace_back(iceberg::DropColumn{name});
      } while (in.Accept(","));
      if (parenthesized) FLOE_RETURN_IF_ERROR(in.Expect(")"));
    }
  } else if (in.Accept("replace")) {
    FLOE_RETURN_IF_ERROR(in.Expect("partition"));
    FLOE_RETURN_IF_ERROR(in.Expect("field"));
    iceberg::ReplacePartitionField f;
    FLOE_ASSIGN_OR_RETURN(f.field, TransformText(in));
    FLOE_RETURN_IF_ERROR(in.Expect("with"));
    FLOE_ASSIGN_OR_RETURN(f.transform, TransformText(in));
    if (in.Accept("as")) {
      FLOE_ASSIGN_OR_RETURN(f.name, in.Name("the partition field's name"));
    }
    out.emplace_back(std::move(f));
  } else if (in.Accept("rename")) {
    if (in.Accept("to")) {
      st.kind = K::kRenameTable;
      FLOE_ASSIGN_OR_RETURN(st.new_name, in.DottedName("the table's new name"));
    } else {
      FLOE_RETURN_IF_ERROR(in.Expect("column"));
      iceberg::RenameColumn r;
      FLOE_ASSIGN_OR_RETURN(r.name, in.DottedName("a column name"));
      FLOE_RETURN_IF_ERROR(in.Expect("to"));
      FLOE_ASSIGN_OR_RETURN(r.new_name, in.Name("the column's new name"));
      out.emplace_back(std::move(r));
    }
  } else if (in.Accept("alter") || in.Is("change")) {
    if (in.Accept("change")) {
      return std::unexpected(in.Unsupported("CHANGE COLUMN is not supported; use ALTER COLUMN"));
    }
    (void)in.Accept("column");
    FLOE_ASSIGN_OR_RETURN(std::string name, in.DottedName("a column name"));
    if (in.Is("set") && in.Is("not", 1)) {
      return std::unexpected(
          in.Bad("SET NOT NULL is not allowed: rows written before may hold NULLs"));
    }
    if (in.Is("set") && in.Is("data", 1) && in.Is("type", 2)) {
      (void)in.Accept("set");
      (void)in.Accept("data");
    }
    if (in.Accept("type")) {
      const size_t at = in.Offset();
      std::string text = in.TextUntil([](const Token&) { return false; });
      if (text.empty()) return std::unexpected(in.Bad("expected the new type"));
      auto type = iceberg::ParseSqlType(text);
      if (!type) return std::unexpected(in.BadAt(at, type.error().message));
      out.emplace_back(iceberg::UpdateColumnType{name, *type});
    } else if (in.Accept("drop")) {
      FLOE_RETURN_IF_ERROR(in.Expect("not"));
      FLOE_RETURN_IF_ERROR(in.Expect("null"));
      out.emplace_back(iceberg::DropNotNull{name});
    } else if (in.Accept("comment")) {
      FLOE_ASSIGN_OR_RETURN(std::string doc, in.String("the comment"));
      out.emplace_back(iceberg::SetColumnComment{name, doc});
    } else if (in.Is("first") || in.Is("after")) {
      return std::unexpected(
          in.Unsupported("moving a column is not supported (ADD COLUMN takes FIRST | AFTER)"));
    } else {
      return std::unexpected(
          in.Bad(fmt::format("expected TYPE, DROP NOT NULL or COMMENT {}", in.Found())));
    }
  } else if (in.Accept("set")) {
    FLOE_RETURN_IF_ERROR(in.Expect("tblproperties"));
    FLOE_ASSIGN_OR_RETURN(auto props, Properties(in));
    out.emplace_back(iceberg::SetProperties{std::move(props)});
  } else if (in.Accept("unset")) {
    FLOE_RETURN_IF_ERROR(in.Expect("tblproperties"));
    iceberg::UnsetProperties u;
    if (in.Accept("if")) {
      FLOE_RETURN_IF_ERROR(in.Expect("exists"));
      u.if_exists = true;
    }
    FLOE_RETURN_IF_ERROR(in.Expect("("));
    do {
      FLOE_ASSIGN_OR_RETURN(std::string key, in.PropertyText("a property name"));
      u.keys.push_back(std::move(key));
    } while (in.Accept(","));
    FLOE_RETURN_IF_ERROR(in.Expect(")"));
    out.emplace_back(std::move(u));
  } else if (in.Accept("write")) {
    FLOE_ASSIGN_OR_RETURN(iceberg::TableAlteration w, ParseWrite(in));
    out.emplace_back(std::move(w));
  } else {
    return std::unexpected(in.Bad(fmt::format(
        "expected ADD, DROP, REPLACE, RENAME, ALTER, SET, UNSET or WRITE {}", in.Found())));
  }
  FLOE_RETURN_IF_ERROR(in.ExpectEnd());
  return st;
}

Result<DdlStatement> ParseInsert(std::string_view sql) {
  Cursor in(sql, "INSERT");
  DdlStatement st;
  st.kind = K::kInsert;
  FLOE_RETURN_IF_ERROR(in.Expect("insert"));
  if (in.Is("overwrite"))
    return std::unexpected(in.Unsupported("INSERT OVERWRITE is not supported"));
  FLOE_RETURN_IF_ERROR(in.Expect("into"));
  (void)in.Accept("table");
  FLOE_ASSIGN_OR_RETURN(st.table, in.DottedName("the table's name"));
  // A column list, unless the parenthesis opens the query: (SELECT ...), (VALUES ...).
  if (in.Is("(") && !in.Is("select", 1) && !in.Is("values", 1) && !in.Is("with", 1) &&
      !in.Is("(", 1)) {
    in.Accept("(");
    do {
      FLOE_ASSIGN_OR_RETURN(std::string name, in.Name("a column name"));
      st.insert_columns.push_back(std::move(name));
    } while (in.Accept(","));
    FLOE_RETURN_IF_ERROR(in.Expect(")"));
  }
  if (in.Accept("by")) {
    FLOE_RETURN_IF_ERROR(in.Expect("name"));
    st.by_name = true;
    if (!st.insert_columns.empty()) {
      return std::unexpected(in.Bad("BY NAME takes no column list"));
    }
  }
  if (in.AtEnd()) return std::unexpected(in.Bad("expected a query (SELECT ... or VALUES ...)"));
  if (in.Is("default")) return std::unexpected(in.Unsupported("DEFAULT VALUES is not supported"));
  st.query = in.Rest();
  return st;
}

QueryResult Message(std::string message) {
  QueryResult r;
  r.message = std::move(message);
  return r;
}

// The query's rows brought to the table's columns: matched by position, by the listed columns or
// by name, each cast to its column's type as an INSERT assigns it (Spark's store assignment).
Result<std::vector<c::RecordBatch>> RowsForTable(const DdlStatement& st, const QueryResult& q,
                                                 const iceberg::Schema& schema) {
  const auto& out_fields = q.schema->fields;
  std::vector<const iceberg::NestedField*> targets;
  auto find = [&](const std::string& name) -> const iceberg::NestedField* {
    const iceberg::NestedField* found = nullptr;
    for (const auto& f : schema.fields()) {
      if (f.name == name) return &f;
      if (Lower(f.name) == Lower(name)) found = &f;
    }
    return found;
  };
  if (st.by_name) {
    for (const auto& f : out_fields) {
      const auto* t = find(f.name);
      if (!t)
        return InvalidInput("INSERT BY NAME: table '{}' has no column '{}'", st.table, f.name);
      targets.push_back(t);
    }
  } else if (!st.insert_columns.empty()) {
    for (const auto& name : st.insert_columns) {
      const auto* t = find(name);
      if (!t) return InvalidInput("INSERT: table '{}' has no column '{}'", st.table, name);
      targets.push_back(t);
    }
  } else {
    for (const auto& f : schema.fields()) targets.push_back(&f);
  }
  if (targets.size() != out_fields.size()) {
    return InvalidInput(
        "INSERT into '{}': the query gives {} columns where {} {} expected{}", st.table,
        out_fields.size(), targets.size(), targets.size() == 1 ? "is" : "are",
        st.insert_columns.empty() && !st.by_name ? " (list the columns: INSERT INTO t (a, b) ...)"
                                                 : "");
  }
  std::set<int32_t> seen;
  for (const auto* t : targets) {
    if (!seen.insert(t->id).second) {
      return InvalidInput("INSERT into '{}': column '{}' is given twice", st.table, t->name);
    }
  }
  auto schema_out = std::make_shared<c::Schema>();
  std::vector<c::DataType> types;
  for (const auto* t : targets) {
    FLOE_ASSIGN_OR_RETURN(c::DataType type, iceberg::ToColumnarType(*t->type));
    schema_out->fields.push_back(c::Field{t->name, type, !t->required, t->id});
    types.push_back(std::move(type));
  }
  std::vector<c::RecordBatch> batches;
  for (const auto& b : q.batches) {
    c::RecordBatch next;
    next.schema = schema_out;
    next.num_rows = b.num_rows;
    for (size_t i = 0; i < b.columns.size(); ++i) {
      const c::DataType& from = out_fields[i].type;
      if (b.columns[i]->null_count == b.num_rows) {  // NULL, or a column of nothing but NULLs
        next.columns.push_back(c::NullColumn(types[i], b.num_rows));
        continue;
      }
      if (from == types[i] || types[i].id == c::TypeId::kStruct ||
          types[i].id == c::TypeId::kList || types[i].id == c::TypeId::kMap) {
        next.columns.push_back(b.columns[i]);  // nested: conformed by the writer
        continue;
      }
      // Store assignment as MERGE does it: cast to the type the executor holds (a narrow
      // integer keeps its range), then back to the column's own width.
      c::ColumnPtr value = b.columns[i];
      const c::DataType held = internal::AssignmentType(types[i]);
      if (from != held && from != types[i]) {
        auto cast =
            exec::MakeCast(exec::ColumnRef(static_cast<int>(i), from, out_fields[i].name), held);
        if (!cast) {
          return InvalidInput("INSERT into '{}': column '{}' ({}) from {}: {}", st.table,
                              targets[i]->name, targets[i]->type->ToString(), from.ToString(),
                              cast.error().message);
        }
        auto evaluated = exec::Evaluate(**cast, b);
        if (!evaluated) {
          return InvalidInput("INSERT into '{}': column '{}': {}", st.table, targets[i]->name,
                              evaluated.error().message);
        }
        value = std::move(*evaluated);
      }
      auto column = exec::DenormalizeColumn(value, types[i]);
      if (!column) {
        return InvalidInput("INSERT into '{}': column '{}': {}", st.table, targets[i]->name,
                            column.error().message);
      }
      next.columns.push_back(std::move(*column));
    }
    batches.push_back(std::move(next));
  }
  return batches;
}

// Appends the rows in one commit; the rows and files written.
struct Appended {
  int64_t rows = 0;
  size_t files = 0;
  std::optional<int64_t> snapshot_id;
};

Result<Appended> AppendRows(iceberg::Warehouse& w, const catalog::TableIdentifier& id,
                            const std::vector<c::RecordBatch>& batches) {
  FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::LoadTable(*w.catalog, *w.io, id));
  iceberg::TableDataWriter writer(table, *w.io);
  for (const auto& b : batches) {
    if (b.num_rows > 0) FLOE_RETURN_IF_ERROR(writer.Write(b));
  }
  Appended a;
  a.rows = writer.rows();
  if (a.rows == 0) return a;
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> files, writer.Finish());
  a.files = files.size();
  auto committed = iceberg::AppendFiles(*w.catalog, *w.io, id, files);
  if (!committed) {
    for (const auto& f : files) (void)w.io->Delete(f.file_path);
    return std::unexpected(committed.error());
  }
  a.snapshot_id = committed->metadata.CurrentSnapshot()->snapshot_id;
  return a;
}

QueryResult InsertSummary(const std::string& what, const Appended& a) {
  QueryResult r;
  auto schema = std::make_shared<c::Schema>();
  c::RecordBatch row;
  row.num_rows = 1;
  for (const char* name : {"num_affected_rows", "num_inserted_rows"}) {
    c::FixedWidthBuilder<int64_t> b(c::Int64());
    b.Append(a.rows);
    row.columns.push_back(b.Finish());
    schema->fields.push_back({name, c::Int64(), false});
  }
  row.schema = schema;
  r.schema = schema;
  r.batches.push_back(std::move(row));
  r.message = a.snapshot_id ? fmt::format("{}: {} rows in {} data files; snapshot {}", what, a.rows,
                                          a.files, *a.snapshot_id)
                            : fmt::format("{}: no rows; nothing was committed", what);
  return r;
}

Result<catalog::TableIdentifier> Identifier(const std::string& name) {
  return catalog::TableIdentifier::Parse(name);
}

Result<QueryResult> RunCreate(const DdlStatement& st, iceberg::Warehouse& w,
                              const QueryRunner& run_query) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, Identifier(st.table));
  if (w.catalog->LoadTable(id)) {
    if (st.if_not_exists) return Message(fmt::format("table {} exists; nothing done", st.table));
    return Conflict("CREATE TABLE: table '{}' already exists", st.table);
  }
  // The query runs before anything is created: a bad query creates nothing.
  std::optional<QueryResult> rows;
  iceberg::Schema schema;
  if (!st.query.empty()) {
    FLOE_ASSIGN_OR_RETURN(rows, run_query(st.query));
    if (!rows->schema) return InvalidInput("CREATE TABLE ... AS: the statement gives no rows");
    c::Schema columns = *rows->schema;
    for (auto& f : columns.fields) f.nullable = true;  // every column optional, as DuckDB's CTAS
    int32_t next_id = 1;
    FLOE_ASSIGN_OR_RETURN(schema, iceberg::FromColumnarSchema(columns, &next_id));
  } else {
    std::vector<iceberg::NestedField> fields = st.columns;
    int32_t last = 0;
    for (auto& f : fields) f.id = ++last;
    // Nested ids after every top-level one, struct by struct (as Iceberg assigns them).
    std::function<iceberg::TypePtr(const iceberg::TypePtr&)> assign =
        [&](const iceberg::TypePtr& t) -> iceberg::TypePtr {
      if (t->IsPrimitive()) return t;
      auto copy = std::make_shared<iceberg::Type>(*t);
      for (auto& f : copy->fields) f.id = ++last;
      for (auto& f : copy->fields) f.type = assign(f.type);
      return copy;
    };
    for (auto& f : fields) f.type = assign(f.type);
    schema = iceberg::Schema(0, std::move(fields));
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::PartitionSpec spec,
                        iceberg::PartitionSpec::Parse(st.partitioned_by, schema));
  iceberg::CreateTableOptions options{schema, spec, {}, st.properties, st.location, std::nullopt};
  FLOE_ASSIGN_OR_RETURN(iceberg::Table created,
                        iceberg::CreateTable(*w.catalog, *w.io, id, std::move(options)));
  if (!rows) {
    return Message(fmt::format("created {} at {}", id.ToString(), created.metadata.location));
  }
  auto appended = [&]() -> Result<Appended> {
    FLOE_ASSIGN_OR_RETURN(std::vector<c::RecordBatch> batches,
                          RowsForTable(st, *rows, created.metadata.CurrentSchema()));
    return AppendRows(w, id, batches);
  }();
  if (!appended) {
    // The table was made for these rows: without them it goes, with whatever it wrote.
    (void)iceberg::DropTable(*w.catalog, *w.io, id, /*purge=*/true);
    return std::unexpected(appended.error());
  }
  return InsertSummary(fmt::format("CREATE TABLE {} AS", id.ToString()), *appended);
}

Result<QueryResult> RunInsert(const DdlStatement& st, iceberg::Warehouse& w,
                              const QueryRunner& run_query) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, Identifier(st.table));
  FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::LoadTable(*w.catalog, *w.io, id));
  FLOE_ASSIGN_OR_RETURN(QueryResult rows, run_query(st.query));
  if (!rows.schema) return InvalidInput("INSERT: the statement gives no rows");
  FLOE_ASSIGN_OR_RETURN(std::vector<c::RecordBatch> batches,
                        RowsForTable(st, rows, table.metadata.CurrentSchema()));
  FLOE_ASSIGN_OR_RETURN(Appended a, AppendRows(w, id, batches));
  return InsertSummary(fmt::format("INSERT INTO {}", id.ToString()), a);
}

}  // namespace

std::optional<Result<DdlStatement>> ParseDdlStatement(std::string_view sql) {
  std::vector<Token> tokens = Tokenize(sql);
  auto word = [&](size_t i) -> std::string {
    return i < tokens.size() && !tokens[i].quoted ? tokens[i].word : "";
  };
  const std::string first = word(0);
  if (first == "create" && (word(1) == "table" || (word(1) == "or" && word(2) == "replace"))) {
    return ParseCreate(sql);
  }
  if (first == "replace" && word(1) == "table") {
    return Result<DdlStatement>(std::unexpected(ErrorAt(
        ErrorKind::kUnsupported, sql, 0, "REPLACE TABLE is not supported (DROP, then CREATE)")));
  }
  if (first == "drop" && word(1) == "table") return ParseDrop(sql);
  if (first == "alter" && word(1) == "table") return ParseAlter(sql);
  if (first == "insert") return ParseInsert(sql);
  return std::nullopt;
}

Result<QueryResult> RunDdlStatement(const DdlStatement& st, iceberg::Warehouse& w,
                                    const QueryRunner& run_query) {
  switch (st.kind) {
    case K::kCreate:
      return RunCreate(st, w, run_query);
    case K::kInsert:
      return RunInsert(st, w, run_query);
    case K::kDrop: {
      FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, Identifier(st.table));
      if (!w.catalog->LoadTable(id) && st.if_exists) {
        return Message(fmt::format("no table {}; nothing done", st.table));
      }
      FLOE_RETURN_IF_ERROR(iceberg::DropTable(*w.catalog, *w.io, id, st.purge));
      return Message(
          fmt::format("dropped {}{}", id.ToString(), st.purge ? " and deleted its files" : ""));
    }
    case K::kRenameTable: {
      FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier from, Identifier(st.table));
      std::string to_name = st.new_name;
      if (to_name.find('.') == std::string::npos) to_name = from.NamespaceString() + "." + to_name;
      FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier to, Identifier(to_name));
      FLOE_RETURN_IF_ERROR(iceberg::LoadTable(*w.catalog, *w.io, from));
      if (w.catalog->LoadTable(to)) {
        return Conflict("ALTER TABLE {} RENAME TO {}: that table exists", st.table, to_name);
      }
      FLOE_RETURN_IF_ERROR(w.catalog->RenameTable(from, to));
      return Message(fmt::format("renamed {} to {}", from.ToString(), to.ToString()));
    }
    case K::kAlter: {
      FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, Identifier(st.table));
      FLOE_ASSIGN_OR_RETURN(iceberg::Table before, iceberg::LoadTable(*w.catalog, *w.io, id));
      FLOE_ASSIGN_OR_RETURN(iceberg::Table after,
                            iceberg::AlterTable(*w.catalog, *w.io, id, st.alterations));
      if (after.metadata_location == before.metadata_location) {
        return Message(fmt::format("ALTER TABLE {}: nothing changed", id.ToString()));
      }
      const auto& m = after.metadata;
      return Message(fmt::format("altered {}: schema {}, partition spec {}, sort order {}",
                                 id.ToString(), m.current_schema_id, m.default_spec_id,
                                 m.default_sort_order_id));
    }
  }
  return Internal("unknown DDL statement");
}

}  // namespace floe::sql
