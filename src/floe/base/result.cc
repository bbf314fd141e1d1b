#include "floe/base/result.h"

namespace floe {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidInput:
      return "invalid input";
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kConflict:
      return "conflict";
    case ErrorKind::kIO:
      return "io error";
    case ErrorKind::kUnsupported:
      return "unsupported";
    case ErrorKind::kCorrupt:
      return "corrupt";
    case ErrorKind::kInternal:
      return "internal error";
    case ErrorKind::kCancelled:
      return "cancelled";
  }
  return "error";
}

std::string Error::ToString() const { return fmt::format("{}: {}", ErrorKindName(kind), message); }

}  // namespace floe
