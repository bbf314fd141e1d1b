// How the counting proxy names what a request asks of S3 and who asked (no server needed; the
// proxy itself is tested against the S3 server in s3_counting_proxy_test.cc).
#include "floe/io/counting_proxy.h"

#include <gtest/gtest.h>

namespace floe::io {
namespace {

S3RequestKind Kind(std::string_view method, std::string_view target,
                   std::string_view host = "127.0.0.1:9000") {
  return ClassifyS3Request(method, target, host, false);
}

TEST(CountingProxy, ClassifiesPathStyleRequests) {
  EXPECT_EQ(Kind("GET", "/bucket/a/b.parquet"), S3RequestKind::kGet);
  EXPECT_EQ(Kind("GET", "/bucket?list-type=2&prefix=a%2F"), S3RequestKind::kList);
  EXPECT_EQ(Kind("GET", "/bucket/?list-type=2"), S3RequestKind::kList);
  EXPECT_EQ(Kind("GET", "/bucket?uploads"), S3RequestKind::kList);
  EXPECT_EQ(Kind("HEAD", "/bucket/k"), S3RequestKind::kHead);
  EXPECT_EQ(Kind("HEAD", "/bucket"), S3RequestKind::kHead);
  EXPECT_EQ(Kind("PUT", "/bucket/k"), S3RequestKind::kPut);
  EXPECT_EQ(Kind("PUT", "/bucket"), S3RequestKind::kPut);
  EXPECT_EQ(Kind("PUT", "/bucket/k?partNumber=3&uploadId=xyz"), S3RequestKind::kPart);
  EXPECT_EQ(Kind("PUT", "/bucket/k?uploadId=xyz&partNumber=3"), S3RequestKind::kPart);
  EXPECT_EQ(Kind("POST", "/bucket/k?uploads"), S3RequestKind::kPost);
  EXPECT_EQ(Kind("POST", "/bucket?delete"), S3RequestKind::kPost);
  EXPECT_EQ(Kind("DELETE", "/bucket/k"), S3RequestKind::kDelete);
  EXPECT_EQ(Kind("OPTIONS", "/bucket/k"), S3RequestKind::kOther);
  EXPECT_EQ(S3RequestKindName(S3RequestKind::kPart), "PART");
}

TEST(CountingProxy, ClassifiesVirtualHostedRequests) {
  EXPECT_EQ(Kind("GET", "/a/b.parquet", "bucket.localhost:9000"), S3RequestKind::kGet);
  EXPECT_EQ(Kind("GET", "/k", "bucket.s3.us-east-1.amazonaws.com"), S3RequestKind::kGet);
  EXPECT_EQ(Kind("GET", "/?list-type=2", "bucket.localhost:9000"), S3RequestKind::kList);
  EXPECT_EQ(Kind("GET", "/", "bucket.localhost"), S3RequestKind::kList);
  // An address is never a virtual host: the bucket is in the path.
  EXPECT_EQ(Kind("GET", "/bucket", "10.0.0.1:9000"), S3RequestKind::kList);
  EXPECT_EQ(Kind("GET", "/bucket/k", "localhost:9000"), S3RequestKind::kGet);
}

TEST(CountingProxy, NamesTheClientByAccessKeyThenUserAgent) {
  EXPECT_EQ(S3ClientName("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261203/us-east-1/s3/"
                         "aws4_request, SignedHeaders=host;x-amz-date, Signature=abc",
                         "aws-sdk-java/2.29"),
            "AKIDEXAMPLE");
  EXPECT_EQ(S3ClientName("AWS AKID2:c2lnbmF0dXJl", ""), "AKID2");
  EXPECT_EQ(S3ClientName("", "duckdb/v1.5.5(linux_amd64) python"), "duckdb/v1.5.5(linux_amd64)");
  EXPECT_EQ(S3ClientName("", ""), "unknown");
}

TEST(CountingProxy, WindowsSubtractAndDropWhatDidNotMove) {
  ProxyStats before;
  before.totals.requests[static_cast<int>(S3RequestKind::kGet)] = 2;
  before.clients["a"].requests[static_cast<int>(S3RequestKind::kGet)] = 2;
  ProxyStats now = before;
  now.totals.requests[static_cast<int>(S3RequestKind::kHead)] = 1;
  now.clients["b"].requests[static_cast<int>(S3RequestKind::kHead)] = 1;
  now -= before;
  EXPECT_EQ(now.totals.total(), 1u);
  EXPECT_EQ(now.clients.size(), 1u);
  EXPECT_EQ(now.clients.begin()->first, "b");
  const auto j = now.ToJson(false);
  EXPECT_EQ(j["requests"]["HEAD"], 1);
  EXPECT_EQ(j["requests"]["GET"], 0);
  EXPECT_FALSE(j.contains("objects"));
}

TEST(CountingProxy, RefusesBadAddresses) {
  EXPECT_EQ(CountingProxy::Start({"127.0.0.1:0", "https://s3.example", {}}).error().kind,
            ErrorKind::kInvalidInput);
  EXPECT_EQ(CountingProxy::Start({"127.0.0.1:0", "http://127.0.0.1", {}}).error().ToString(),
            "invalid input: proxy upstream 'http://127.0.0.1': expected http://HOST:PORT");
  EXPECT_EQ(CountingProxy::Start({"127.0.0.1", "http://127.0.0.1:9", {}}).error().ToString(),
            "invalid input: proxy listen address '127.0.0.1': expected HOST:PORT");
  EXPECT_EQ(CountingProxy::Start({"127.0.0.1:70000", "http://127.0.0.1:9", {}}).error().ToString(),
            "invalid input: proxy listen address '127.0.0.1:70000': bad port");
}

}  // namespace
}  // namespace floe::io
