// ResultPrinter: prints a statement's rows as they arrive, in the formats of docs/cli.md -- json
// (one object: columns, their types, rows, stats), jsonl (an object per row), csv, markdown, and
// the table (columnar/box_renderer.h: DuckDB's box, fitted to the terminal) -- so an answer of any
// size costs the memory of a batch: json, jsonl, csv and markdown are written as they come; the
// table keeps its first and last rows only (`max_rows` in all), its footer saying how many were
// left out. `floe query`, `floe table scan`, the listings and `floe parquet cat` all print through
// it. One printer per statement; not thread-safe.
#pragma once

#include <cstdio>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::cli {

// Where the commands' forms of one format differ, as docs/cli.md gives them.
struct ResultLayout {
  // json: each row on a line of its own (`parquet cat`) rather than the answer on one line.
  bool json_row_per_line = false;
  // csv: header names quoted as values are when they hold a comma, quote, CR or LF (`parquet
  // cat`); `query` prints them as they are.
  bool csv_quote_names = false;
  // table: rows shown (the first half and the last half; 0: all) and the width fitted (0: none).
  int64_t max_rows = kDefaultMaxRows;
  size_t max_width = 0;

  static constexpr int64_t kDefaultMaxRows = 40;
};

// The formats rows print in, as `--format` names them.
inline constexpr const char* kResultFormats[] = {"table", "csv", "json", "jsonl", "markdown"};
bool IsResultFormat(const std::string& format);
// A --format check accepting kResultFormats and the command's own formats `before` and `after`
// them: "" for one of them, else "'xml' is not a format: table, csv, json, jsonl or markdown".
std::function<std::string(const std::string&)> FormatCheck(std::vector<std::string> before,
                                                           std::vector<std::string> after = {});
// The width of the terminal standard output is, or $COLUMNS when set; 0 when neither is known.
size_t TerminalWidth();

class ResultPrinter {
 public:
  // `format`: one of kResultFormats; anything else the table.
  ResultPrinter(std::string format, std::FILE* out, ResultLayout layout = {})
      : format_(std::move(format)), out_(out), layout_(layout) {}

  // Rows of the answer, in order; every batch has the output's columns and names.
  Status Add(const columnar::RecordBatch& batch);
  // Ends the answer: `fields` name the columns when no batch came; the stats JSON and a
  // statement's message (CALL) follow the rows.
  void Finish(const std::vector<columnar::Field>& fields, const std::optional<std::string>& stats,
              const std::string& message);

 private:
  void Begin(const std::vector<columnar::Field>& fields);
  std::vector<std::string> TableCells(const columnar::RecordBatch& b, int64_t row) const;
  bool Table() const;
  void Write(const std::string& s);

  std::string format_;
  std::FILE* out_;
  ResultLayout layout_;
  bool begun_ = false;
  std::vector<columnar::Field> fields_;
  int64_t rows_ = 0;
  // table format: the first and the last rows, as cells
  std::vector<std::vector<std::string>> head_;
  std::deque<std::vector<std::string>> tail_;
};

}  // namespace floe::cli
