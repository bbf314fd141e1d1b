// The conformance suite (tests/support/store_conformance.h) over every local store and decorator.
// The S3 store instantiates the same suite in its own binary.
#include "support/store_conformance.h"

#include <atomic>
#include <memory>

#include "floe/io/counting_store.h"
#include "floe/io/fault_store.h"
#include "floe/io/local_store.h"
#include "floe/io/mem_store.h"
#include "floe/io/simulated_store.h"

namespace floe::testing {
namespace {

// A LocalStore in a fresh temp directory that is removed when the last reference goes.
io::StorePtr FreshLocalStore() {
  struct Holder {
    TempDir dir;
    std::shared_ptr<io::LocalStore> store;
  };
  auto holder = std::make_shared<Holder>();
  auto store = io::LocalStore::Open(holder->dir.str());
  if (!store) return nullptr;
  holder->store = *store;
  return io::StorePtr(holder, holder->store.get());
}

// A MemStore on a namespace no other test uses; forgotten when the last reference goes.
io::StorePtr FreshMemStore() {
  static std::atomic<int> counter{0};
  std::string name = fmt::format("conformance-{}", counter++);
  auto store = io::MemStore::Open(name);
  if (!store) return nullptr;
  std::shared_ptr<io::MemStore> inner = *store;
  return io::StorePtr(inner.get(), [inner, name](io::ObjectStore*) mutable {
    inner.reset();
    io::MemStore::Forget(name);
  });
}

io::SimulationOptions FastSimulation() {
  io::SimulationOptions o;
  o.first_byte_ms = 0.2;
  o.jitter_sigma = 0.37;
  o.concurrency = 16;
  return o;
}

INSTANTIATE_TEST_SUITE_P(
    Stores, StoreConformance,
    ::testing::Values(
        StoreFactory{"Local", FreshLocalStore}, StoreFactory{"Mem", FreshMemStore},
        StoreFactory{"MemPrefixed",
                     [] {
                       static std::atomic<int> counter{0};
                       auto s = io::MemStore::Open(fmt::format("conformance-p{}", counter++),
                                                   "root/sub");
                       return s ? io::StorePtr(*s) : nullptr;
                     }},
        StoreFactory{"CountingOverMem",
                     [] { return std::make_shared<io::CountingStore>(FreshMemStore(), true); }},
        StoreFactory{"CountingOverLocal",
                     [] { return std::make_shared<io::CountingStore>(FreshLocalStore()); }},
        StoreFactory{
            "SimulatedOverMem",
            [] { return std::make_shared<io::SimulatedStore>(FreshMemStore(), FastSimulation()); }},
        StoreFactory{"FaultOverMem",
                     [] { return std::make_shared<io::FaultStore>(FreshMemStore()); }},
        StoreFactory{"FaultOverLocal",
                     [] { return std::make_shared<io::FaultStore>(FreshLocalStore()); }}),
    StoreFactoryName);

}  // namespace
}  // namespace floe::testing
