#include "floe/sql/merge_syntax.h"

#include "floe/sql/sql_tokens.h"

namespace floe::sql {

namespace {

// Replaces text[begin, end) by `with` padded with blanks to the same length.
void Overwrite(std::string* text, size_t begin, size_t end, std::string_view with) {
  for (size_t i = begin; i < end; ++i) {
    const size_t k = i - begin;
    (*text)[i] = k < with.size() ? with[k] : ' ';
  }
}

}  // namespace

MergeRewrite RewriteMergeSyntax(std::string_view sql) {
  MergeRewrite out;
  out.text = std::string(sql);
  const std::vector<Token> t = Tokenize(sql);
  if (t.empty() || t[0].quoted || t[0].word != "merge") return out;
  auto is = [&](size_t i, std::string_view w) {
    return i < t.size() && !t[i].quoted && t[i].word == w;
  };
  int parens = 0, cases = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].quoted) continue;
    const std::string& w = t[i].word;
    if (w == "(") ++parens;
    if (w == ")") --parens;
    if (w == "case") ++cases;
    if (w == "end" && cases > 0) --cases;
    if (parens != 0 || cases != 0 || w != "when") continue;
    MergeClauseSyntax c;
    c.offset = static_cast<int>(t[i].begin);
    size_t j = i + 1;
    bool negated = false;
    if (is(j, "not") && is(j + 1, "matched")) {
      negated = true;
      c.match = MergeClauseSyntax::Match::kNotMatched;
      j += 2;
      if (is(j, "by") && (is(j + 1, "source") || is(j + 1, "target"))) {
        if (is(j + 1, "source")) c.match = MergeClauseSyntax::Match::kNotMatchedBySource;
        Overwrite(&out.text, t[j].begin, t[j + 1].end, "");
        j += 2;
      }
    } else if (is(j, "matched")) {
      j += 1;
    } else {
      continue;  // not a clause (a CASE's WHEN in a condition is inside `cases`)
    }
    // The clause's THEN, outside any CASE of its condition.
    int inner_parens = 0, inner_cases = 0;
    size_t then = t.size();
    for (size_t k = j; k < t.size(); ++k) {
      if (t[k].quoted) continue;
      const std::string& x = t[k].word;
      if (x == "(") ++inner_parens;
      if (x == ")") --inner_parens;
      if (x == "case") ++inner_cases;
      if (x == "end" && inner_cases > 0) --inner_cases;
      if (inner_parens == 0 && inner_cases == 0 && x == "then") {
        then = k;
        break;
      }
    }
    if (then == t.size()) {
      out.clauses.push_back(c);
      continue;
    }
    const size_t a = then + 1;
    if (is(a, "update") && is(a + 1, "set") && is(a + 2, "*")) {
      c.update_star = true;
      Overwrite(&out.text, t[a].begin, t[a + 2].end, "DELETE");
    } else if (is(a, "insert") && is(a + 1, "*")) {
      c.insert_star = true;
      Overwrite(&out.text, t[a].begin, t[a + 1].end, "DELETE");
    }
    // Postgres takes UPDATE and DELETE only in WHEN MATCHED: a clause it cannot read otherwise
    // is parsed as one (its kind is the one recorded here).
    const bool by_source = c.match == MergeClauseSyntax::Match::kNotMatchedBySource;
    if (negated && (by_source || c.insert_star)) {
      Overwrite(&out.text, t[i + 1].begin, t[i + 1].end, "");
    }
    out.clauses.push_back(c);
  }
  return out;
}

}  // namespace floe::sql
