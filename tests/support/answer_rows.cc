#include "support/answer_rows.h"

#include "floe/columnar/value_format.h"

namespace floe::testing {

std::vector<std::string> AnswerRows(const std::vector<columnar::RecordBatch>& batches) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    for (int64_t row = 0; row < b.num_rows; ++row) {
      std::string line;
      for (int c = 0; c < b.num_columns(); ++c) {
        if (c) line += "|";
        columnar::AppendJsonValue(*b.columns[c], row, &line);
      }
      out.push_back(std::move(line));
    }
  }
  return out;
}

}  // namespace floe::testing
