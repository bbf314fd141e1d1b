// Pure helpers declared in s3_request_internal.h.
#include "floe/io/s3_request_internal.h"

#include <algorithm>
#include <cctype>

namespace floe::io::s3 {

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3 / 2);
  for (unsigned char c : text) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& params) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(params.size());
  for (auto& [name, value] : params) {
    encoded.emplace_back(UriEncode(name, false), UriEncode(value, false));
  }
  // SigV4 sorts by encoded name, then by value.
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

Result<Endpoint> ParseEndpoint(std::string_view url) {
  Endpoint ep;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) {
    return InvalidInput("S3 endpoint '{}' has no scheme (expected http://host:port or https://...)",
                        url);
  }
  ep.scheme = std::string(url.substr(0, sep));
  std::transform(ep.scheme.begin(), ep.scheme.end(), ep.scheme.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (ep.scheme != "http" && ep.scheme != "https") {
    return InvalidInput("S3 endpoint '{}' has scheme '{}'; only http and https are supported", url,
                        ep.scheme);
  }
  std::string_view rest = url.substr(sep + 3);
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (path.find_first_of("?#") != std::string_view::npos) {
      return InvalidInput("S3 endpoint '{}' has a query or fragment", url);
    }
    ep.base_path = std::string(path);
  }
  if (authority.find('@') != std::string_view::npos) {
    // Credentials in the URL would end up in messages; they belong in S3Options.
    return InvalidInput("S3 endpoint must not contain user info; pass credentials in S3Options");
  }
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return InvalidInput("S3 endpoint '{}' has a bad host", url);
    ep.host = std::string(authority.substr(0, close + 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return InvalidInput("S3 endpoint '{}' has a bad port", url);
      ep.port = std::string(after.substr(1));
    }
    ep.host_is_ip = true;
  } else {
    size_t colon = authority.rfind(':');
    ep.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) ep.port = std::string(authority.substr(colon + 1));
    ep.host_is_ip = !ep.host.empty() && std::all_of(ep.host.begin(), ep.host.end(), [](char c) {
      return (c >= '0' && c <= '9') || c == '.';
    });
  }
  if (ep.host.empty()) return InvalidInput("S3 endpoint '{}' has no host", url);
  if (!ep.port.empty() &&
      (ep.port.size() > 5 ||
       !std::all_of(ep.port.begin(), ep.port.end(), [](char c) { return c >= '0' && c <= '9'; }))) {
    return InvalidInput("S3 endpoint '{}' has a bad port '{}'", url, ep.port);
  }
  return ep;
}

Status ValidateBucketName(std::string_view b) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (b.size() < 3 || b.size() > 63) {
    return InvalidInput("S3 bucket name '{}' must be 3 to 63 characters long", b);
  }
  for (char c : b) {
    if (!alnum(c) && c != '.' && c != '-') {
      return InvalidInput(
          "S3 bucket name '{}' may contain only lower-case letters, digits, '.' and '-'", b);
    }
  }
  if (!alnum(b.front()) || !alnum(b.back())) {
    return InvalidInput("S3 bucket name '{}' must start and end with a letter or digit", b);
  }
  if (b.find("..") != std::string_view::npos) {
    return InvalidInput("S3 bucket name '{}' must not contain '..'", b);
  }
  return {};
}

bool IsTransientStatus(long status) { return status >= 500 && status != 501; }

}  // namespace floe::io::s3
