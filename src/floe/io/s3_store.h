// S3Store: an ObjectStore on any S3-compatible server, over HttpClient (http_client.h).
// One event-loop thread per store drives the client: every request (blocking calls from any thread
// and batched reads) is a transfer on it, so connections are reused and a batch runs concurrently
// on one thread. Requests are signed with libcurl's built-in AWS SigV4. Transient failures (5xx,
// 503 SlowDown, timeouts, connection resets) are retried with exponential backoff and full jitter;
// other 4xx never are. Credentials never appear in errors or logs. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "floe/io/object_store.h"

namespace floe::io {

struct S3Options {
  // "http://127.0.0.1:7070"; empty: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then
  // https://s3.<region>.amazonaws.com.
  std::string endpoint;
  std::string region;  // empty: AWS_REGION, AWS_DEFAULT_REGION, then us-east-1
  // Bucket in the path instead of the host name. Always so for an IP-address endpoint (no
  // subdomains) and for a bucket with dots over https (the wildcard certificate would not match).
  bool path_style = false;
  std::string access_key_id;      // empty: AWS_ACCESS_KEY_ID
  std::string secret_access_key;  // empty: AWS_SECRET_ACCESS_KEY
  std::string session_token;      // empty: AWS_SESSION_TOKEN, only with the environment's keys

  int max_connections = 64;                    // transfers in flight at once, all callers
  uint64_t multipart_threshold = 64ull << 20;  // Put above this uses multipart upload
  uint64_t multipart_part_size = 16ull << 20;  // >= 5 MiB, as S3 requires
  int max_attempts = 5;                        // first try + retries of transient failures
  int base_backoff_ms = 50;                    // backoff = rand(0, min(cap, base * 2^n))
  int max_backoff_ms = 5000;
  int connect_timeout_ms = 5000;
  int request_timeout_ms = 60000;  // whole transfer, per attempt
  // An attempt that gets no byte for this long (no first byte, or a stalled transfer) is
  // aborted: a server that accepts connections and never answers fails in seconds, not minutes.
  int low_speed_timeout_s = 10;
  // No attempt starts later than this after a request's first: retries of a server that stopped
  // answering end at about this plus one attempt (20 s + 10 s), where five attempts of a stalled
  // transfer took 151 s.
  int retry_budget_ms = 20000;

  // Fills empty fields from the standard AWS environment variables and defaults.
  void ApplyEnvironment();
  // Takes Iceberg's S3 FileIO properties, as a catalog vends them with a table: its credentials
  // ("s3.access-key-id", "s3.secret-access-key", "s3.session-token") replace any set here, as one
  // identity; its "s3.endpoint", "client.region" and "s3.path-style-access" fill only what the
  // caller left unset (an endpoint given on the command line, a proxy, wins). Other keys are
  // ignored. A key id without its secret, or a path-style value other than true/false, is an
  // invalid-input error naming the property.
  Status ApplyProperties(const std::map<std::string, std::string>& properties);
};

// Requests as the server sees them: exact, including libcurl's own silent re-send of a request
// whose reused connection was found dead.
struct S3Stats {
  uint64_t attempts = 0;  // HTTP requests actually sent, retries included
  uint64_t retries = 0;   // of those, re-sends of a request already sent once
};

class S3Store final : public ObjectStore {
 public:
  // `bucket` must be a valid bucket name; `prefix` (may be empty) roots every key.
  static Result<std::shared_ptr<S3Store>> Open(std::string bucket, std::string prefix,
                                               S3Options options);
  ~S3Store() override;

  Result<ObjectInfo> Head(std::string_view key) override;
  // Defaults repeat ObjectStore's so calls through an S3Store pointer read the same.
  Result<Buffer> Get(std::string_view key, Range range = Range::Whole()) override;
  // Above multipart_threshold: CreateMultipartUpload, the parts concurrently, Complete; a failed
  // part aborts the upload.
  Result<PutInfo> Put(std::string_view key, ByteView data) override;
  // One PUT with "If-None-Match: *" (412 or 409 ConditionalRequestConflict -> kConflict), so at
  // most 5 GiB: S3 has no conditional multipart create. If a retried attempt loses, the error
  // says an earlier attempt (whose response was lost) may have created the object.
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override;
  Result<ListPage> List(std::string_view prefix, std::string_view continuation_token = {},
                        int max_keys = 1000) override;
  Status Delete(std::string_view key) override;
  // Callbacks run on the store's event-loop thread, one at a time: they must return quickly and
  // must not make blocking calls on this store (those fail with kInternal instead of deadlocking)
  // or wait for a batch of it; submitting more reads is fine. Destroying the store finishes every
  // pending batch first.
  std::unique_ptr<PendingReads> SubmitReads(std::vector<ReadRequest> requests, ReadCallback on_done,
                                            BatchOptions options = {}) override;
  std::string Uri() const override;

  // Creates the bucket (tests and local servers); succeeds if it already exists and is ours.
  Status CreateBucket();
  S3Stats stats() const;

  class Impl;

 private:
  explicit S3Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::io
