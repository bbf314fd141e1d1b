// The pure parts of building and judging an S3 request: URL encoding as SigV4 canonicalises it,
// query strings in canonical order, endpoint parsing, and which statuses are transient. Kept apart
// from the HTTP client (http_client.h) so they can be tested without a server. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/result.h"

namespace floe::io::s3 {

// Percent-encodes every byte except the unreserved set A-Z a-z 0-9 - _ . ~ with upper-case hex,
// as SigV4's canonical form requires; '/' is kept when `keep_slash` (object key paths).
std::string UriEncode(std::string_view text, bool keep_slash);

// "a=1&b=x%2Fy" with parameters sorted by name and every name and value encoded by UriEncode, and
// "name=" for valueless parameters. That is byte-for-byte SigV4's canonical query string, which
// matters because libcurl 7.88 signs the query exactly as it appears in the URL (see s3_store.cc).
std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& params);

struct Endpoint {
  std::string scheme;     // "http" or "https"
  std::string host;       // "127.0.0.1", "s3.eu-west-1.amazonaws.com", "[::1]"
  std::string port;       // empty: the scheme's default
  std::string base_path;  // "" or "/base" (no trailing '/')
  bool host_is_ip = false;
};
// Parses "http://host:port[/base]"; a missing scheme or host is an invalid-input error naming it.
Result<Endpoint> ParseEndpoint(std::string_view url);

// S3 bucket naming rules (3-63 chars of a-z 0-9 . -, starting and ending alphanumeric).
Status ValidateBucketName(std::string_view bucket);

// HTTP statuses worth retrying: 5xx except 501 (not implemented is not going to change).
bool IsTransientStatus(long status);

}  // namespace floe::io::s3
