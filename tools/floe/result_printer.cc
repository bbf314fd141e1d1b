#include "result_printer.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/columnar/column_builder.h"
#include "floe/columnar/value_format.h"

namespace floe::cli {

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
    } else if (format_ == "csv") {
      for (int c = 0; c < b.num_columns(); ++c) {
        if (c) out += ",";
        columnar::AppendCsvValue(*b.columns[c], row, &out);
      }
      out += "\n";
    } else if (static_cast<int64_t>(head_.size()) < kTableRows / 2) {
      head_.push_back(TableCells(b, row));
    } else {
      tail_.push_back(TableCells(b, row));
      if (static_cast<int64_t>(tail_.size()) > kTableRows / 2) tail_.pop_front();
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
  if (format_ != "csv") {
    // Aligned text: numbers right, everything else left; NULL spelled out.
    std::vector<size_t> width(fields_.size());
    for (size_t i = 0; i < fields_.size(); ++i) width[i] = fields_[i].name.size();
    auto widen = [&](const std::vector<std::string>& line) {
      for (size_t i = 0; i < line.size() && i < width.size(); ++i)
        width[i] = std::max(width[i], line[i].size());
    };
    for (const auto& line : head_) widen(line);
    for (const auto& line : tail_) widen(line);
    auto numeric = [&](size_t c) {
      auto id = fields_[c].type.id;
      return id == columnar::TypeId::kInt64 || id == columnar::TypeId::kFloat64 ||
             id == columnar::TypeId::kDecimal128 || id == columnar::TypeId::kInt32;
    };
    auto print = [&](const std::vector<std::string>& line) {
      for (size_t i = 0; i < line.size() && i < width.size(); ++i) {
        out += i ? " | " : "";
        out += numeric(i) ? fmt::format("{:>{}}", line[i], width[i])
                          : fmt::format("{:<{}}", line[i], width[i]);
      }
      out += "\n";
    };
    for (size_t i = 0; i < fields_.size(); ++i) {
      out += (i ? " | " : "") + fmt::format("{:<{}}", fields_[i].name, width[i]);
    }
    out += "\n";
    for (size_t i = 0; i < fields_.size(); ++i) {
      out += (i ? "-+-" : "") + std::string(width[i], '-');
    }
    out += "\n";
    for (const auto& line : head_) print(line);
    const int64_t shown = static_cast<int64_t>(head_.size() + tail_.size());
    if (shown < rows_) out += fmt::format("... {} more rows ...\n", rows_ - shown);
    for (const auto& line : tail_) print(line);
    out +=
        fmt::format("({} row{}{})\n", rows_, rows_ == 1 ? "" : "s",
                    shown < rows_ ? fmt::format(", {} shown; --format csv prints all", shown) : "");
    if (!message.empty()) out += message + "\n";
  }
  if (stats) out += *stats + "\n";
  Write(out);
}

}  // namespace floe::cli
