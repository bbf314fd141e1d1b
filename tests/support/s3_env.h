// The S3 integration-test environment: the server ctest started (described by the file FLOE_S3_ENV
// names), a fresh bucket per test, and on request a counting, fault-injecting proxy
// (tests/support/s3_proxy.py) in front of the server. One S3TestEnv per test, used from the test's
// thread; the proxy process lives as long as the S3TestEnv.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "floe/io/s3_store.h"

namespace floe::testing {

// The server's address and root credentials, from STATE_DIR/env of scripts/s3_server.sh.
struct S3ServerInfo {
  std::string endpoint;
  std::string access_key;
  std::string secret_key;
  std::string region;
};

// Reads the file FLOE_S3_ENV names; nullopt when the variable is unset or the file unreadable.
std::optional<S3ServerInfo> LoadS3ServerInfo();

// A snapshot of the proxy's counters (see s3_proxy.py for the names); missing names read 0.
struct ProxyStats {
  std::map<std::string, uint64_t> values;
  uint64_t Get(const std::string& name) const;
  uint64_t requests(std::string_view kind) const { return Get("requests." + std::string(kind)); }
  uint64_t total() const { return Get("requests.total"); }
  std::string ToString() const;  // for failure messages
};

// The proxy as a child process on a free loopback port; killed by the destructor.
class S3Proxy {
 public:
  // Starts s3_proxy.py forwarding to `upstream`; nullptr (with a gtest failure) if it won't start.
  static std::unique_ptr<S3Proxy> Start(const std::string& upstream);
  ~S3Proxy();
  S3Proxy(const S3Proxy&) = delete;
  S3Proxy& operator=(const S3Proxy&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  ProxyStats Stats();
  // Zeroes the counters and drops pending faults.
  void Reset();
  // Queues a fault, e.g. "status=503&count=2&kind=GET" or "action=reset"; see s3_proxy.py.
  void Inject(std::string_view query);

 private:
  S3Proxy(pid_t pid, int port) : pid_(pid), port_(port) {}
  std::string Control(const char* method, std::string_view path);
  pid_t pid_;
  int port_;
};

class S3TestEnv {
 public:
  S3TestEnv();
  ~S3TestEnv();

  // False when FLOE_S3_ENV is unset: the test should GTEST_SKIP().
  bool available() const { return info_.has_value(); }
  const S3ServerInfo& info() const { return *info_; }
  // A bucket name unique to this test and process (created by Store()).
  const std::string& bucket() const { return bucket_; }

  // Options reaching the server directly, or through the proxy (started on first use).
  io::S3Options Options(bool via_proxy = false);
  // A store on this test's bucket under `prefix`, the bucket created first. Fails the test (and
  // returns nullptr) if that does not work.
  std::shared_ptr<io::S3Store> Store(std::string prefix = "",
                                     std::optional<io::S3Options> options = std::nullopt);
  // The same with the options of Options(true).
  std::shared_ptr<io::S3Store> ProxiedStore(std::string prefix = "");
  S3Proxy& Proxy();

 private:
  std::optional<S3ServerInfo> info_;
  std::string bucket_;
  bool bucket_created_ = false;
  std::unique_ptr<S3Proxy> proxy_;
};

// "floe-<suite>-<test>-<pid>-<n>" squeezed into S3's bucket naming rules.
std::string UniqueBucketName();

}  // namespace floe::testing
