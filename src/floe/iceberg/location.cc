#include "floe/iceberg/location.h"

#include <cctype>

namespace floe::iceberg {
namespace {

std::string_view TrimSlashes(std::string_view s) {
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<Location> Location::Parse(std::string_view text) {
  if (text.empty()) return InvalidInput("empty location");
  if (text.find('\0') != std::string_view::npos) {
    return InvalidInput("location '{}' contains a NUL byte", text);
  }
  if (text.front() == '/') return Location{"file:///", std::string(TrimSlashes(text))};
  const size_t colon = text.find(':');
  const std::string scheme = colon == std::string_view::npos ? "" : Lower(text.substr(0, colon));
  if (scheme == "file") {
    std::string_view rest = text.substr(colon + 1);
    // "file:/x" (Hadoop's spelling), "file:///x", "file://localhost/x": one local file.
    if (rest.starts_with("//")) {
      rest.remove_prefix(2);
      if (rest.starts_with("localhost/")) rest.remove_prefix(9);
    }
    if (!rest.starts_with('/')) {
      return InvalidInput(
          "location '{}' names a host or is not absolute (expected file:/path or file:///path)",
          text);
    }
    return Location{"file:///", std::string(TrimSlashes(rest))};
  }
  const bool s3 = scheme == "s3" || scheme == "s3a" || scheme == "s3n";
  if ((s3 || scheme == "mem") && text.substr(colon).starts_with("://")) {
    std::string_view rest = text.substr(colon + 3);
    const size_t slash = rest.find('/');
    std::string_view bucket = rest.substr(0, slash);
    if (bucket.empty()) {
      return InvalidInput("location '{}' has no {}", text, s3 ? "bucket" : "store name");
    }
    std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    return Location{(s3 ? "s3://" : "mem://") + std::string(bucket),
                    std::string(TrimSlashes(path))};
  }
  if (s3 || scheme == "mem") {
    return InvalidInput("location '{}' is malformed (expected {}://{}/path)", text, scheme,
                        s3 ? "bucket" : "name");
  }
  if (scheme.empty() || colon == 0) {
    return InvalidInput("location '{}' is not absolute (expected /path, file:/path or s3://...)",
                        text);
  }
  return InvalidInput("location '{}' has scheme '{}', which floe cannot reach (file, s3, mem)",
                      text, std::string(text.substr(0, colon)));
}

std::string Location::ToString() const {
  if (path.empty()) return root;
  if (root.ends_with('/')) return root + path;
  return root + "/" + path;
}

bool Location::Contains(const Location& other) const {
  if (root != other.root || other.path.size() <= path.size()) return false;
  if (path.empty()) return true;
  return other.path.starts_with(path) && other.path[path.size()] == '/';
}

std::string CanonicalLocation(std::string_view text) {
  auto parsed = Location::Parse(text);
  return parsed ? parsed->ToString() : std::string(text);
}

}  // namespace floe::iceberg
