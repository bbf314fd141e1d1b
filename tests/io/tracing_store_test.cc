// TracingStore and RequestTrace: one record per request with the purpose its sender gave (a
// scope, nested scopes, a batch's labels) or its name implies, failures kept, nothing recorded
// while no trace is attached; and the JSON lines a trace file holds.
#include "floe/io/tracing_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "floe/io/mem_store.h"

namespace floe::io {
namespace {

StorePtr FreshMem(const std::string& name) {
  MemStore::Forget(name);
  auto s = MemStore::Open(name);
  EXPECT_TRUE(s);
  return *s;
}

ByteView Bytes(const std::string& s) {
  return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// "KIND object purpose [detail] bytes" for each record, in start order.
std::vector<std::string> Lines(const RequestTrace& t) {
  std::vector<std::string> out;
  for (const auto& r : t.Requests()) {
    std::string line = r.kind + " " + r.object + " " + r.purpose;
    if (!r.detail.empty()) line += " [" + r.detail + "]";
    line += " " + std::to_string(r.bytes);
    if (!r.error.empty()) line += " failed";
    out.push_back(line);
  }
  return out;
}

TEST(TracingStore, RecordsEachRequestWithThePurposeItsSenderGave) {
  auto to = std::make_shared<TraceSwitch>();
  TracingStore store(FreshMem("trace1"), to);
  ASSERT_TRUE(store.Put("t/metadata/00001-a.metadata.json", Bytes("{}")));  // not traced
  ASSERT_TRUE(store.Put("t/data/x.parquet", Bytes("0123456789")));
  auto trace = std::make_shared<RequestTrace>();
  to->Attach(trace);
  ASSERT_TRUE(store.Get("t/metadata/00001-a.metadata.json"));  // named by its file name
  {
    RequestPurpose footer("footer", "the file's tail");
    ASSERT_TRUE(store.Get("t/data/x.parquet", Range::Suffix(4)));
  }
  {
    // Inside "deletes", a reader's own purpose becomes the detail.
    RequestPurpose deletes("deletes", "position delete file");
    RequestPurpose footer("footer");
    ASSERT_TRUE(store.Get("t/data/x.parquet", Range::Bounded(0, 2)));
    EXPECT_EQ(RequestPurpose::CurrentPurpose(), "deletes");
  }
  EXPECT_EQ(RequestPurpose::CurrentPurpose(), "");  // every scope undone
  EXPECT_FALSE(store.Get("t/data/missing.parquet"));
  ASSERT_TRUE(store.Head("t/data/x.parquet"));
  ASSERT_TRUE(store.List("t/data/"));
  ASSERT_TRUE(store.Delete("t/data/gone.parquet"));
  to->Detach();
  ASSERT_TRUE(store.Get("t/data/x.parquet"));  // after the trace: not recorded
  EXPECT_EQ(Lines(*trace),
            (std::vector<std::string>{
                "GET mem://trace1/t/metadata/00001-a.metadata.json table metadata 2",
                "GET mem://trace1/t/data/x.parquet footer [the file's tail] 4",
                "GET mem://trace1/t/data/x.parquet deletes [position delete file: footer] 2",
                "GET mem://trace1/t/data/missing.parquet read 0 failed",
                "HEAD mem://trace1/t/data/x.parquet length 0",
                "LIST mem://trace1/t/data/ list [1 keys] 0",
                "DELETE mem://trace1/t/data/gone.parquet delete 0",
            }));
}

TEST(TracingStore, ABatchCarriesEachRequestsLabel) {
  auto to = std::make_shared<TraceSwitch>();
  TracingStore store(FreshMem("trace2"), to);
  ASSERT_TRUE(store.Put("snap-1-a.avro", Bytes("manifest list")));
  ASSERT_TRUE(store.Put("f.parquet", Bytes("abcdefghij")));
  auto trace = std::make_shared<RequestTrace>();
  to->Attach(trace);
  std::vector<ReadRequest> batch(3);
  batch[0].key = "snap-1-a.avro";
  batch[1].key = "f.parquet";
  batch[1].range = Range::Bounded(2, 3);
  RequestPurpose::Label("data", "row group 0: id", &batch[1]);
  batch[2].key = "f.parquet";
  batch[2].range = Range::Bounded(8, 2);
  {
    RequestPurpose deletes("deletes");  // labels made under a scope take it, as a nested scope
    RequestPurpose::Label("deletion vectors", "", &batch[2]);
  }
  auto got = store.ReadAll(std::move(batch));
  ASSERT_EQ(got.size(), 3u);
  for (const auto& g : got) ASSERT_TRUE(g);
  to->Detach();
  std::vector<std::string> lines = Lines(*trace);
  std::sort(lines.begin(), lines.end());  // one submit time: the order among them is arbitrary
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "GET mem://trace2/f.parquet data [row group 0: id] 3",
                       "GET mem://trace2/f.parquet deletes [deletion vectors] 2",
                       "GET mem://trace2/snap-1-a.avro manifest list 13",
                   }));
}

// Senders compose details only while some switch holds a trace.
TEST(TraceSwitch, TraceAttachedWhileAnySwitchHoldsATrace) {
  ASSERT_FALSE(TraceAttached());
  auto one = std::make_unique<TraceSwitch>();
  TraceSwitch two;
  one->Attach(std::make_shared<RequestTrace>());
  one->Attach(std::make_shared<RequestTrace>());  // replaced, still one
  two.Attach(std::make_shared<RequestTrace>());
  EXPECT_TRUE(TraceAttached());
  two.Detach();
  two.Detach();  // twice: counted once
  EXPECT_TRUE(TraceAttached());
  one.reset();  // a switch that goes lets its trace go
  EXPECT_FALSE(TraceAttached());
}

TEST(RequestTrace, JsonLinesGiveTheRangeAsAsked) {
  TracedRequest bounded;
  bounded.kind = "GET";
  bounded.object = "s3://b/t/data/x.parquet";
  bounded.range = Range::Bounded(100, 50);
  bounded.bytes = 50;
  bounded.start_ms = 1.23456;
  bounded.end_ms = 2.5;
  bounded.purpose = "data";
  bounded.detail = "row group 0: \"id\"";
  TracedRequest suffix = bounded;
  suffix.range = Range::Suffix(8);
  suffix.bytes = 8;
  suffix.purpose = "footer";
  suffix.detail = "";
  suffix.error = "not found: gone";
  TracedRequest put;
  put.kind = "PUT";
  put.object = "s3://b/t/metadata/v.metadata.json";
  put.bytes = 10;
  put.purpose = "table metadata";
  EXPECT_EQ(
      TraceJsonLines({bounded, suffix, put}, 3),
      R"({"type":"request","statement":3,"kind":"GET","object":"s3://b/t/data/x.parquet","offset":100,"length":50,"bytes":50,"start_ms":1.235,"end_ms":2.5,"purpose":"data","detail":"row group 0: \"id\""})"
      "\n"
      R"({"type":"request","statement":3,"kind":"GET","object":"s3://b/t/data/x.parquet","suffix":8,"bytes":8,"start_ms":1.235,"end_ms":2.5,"purpose":"footer","detail":"","error":"not found: gone"})"
      "\n"
      R"({"type":"request","statement":3,"kind":"PUT","object":"s3://b/t/metadata/v.metadata.json","bytes":10,"start_ms":0.0,"end_ms":0.0,"purpose":"table metadata","detail":""})"
      "\n");
}

TEST(RequestTrace, PurposeFromTheObjectsName) {
  EXPECT_EQ(PurposeFromName("GET", "t/metadata/00003-x.metadata.json"), "table metadata");
  EXPECT_EQ(PurposeFromName("GET", "t/metadata/00003-x.gz.metadata.json"), "table metadata");
  EXPECT_EQ(PurposeFromName("GET", "t/metadata/snap-12-1-u.avro"), "manifest list");
  EXPECT_EQ(PurposeFromName("GET", "t/metadata/u-m0.avro"), "manifest");
  EXPECT_EQ(PurposeFromName("GET", "t/data/u-deletes.puffin"), "deletes");
  EXPECT_EQ(PurposeFromName("GET", "t/data/u.parquet"), "read");
  EXPECT_EQ(PurposeFromName("PUT", "t/metadata/u-m0.avro"), "manifest");
  EXPECT_EQ(PurposeFromName("PUT", "t/data/u.parquet"), "write");
  EXPECT_EQ(PurposeFromName("HEAD", "t/data/u.parquet"), "length");
}

}  // namespace
}  // namespace floe::io
