// ResultStream: a statement's rows pulled batch by batch, as a consumer reading an Arrow stream
// asks for them, while the statement runs on a thread of its own and hands its batches over
// through a small queue -- at most `capacity` batches ahead, so memory follows the consumer, not
// the answer. Destroyed before its end, the stream stops the statement at its next batch.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/sql/engine.h"
#include "floe/sql/query.h"

namespace floe::sql {

class ResultStream {
 public:
  // Runs `sql` on `engine`, which the stream keeps for the statement's life. Returns once the
  // first batch, the end or an error is known, so a statement that does not parse or bind fails
  // here, and its result's schema is known.
  static Result<std::unique_ptr<ResultStream>> Start(std::unique_ptr<Engine> engine,
                                                     std::string sql, QueryOptions options,
                                                     size_t capacity = 4);
  // A statement already run to its end (one with effects, run where its session lives): its
  // batches, numbers and message, read the same way.
  static std::unique_ptr<ResultStream> Finished(QueryResult result);
  ResultStream(const ResultStream&) = delete;
  ResultStream& operator=(const ResultStream&) = delete;
  ~ResultStream();

  const columnar::SchemaPtr& schema() const { return schema_; }
  // The next batch, or nullopt at the end; an error of the statement ends the stream.
  Result<std::optional<columnar::RecordBatch>> Next();
  // The statement's scan numbers (so far; final once Next has returned the end) and, for a
  // statement without rows, its one-line message.
  ScanMetrics stats() const;
  std::string message() const;
  bool done() const;

 private:
  ResultStream() = default;
  void Run(const std::string& sql, QueryOptions options);

  std::unique_ptr<Engine> engine_;
  size_t capacity_ = 4;
  columnar::SchemaPtr schema_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<columnar::RecordBatch> queue_;
  bool finished_ = false;  // the statement returned
  bool cancelled_ = false;
  std::optional<Error> error_;
  QueryResult result_;  // its stats and message, once finished_
  std::thread thread_;
};

}  // namespace floe::sql
