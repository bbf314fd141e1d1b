#include "floe/io/store_uri.h"

#include <cctype>
#include <filesystem>

#include "floe/io/local_store.h"
#include "floe/io/mem_store.h"

namespace floe::io {
namespace {

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return IsLower(c) || (c >= 'A' && c <= 'Z'); }

// Why `name` is not a valid S3 bucket name (general purpose bucket rules), or empty if it is.
std::string BucketProblem(std::string_view name) {
  if (name.size() < 3 || name.size() > 63) return "it must be 3 to 63 characters long";
  for (char c : name) {
    if (!IsLower(c) && !IsDigit(c) && c != '.' && c != '-') {
      return "it may hold only lowercase letters, digits, '.' and '-'";
    }
  }
  auto alnum = [](char c) { return IsLower(c) || IsDigit(c); };
  if (!alnum(name.front()) || !alnum(name.back())) {
    return "it must begin and end with a letter or digit";
  }
  if (name.find("..") != std::string_view::npos) return "it must not contain '..'";
  // Formatted like an IPv4 address: four dot-separated runs of digits.
  int dots = 0;
  bool digits_and_dots = true;
  for (char c : name) {
    if (c == '.') {
      ++dots;
    } else if (!IsDigit(c)) {
      digits_and_dots = false;
    }
  }
  if (digits_and_dots && dots == 3) return "it must not look like an IP address";
  for (std::string_view p : {"xn--", "sthree-", "amzn-s3-demo-"}) {
    if (name.starts_with(p)) return fmt::format("it must not start with '{}'", p);
  }
  for (std::string_view s : {"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}) {
    if (name.ends_with(s)) return fmt::format("it must not end with '{}'", s);
  }
  return "";
}

bool ValidMemName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!IsAlpha(c) && !IsDigit(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

// Decodes %XX escapes of a file URI's path.
Result<std::string> PercentDecode(std::string_view uri, std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (IsDigit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    int hi = i + 2 < s.size() ? hex(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? hex(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return InvalidInput("store URI '{}' has a bad percent escape at position {}", uri,
                          uri.size() - s.size() + i);
    }
    char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return InvalidInput("store URI '{}' encodes a NUL byte", uri);
    out += c;
    i += 2;
  }
  return out;
}

Result<std::string> AbsolutePath(std::string_view uri, std::string_view path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(std::filesystem::path(path), ec);
  if (ec) return InvalidInput("cannot make store path '{}' absolute: {}", uri, ec.message());
  std::string s = abs.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Splits "bucket/a/b/" into the bucket and the prefix "a/b", checking the prefix is a valid key.
Result<StoreUri> ParseBucketUri(std::string_view uri, std::string_view rest, StoreUri::Scheme s,
                                std::string_view example) {
  StoreUri out;
  out.scheme = s;
  size_t slash = rest.find('/');
  out.bucket = std::string(rest.substr(0, slash));
  std::string_view prefix = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  if (out.bucket.empty()) {
    return InvalidInput("store URI '{}' has no {} (expected {})", uri,
                        s == StoreUri::Scheme::kS3 ? "bucket" : "name", example);
  }
  if (!prefix.empty()) {
    if (auto st = ValidateKey(prefix); !st) {
      return InvalidInput("store URI '{}' has a bad key prefix: {}", uri, st.error().message);
    }
  }
  out.path = std::string(prefix);
  return out;
}

}  // namespace

Result<StoreUri> ParseStoreUri(std::string_view uri) {
  if (uri.empty()) return InvalidInput("empty store URI");
  if (uri.find('\0') != std::string_view::npos) {
    return InvalidInput("store URI contains a NUL byte");
  }
  // A scheme is letters, digits, '+', '-', '.' starting with a letter, followed by "://".
  size_t sep = uri.find("://");
  bool has_scheme = sep != std::string_view::npos && sep > 0 && IsAlpha(uri[0]);
  for (size_t i = 0; has_scheme && i < sep; ++i) {
    char c = uri[i];
    if (!IsAlpha(c) && !IsDigit(c) && c != '+' && c != '-' && c != '.') has_scheme = false;
  }
  if (!has_scheme) {
    // "file:/abs" (one slash), as Hadoop writes local paths.
    if (uri.starts_with("file:")) {
      std::string_view rest = uri.substr(5);
      if (!rest.starts_with('/')) {
        return InvalidInput("store URI '{}' is not absolute (expected file:///absolute/path)", uri);
      }
      FLOE_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(uri, rest));
      FLOE_ASSIGN_OR_RETURN(std::string path, AbsolutePath(uri, decoded));
      return StoreUri{StoreUri::Scheme::kFile, "", std::move(path)};
    }
    FLOE_ASSIGN_OR_RETURN(std::string path, AbsolutePath(uri, uri));
    return StoreUri{StoreUri::Scheme::kFile, "", std::move(path)};
  }
  std::string scheme(uri.substr(0, sep));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view rest = uri.substr(sep + 3);
  if (scheme == "file") {
    if (rest.starts_with("localhost/")) rest.remove_prefix(9);
    if (!rest.starts_with('/')) {
      return InvalidInput(
          "store URI '{}' is not absolute: a file URI takes three slashes (file:///absolute/path); "
          "give a relative directory as a plain path",
          uri);
    }
    FLOE_ASSIGN_OR_RETURN(std::string decoded, PercentDecode(uri, rest));
    FLOE_ASSIGN_OR_RETURN(std::string path, AbsolutePath(uri, decoded));
    return StoreUri{StoreUri::Scheme::kFile, "", std::move(path)};
  }
  if (scheme == "s3") {
    FLOE_ASSIGN_OR_RETURN(StoreUri out,
                          ParseBucketUri(uri, rest, StoreUri::Scheme::kS3, "s3://bucket/prefix"));
    if (std::string problem = BucketProblem(out.bucket); !problem.empty()) {
      return InvalidInput("store URI '{}' has an invalid bucket name '{}': {}", uri, out.bucket,
                          problem);
    }
    return out;
  }
  if (scheme == "mem") {
    FLOE_ASSIGN_OR_RETURN(StoreUri out,
                          ParseBucketUri(uri, rest, StoreUri::Scheme::kMem, "mem://name/prefix"));
    if (!ValidMemName(out.bucket)) {
      return InvalidInput(
          "store URI '{}' has an invalid memory store name '{}' (use letters, digits, '.', '_', "
          "'-')",
          uri, out.bucket);
    }
    return out;
  }
  return InvalidInput(
      "store URI '{}' has unsupported scheme '{}' (supported: file://, s3://, mem://, or a plain "
      "directory path)",
      uri, std::string(uri.substr(0, sep)));
}

Result<StorePtr> OpenStore(std::string_view uri, const S3Options& s3,
                           const LocalStoreOptions& local) {
  FLOE_ASSIGN_OR_RETURN(StoreUri parsed, ParseStoreUri(uri));
  switch (parsed.scheme) {
    case StoreUri::Scheme::kFile: {
      FLOE_ASSIGN_OR_RETURN(auto store, LocalStore::Open(parsed.path, local));
      return StorePtr(std::move(store));
    }
    case StoreUri::Scheme::kS3: {
      FLOE_ASSIGN_OR_RETURN(auto store, S3Store::Open(parsed.bucket, parsed.path, s3));
      return StorePtr(std::move(store));
    }
    case StoreUri::Scheme::kMem: {
      FLOE_ASSIGN_OR_RETURN(auto store, MemStore::Open(parsed.bucket, parsed.path));
      return StorePtr(std::move(store));
    }
  }
  return Internal("unknown store scheme for '{}'", uri);
}

}  // namespace floe::io
