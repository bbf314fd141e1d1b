// The words of a SQL text, for the rewrites done before libpg_query parses it (time travel,
// MERGE's Spark clauses): words, numbers and 'strings' with their byte ranges, comments and
// "identifiers" passed over. Not a SQL lexer: only what finding a few keywords needs. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace floe::sql {

struct Token {
  size_t begin = 0;
  size_t end = 0;
  bool quoted = false;  // a 'string'
  std::string word;     // lowercased word, or the unquoted string
};

// Words, numbers and 'strings' outside comments; a "quoted identifier" is one token whose word is
// `"`; any other character is a token of its own.
std::vector<Token> Tokenize(std::string_view s);

}  // namespace floe::sql
