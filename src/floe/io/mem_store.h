// MemStore: an ObjectStore in memory ("mem://name/prefix"), with the same semantics as LocalStore
// and S3. Every store opened on a name shares that namespace's contents for the life of the process
// (or until Forget), so `OpenStore("mem://t")` twice sees one store. Gets return zero-copy slices
// of the stored bytes. Thread-safe: one mutex per namespace.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "floe/io/object_store.h"

namespace floe::io {

class MemStore final : public ObjectStore {
 public:
  // The store on namespace `name` (letters, digits, '.', '_', '-'), rooted at `prefix` within it
  // (empty, or a valid key such as "a/b": keys of this store live under "a/b/").
  static Result<std::shared_ptr<MemStore>> Open(std::string_view name,
                                                std::string_view prefix = {});
  // Removes the namespace from the registry: later Opens start empty; stores already open keep
  // the old contents until they are destroyed.
  static void Forget(std::string_view name);

  Result<ObjectInfo> Head(std::string_view key) override;
  Result<Buffer> Get(std::string_view key, Range range = Range::Whole()) override;
  Result<PutInfo> Put(std::string_view key, ByteView data) override;
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override;
  Result<ListPage> List(std::string_view prefix, std::string_view continuation_token = {},
                        int max_keys = 1000) override;
  Status Delete(std::string_view key) override;
  std::string Uri() const override;

  struct Namespace;

 private:
  MemStore(std::shared_ptr<Namespace> ns, std::string name, std::string prefix);
  Status CheckKey(std::string_view key) const;
  std::string FullKey(std::string_view key) const;
  Result<PutInfo> Store(std::string_view key, ByteView data, bool if_absent);

  std::shared_ptr<Namespace> ns_;
  std::string name_;
  std::string prefix_;  // "" or "a/b/"
};

}  // namespace floe::io
