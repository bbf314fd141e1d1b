// RequestTrace: every store request of a statement as a record -- kind, object, byte range, bytes,
// start and end time, and what it was for -- so a user can take a cost apart (`floe query --trace
// FILE`, `SET trace = 'FILE'`, `floe trace summarize FILE`). TracingStore (tracing_store.h) fills
// it; the code that sends a request says what it is for with a RequestPurpose scope (a Get, Head or
// Put on this thread) or the purpose and detail of a ReadRequest (a batch). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/object_store.h"

namespace floe::io {

struct TracedRequest {
  std::string kind;     // GET, HEAD, PUT, LIST, DELETE
  std::string object;   // the store's URI joined with the key (a LIST: the prefix)
  Range range;          // GET: the range asked for
  uint64_t bytes = 0;   // GET: bytes received; PUT: bytes sent
  double start_ms = 0;  // since the trace began
  double end_ms = 0;
  // What the request was for: "table metadata", "manifest list", "manifest", "footer", "page
  // index", "data", "whole file", "deletes", "length", "write", "list", "delete"; and what in it
  // ("row group 0: id, ts").
  std::string purpose;
  std::string detail;
  std::string error;  // empty: it succeeded
};

class RequestTrace {
 public:
  RequestTrace() : start_(std::chrono::steady_clock::now()) {}
  double NowMs() const;
  void Add(TracedRequest r);
  // The requests so far, by start time.
  std::vector<TracedRequest> Requests() const;

 private:
  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  std::vector<TracedRequest> requests_;
};

// One JSON object per line for each request of statement number `statement` (from 1):
// {"type": "request", "statement": 1, "kind": "GET", "object": "file:///w/t/data/x.parquet",
//  "offset": 100, "length": 50 | "suffix": 8 | (a whole object: neither), "bytes": 50,
//  "start_ms": 0.125, "end_ms": 0.250, "purpose": "data", "detail": "row group 0: id",
//  "error": "..." (only when it failed)}.
std::string TraceJsonLines(const std::vector<TracedRequest>& requests, int statement);

// What the requests sent on this thread while the scope lives are for. Scopes nest with the outer
// purpose kept: "footer" inside "deletes" is purpose "deletes", detail "footer" -- a delete file's
// footer is a delete file's cost.
class RequestPurpose {
 public:
  explicit RequestPurpose(std::string_view purpose, std::string_view detail = {});
  ~RequestPurpose();
  RequestPurpose(const RequestPurpose&) = delete;
  RequestPurpose& operator=(const RequestPurpose&) = delete;

  // This thread's purpose and detail (empty outside every scope).
  static const std::string& CurrentPurpose();
  static const std::string& CurrentDetail();
  // `purpose` and `detail` under this thread's scopes, as a nested scope would make them: for a
  // ReadRequest made here and sent from another thread.
  static void Label(std::string_view purpose, std::string_view detail, ReadRequest* request);

 private:
  std::string saved_purpose_;
  std::string saved_detail_;
};

// Whether any trace is attached anywhere in the process (a TraceSwitch holds one): senders compose
// a detail only then, so an untraced read pays nothing for it.
bool TraceAttached();
// TraceSwitch's bookkeeping of that: +1 when a switch gains a trace, -1 when it loses it.
void CountAttachedTraces(int delta);

// The purpose of a request nobody labelled, from its object's name: Iceberg's metadata files
// (*.metadata.json, snap-*.avro, *.avro), Puffin files (deletes), else by kind (PUT "write", LIST
// "list", DELETE "delete", HEAD "length", GET "read").
std::string PurposeFromName(std::string_view kind, std::string_view key);

}  // namespace floe::io
