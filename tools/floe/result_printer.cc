#include "result_printer.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "floe/columnar/box_renderer.h"
#include "floe/columnar/column_builder.h"
#include "floe/columnar/value_format.h"
#include "floe/exec/value.h"

namespace floe::cli {
namespace {

// Right-aligned in the table and markdown: every integer, float and decimal type.
bool Numeric(const columnar::DataType& t) { return exec::IsNumericType(exec::NormalizedType(t)); }

// A Markdown table cell: pipes escaped, line breaks as <br>.
std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '|') {
      out += "\\|";
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;
    } else if (c == '\n' || c == '\r') {
      out += "<br>";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::function<std::string(const std::string&)> FormatCheck(std::vector<std::string> before,
                                                           std::vector<std::string> after) {
  std::vector<std::string> all = std::move(before);
  all.insert(all.end(), std::begin(kResultFormats), std::end(kResultFormats));
  all.insert(all.end(), after.begin(), after.end());
  return [all](const std::string& f) -> std::string {
    if (std::ranges::find(all, f) != all.end()) return "";
    std::string list;
    for (size_t i = 0; i < all.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i];
    }
    return "'" + f + "' is not a format: " + list;
  };
}

bool IsResultFormat(const std::string& format) {
  return std::ranges::find(kResultFormats, format) != std::end(kResultFormats);
}

size_t TerminalWidth() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0) return static_cast<size_t>(n);
  }
  return 0;
}

bool ResultPrinter::Table() const {
  return format_ != "json" && format_ != "jsonl" && format_ != "csv" && format_ != "markdown";
}

void ResultPrinter::Write(const std::string& s) { std::fwrite(s.data(), 1, s.size(), out_); }

void ResultPrinter::Begin(const std::vector<columnar::Field>& fields) {
  if (begun_) return;
  begun_ = true;
  fields_ = fields;
  std::string out;
  if (format_ == "json") {
    out += "{\"columns\": [";
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (i) out += ", ";
      columnar::AppendJsonString(fields_[i].name, &out);
    }
    out += "], \"types\": [";
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (i) out += ", ";
      columnar::AppendJsonString(fields_[i].type.SqlName(), &out);
    }
    out += layout_.json_row_per_line ? "],\n \"rows\": [" : "], \"rows\": [";
  } else if (format_ == "csv") {
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (i) out += ",";
      if (layout_.csv_quote_names) {
        columnar::BinaryBuilder name(columnar::String());
        (void)name.Append(fields_[i].name);
        columnar::AppendCsvValue(*name.Finish(), 0, &out);
      } else {
        out += fields_[i].name;
      }
    }
    out += "\n";
  } else if (format_ == "markdown") {
    out += "|";
    for (const auto& f : fields_) out += " " + MarkdownCell(f.name) + " |";
    out += "\n|";
    for (const auto& f : fields_) out += Numeric(f.type) ? " ---: |" : " --- |";
    out += "\n";
  }
  Write(out);
}

std::vector<std::string> ResultPrinter::TableCells(const columnar::RecordBatch& b,
                                                   int64_t row) const {
  std::vector<std::string> line;
  for (int c = 0; c < b.num_columns(); ++c) {
    std::string v;
    if (b.columns[c]->IsNull(row)) {
      v = "NULL";
    } else {
      columnar::AppendCsvValue(*b.columns[c], row, &v);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
        // The CSV quoting undone: the outer quotes go and each doubled quote is one.
        std::string plain;
        for (size_t i = 1; i + 1 < v.size(); ++i) {
          plain += v[i];
          if (v[i] == '"' && v[i + 1] == '"') ++i;
        }
        v = std::move(plain);
      }
    }
    line.push_back(std::move(v));
  }
  return line;
}

Status ResultPrinter::Add(const columnar::RecordBatch& b) {
  if (b.num_rows == 0) return {};
  Begin(b.schema ? b.schema->fields : std::vector<columnar::Field>{});
  const int64_t max_rows = layout_.max_rows;
  std::string out;
  for (int64_t row = 0; row < b.num_rows; ++row, ++rows_) {
    if (format_ == "json") {
      if (layout_.json_row_per_line) {
        out += rows_ == 0 ? "\n  [" : ",\n  [";
      } else {
        out += rows_ == 0 ? "[" : ", [";
      }
      for (int c = 0; c < b.num_columns(); ++c) {
        if (c) out += ", ";
        columnar::AppendJsonValue(*b.columns[c], row, &out);
      }
      out += "]";
    } else if (format_ == "jsonl") {
      out += "{";
      for (int c = 0; c < b.num_columns(); ++c) {
        if (c) out += ", ";
        columnar::AppendJsonString(fields_.at(c).name, &out);
        out += ": ";
        columnar::AppendJsonValue(*b.columns[c], row, &out);
      }
      out += "}\n";
    } else if (format_ == "csv") {
      for (int c = 0; c < b.num_columns(); ++c) {
        if (c) out += ",";
        columnar::AppendCsvValue(*b.columns[c], row, &out);
      }
      out += "\n";
    } else if (format_ == "markdown") {
      out += "|";
      for (const auto& cell : TableCells(b, row)) out += " " + MarkdownCell(cell) + " |";
      out += "\n";
    } else if (max_rows <= 0 || static_cast<int64_t>(head_.size()) < (max_rows + 1) / 2) {
      head_.push_back(TableCells(b, row));
    } else {
      tail_.push_back(TableCells(b, row));
      if (static_cast<int64_t>(tail_.size()) > max_rows / 2) tail_.pop_front();
    }
  }
  Write(out);
  return {};
}

void ResultPrinter::Finish(const std::vector<columnar::Field>& fields,
                           const std::optional<std::string>& stats, const std::string& message) {
  Begin(fields);
  std::string out;
  if (format_ == "json") {
    out += "]";
    if (stats) out += ", \"stats\": " + *stats;
    out += "}\n";
    Write(out);
    return;
  }
  if (format_ == "jsonl") {
    if (stats) out += "{\"stats\": " + *stats + "}\n";
    Write(out);
    return;
  }
  if (Table()) {
    std::vector<columnar::BoxColumn> columns;
    for (const auto& f : fields_) columns.push_back({f.name, f.type.SqlName(), Numeric(f.type)});
    columnar::BoxRows rows;
    rows.head = std::move(head_);
    rows.tail.assign(tail_.begin(), tail_.end());
    rows.total = rows_;
    out += columnar::RenderBox(columns, rows, layout_.max_width);
    if (!message.empty()) out += message + "\n";
  }
  if (stats) out += *stats + "\n";
  Write(out);
}

}  // namespace floe::cli
