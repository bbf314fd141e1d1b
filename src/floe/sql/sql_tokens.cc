#include "floe/sql/sql_tokens.h"

#include <algorithm>
#include <cctype>

namespace floe::sql {

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      i = e == std::string_view::npos ? s.size() : e + 2;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '\'') {
      Token t{i, 0, true, {}};
      ++i;
      while (i < s.size()) {
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            t.word.push_back('\'');
            i += 2;
            continue;
          }
          break;
        }
        t.word.push_back(s[i++]);
      }
      t.end = std::min(i + 1, s.size());
      i = t.end;
      out.push_back(std::move(t));
    } else if (c == '"') {
      size_t e = s.find('"', i + 1);
      size_t end = e == std::string_view::npos ? s.size() : e + 1;
      out.push_back({i, end, false, "\""});
      i = end;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
      Token t{i, 0, false, {}};
      if (c == '-') t.word.push_back(s[i++]);
      while (i < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.')) {
        t.word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[i++]))));
      }
      t.end = i;
      out.push_back(std::move(t));
    } else {
      out.push_back({i, i + 1, false, std::string(1, c)});
      ++i;
    }
  }
  return out;
}

}  // namespace floe::sql
