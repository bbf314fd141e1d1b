#include "floe/io/mem_store.h"

#include <map>
#include <mutex>

#include "floe/base/clock.h"

namespace floe::io {

struct MemStore::Namespace {
  struct Object {
    Buffer data;
    int64_t mtime_ms = 0;
    uint64_t version = 0;
  };
  std::mutex mu;
  // std::string compares as unsigned bytes, which is S3's key order.
  std::map<std::string, Object, std::less<>> objects;
  uint64_t next_version = 1;
};

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<MemStore::Namespace>, std::less<>> namespaces;
};

Registry& GlobalRegistry() {
  static Registry* registry = new Registry();  // never destroyed: stores may outlive statics
  return *registry;
}

bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<std::shared_ptr<MemStore>> MemStore::Open(std::string_view name, std::string_view prefix) {
  if (!ValidName(name)) {
    return InvalidInput("memory store name '{}' is invalid (use letters, digits, '.', '_', '-')",
                        name);
  }
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  while (!prefix.empty() && prefix.front() == '/') prefix.remove_prefix(1);
  if (!prefix.empty()) {
    if (auto st = ValidateKey(prefix); !st) {
      return InvalidInput("bad prefix for memory store 'mem://{}': {}", name, st.error().message);
    }
  }
  Registry& reg = GlobalRegistry();
  std::shared_ptr<Namespace> ns;
  {
    std::lock_guard lock(reg.mu);
    auto it = reg.namespaces.find(name);
    if (it == reg.namespaces.end()) {
      it = reg.namespaces.emplace(std::string(name), std::make_shared<Namespace>()).first;
    }
    ns = it->second;
  }
  std::string full_prefix = prefix.empty() ? "" : std::string(prefix) + "/";
  return std::shared_ptr<MemStore>(new MemStore(std::move(ns), std::string(name), full_prefix));
}

void MemStore::Forget(std::string_view name) {
  Registry& reg = GlobalRegistry();
  std::lock_guard lock(reg.mu);
  auto it = reg.namespaces.find(name);
  if (it != reg.namespaces.end()) reg.namespaces.erase(it);
}

MemStore::MemStore(std::shared_ptr<Namespace> ns, std::string name, std::string prefix)
    : ns_(std::move(ns)), name_(std::move(name)), prefix_(std::move(prefix)) {}

std::string MemStore::Uri() const {
  if (prefix_.empty()) return "mem://" + name_;
  return fmt::format("mem://{}/{}", name_, std::string_view(prefix_).substr(0, prefix_.size() - 1));
}

Status MemStore::CheckKey(std::string_view key) const {
  if (auto st = ValidateKey(key); !st) {
    Error e = st.error();
    e.message = fmt::format("{} in {}", e.message, Uri());
    return std::unexpected(std::move(e));
  }
  return {};
}

std::string MemStore::FullKey(std::string_view key) const { return prefix_ + std::string(key); }

Result<ObjectInfo> MemStore::Head(std::string_view key) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  std::lock_guard lock(ns_->mu);
  auto it = ns_->objects.find(FullKey(key));
  if (it == ns_->objects.end()) return NotFound("object '{}' not found in {}", key, Uri());
  return ObjectInfo{std::string(key), it->second.data.size(), it->second.mtime_ms,
                    fmt::format("m{}", it->second.version)};
}

Result<Buffer> MemStore::Get(std::string_view key, Range range) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  if (auto st = range.Validate(key); !st) {
    return InvalidInput("{} in {}", st.error().message, Uri());
  }
  Buffer data;
  {
    std::lock_guard lock(ns_->mu);
    auto it = ns_->objects.find(FullKey(key));
    if (it == ns_->objects.end()) return NotFound("object '{}' not found in {}", key, Uri());
    data = it->second.data;
  }
  auto span = range.Resolve(key, data.size());
  if (!span) return InvalidInput("{} in {}", span.error().message, Uri());
  return data.Slice(span->first, span->second - span->first);
}

Result<PutInfo> MemStore::Store(std::string_view key, ByteView data, bool if_absent) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  Namespace::Object obj{Buffer::Copy(data), UnixMillisNow(), 0};
  std::string full = FullKey(key);
  std::lock_guard lock(ns_->mu);
  auto [it, inserted] = ns_->objects.try_emplace(std::move(full));
  if (!inserted && if_absent) return Conflict("object '{}' already exists in {}", key, Uri());
  obj.version = ns_->next_version++;
  it->second = std::move(obj);
  return PutInfo{};
}

Result<PutInfo> MemStore::Put(std::string_view key, ByteView data) {
  return Store(key, data, false);
}

Result<PutInfo> MemStore::PutIfAbsent(std::string_view key, ByteView data) {
  return Store(key, data, true);
}

Result<ListPage> MemStore::List(std::string_view prefix, std::string_view continuation_token,
                                int max_keys) {
  if (max_keys < 1 || max_keys > 1000) {
    return InvalidInput("max_keys {} is out of range (1..1000) in {}", max_keys, Uri());
  }
  std::string full_prefix = prefix_ + std::string(prefix);
  ListPage page;
  std::lock_guard lock(ns_->mu);
  auto it = continuation_token.empty()
                ? ns_->objects.lower_bound(full_prefix)
                : ns_->objects.upper_bound(prefix_ + std::string(continuation_token));
  if (it != ns_->objects.end() && it->first < full_prefix)
    it = ns_->objects.lower_bound(full_prefix);
  for (; it != ns_->objects.end() && std::string_view(it->first).starts_with(full_prefix); ++it) {
    if (page.objects.size() == static_cast<size_t>(max_keys)) {
      page.next_token = page.objects.back().key;
      break;
    }
    page.objects.push_back(ObjectInfo{it->first.substr(prefix_.size()), it->second.data.size(),
                                      it->second.mtime_ms, fmt::format("m{}", it->second.version)});
  }
  return page;
}

Status MemStore::Delete(std::string_view key) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  std::lock_guard lock(ns_->mu);
  auto it = ns_->objects.find(FullKey(key));
  if (it != ns_->objects.end()) ns_->objects.erase(it);
  return {};
}

}  // namespace floe::io
