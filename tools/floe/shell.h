// The interactive shell of `floe query` (with neither -e nor -f, on a terminal), as a DuckDB user
// expects one: libedit line editing; statements spanning lines until ';'; dot commands (.help
// lists them: .tables, .schema, .mode, .maxrows, .maxwidth, .stats, .timer, .read, .quit);
// history written to ~/.floe_history as each statement is entered; tab completion of keywords,
// tables and columns; Ctrl-C cancels the line being typed or the running statement (its scans stop
// before their next file, its rows stop printing), never the shell. Dot commands also work in
// statements piped to `floe query`.
#pragma once

#include <string>

#include "query_session.h"

namespace floe::cli {

// True when `text` holds a complete statement: a ';' outside quotes and comments at its end.
bool StatementComplete(const std::string& text);
// True when `text` is nothing but whitespace and `--` comments: a dot command may follow it.
bool OnlyComments(const std::string& text);

enum class DotResult {
  kNotDot,  // the line is SQL
  kDone,    // a dot command ran
  kFailed,  // a dot command was wrong or its statement failed, and said so on stderr
  kQuit,    // .quit or .exit
};

// Runs `line` when it is a dot command.
DotResult RunDotCommand(QuerySession& session, const std::string& line);

// The interactive loop; returns the exit code (0).
int Shell(QuerySession& session);

}  // namespace floe::cli
