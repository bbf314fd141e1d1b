// The rows of an answer as the SQL tests compare them: one line per row, its values as JSON
// joined by '|' (`1|"a"|null`).
#pragma once

#include <string>
#include <vector>

#include "floe/columnar/column.h"

namespace floe::testing {

std::vector<std::string> AnswerRows(const std::vector<columnar::RecordBatch>& batches);

}  // namespace floe::testing
