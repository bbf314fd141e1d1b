#include "floe/sql/catalog_statements.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <vector>

#include "floe/columnar/column_builder.h"
#include "floe/iceberg/table.h"
#include "floe/sql/sql_tokens.h"

namespace floe::sql {
namespace {

// A token's text: a word lower-cased, a "quoted identifier" as written inside its quotes.
std::string Text(std::string_view sql, const Token& t) {
  if (t.word == "\"" && t.end >= t.begin + 2) {
    return std::string(sql.substr(t.begin + 1, t.end - t.begin - 2));
  }
  return t.word;
}

// A dotted name from tokens[*at]: name(.name)*.
std::string DottedName(std::string_view sql, const std::vector<Token>& tokens, size_t* at) {
  std::string out;
  while (*at < tokens.size()) {
    const Token& t = tokens[*at];
    if (t.quoted || t.word.empty()) break;
    const bool part =
        t.word == "\"" || std::isalpha(static_cast<unsigned char>(t.word[0])) || t.word[0] == '_';
    if (!part) break;
    out += Text(sql, t);
    ++*at;
    if (*at < tokens.size() && tokens[*at].word == ".") {
      out += '.';
      ++*at;
    } else {
      break;
    }
  }
  return out;
}

// Appends each value of `values` as a row of one string column.
columnar::ColumnPtr Strings(const std::vector<std::string>& values) {
  columnar::BinaryBuilder b;
  for (const auto& v : values) (void)b.Append(v);
  return b.Finish();
}

QueryResult Table(std::vector<std::string> names, std::vector<columnar::ColumnPtr> columns,
                  int64_t rows) {
  auto schema = std::make_shared<columnar::Schema>();
  for (size_t i = 0; i < names.size(); ++i) {
    schema->fields.push_back(columnar::Field{names[i], columns[i]->type, true, -1});
  }
  columnar::RecordBatch batch;
  batch.schema = schema;
  batch.columns = std::move(columns);
  batch.num_rows = rows;
  QueryResult r;
  r.schema = schema;
  r.batches.push_back(std::move(batch));
  return r;
}

// Every table of `ns`, or of every namespace when it is empty, sorted.
Result<std::vector<catalog::TableIdentifier>> TablesOf(catalog::Catalog& catalog,
                                                       const std::string& ns) {
  std::vector<std::string> spaces;
  if (ns.empty()) {
    FLOE_ASSIGN_OR_RETURN(spaces, catalog.ListNamespaces());
  } else {
    FLOE_ASSIGN_OR_RETURN(bool exists, catalog.NamespaceExists(ns));
    if (!exists) return NotFound("namespace '{}' does not exist", ns);
    spaces.push_back(ns);
  }
  std::vector<catalog::TableIdentifier> out;
  for (const auto& s : spaces) {
    FLOE_ASSIGN_OR_RETURN(std::vector<catalog::TableIdentifier> ids, catalog.ListTables(s));
    out.insert(out.end(), ids.begin(), ids.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::optional<Result<CatalogStatement>> ParseCatalogStatement(std::string_view sql) {
  std::vector<Token> tokens = Tokenize(sql);
  while (!tokens.empty() && tokens.back().word == ";") tokens.pop_back();
  if (tokens.empty()) return std::nullopt;
  const std::string& verb = tokens[0].word;
  CatalogStatement st;
  size_t at = 1;
  auto word = [&](size_t i) { return i < tokens.size() ? tokens[i].word : std::string(); };
  auto rest_error = [&](std::string_view what) -> Result<CatalogStatement> {
    return InvalidInput("{}: unexpected '{}'", what,
                        sql.substr(tokens[at].begin, tokens.back().end - tokens[at].begin));
  };
  if (verb == "show") {
    if (word(1) == "tables") {
      at = 2;
      if (word(2) == "from" || word(2) == "in") {
        at = 3;
        st.name = DottedName(sql, tokens, &at);
        if (st.name.empty()) return InvalidInput("SHOW TABLES {}: expected a namespace", word(2));
      }
      if (at < tokens.size()) return rest_error("SHOW TABLES");
      return st;
    }
    if (word(1) == "all" && word(2) == "tables") {
      st.kind = CatalogStatement::Kind::kShowAllTables;
      at = 3;
      if (at < tokens.size()) return rest_error("SHOW ALL TABLES");
      return st;
    }
    if (word(1) == "namespaces" || word(1) == "schemas" || word(1) == "databases") {
      st.kind = CatalogStatement::Kind::kShowNamespaces;
      at = 2;
      if (at < tokens.size()) return rest_error("SHOW " + word(1));
      return st;
    }
    return std::nullopt;  // SHOW <setting>
  }
  if (verb == "describe" || verb == "desc") {
    st.kind = CatalogStatement::Kind::kDescribe;
    if (word(1) == "table") ++at;
    if (word(at) == "select" || word(at) == "with" || word(at) == "(") {
      return Result<CatalogStatement>(Unsupported("DESCRIBE of a query"));
    }
    st.name = DottedName(sql, tokens, &at);
    if (st.name.empty()) return InvalidInput("DESCRIBE: expected a table name (ns.table)");
    if (at < tokens.size()) return rest_error("DESCRIBE");
    return st;
  }
  return std::nullopt;
}

Result<QueryResult> RunCatalogStatement(const CatalogStatement& st, iceberg::Warehouse& wh) {
  catalog::Catalog& catalog = *wh.catalog;
  switch (st.kind) {
    case CatalogStatement::Kind::kShowNamespaces: {
      FLOE_ASSIGN_OR_RETURN(std::vector<std::string> spaces, catalog.ListNamespaces());
      std::sort(spaces.begin(), spaces.end());
      return Table({"namespace"}, {Strings(spaces)}, static_cast<int64_t>(spaces.size()));
    }
    case CatalogStatement::Kind::kShowTables:
    case CatalogStatement::Kind::kShowAllTables: {
      FLOE_ASSIGN_OR_RETURN(std::vector<catalog::TableIdentifier> ids, TablesOf(catalog, st.name));
      std::vector<std::string> spaces, names, columns, types;
      for (const auto& id : ids) {
        spaces.push_back(id.NamespaceString());
        names.push_back(id.name);
        if (st.kind == CatalogStatement::Kind::kShowAllTables) {
          FLOE_ASSIGN_OR_RETURN(iceberg::Table t, iceberg::LoadTable(catalog, *wh.io, id));
          std::string c, ty;
          for (const auto& f : t.metadata.CurrentSchema().fields()) {
            c += (c.empty() ? "" : ", ") + f.name;
            ty += (ty.empty() ? "" : ", ") + f.type->ToString();
          }
          columns.push_back("[" + c + "]");
          types.push_back("[" + ty + "]");
        }
      }
      const auto n = static_cast<int64_t>(ids.size());
      if (st.kind == CatalogStatement::Kind::kShowTables) {
        return Table({"namespace", "name"}, {Strings(spaces), Strings(names)}, n);
      }
      return Table({"namespace", "name", "column_names", "column_types"},
                   {Strings(spaces), Strings(names), Strings(columns), Strings(types)}, n);
    }
    case CatalogStatement::Kind::kDescribe: {
      FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(st.name));
      FLOE_ASSIGN_OR_RETURN(iceberg::Table t, iceberg::LoadTable(catalog, *wh.io, id));
      std::vector<std::string> names, types, nulls, docs;
      columnar::FixedWidthBuilder<int64_t> ids(columnar::Int64());
      for (const auto& f : t.metadata.CurrentSchema().fields()) {
        names.push_back(f.name);
        types.push_back(f.type->ToString());
        nulls.emplace_back(f.required ? "NO" : "YES");
        docs.push_back(f.doc);
        ids.Append(f.id);
      }
      columnar::ColumnPtr id_column = ids.Finish();
      return Table({"column_name", "column_type", "null", "field_id", "comment"},
                   {Strings(names), Strings(types), Strings(nulls), id_column, Strings(docs)},
                   static_cast<int64_t>(names.size()));
    }
  }
  return Internal("unknown catalog statement");
}

Result<columnar::RecordBatch> ReadInformationSchema(iceberg::Warehouse& wh, std::string_view name) {
  catalog::Catalog& catalog = *wh.catalog;
  const std::string catalog_name = catalog.name();
  if (name == "schemata") {
    FLOE_ASSIGN_OR_RETURN(std::vector<std::string> spaces, catalog.ListNamespaces());
    std::sort(spaces.begin(), spaces.end());
    std::vector<std::string> catalogs(spaces.size(), catalog_name);
    return Table({"catalog_name", "schema_name"}, {Strings(catalogs), Strings(spaces)},
                 static_cast<int64_t>(spaces.size()))
        .batches[0];
  }
  if (name != "tables" && name != "columns") {
    return NotFound("information_schema.{} does not exist (there are tables, columns, schemata)",
                    name);
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<catalog::TableIdentifier> ids, TablesOf(catalog, ""));
  std::vector<std::string> catalogs, spaces, tables, types, comments, columns, nullable, docs;
  columnar::FixedWidthBuilder<int64_t> positions(columnar::Int64());
  columnar::FixedWidthBuilder<int64_t> field_ids(columnar::Int64());
  for (const auto& id : ids) {
    FLOE_ASSIGN_OR_RETURN(iceberg::Table t, iceberg::LoadTable(catalog, *wh.io, id));
    if (name == "tables") {
      catalogs.push_back(catalog_name);
      spaces.push_back(id.NamespaceString());
      tables.push_back(id.name);
      types.emplace_back("BASE TABLE");
      auto comment = t.metadata.properties.find("comment");
      comments.push_back(comment == t.metadata.properties.end() ? "" : comment->second);
      continue;
    }
    int64_t position = 0;
    for (const auto& f : t.metadata.CurrentSchema().fields()) {
      catalogs.push_back(catalog_name);
      spaces.push_back(id.NamespaceString());
      tables.push_back(id.name);
      columns.push_back(f.name);
      positions.Append(++position);
      nullable.emplace_back(f.required ? "NO" : "YES");
      types.push_back(f.type->ToString());
      field_ids.Append(f.id);
      docs.push_back(f.doc);
    }
  }
  const auto n = static_cast<int64_t>(catalogs.size());
  if (name == "tables") {
    return Table({"table_catalog", "table_schema", "table_name", "table_type", "table_comment"},
                 {Strings(catalogs), Strings(spaces), Strings(tables), Strings(types),
                  Strings(comments)},
                 n)
        .batches[0];
  }
  columnar::BinaryBuilder defaults;
  for (int64_t i = 0; i < n; ++i) defaults.AppendNull();
  return Table({"table_catalog", "table_schema", "table_name", "column_name", "ordinal_position",
                "column_default", "is_nullable", "data_type", "field_id", "column_comment"},
               {Strings(catalogs), Strings(spaces), Strings(tables), Strings(columns),
                positions.Finish(), defaults.Finish(), Strings(nullable), Strings(types),
                field_ids.Finish(), Strings(docs)},
               n)
      .batches[0];
}

}  // namespace floe::sql
