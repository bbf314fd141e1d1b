#include "support/s3_env.h"

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

extern char** environ;

namespace floe::testing {

std::optional<S3ServerInfo> LoadS3ServerInfo() {
  const char* path = std::getenv("FLOE_S3_ENV");
  if (path == nullptr || *path == '\0') return std::nullopt;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  S3ServerInfo info;
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string name = line.substr(0, eq);
    std::string value = line.substr(eq + 1);
    if (name == "FLOE_S3_ENDPOINT") info.endpoint = value;
    if (name == "FLOE_S3_ACCESS_KEY") info.access_key = value;
    if (name == "FLOE_S3_SECRET_KEY") info.secret_key = value;
    if (name == "FLOE_S3_REGION") info.region = value;
  }
  if (info.endpoint.empty()) return std::nullopt;
  return info;
}

uint64_t ProxyStats::Get(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? 0 : it->second;
}

std::string ProxyStats::ToString() const {
  std::string out;
  for (const auto& [name, value] : values) out += name + "=" + std::to_string(value) + " ";
  return out;
}

namespace {

size_t AppendToString(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

}  // namespace

std::unique_ptr<S3Proxy> S3Proxy::Start(const std::string& upstream) {
  TempDir dir;
  std::string port_file = dir.str() + "/port";
  std::string script = std::string(FLOE_SOURCE_DIR) + "/tests/support/s3_proxy.py";
  std::vector<std::string> args = {"python3", script,        "--upstream",
                                   upstream,  "--port-file", port_file};
  // FLOE_S3_PROXY_VERBOSE=1 logs every proxied request line (with the client port) to stderr.
  if (const char* v = std::getenv("FLOE_S3_PROXY_VERBOSE"); v && *v && *v != '0') {
    args.push_back("--verbose");
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int rc = posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), environ); rc != 0) {
    ADD_FAILURE() << "cannot start python3 " << script << ": " << std::strerror(rc);
    return nullptr;
  }
  // Wait for the port file (written once listening) or the child's early exit.
  for (int i = 0; i < 300; ++i) {
    std::ifstream in(port_file);
    int port = 0;
    if (in >> port && port > 0) return std::unique_ptr<S3Proxy>(new S3Proxy(pid, port));
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      ADD_FAILURE() << "s3_proxy.py exited early with status " << status;
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ADD_FAILURE() << "s3_proxy.py did not report a port";
  return nullptr;
}

S3Proxy::~S3Proxy() {
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
}

std::string S3Proxy::Control(const char* method, std::string_view path) {
  std::string url = endpoint() + std::string(path);
  std::string body;
  CURL* e = curl_easy_init();
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
  if (std::string_view(method) == "POST") {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, 0L);
  }
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, AppendToString);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT, 30L);
  CURLcode code = curl_easy_perform(e);
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(e);
  EXPECT_EQ(code, CURLE_OK) << "proxy control " << path << ": " << curl_easy_strerror(code);
  EXPECT_EQ(status, 200) << "proxy control " << path << ": " << body;
  return body;
}

ProxyStats S3Proxy::Stats() {
  ProxyStats stats;
  std::istringstream in(Control("GET", "/__proxy/stats"));
  std::string name;
  uint64_t value;
  while (in >> name >> value) stats.values[name] = value;
  return stats;
}

void S3Proxy::Reset() { Control("POST", "/__proxy/reset"); }

void S3Proxy::Inject(std::string_view query) {
  Control("POST", "/__proxy/inject?" + std::string(query));
}

std::string UniqueBucketName() {
  static std::atomic<int> counter{0};
  std::string base = "floe";
  if (const auto* test = ::testing::UnitTest::GetInstance()->current_test_info()) {
    base += fmt::format("-{}-{}", test->test_suite_name(), test->name());
  }
  std::string name;
  for (char c : base) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (ok) {
      name += l;
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  std::string suffix = fmt::format("-{:x}-{}", getpid(), counter.fetch_add(1));
  if (name.size() + suffix.size() > 63) name.resize(63 - suffix.size());
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name + suffix;
}

S3TestEnv::S3TestEnv() : info_(LoadS3ServerInfo()), bucket_(UniqueBucketName()) {}
S3TestEnv::~S3TestEnv() = default;

io::S3Options S3TestEnv::Options(bool via_proxy) {
  io::S3Options o;
  o.endpoint = via_proxy ? Proxy().endpoint() : info_->endpoint;
  o.region = info_->region;
  o.path_style = true;
  o.access_key_id = info_->access_key;
  o.secret_access_key = info_->secret_key;
  // Retries in tests wait milliseconds, not seconds.
  o.base_backoff_ms = 1;
  o.max_backoff_ms = 20;
  return o;
}

S3Proxy& S3TestEnv::Proxy() {
  if (!proxy_) proxy_ = S3Proxy::Start(info_->endpoint);
  // gtest reports an exception escaping a test body as that test's failure.
  if (!proxy_) throw std::runtime_error("the S3 proxy did not start");
  return *proxy_;
}

std::shared_ptr<io::S3Store> S3TestEnv::Store(std::string prefix,
                                              std::optional<io::S3Options> options) {
  auto store = io::S3Store::Open(bucket_, std::move(prefix), options ? *options : Options());
  if (!store) {
    ADD_FAILURE() << "S3Store::Open: " << store.error().ToString();
    return nullptr;
  }
  if (!bucket_created_) {
    // Created through a direct store so a proxy's counters start clean.
    auto direct = io::S3Store::Open(bucket_, "", Options());
    auto created = direct ? (*direct)->CreateBucket() : Status(std::unexpected(direct.error()));
    if (!created) {
      ADD_FAILURE() << "CreateBucket " << bucket_ << ": " << created.error().ToString();
      return nullptr;
    }
    bucket_created_ = true;
  }
  return *store;
}

std::shared_ptr<io::S3Store> S3TestEnv::ProxiedStore(std::string prefix) {
  return Store(std::move(prefix), Options(true));
}

}  // namespace floe::testing
