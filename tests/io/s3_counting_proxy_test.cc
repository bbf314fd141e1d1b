// The counting proxy in front of the real S3 server (versitygw, started by ctest's s3_server
// fixture): a scripted sequence of every kind of S3 request floe's S3Store makes goes through it,
// and its counts must equal, kind by kind and byte for byte, those of floe's own CountingStore
// around the same store and the requests the store's HTTP client sent. Nothing here asserts a
// duration.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "floe/io/counting_proxy.h"
#include "floe/io/counting_store.h"
#include "floe/io/http_client.h"
#include "support/s3_env.h"

namespace floe::testing {
namespace {

using io::CountingProxy;
using io::S3RequestKind;

uint64_t Kind(const io::ProxyCounts& c, S3RequestKind k) { return c.requests[static_cast<int>(k)]; }

std::string Bytes(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + static_cast<char>(i * 31 % 251));
  return s;
}

void RunScript(S3TestEnv& env, CountingProxy& proxy, io::CountingStore** counting_out,
               std::shared_ptr<io::S3Store>* store_out) {
  io::S3Options o = env.Options();
  o.endpoint = proxy.endpoint();
  o.multipart_threshold = 6ull << 20;
  o.multipart_part_size = 5ull << 20;
  auto s3 = env.Store("p", o);
  ASSERT_NE(s3, nullptr);
  auto counting = std::make_shared<io::CountingStore>(s3, /*per_object=*/true);
  static std::shared_ptr<io::CountingStore> keep;
  keep = counting;
  *counting_out = counting.get();
  *store_out = s3;
  proxy.Reset();

  const std::string small = Bytes(1000, 'a');
  const std::string big = Bytes(11u << 20, 'b');  // multipart: 3 parts
  ASSERT_TRUE(counting->Put("one", AsBytes(small)).has_value());
  ASSERT_TRUE(counting->Put("two", AsBytes(Bytes(5000, 'c'))).has_value());
  ASSERT_TRUE(counting->PutIfAbsent("three", AsBytes(Bytes(300, 'd'))).has_value());
  ASSERT_TRUE(counting->Put("big", AsBytes(big)).has_value());
  EXPECT_EQ(counting->Get("one")->size(), 1000u);
  EXPECT_EQ(counting->Get("two", io::Range::Bounded(100, 200))->size(), 200u);
  EXPECT_EQ(counting->Get("two", io::Range::Suffix(64))->size(), 64u);
  auto whole = counting->Get("big");
  ASSERT_TRUE(whole.has_value());
  EXPECT_TRUE(std::equal(whole->data(), whole->data() + whole->size(),
                         reinterpret_cast<const uint8_t*>(big.data()),
                         reinterpret_cast<const uint8_t*>(big.data()) + big.size()))
      << "an 11 MiB body streamed through the proxy came back changed";
  std::vector<io::ReadRequest> batch;
  for (int i = 0; i < 11; ++i)
    batch.push_back({"big", io::Range::Bounded(uint64_t(i) << 20, 4096)});
  for (const auto& r : counting->ReadAll(batch)) EXPECT_TRUE(r.has_value());
  EXPECT_TRUE(counting->Head("three").has_value());
  EXPECT_EQ(counting->Head("missing").error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(counting->Get("missing").error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(counting->List("").value().objects.size(), 4u);
  EXPECT_TRUE(counting->Delete("three").has_value());
  EXPECT_TRUE(counting->Delete("one").has_value());
}

TEST(CountingProxyS3, CountsWhatFloesOwnCountingStoreCounts) {
  S3TestEnv env;
  if (!env.available()) GTEST_SKIP() << "FLOE_S3_ENV is not set: run through ctest";
  auto proxy = CountingProxy::Start({"127.0.0.1:0", env.info().endpoint, {}});
  ASSERT_TRUE(proxy.has_value()) << proxy.error().ToString();
  io::CountingStore* counting = nullptr;
  std::shared_ptr<io::S3Store> s3;
  RunScript(env, **proxy, &counting, &s3);
  ASSERT_NE(counting, nullptr);
  const io::RequestCounts c = counting->Snapshot();
  const io::ProxyStats p = (*proxy)->Stats();

  // Every request floe's store sent, and each of its kind.
  EXPECT_EQ(p.totals.total(), s3->stats().attempts);
  EXPECT_EQ(p.totals.total(), c.total());
  EXPECT_EQ(Kind(p.totals, S3RequestKind::kGet), c.get);
  EXPECT_EQ(p.totals.ranged_gets, 2u + 11u);
  EXPECT_EQ(Kind(p.totals, S3RequestKind::kHead), c.head);
  EXPECT_EQ(Kind(p.totals, S3RequestKind::kPut), c.put - c.multipart_parts);
  EXPECT_EQ(Kind(p.totals, S3RequestKind::kPart), c.multipart_parts);
  EXPECT_EQ(c.multipart_parts, 3u);
  EXPECT_EQ(Kind(p.totals, S3RequestKind::kPost), c.post);
  EXPECT_EQ(Kind(p.totals, S3RequestKind::kList), c.list);
  EXPECT_EQ(Kind(p.totals, S3RequestKind::kDelete), c.del);
  EXPECT_EQ(p.totals.errors, c.failed);
  EXPECT_EQ(c.failed, 2u);  // the HEAD and the GET of 'missing'
  // Bytes of each object that moved only as GETs and PUTs are exactly the payloads.
  const auto per = counting->PerObject();
  const std::string root = "/" + env.bucket() + "/p/";
  EXPECT_EQ(p.objects.at(root + "two").bytes_out, per.at("two").bytes_read);
  EXPECT_EQ(p.objects.at(root + "two").bytes_in, 5000u);
  EXPECT_EQ(p.objects.at(root + "one").bytes_out, 1000u);
  EXPECT_EQ(Kind(p.objects.at(root + "big"), S3RequestKind::kGet), per.at("big").gets);
  EXPECT_EQ(Kind(p.objects.at(root + "big"), S3RequestKind::kPart), 3u);
  // And what the S3 server itself logged for the bucket (versitygw's access log, beside the env
  // file), operation by operation; the bucket was created around the proxy.
  const char* env_file = std::getenv("FLOE_S3_ENV");
  ASSERT_NE(env_file, nullptr);
  const std::string log_path =
      std::filesystem::path(env_file).parent_path().string() + "/access.log";
  std::map<std::string, uint64_t> logged;
  for (int wait = 0; wait < 50; ++wait) {  // the server writes its log after answering
    logged.clear();
    std::ifstream in(log_path);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string owner, bucket;
      fields >> owner >> bucket;
      if (bucket != env.bucket()) continue;
      auto op = line.find(" s3_");
      if (op == std::string::npos) continue;
      std::string name = line.substr(op + 1, line.find(' ', op + 1) - op - 1);
      if (name != "s3_CreateBucket") ++logged[name];
    }
    uint64_t n = 0;
    for (const auto& [name, count] : logged) n += count;
    if (n >= p.totals.total()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(logged["s3_GetObject"], Kind(p.totals, S3RequestKind::kGet));
  EXPECT_EQ(logged["s3_HeadObject"], Kind(p.totals, S3RequestKind::kHead));
  EXPECT_EQ(logged["s3_PutObject"], Kind(p.totals, S3RequestKind::kPut));
  EXPECT_EQ(logged["s3_UploadPart"], Kind(p.totals, S3RequestKind::kPart));
  EXPECT_EQ(logged["s3_CreateMultipartUpload"] + logged["s3_CompleteMultipartUpload"],
            Kind(p.totals, S3RequestKind::kPost));
  EXPECT_EQ(logged["s3_ListObjectsV2"], Kind(p.totals, S3RequestKind::kList));
  EXPECT_EQ(logged["s3_DeleteObject"], Kind(p.totals, S3RequestKind::kDelete));
  uint64_t logged_total = 0;
  for (const auto& [name, count] : logged) logged_total += count;
  EXPECT_EQ(logged_total, p.totals.total());

  // One client: the store's access key.
  ASSERT_EQ(p.clients.size(), 1u);
  EXPECT_EQ(p.clients.begin()->first, env.info().access_key);
  EXPECT_EQ(p.clients.begin()->second.total(), p.totals.total());
}

TEST(CountingProxyS3, WindowsResetAndTheStatsRouteAgree) {
  S3TestEnv env;
  if (!env.available()) GTEST_SKIP() << "FLOE_S3_ENV is not set: run through ctest";
  io::SimulationOptions sim;  // S3's timing on loopback: the counts must not change with it
  sim.first_byte_ms = 5;
  auto proxy = CountingProxy::Start({"127.0.0.1:0", env.info().endpoint, sim});
  ASSERT_TRUE(proxy.has_value()) << proxy.error().ToString();
  io::S3Options o = env.Options();
  o.endpoint = (*proxy)->endpoint();
  auto s3 = env.Store("w", o);
  ASSERT_NE(s3, nullptr);
  ASSERT_TRUE(s3->Put("k", AsBytes(Bytes(2048, 'k'))).has_value());
  (*proxy)->StartWindow("reads");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s3->Get("k").has_value());
  const io::ProxyStats all = (*proxy)->Stats();
  const io::ProxyStats window = (*proxy)->Stats("reads");
  EXPECT_EQ(Kind(window.totals, S3RequestKind::kGet), 3u);
  EXPECT_EQ(window.totals.total(), 3u);
  EXPECT_EQ(window.totals.bytes_out, 3u * 2048u);
  EXPECT_EQ(all.totals.total(), s3->stats().attempts);
  EXPECT_GT(all.totals.total(), window.totals.total());

  // The proxy's own route answers the same numbers.
  io::HttpClient http(io::HttpClientOptions{});
  io::HttpRequest req;
  req.url = (*proxy)->endpoint() + "/_floe/stats?window=reads";
  auto r = http.Execute(req);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->BodyText();
  auto j = nlohmann::json::parse(r->BodyText());
  EXPECT_EQ(j["requests"]["GET"], 3);
  EXPECT_EQ(j["bytes_out"], 3 * 2048);
  EXPECT_EQ(j["window"], "reads");
  req.url = (*proxy)->endpoint() + "/_floe/stats?window=nope";
  EXPECT_EQ(http.Execute(req)->status, 404);

  req.method = "POST";
  req.url = (*proxy)->endpoint() + "/_floe/reset";
  req.headers = {"Content-Type: application/json"};
  ASSERT_EQ(http.Execute(req)->status, 200);
  EXPECT_EQ((*proxy)->Stats().totals.total(), 0u);
  EXPECT_EQ((*proxy)->Stats("reads").totals.total(), 0u);  // windows are gone too
}

}  // namespace
}  // namespace floe::testing
