// The server-free parts of HttpClient: backoff bounds, HTTP dates, transport failures and their
// retries, and the refusal of a blocking call from the loop thread. Against a real server it is
// exercised through S3Store (s3_store_test.cc).
#include "floe/io/http_client.h"

#include <gtest/gtest.h>

#include <future>
#include <random>

namespace floe::io {
namespace {

TEST(HttpClient, BackoffIsFullJitterUnderACap) {
  std::mt19937_64 rng(1);
  for (int retry = 0; retry < 20; ++retry) {
    int cap = std::min<int64_t>(5000, 50ll << std::min(retry, 30));
    int max_seen = 0;
    for (int i = 0; i < 200; ++i) {
      int b = BackoffMs(retry, 50, 5000, rng);
      ASSERT_GE(b, 0);
      ASSERT_LE(b, cap) << "retry " << retry;
      max_seen = std::max(max_seen, b);
    }
    EXPECT_GT(max_seen, cap / 2) << "retry " << retry;  // spread over the whole window
  }
  EXPECT_EQ(BackoffMs(3, 0, 5000, rng), 0);
}

TEST(HttpClient, ParsesHttpDates) {
  EXPECT_EQ(ParseHttpDate("Wed, 21 Oct 2015 07:28:00 GMT"), 1445412480);
  EXPECT_EQ(ParseHttpDate("not a date"), std::nullopt);
}

HttpClientOptions FastRetries() {
  HttpClientOptions o;
  o.max_attempts = 3;
  o.base_backoff_ms = 1;
  o.max_backoff_ms = 2;
  o.connect_timeout_ms = 2000;
  return o;
}

TEST(HttpClient, RetriesARefusedConnectionThenReportsIt) {
  HttpClient client(FastRetries());
  HttpRequest req;
  req.url = "http://127.0.0.1:1/nothing";  // port 1: nothing listens, the connect is refused
  req.label = "GET 'nothing'";
  auto r = client.Execute(std::move(req));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->TransportFailed());
  EXPECT_TRUE(r->transport_transient);
  EXPECT_EQ(r->attempts, 3);
  EXPECT_EQ(client.stats().sent, 0u);  // no request left this machine
}

TEST(HttpClient, BlockingCallFromItsOwnCallbackFails) {
  HttpClient client(FastRetries());
  std::promise<Result<HttpResponse>> inner;
  HttpRequest req;
  req.url = "http://127.0.0.1:1/a";
  client.Submit(std::move(req), [&](HttpResponse) {
    HttpRequest again;
    again.url = "http://127.0.0.1:1/b";
    again.label = "GET 'b'";
    inner.set_value(client.Execute(std::move(again)));
  });
  Result<HttpResponse> r = inner.get_future().get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInternal);
  EXPECT_EQ(r.error().message, "blocking HTTP call (GET 'b') from a callback of the same client");
}

}  // namespace
}  // namespace floe::io
