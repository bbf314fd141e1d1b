// Result<T> and Error: how every module reports failure across its edges.
// An Error is a small kind plus a message that names the object (file, key, column) and the broken
// rule. No exception crosses a module boundary; values are cheap to move and safe to share
// read-only.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace floe {

enum class ErrorKind {
  kInvalidInput,  // the caller's input is wrong: a flag, URI, key, SQL text, range
  kNotFound,      // an object, table, column or file does not exist
  kConflict,      // a concurrent change won (put-if-absent lost, commit CAS failed)
  kIO,            // the store or the network failed; `transient` says whether a retry may help
  kUnsupported,   // valid input that floe does not handle (yet)
  kCorrupt,       // stored bytes break their format's rules
  kInternal,      // a bug in floe
  kCancelled,     // the user stopped it (Ctrl-C in the shell)
};

std::string_view ErrorKindName(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
  bool transient = false;  // kIO only: a retry of the same request may succeed

  // "not found: object 'a/b' in file:///tmp/w" -- the one line a user sees.
  std::string ToString() const;
};

template <typename T>
using Result = std::expected<T, Error>;

using Status = Result<void>;

inline std::unexpected<Error> MakeError(ErrorKind kind, std::string message,
                                        bool transient = false) {
  return std::unexpected<Error>(Error{kind, std::move(message), transient});
}

template <typename... Args>
std::unexpected<Error> InvalidInput(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kInvalidInput, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
std::unexpected<Error> NotFound(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kNotFound, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
std::unexpected<Error> Conflict(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kConflict, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
std::unexpected<Error> IOError(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kIO, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
std::unexpected<Error> TransientIOError(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kIO, fmt::format(f, std::forward<Args>(args)...), true);
}
template <typename... Args>
std::unexpected<Error> Unsupported(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kUnsupported, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
std::unexpected<Error> Corrupt(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kCorrupt, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
std::unexpected<Error> Internal(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorKind::kInternal, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace floe

#define FLOE_CONCAT_INNER_(a, b) a##b
#define FLOE_CONCAT_(a, b) FLOE_CONCAT_INNER_(a, b)

// Returns the error of a Result/Status expression from the enclosing function.
#define FLOE_RETURN_IF_ERROR(expr)                                              \
  do {                                                                          \
    auto&& floe_status_ = (expr);                                               \
    if (!floe_status_) return std::unexpected(std::move(floe_status_).error()); \
  } while (false)

// `tmp` is a name and `lhs` a declaration (`auto x`), so neither can be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FLOE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)         \
  auto tmp = (expr);                                        \
  if (!tmp) return std::unexpected(std::move(tmp).error()); \
  lhs = std::move(*tmp)
// NOLINTEND(bugprone-macro-parentheses)

// `FLOE_ASSIGN_OR_RETURN(auto x, Compute());` binds the value or returns the error.
#define FLOE_ASSIGN_OR_RETURN(lhs, expr) \
  FLOE_ASSIGN_OR_RETURN_IMPL_(FLOE_CONCAT_(floe_result_, __LINE__), lhs, expr)
