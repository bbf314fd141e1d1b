// FaultStore: a decorator for tests that injects failures into the requests passing through it:
// fail the Nth request (of any kind or one kind, optionally only under a key prefix) with a chosen
// error, 503-like transient errors for the next K requests, short reads, added delays, and "lost
// replies" (the request takes effect, then reports an error). With no rules it passes everything
// through unchanged. Thread-safe; each rule counts the requests it matches under one mutex, so
// "the 3rd GET" is exact however many threads call.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/object_store.h"

namespace floe::io {

enum class RequestKind { kHead, kGet, kPut, kPutIfAbsent, kList, kDelete };

// "HEAD", "GET", "PUT", "PUT-IF-ABSENT", "LIST", "DELETE".
std::string_view RequestKindName(RequestKind kind);

struct FaultRule {
  enum class Action {
    kFail,       // return an error (before or after the inner request, see after_inner)
    kShortRead,  // a GET returns at most short_read_bytes of what it asked for
    kDelay,      // sleep delay_ms before the request
  };
  static constexpr uint64_t kAlways = UINT64_MAX;

  std::optional<RequestKind> kind;  // the kind of request it applies to; none: every kind
  std::string key_prefix;           // only keys starting with this (LIST: its prefix argument)
  uint64_t skip = 0;                // matching requests let through before the rule applies
  uint64_t times = 1;               // matching requests it then applies to (kAlways: all)
  Action action = Action::kFail;

  // kFail
  ErrorKind error_kind = ErrorKind::kIO;
  bool transient = true;     // kIO: whether a retry may help
  std::string message;       // empty: "injected fault: GET 'k' in <uri>"
  bool after_inner = false;  // run the request first, then fail: the reply was lost
  // kShortRead
  uint64_t short_read_bytes = 0;
  // kDelay
  double delay_ms = 0;

  // Fails the `n`th (1-based) matching request with an error of `error_kind`.
  static FaultRule FailNth(uint64_t n, std::optional<RequestKind> kind = std::nullopt,
                           ErrorKind error_kind = ErrorKind::kIO, bool transient = true);
  // A 503 Slow Down (transient IO error) on each of the next `k` matching requests.
  static FaultRule Transient(uint64_t k, std::optional<RequestKind> kind = std::nullopt);
  // GETs return at most `keep_bytes` bytes, `times` times.
  static FaultRule ShortRead(uint64_t keep_bytes, uint64_t times = kAlways);
  // Adds `ms` before each matching request, `times` times.
  static FaultRule Delay(double ms, std::optional<RequestKind> kind = std::nullopt,
                         uint64_t times = kAlways);
};

class FaultStore final : public ObjectStore {
 public:
  explicit FaultStore(StorePtr inner);

  // Rules apply in the order added; every matching rule counts the request. The first failing
  // rule decides the error; delays add up; the smallest short read wins.
  void AddRule(FaultRule rule);
  void ClearRules();
  // Faults injected so far (failures and short reads; delays are not faults).
  uint64_t injected() const;

  Result<ObjectInfo> Head(std::string_view key) override;
  Result<Buffer> Get(std::string_view key, Range range = Range::Whole()) override;
  Result<PutInfo> Put(std::string_view key, ByteView data) override;
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override;
  Result<ListPage> List(std::string_view prefix, std::string_view continuation_token = {},
                        int max_keys = 1000) override;
  Status Delete(std::string_view key) override;
  std::string Uri() const override { return inner_->Uri(); }
  Result<std::vector<ObjectInfo>> ListAbandonedWrites(std::string_view prefix) override {
    return inner_->ListAbandonedWrites(prefix);
  }
  Status DeleteAbandonedWrite(std::string_view key) override {
    return inner_->DeleteAbandonedWrite(key);
  }

  const StorePtr& inner() const { return inner_; }

 private:
  struct Effect {
    std::optional<Error> error;
    bool after_inner = false;
    std::optional<uint64_t> short_read;
    double delay_ms = 0;
  };
  struct RuleState {
    FaultRule rule;
    uint64_t matched = 0;
  };

  // Counts the request against every rule and returns what to do to it; sleeps for delays.
  Effect Decide(RequestKind kind, std::string_view key);
  template <typename Op>
  auto Apply(RequestKind kind, std::string_view key, Op op) -> decltype(op());

  StorePtr inner_;
  mutable std::mutex mu_;
  std::vector<RuleState> rules_;
  uint64_t injected_ = 0;
};

}  // namespace floe::io
