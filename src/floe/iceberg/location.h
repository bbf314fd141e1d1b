// Location: an absolute location as Iceberg metadata records it, split into the root of the store
// that holds it ("file:///", "s3://bucket", "mem://name") and the path below that root, and
// spelled one way, so that the forms different engines write -- "file:/x" (Hadoop), "file:///x",
// "/x"; "s3a://b/k" and "s3://b/k" -- compare equal. The path is kept as written: a ".." or empty
// segment stays in it, and the store refuses it as a key, so no location escapes its root.
#pragma once

#include <string>
#include <string_view>

#include "floe/base/result.h"

namespace floe::iceberg {

struct Location {
  std::string root;  // a store URI: "file:///", "s3://bucket", "mem://name"
  std::string path;  // below the root, no leading or trailing '/'; empty for the root itself

  // "file:/x", "file:///x", "file://localhost/x", "/x", "s3://b/k", "s3a://b/k", "s3n://b/k",
  // "mem://n/k". A relative path or another scheme is an invalid-input error naming it.
  static Result<Location> Parse(std::string_view text);

  // The one spelling: "file:///x", "s3://b/k", "mem://n/k".
  std::string ToString() const;
  // True when `other` lies strictly below this location ("s3://b/t" holds "s3://b/t/x", not
  // "s3://b/t2").
  bool Contains(const Location& other) const;

  friend bool operator==(const Location&, const Location&) = default;
};

// Location::Parse(text)->ToString(); `text` itself when it does not parse.
std::string CanonicalLocation(std::string_view text);

}  // namespace floe::iceberg
