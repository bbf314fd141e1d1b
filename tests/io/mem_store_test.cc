// MemStore beyond the conformance suite: the process-wide registry, prefixes, zero-copy reads.
#include "floe/io/mem_store.h"

#include <gtest/gtest.h>

namespace floe::io {
namespace {

TEST(MemStore, OpeningANameTwiceSharesContents) {
  MemStore::Forget("mem-twice");
  auto a = MemStore::Open("mem-twice");
  auto b = MemStore::Open("mem-twice");
  ASSERT_TRUE(a && b);
  ASSERT_TRUE((*a)->Put("k", AsBytes("v")));
  EXPECT_EQ((*b)->Get("k")->ToString(), "v");
  // Contents outlive the stores that wrote them, until forgotten.
  a->reset();
  b->reset();
  auto c = MemStore::Open("mem-twice");
  EXPECT_EQ((*c)->Get("k")->ToString(), "v");
  MemStore::Forget("mem-twice");
  auto d = MemStore::Open("mem-twice");
  EXPECT_FALSE((*d)->Get("k"));
  EXPECT_EQ((*c)->Get("k")->ToString(), "v");  // an open store keeps the old namespace
}

TEST(MemStore, PrefixesIsolateKeys) {
  MemStore::Forget("mem-prefix");
  auto root = *MemStore::Open("mem-prefix");
  auto p1 = *MemStore::Open("mem-prefix", "t/p1");
  auto p2 = *MemStore::Open("mem-prefix", "/t/p2/");
  EXPECT_EQ(p2->Uri(), "mem://mem-prefix/t/p2");
  ASSERT_TRUE(p1->Put("x", AsBytes("1")));
  ASSERT_TRUE(p2->Put("x", AsBytes("2")));
  ASSERT_TRUE(root->Put("t/p10", AsBytes("not under p1/")));
  EXPECT_EQ(p1->Get("x")->ToString(), "1");
  EXPECT_EQ(p2->Get("x")->ToString(), "2");
  auto listed = p1->ListAll("");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, "x");
  auto all = root->ListAll("t/");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 3u);
  auto missing = p1->Get("y");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "object 'y' not found in mem://mem-prefix/t/p1");
}

TEST(MemStore, BadNamesAndPrefixesAreRejected) {
  for (const char* name : {"", "a b", "a/b", "x:y"}) {
    auto s = MemStore::Open(name);
    ASSERT_FALSE(s) << name;
    EXPECT_EQ(s.error().kind, ErrorKind::kInvalidInput);
  }
  auto s = MemStore::Open("ok", "a//b");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("a//b"), std::string::npos) << s.error().message;
}

TEST(MemStore, RangedReadsShareTheStoredBytes) {
  MemStore::Forget("mem-slices");
  auto store = *MemStore::Open("mem-slices");
  ASSERT_TRUE(store->Put("k", AsBytes("0123456789")));
  auto whole = store->Get("k");
  auto part = store->Get("k", Range::Bounded(3, 4));
  ASSERT_TRUE(whole && part);
  EXPECT_EQ(part->ToString(), "3456");
  EXPECT_EQ(part->data(), whole->data() + 3);  // zero-copy: same storage
  // Overwriting does not disturb buffers already handed out.
  ASSERT_TRUE(store->Put("k", AsBytes("abcdefghij")));
  EXPECT_EQ(part->ToString(), "3456");
}

}  // namespace
}  // namespace floe::io
