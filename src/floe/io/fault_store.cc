#include "floe/io/fault_store.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace floe::io {

std::string_view RequestKindName(RequestKind kind) {
  switch (kind) {
    case RequestKind::kHead:
      return "HEAD";
    case RequestKind::kGet:
      return "GET";
    case RequestKind::kPut:
      return "PUT";
    case RequestKind::kPutIfAbsent:
      return "PUT-IF-ABSENT";
    case RequestKind::kList:
      return "LIST";
    case RequestKind::kDelete:
      return "DELETE";
  }
  return "?";
}

FaultRule FaultRule::FailNth(uint64_t n, std::optional<RequestKind> kind, ErrorKind error_kind,
                             bool transient) {
  FaultRule r;
  r.kind = kind;
  r.skip = n > 0 ? n - 1 : 0;
  r.times = 1;
  r.action = Action::kFail;
  r.error_kind = error_kind;
  r.transient = error_kind == ErrorKind::kIO && transient;
  return r;
}

FaultRule FaultRule::Transient(uint64_t k, std::optional<RequestKind> kind) {
  FaultRule r;
  r.kind = kind;
  r.times = k;
  r.action = Action::kFail;
  r.error_kind = ErrorKind::kIO;
  r.transient = true;
  r.message = "503 Slow Down (injected)";
  return r;
}

FaultRule FaultRule::ShortRead(uint64_t keep_bytes, uint64_t times) {
  FaultRule r;
  r.kind = RequestKind::kGet;
  r.times = times;
  r.action = Action::kShortRead;
  r.short_read_bytes = keep_bytes;
  return r;
}

FaultRule FaultRule::Delay(double ms, std::optional<RequestKind> kind, uint64_t times) {
  FaultRule r;
  r.kind = kind;
  r.times = times;
  r.action = Action::kDelay;
  r.delay_ms = ms;
  return r;
}

FaultStore::FaultStore(StorePtr inner) : inner_(std::move(inner)) {}

void FaultStore::AddRule(FaultRule rule) {
  std::lock_guard lock(mu_);
  rules_.push_back(RuleState{std::move(rule), 0});
}

void FaultStore::ClearRules() {
  std::lock_guard lock(mu_);
  rules_.clear();
}

uint64_t FaultStore::injected() const {
  std::lock_guard lock(mu_);
  return injected_;
}

FaultStore::Effect FaultStore::Decide(RequestKind kind, std::string_view key) {
  Effect effect;
  {
    std::lock_guard lock(mu_);
    for (RuleState& state : rules_) {
      const FaultRule& rule = state.rule;
      if (rule.kind && *rule.kind != kind) continue;
      if (!key.starts_with(rule.key_prefix)) continue;
      uint64_t seen = ++state.matched;
      if (seen <= rule.skip || seen - rule.skip > rule.times) continue;
      switch (rule.action) {
        case FaultRule::Action::kFail:
          if (!effect.error) {
            std::string message = rule.message.empty()
                                      ? fmt::format("injected fault: {} '{}' in {}",
                                                    RequestKindName(kind), key, inner_->Uri())
                                      : fmt::format("{}: {} '{}' in {}", rule.message,
                                                    RequestKindName(kind), key, inner_->Uri());
            effect.error = Error{rule.error_kind, std::move(message),
                                 rule.error_kind == ErrorKind::kIO && rule.transient};
            effect.after_inner = rule.after_inner;
            ++injected_;
          }
          break;
        case FaultRule::Action::kShortRead:
          if (kind == RequestKind::kGet) {
            effect.short_read =
                std::min(effect.short_read.value_or(UINT64_MAX), rule.short_read_bytes);
          }
          break;
        case FaultRule::Action::kDelay:
          effect.delay_ms += rule.delay_ms;
          break;
      }
    }
  }
  if (effect.delay_ms > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(effect.delay_ms));
  }
  return effect;
}

template <typename Op>
auto FaultStore::Apply(RequestKind kind, std::string_view key, Op op) -> decltype(op()) {
  Effect effect = Decide(kind, key);
  if (effect.error && !effect.after_inner) return std::unexpected(*effect.error);
  auto result = op();
  if (effect.error) return std::unexpected(*effect.error);
  return result;
}

Result<ObjectInfo> FaultStore::Head(std::string_view key) {
  if (!ValidateKey(key)) return inner_->Head(key);  // rejected before any request
  return Apply(RequestKind::kHead, key, [&] { return inner_->Head(key); });
}

Result<Buffer> FaultStore::Get(std::string_view key, Range range) {
  if (!ValidateKey(key) || !range.Validate(key)) return inner_->Get(key, range);
  Effect effect = Decide(RequestKind::kGet, key);
  if (effect.error && !effect.after_inner) return std::unexpected(*effect.error);
  auto result = inner_->Get(key, range);
  if (effect.error) return std::unexpected(*effect.error);
  if (result && effect.short_read && result->size() > *effect.short_read) {
    {
      std::lock_guard lock(mu_);
      ++injected_;
    }
    return result->Slice(0, *effect.short_read);
  }
  return result;
}

Result<PutInfo> FaultStore::Put(std::string_view key, ByteView data) {
  if (!ValidateKey(key)) return inner_->Put(key, data);
  return Apply(RequestKind::kPut, key, [&] { return inner_->Put(key, data); });
}

Result<PutInfo> FaultStore::PutIfAbsent(std::string_view key, ByteView data) {
  if (!ValidateKey(key)) return inner_->PutIfAbsent(key, data);
  return Apply(RequestKind::kPutIfAbsent, key, [&] { return inner_->PutIfAbsent(key, data); });
}

Result<ListPage> FaultStore::List(std::string_view prefix, std::string_view continuation_token,
                                  int max_keys) {
  if (max_keys < 1 || max_keys > 1000) return inner_->List(prefix, continuation_token, max_keys);
  return Apply(RequestKind::kList, prefix,
               [&] { return inner_->List(prefix, continuation_token, max_keys); });
}

Status FaultStore::Delete(std::string_view key) {
  if (!ValidateKey(key)) return inner_->Delete(key);
  return Apply(RequestKind::kDelete, key, [&] { return inner_->Delete(key); });
}

}  // namespace floe::io
