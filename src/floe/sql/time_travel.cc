#include "floe/sql/time_travel.h"

#include <cctype>
#include <charconv>

#include "floe/exec/value.h"

namespace floe::sql {

std::string PositionOf(std::string_view text, int offset) {
  int line = 1, column = 1;
  for (int i = 0; i < offset && i < static_cast<int>(text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("line {}, column {}", line, column);
}

namespace {

struct Token {
  size_t begin = 0;
  size_t end = 0;
  bool quoted = false;  // a 'string'
  std::string word;     // lowercased word, or the unquoted string
};

// Words, numbers and 'strings' outside comments and "identifiers".
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

}  // namespace

Result<TimeTravelRewrite> ExtractTimeTravel(std::string_view sql) {
  TimeTravelRewrite out;
  out.text = std::string(sql);
  std::vector<Token> t = Tokenize(sql);
  for (size_t i = 0; i + 4 < t.size(); ++i) {
    if (t[i].quoted || t[i].word != "for") continue;
    const std::string& kind = t[i + 1].word;
    bool version = kind == "version" || kind == "system_version";
    bool time = kind == "timestamp" || kind == "system_time";
    if (t[i + 1].quoted || (!version && !time)) continue;
    if (t[i + 2].word != "as" || t[i + 3].word != "of" || t[i + 2].quoted || t[i + 3].quoted) {
      continue;
    }
    const Token& v = t[i + 4];
    TimeTravel tt;
    tt.offset = static_cast<int>(t[i].begin);
    if (version) {
      int64_t id = 0;
      std::string_view w = v.word;
      auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), id);
      if (v.quoted || w.empty() || ec != std::errc() || p != w.data() + w.size()) {
        return InvalidInput("at {}: FOR VERSION AS OF expects a snapshot id, got {}",
                            PositionOf(sql, static_cast<int>(v.begin)),
                            sql.substr(v.begin, v.end - v.begin));
      }
      tt.snapshot_id = id;
    } else {
      auto micros = v.quoted ? exec::ParseTimestampMicros(v.word) : std::nullopt;
      if (!micros) {
        return InvalidInput(
            "at {}: FOR TIMESTAMP AS OF expects a 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' timestamp, "
            "got {}",
            PositionOf(sql, static_cast<int>(v.begin)), sql.substr(v.begin, v.end - v.begin));
      }
      tt.timestamp_ms = exec::ParseTimestampMicros(v.word).value() / 1000;
    }
    for (size_t k = t[i].begin; k < v.end; ++k) {
      if (out.text[k] != '\n') out.text[k] = ' ';
    }
    out.clauses.push_back(tt);
    i += 4;
  }
  return out;
}

}  // namespace floe::sql
