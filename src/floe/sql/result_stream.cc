#include "floe/sql/result_stream.h"

#include <utility>

namespace floe::sql {

Result<std::unique_ptr<ResultStream>> ResultStream::Start(std::unique_ptr<Engine> engine,
                                                          std::string sql, QueryOptions options,
                                                          size_t capacity) {
  std::unique_ptr<ResultStream> s(new ResultStream());
  s->engine_ = std::move(engine);
  s->capacity_ = capacity == 0 ? 1 : capacity;
  s->thread_ = std::thread([raw = s.get(), sql = std::move(sql), options = std::move(options)] {
    raw->Run(sql, options);
  });
  std::unique_lock lock(s->mu_);
  s->changed_.wait(lock, [&] { return !s->queue_.empty() || s->finished_; });
  if (s->error_ && s->queue_.empty()) {
    Error e = *s->error_;
    lock.unlock();
    return std::unexpected(e);
  }
  s->schema_ = !s->queue_.empty() ? s->queue_.front().schema : s->result_.schema;
  if (s->schema_ == nullptr) s->schema_ = std::make_shared<const columnar::Schema>();
  return s;
}

std::unique_ptr<ResultStream> ResultStream::Finished(QueryResult result) {
  std::unique_ptr<ResultStream> s(new ResultStream());
  s->schema_ = result.schema != nullptr  ? result.schema
               : !result.batches.empty() ? result.batches.front().schema
                                         : std::make_shared<const columnar::Schema>();
  for (auto& b : result.batches) s->queue_.push_back(std::move(b));
  result.batches.clear();
  s->result_ = std::move(result);
  s->finished_ = true;
  return s;
}

void ResultStream::Run(const std::string& sql, QueryOptions options) {
  options.sink = [this](const columnar::RecordBatch& batch) -> Status {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return queue_.size() < capacity_ || cancelled_; });
    if (cancelled_) return std::unexpected(Error{ErrorKind::kInternal, "the reader went away"});
    queue_.push_back(batch);
    changed_.notify_all();
    return {};
  };
  Result<QueryResult> r = engine_->Execute(sql, options);
  std::unique_lock lock(mu_);
  if (r) {
    // Statements that do not stream (CALL, DML, SET) answer with their batches at the end.
    for (auto& b : r->batches) queue_.push_back(std::move(b));
    r->batches.clear();
    result_ = std::move(*r);
  } else {
    error_ = r.error();
  }
  finished_ = true;
  changed_.notify_all();
}

ResultStream::~ResultStream() {
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    changed_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

Result<std::optional<columnar::RecordBatch>> ResultStream::Next() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return !queue_.empty() || finished_; });
  if (!queue_.empty()) {
    columnar::RecordBatch b = std::move(queue_.front());
    queue_.pop_front();
    changed_.notify_all();
    return std::optional<columnar::RecordBatch>(std::move(b));
  }
  if (error_) return std::unexpected(*error_);
  return std::optional<columnar::RecordBatch>();
}

ScanMetrics ResultStream::stats() const {
  std::lock_guard lock(mu_);
  return result_.stats;
}

std::string ResultStream::message() const {
  std::lock_guard lock(mu_);
  return result_.message;
}

bool ResultStream::done() const {
  std::lock_guard lock(mu_);
  return finished_ && queue_.empty();
}

}  // namespace floe::sql
