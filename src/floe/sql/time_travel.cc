#include "floe/sql/time_travel.h"

#include <cctype>
#include <charconv>

#include "floe/exec/value.h"
#include "floe/sql/sql_tokens.h"

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
