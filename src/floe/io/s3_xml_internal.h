// Just enough XML for the S3 responses S3Store reads: ListObjectsV2 pages, error bodies and
// multipart upload ids. S3's documents are flat, machine-written and attribute-free below the root,
// so a tag scanner plus entity decoding is exact for them; this is not a general XML parser.
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"

namespace floe::io::s3 {

// Replaces the five predefined entities and numeric references (&#34; &#x22;) with their
// characters (numeric ones as UTF-8). A malformed reference is kept as written.
std::string XmlDecode(std::string_view text);
// Escapes &, <, >, " and ' for element text.
std::string XmlEscape(std::string_view text);

// The raw (still escaped) content of the first <tag>...</tag> in `xml`, or nullopt. An empty
// element
// (<tag/>) yields an empty view.
std::optional<std::string_view> XmlFirst(std::string_view xml, std::string_view tag);
// The raw content of every <tag>...</tag> in `xml`, in document order (not nested in each other).
std::vector<std::string_view> XmlAll(std::string_view xml, std::string_view tag);

// "2026-11-29T19:15:45.123Z" (ISO 8601 as S3 writes it, UTC) -> Unix milliseconds.
std::optional<int64_t> ParseIso8601Ms(std::string_view text);

// "\"abc\"" -> "abc": S3 quotes ETags in headers and XML.
std::string UnquoteEtag(std::string_view etag);

struct ErrorBody {
  std::string code;     // "NoSuchKey", "SlowDown"; empty when the body is not an S3 error
  std::string message;  // human text from the server
  std::optional<uint64_t> actual_object_size;  // InvalidRange errors carry it
};
ErrorBody ParseErrorBody(std::string_view body);

struct ListEntry {
  std::string key;  // full key, decoded
  uint64_t size = 0;
  int64_t mtime_ms = 0;
  std::string etag;  // unquoted
};
struct ListResult {
  std::vector<ListEntry> entries;
  bool truncated = false;
  std::string next_token;  // decoded NextContinuationToken
};
// Parses a ListObjectsV2 result; a body without <ListBucketResult> or with a malformed entry is a
// kCorrupt error.
Result<ListResult> ParseListObjectsV2(std::string_view body);

}  // namespace floe::io::s3
