#include "shell.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

#include <editline/readline.h>
#include <fmt/format.h>

#include "floe/sql/parser.h"
#include "result_printer.h"

namespace floe::cli {
namespace {

// Set by SIGINT (Ctrl-C) while the shell runs; read by the statement running and the loop.
std::atomic<bool> interrupted{false};

extern "C" void OnInterrupt(int /*signal*/) { interrupted.store(true); }

constexpr const char* kHelp =
    ".help                 this list\n"
    ".tables [NS]          the tables (SHOW TABLES [IN NS])\n"
    ".schema TABLE         a table's columns (DESCRIBE TABLE)\n"
    ".mode FORMAT          table, csv, json, jsonl or markdown (also: box, duckbox, line -> "
    "table)\n"
    ".maxrows N            rows the table format shows (0: all; default 40)\n"
    ".maxwidth N           the width the table fits (0: no limit; default: the terminal's)\n"
    ".stats on|off         print each statement's files, requests, bytes and time\n"
    ".timer on|off         print each statement's run time\n"
    ".read FILE            run the statements in FILE\n"
    ".quit, .exit          leave (so does Ctrl-D)\n"
    "SQL statements end at ';'. Ctrl-C cancels the line, or the running statement.\n";

// The words of a dot command line: ".mode csv" -> {".mode", "csv"}.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool complained = false;  // by the dot command running
void Complain(const std::string& message) {
  complained = true;
  std::fprintf(stderr, "floe: %s\n", message.c_str());
}

std::optional<bool> OnOff(const std::vector<std::string>& w) {
  if (w.size() == 2 && (w[1] == "on" || w[1] == "off")) return w[1] == "on";
  Complain(fmt::format("{} takes on or off", w[0]));
  return std::nullopt;
}

std::optional<int64_t> Count(const std::vector<std::string>& w) {
  if (w.size() == 2) {
    char* end = nullptr;
    const long long n = std::strtoll(w[1].c_str(), &end, 10);
    if (end != w[1].c_str() && *end == '\0' && n >= 0) return n;
  }
  Complain(fmt::format("{} takes a count, 0 or more", w[0]));
  return std::nullopt;
}

void RunOrSay(QuerySession& s, const std::string& statement) {
  Status r = s.Run(statement);
  if (!r) Complain(r.error().ToString());
}

// ---- tab completion ----

// Keywords a statement is made of, as the completion offers them.
constexpr const char* kKeywords[] = {"SELECT",
                                     "FROM",
                                     "WHERE",
                                     "GROUP BY",
                                     "ORDER BY",
                                     "HAVING",
                                     "LIMIT",
                                     "OFFSET",
                                     "JOIN",
                                     "LEFT JOIN",
                                     "INNER JOIN",
                                     "FULL OUTER JOIN",
                                     "CROSS JOIN",
                                     "ON",
                                     "USING",
                                     "AS",
                                     "AND",
                                     "OR",
                                     "NOT",
                                     "IN",
                                     "EXISTS",
                                     "BETWEEN",
                                     "LIKE",
                                     "ILIKE",
                                     "IS NULL",
                                     "IS NOT NULL",
                                     "CASE",
                                     "WHEN",
                                     "THEN",
                                     "ELSE",
                                     "END",
                                     "DISTINCT",
                                     "UNION",
                                     "UNION ALL",
                                     "INTERSECT",
                                     "EXCEPT",
                                     "WITH",
                                     "OVER",
                                     "PARTITION BY",
                                     "QUALIFY",
                                     "VALUES",
                                     "INSERT INTO",
                                     "DELETE FROM",
                                     "UPDATE",
                                     "SET",
                                     "MERGE INTO",
                                     "CREATE TABLE",
                                     "DROP TABLE",
                                     "ALTER TABLE",
                                     "DESCRIBE",
                                     "EXPLAIN",
                                     "SHOW TABLES",
                                     "SHOW NAMESPACES",
                                     "CALL",
                                     "FOR VERSION AS OF",
                                     "FOR TIMESTAMP AS OF",
                                     "TABLESAMPLE",
                                     "count",
                                     "sum",
                                     "avg",
                                     "min",
                                     "max",
                                     "round",
                                     "coalesce",
                                     "CAST",
                                     "TRUE",
                                     "FALSE",
                                     "NULL"};

QuerySession* completion_session = nullptr;
std::vector<std::string> completion_names;  // tables (ns.t) and columns, read on the first Tab
bool names_read = false;

void ReadNames() {
  names_read = true;
  completion_names.clear();
  if (completion_session == nullptr) return;
  auto add_column = [](const columnar::RecordBatch& b, int column, const std::string& prefix) {
    const auto& c = *b.columns[column];
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (!c.IsNull(r)) completion_names.push_back(prefix + std::string(c.BytesAt(r)));
    }
  };
  if (auto tables = completion_session->Collect("SELECT table_schema || '.' || table_name, "
                                                "column_name FROM information_schema.columns")) {
    for (const auto& b : tables->batches) {
      add_column(b, 0, "");
      add_column(b, 1, "");
    }
  }
  std::ranges::sort(completion_names);
  auto [first, last] = std::ranges::unique(completion_names);
  completion_names.erase(first, last);
}

// Candidates for `text` (the word before the cursor), one per call, as libedit asks for them.
extern "C" char* CompletionCandidate(const char* text, int state) {
  static std::vector<std::string> matches;
  static size_t next = 0;
  if (state == 0) {
    if (!names_read) ReadNames();
    matches.clear();
    next = 0;
    const std::string word(text);
    auto starts = [&](const std::string& candidate) {
      return candidate.size() >= word.size() &&
             std::equal(word.begin(), word.end(), candidate.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) ==
                      std::tolower(static_cast<unsigned char>(b));
             });
    };
    for (const auto& name : completion_names) {
      if (starts(name)) matches.push_back(name);
    }
    const bool lower = !word.empty() && std::islower(static_cast<unsigned char>(word[0]));
    for (const char* k : kKeywords) {
      std::string keyword(k);
      if (!starts(keyword)) continue;
      if (lower) {
        std::ranges::transform(keyword, keyword.begin(),
                               [](unsigned char c) { return std::tolower(c); });
      }
      matches.push_back(keyword);
    }
  }
  if (next >= matches.size()) return nullptr;
  return strdup(matches[next++].c_str());
}

extern "C" char** Complete(const char* text, int /*start*/, int /*end*/) {
  rl_attempted_completion_over = 1;  // no file names when nothing matches
  return rl_completion_matches(text, CompletionCandidate);
}

// Statements that change which tables or columns exist refresh the names completion offers.
bool ChangesNames(const std::string& statement) {
  const size_t from = statement.find_first_not_of(" \t\r\n(");
  if (from == std::string::npos) return false;
  std::string head = statement.substr(from, 6);
  std::ranges::transform(head, head.begin(), [](unsigned char c) { return std::toupper(c); });
  return head.starts_with("CREATE") || head.starts_with("DROP") || head.starts_with("ALTER");
}

}  // namespace

bool StatementComplete(const std::string& text) {
  char quote = 0;
  bool complete = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      complete = false;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ';') {
      complete = true;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      complete = false;
    }
  }
  return complete && !quote;
}

bool OnlyComments(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (!std::isspace(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  return true;
}

DotResult RunDotCommand(QuerySession& s, const std::string& line) {
  const size_t first = line.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || line[first] != '.') return DotResult::kNotDot;
  complained = false;
  const std::vector<std::string> w = Words(line);
  const std::string& cmd = w[0];
  QueryOutput& out = s.output();
  if (cmd == ".quit" || cmd == ".exit" || cmd == ".q") return DotResult::kQuit;
  if (cmd == ".help") {
    std::fputs(kHelp, stdout);
  } else if (cmd == ".tables") {
    if (w.size() > 2) {
      Complain(".tables takes at most a namespace");
    } else {
      RunOrSay(s, w.size() == 2 ? "SHOW TABLES IN " + w[1] : "SHOW TABLES");
    }
  } else if (cmd == ".schema") {
    if (w.size() != 2) {
      Complain(".schema takes a table, e.g. .schema shop.events");
    } else {
      RunOrSay(s, "DESCRIBE " + w[1]);
    }
  } else if (cmd == ".mode") {
    std::string mode = w.size() == 2 ? w[1] : "";
    if (mode == "box" || mode == "duckbox" || mode == "line") mode = "table";
    if (IsResultFormat(mode)) {
      out.format = mode;
    } else {
      Complain(".mode takes table, csv, json, jsonl or markdown");
    }
  } else if (cmd == ".maxrows") {
    if (auto n = Count(w)) out.max_rows = *n;
  } else if (cmd == ".maxwidth") {
    if (auto n = Count(w)) out.max_width = static_cast<size_t>(*n);
  } else if (cmd == ".stats") {
    if (auto on = OnOff(w)) out.stats = *on;
  } else if (cmd == ".timer") {
    if (auto on = OnOff(w)) out.timer = *on;
  } else if (cmd == ".read") {
    std::ifstream in(w.size() == 2 ? w[1] : "");
    if (w.size() != 2 || !in) {
      Complain(w.size() == 2 ? fmt::format("cannot read '{}'", w[1]) : ".read takes a file");
    } else {
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      for (const auto& st : sql::SplitSql(text, /*first_line=*/1)) {
        Status r = s.Run(st);
        if (!r) {
          Complain(fmt::format("{}: {}", w[1], r.error().ToString()));
          break;
        }
      }
    }
  } else {
    Complain(fmt::format("unknown command '{}'; .help lists them", cmd));
  }
  std::fflush(stdout);
  return complained ? DotResult::kFailed : DotResult::kDone;
}

int Shell(QuerySession& s) {
  std::string history;
  if (const char* home = std::getenv("HOME")) history = std::string(home) + "/.floe_history";
  using_history();
  if (!history.empty()) read_history(history.c_str());
  completion_session = &s;
  rl_attempted_completion_function = Complete;
  // Table names are completed whole: a '.' does not break a word.
  static char word_breaks[] = " \t\n\"'`(),;=<>+-*/|";
  rl_basic_word_break_characters = word_breaks;
  // Ctrl-C interrupts the read of a line (readline returns with nothing) or the running
  // statement (asked before each file and batch), and the loop goes on.
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked read returns
  struct sigaction previous {};
  sigaction(SIGINT, &action, &previous);
  s.set_cancelled([] { return interrupted.load(); });
  if (!s.output().max_width) s.output().max_width = TerminalWidth();
  std::fprintf(stderr,
               "floe %s: SQL over Iceberg tables. End statements with ';'; .help for more, .quit "
               "to leave\n",
               FLOE_VERSION);
  std::string pending;
  for (;;) {
    interrupted.store(false);
    char* line = readline(pending.empty() ? "floe> " : "  ...> ");
    if (line == nullptr) {
      if (interrupted.load()) {  // Ctrl-C: the line (and any statement begun) is dropped
        std::fputs("^C\n", stdout);
        std::fflush(stdout);
        pending.clear();
        continue;
      }
      std::fputs("\n", stdout);
      break;  // Ctrl-D
    }
    std::string l(line);
    std::free(line);
    if (OnlyComments(pending)) {
      if (pending.empty() && l.find_first_not_of(" \t\r") == std::string::npos) continue;
      DotResult dot = RunDotCommand(s, l);
      if (dot != DotResult::kNotDot) {
        pending.clear();  // the comments before it
        add_history(l.c_str());
        if (!history.empty()) write_history(history.c_str());
        if (dot == DotResult::kQuit) break;
        continue;  // done or failed: the shell goes on either way
      }
    }
    pending += pending.empty() ? l : "\n" + l;
    if (!StatementComplete(pending)) continue;
    add_history(pending.c_str());
    if (!history.empty()) write_history(history.c_str());  // as you go: a crash keeps it
    bool refresh = false;
    for (const auto& st : sql::SplitSql(pending)) {
      if (interrupted.load()) break;
      RunOrSay(s, st);
      refresh = refresh || ChangesNames(st);
    }
    if (refresh) names_read = false;
    pending.clear();
  }
  if (!history.empty()) write_history(history.c_str());
  sigaction(SIGINT, &previous, nullptr);
  s.set_cancelled(nullptr);
  completion_session = nullptr;
  return 0;
}

}  // namespace floe::cli
