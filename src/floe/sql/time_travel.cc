#include "floe/sql/time_travel.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

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

namespace {

// A sample clause starting at token i (TABLESAMPLE, or USING SAMPLE): its fraction and the token
// after it; nullopt when the tokens are no sample clause.
Result<std::optional<std::pair<double, size_t>>> SampleAt(std::string_view sql,
                                                          const std::vector<Token>& t, size_t i) {
  auto word = [&](size_t k) -> std::string_view {
    return k < t.size() && !t[k].quoted ? std::string_view(t[k].word) : std::string_view();
  };
  size_t j = i + 1;
  if (word(i) == "using") {
    if (word(i + 1) != "sample") return std::nullopt;
    j = i + 2;
  } else if (word(i) != "tablesample") {
    return std::nullopt;
  }
  const int at = static_cast<int>(t[i].begin);
  auto bad = [&](std::string_view why) -> Result<std::optional<std::pair<double, size_t>>> {
    return InvalidInput(
        "at {}: {} (expected TABLESAMPLE (10 PERCENT), TABLESAMPLE 10% or "
        "TABLESAMPLE SYSTEM (10))",
        PositionOf(sql, at), why);
  };
  bool method = false;
  if (word(j) == "system" || word(j) == "bernoulli") {
    method = true;
    ++j;
  } else if (word(j) == "reservoir") {
    return Unsupported(
        "at {}: a reservoir sample (a number of rows); floe samples a share of "
        "the rows: TABLESAMPLE (10 PERCENT)",
        PositionOf(sql, at));
  }
  const bool paren = word(j) == "(";
  if (paren) ++j;
  double percent = 0;
  {
    const std::string_view w = word(j);
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), percent);
    if (w.empty() || ec != std::errc() || p != w.data() + w.size()) {
      return bad(j < t.size() ? fmt::format("'{}' is not a percentage",
                                            sql.substr(t[j].begin, t[j].end - t[j].begin))
                              : std::string("no percentage"));
    }
    ++j;
  }
  if (word(j) == "%" || word(j) == "percent") {
    ++j;
  } else if (word(j) == "rows") {
    return Unsupported(
        "at {}: TABLESAMPLE of a number of rows; floe samples a share of the "
        "rows: TABLESAMPLE (10 PERCENT)",
        PositionOf(sql, at));
  } else if (!method) {
    return bad("a number without PERCENT or %");
  }
  if (paren) {
    if (word(j) != ")") return bad("no closing parenthesis");
    ++j;
  }
  if (word(j) == "repeatable" && word(j + 1) == "(" && word(j + 3) == ")") j += 4;
  if (!(percent > 0 && percent <= 100)) {
    return bad(fmt::format("{} percent is not in (0, 100]", percent));
  }
  return std::make_pair(percent / 100, j);
}

}  // namespace

Result<TimeTravelRewrite> ExtractTimeTravel(std::string_view sql) {
  TimeTravelRewrite out;
  out.text = std::string(sql);
  std::vector<Token> t = Tokenize(sql);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].quoted) continue;
    FLOE_ASSIGN_OR_RETURN(auto sample, SampleAt(sql, t, i));
    if (sample) {
      TimeTravel tt;
      tt.offset = static_cast<int>(t[i].begin);
      tt.sample_fraction = sample->first;
      for (size_t k = t[i].begin; k < t[sample->second - 1].end; ++k) {
        if (out.text[k] != '\n') out.text[k] = ' ';
      }
      out.clauses.push_back(tt);
      i = sample->second - 1;
    }
  }
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
  std::sort(out.clauses.begin(), out.clauses.end(),
            [](const TimeTravel& a, const TimeTravel& b) { return a.offset < b.offset; });
  return out;
}

}  // namespace floe::sql
