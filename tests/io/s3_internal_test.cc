// The server-free parts of S3Store: XML extraction, SigV4 query encoding, endpoint parsing,
// and S3Options::ApplyEnvironment / ApplyProperties.
#include <gtest/gtest.h>

#include <cstdlib>

#include "floe/io/s3_request_internal.h"
#include "floe/io/s3_store.h"
#include "floe/io/s3_xml_internal.h"

namespace floe::io {
namespace {

TEST(S3Xml, DecodesEntitiesAndNumericReferences) {
  EXPECT_EQ(s3::XmlDecode("a &amp; b &lt;c&gt; &quot;q&quot; &apos;s&apos;"),
            "a & b <c> \"q\" 's'");
  EXPECT_EQ(s3::XmlDecode("&#34;etag&#34;"), "\"etag\"");
  EXPECT_EQ(s3::XmlDecode("&#x22;&#xA;&#xe9;&#x20AC;"), "\"\n\xc3\xa9\xe2\x82\xac");
  // Not entities: kept as written.
  EXPECT_EQ(s3::XmlDecode("a & b; &bogus; &#xZZ; &"), "a & b; &bogus; &#xZZ; &");
  EXPECT_EQ(s3::XmlEscape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(s3::XmlDecode(s3::XmlEscape("round & \"trip\" <>")), "round & \"trip\" <>");
}

TEST(S3Xml, FindsElements) {
  std::string_view xml = "<R xmlns=\"x\"><A>1</A><B/><A>2</A><AB>3</AB><C attr=\"v\">4</C></R>";
  EXPECT_EQ(s3::XmlFirst(xml, "A").value(), "1");
  EXPECT_EQ(s3::XmlFirst(xml, "B").value(), "");
  EXPECT_EQ(s3::XmlFirst(xml, "AB").value(), "3");
  EXPECT_EQ(s3::XmlFirst(xml, "C").value(), "4");
  EXPECT_FALSE(s3::XmlFirst(xml, "D"));
  auto all = s3::XmlAll(xml, "A");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1], "2");
}

TEST(S3Xml, ParsesIso8601) {
  EXPECT_EQ(s3::ParseIso8601Ms("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(s3::ParseIso8601Ms("2026-11-29T19:15:45Z"), 1795979745000);
  EXPECT_EQ(s3::ParseIso8601Ms("2026-11-29T19:15:45.123Z"), 1795979745123);
  EXPECT_EQ(s3::ParseIso8601Ms("2026-11-29T19:15:45.1Z"), 1795979745100);
  EXPECT_EQ(s3::ParseIso8601Ms("2026-11-29T19:15:45.123456789Z"), 1795979745123);
  EXPECT_FALSE(s3::ParseIso8601Ms("2026-11-29 19:15:45Z"));
  EXPECT_FALSE(s3::ParseIso8601Ms("2026-11-29T19:15:45"));
  EXPECT_FALSE(s3::ParseIso8601Ms("2026-13-29T19:15:45Z"));
  EXPECT_FALSE(s3::ParseIso8601Ms("yesterday"));
}

TEST(S3Xml, ParsesErrorBodies) {
  auto e = s3::ParseErrorBody(
      "<?xml version=\"1.0\"?><Error><Code>InvalidRange</Code><Message>The requested range is "
      "not satisfiable</Message><RangeRequested>bytes=11-20</RangeRequested>"
      "<ActualObjectSize>11</ActualObjectSize></Error>");
  EXPECT_EQ(e.code, "InvalidRange");
  EXPECT_EQ(e.message, "The requested range is not satisfiable");
  EXPECT_EQ(e.actual_object_size, 11u);
  EXPECT_EQ(s3::ParseErrorBody("not xml").code, "");
  EXPECT_EQ(s3::ParseErrorBody("<Error><Code>A&amp;B</Code></Error>").code, "A&B");
}

TEST(S3Xml, ParsesListObjectsV2) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult "
      "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name><Prefix>p/</Prefix>"
      "<KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>"
      "<Contents><Key>p/a &amp; b</Key><LastModified>2026-11-29T19:15:45.500Z</LastModified>"
      "<ETag>&#34;abc&#34;</ETag><Size>11</Size><StorageClass>STANDARD</StorageClass></Contents>"
      "<Contents><Key>p/c</Key><LastModified>2026-11-29T19:15:46Z</LastModified>"
      "<ETag>&quot;def-2&quot;</ETag><Size>0</Size></Contents>"
      "<NextContinuationToken>p/c&amp;+/=</NextContinuationToken></ListBucketResult>";
  auto r = s3::ParseListObjectsV2(body);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->entries.size(), 2u);
  EXPECT_EQ(r->entries[0].key, "p/a & b");
  EXPECT_EQ(r->entries[0].size, 11u);
  EXPECT_EQ(r->entries[0].mtime_ms, 1795979745500);
  EXPECT_EQ(r->entries[0].etag, "abc");
  EXPECT_EQ(r->entries[1].etag, "def-2");
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->next_token, "p/c&+/=");

  auto last = s3::ParseListObjectsV2(
      "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  ASSERT_TRUE(last);
  EXPECT_TRUE(last->entries.empty());
  EXPECT_TRUE(last->next_token.empty());

  auto bad = s3::ParseListObjectsV2("<Error><Code>x</Code></Error>");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kCorrupt);
  auto bad_size = s3::ParseListObjectsV2(
      "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>");
  ASSERT_FALSE(bad_size);
  EXPECT_NE(bad_size.error().message.find("'k'"), std::string::npos);
  auto no_token = s3::ParseListObjectsV2(
      "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>");
  EXPECT_FALSE(no_token);
}

TEST(S3Request, UriEncodesPerSigV4) {
  EXPECT_EQ(s3::UriEncode("AZaz09-_.~", false), "AZaz09-_.~");
  EXPECT_EQ(s3::UriEncode("a b+c=d&e/f%", false), "a%20b%2Bc%3Dd%26e%2Ff%25");
  EXPECT_EQ(s3::UriEncode("a b/c", true), "a%20b/c");
  EXPECT_EQ(s3::UriEncode("\xe2\x82\xac", true), "%E2%82%AC");
}

TEST(S3Request, CanonicalQueryIsSortedAndFullyEncoded) {
  EXPECT_EQ(s3::CanonicalQuery({{"prefix", "a/b c"},
                                {"max-keys", "1000"},
                                {"list-type", "2"},
                                {"continuation-token", "k+1=/x&"}}),
            "continuation-token=k%2B1%3D%2Fx%26&list-type=2&max-keys=1000&prefix=a%2Fb%20c");
  EXPECT_EQ(s3::CanonicalQuery({{"uploads", ""}}), "uploads=");
  EXPECT_EQ(s3::CanonicalQuery({{"uploadId", "u"}, {"partNumber", "10"}}),
            "partNumber=10&uploadId=u");
}

TEST(S3Request, ParsesEndpoints) {
  auto ep = s3::ParseEndpoint("http://127.0.0.1:7070");
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->scheme, "http");
  EXPECT_EQ(ep->host, "127.0.0.1");
  EXPECT_EQ(ep->port, "7070");
  EXPECT_TRUE(ep->host_is_ip);
  ep = s3::ParseEndpoint("HTTPS://s3.eu-west-1.amazonaws.com/");
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->scheme, "https");
  EXPECT_EQ(ep->port, "");
  EXPECT_EQ(ep->base_path, "");
  EXPECT_FALSE(ep->host_is_ip);
  ep = s3::ParseEndpoint("http://[::1]:9000/base/");
  ASSERT_TRUE(ep);
  EXPECT_EQ(ep->host, "[::1]");
  EXPECT_EQ(ep->port, "9000");
  EXPECT_EQ(ep->base_path, "/base");
  EXPECT_TRUE(ep->host_is_ip);
  EXPECT_FALSE(s3::ParseEndpoint("localhost:9000"));
  EXPECT_FALSE(s3::ParseEndpoint("ftp://host"));
  EXPECT_FALSE(s3::ParseEndpoint("http://:9000"));
  EXPECT_FALSE(s3::ParseEndpoint("http://host:port"));
  auto userinfo = s3::ParseEndpoint("http://AKIA:secret@host:9000");
  ASSERT_FALSE(userinfo);
  EXPECT_EQ(userinfo.error().message.find("secret"), std::string::npos);
}

TEST(S3Request, BucketNames) {
  EXPECT_TRUE(s3::ValidateBucketName("my-bucket.v2"));
  EXPECT_TRUE(s3::ValidateBucketName("abc"));
  EXPECT_FALSE(s3::ValidateBucketName("ab"));
  EXPECT_FALSE(s3::ValidateBucketName(std::string(64, 'a')));
  EXPECT_FALSE(s3::ValidateBucketName("Upper"));
  EXPECT_FALSE(s3::ValidateBucketName("under_score"));
  EXPECT_FALSE(s3::ValidateBucketName("-dash"));
  EXPECT_FALSE(s3::ValidateBucketName("dash-"));
  EXPECT_FALSE(s3::ValidateBucketName("a..b"));
}

TEST(S3Request, TransientStatuses) {
  EXPECT_TRUE(s3::IsTransientStatus(500));
  EXPECT_TRUE(s3::IsTransientStatus(503));
  EXPECT_FALSE(s3::IsTransientStatus(501));
  EXPECT_FALSE(s3::IsTransientStatus(403));
  EXPECT_FALSE(s3::IsTransientStatus(404));
  EXPECT_FALSE(s3::IsTransientStatus(412));
}

// Sets or clears environment variables for one test and restores them afterwards.
class EnvGuard {
 public:
  EnvGuard(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (auto [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      if (value) {
        setenv(name, value, 1);
      } else {
        unsetenv(name);
      }
    }
  }
  ~EnvGuard() {
    for (auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(S3Options, ApplyEnvironmentFillsOnlyEmptyFields) {
  EnvGuard env({{"AWS_ACCESS_KEY_ID", "env-key"},
                {"AWS_SECRET_ACCESS_KEY", "env-secret"},
                {"AWS_SESSION_TOKEN", "env-token"},
                {"AWS_REGION", nullptr},
                {"AWS_DEFAULT_REGION", "eu-central-1"},
                {"AWS_ENDPOINT_URL_S3", nullptr},
                {"AWS_ENDPOINT_URL", "http://127.0.0.1:9999"}});
  S3Options o;
  o.ApplyEnvironment();
  EXPECT_EQ(o.access_key_id, "env-key");
  EXPECT_EQ(o.secret_access_key, "env-secret");
  EXPECT_EQ(o.session_token, "env-token");
  EXPECT_EQ(o.region, "eu-central-1");
  EXPECT_EQ(o.endpoint, "http://127.0.0.1:9999");

  // Explicit credentials are one identity: no environment token is mixed in.
  S3Options mine;
  mine.access_key_id = "my-key";
  mine.secret_access_key = "my-secret";
  mine.region = "us-west-2";
  mine.endpoint = "http://10.0.0.1:1";
  mine.ApplyEnvironment();
  EXPECT_EQ(mine.access_key_id, "my-key");
  EXPECT_EQ(mine.secret_access_key, "my-secret");
  EXPECT_EQ(mine.session_token, "");
  EXPECT_EQ(mine.region, "us-west-2");
  EXPECT_EQ(mine.endpoint, "http://10.0.0.1:1");
}

TEST(S3Options, RegionPrecedenceAndDefault) {
  {
    EnvGuard env({{"AWS_REGION", "ap-south-1"}, {"AWS_DEFAULT_REGION", "eu-central-1"}});
    S3Options o;
    o.ApplyEnvironment();
    EXPECT_EQ(o.region, "ap-south-1");
  }
  {
    EnvGuard env({{"AWS_REGION", nullptr},
                  {"AWS_DEFAULT_REGION", nullptr},
                  {"AWS_ENDPOINT_URL_S3", "http://s3-specific:1"},
                  {"AWS_ENDPOINT_URL", "http://generic:1"}});
    S3Options o;
    o.ApplyEnvironment();
    EXPECT_EQ(o.region, "us-east-1");
    EXPECT_EQ(o.endpoint, "http://s3-specific:1");
  }
}

TEST(S3Options, OpenWithoutEndpointTargetsAws) {
  EnvGuard env({{"AWS_ENDPOINT_URL_S3", nullptr},
                {"AWS_ENDPOINT_URL", nullptr},
                {"AWS_ACCESS_KEY_ID", nullptr},
                {"AWS_SECRET_ACCESS_KEY", nullptr},
                {"AWS_REGION", "eu-west-1"}});
  // No request is made by Open; the URI does not show the endpoint.
  auto store = S3Store::Open("some-bucket", "/a/b/", S3Options{});
  ASSERT_TRUE(store) << store.error().ToString();
  EXPECT_EQ((*store)->Uri(), "s3://some-bucket/a/b");
}

TEST(S3Options, VendedPropertiesReplaceTheCredentialsAndFillOnlyWhatIsUnset) {
  S3Options o;
  o.endpoint = "http://127.0.0.1:1111";  // the command line's, a proxy: kept
  o.access_key_id = "mine";
  o.secret_access_key = "my-secret";
  o.session_token = "my-token";
  ASSERT_TRUE(o.ApplyProperties({{"s3.access-key-id", "vended"},
                                 {"s3.secret-access-key", "vended-secret"},
                                 {"s3.endpoint", "http://127.0.0.1:2222"},
                                 {"client.region", "eu-west-3"},
                                 {"s3.path-style-access", "true"},
                                 {"s3.remote-signing-enabled", "false"}}));
  EXPECT_EQ(o.access_key_id, "vended");
  EXPECT_EQ(o.secret_access_key, "vended-secret");
  EXPECT_EQ(o.session_token, "");  // the vended identity has none: mine is not mixed in
  EXPECT_EQ(o.endpoint, "http://127.0.0.1:1111");
  EXPECT_EQ(o.region, "eu-west-3");
  EXPECT_TRUE(o.path_style);

  S3Options e;
  ASSERT_TRUE(e.ApplyProperties({{"s3.endpoint", "http://127.0.0.1:2222"},
                                 {"s3.access-key-id", "k"},
                                 {"s3.secret-access-key", "s"},
                                 {"s3.session-token", "t"}}));
  EXPECT_EQ(e.endpoint, "http://127.0.0.1:2222");
  EXPECT_EQ(e.session_token, "t");
  EXPECT_TRUE(e.ApplyProperties({}).has_value());
  EXPECT_EQ(e.access_key_id, "k");

  EXPECT_EQ(S3Options().ApplyProperties({{"s3.access-key-id", "k"}}).error().ToString(),
            "invalid input: S3 property s3.access-key-id is given without s3.secret-access-key");
  EXPECT_EQ(S3Options().ApplyProperties({{"s3.path-style-access", "yes"}}).error().ToString(),
            "invalid input: S3 property s3.path-style-access = 'yes': expected true or false");
}

}  // namespace
}  // namespace floe::io
