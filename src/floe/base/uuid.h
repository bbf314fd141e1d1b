// UUIDs in their two forms: the 16 bytes Iceberg stores (big-endian, RFC 4122 order) and the
// 36-character text "8-4-4-4-12" of hex digits people write. Pure functions, thread safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace floe {

// "f79c3e09-677c-4bbd-a479-3f349cb785e7" (either case) -> its 16 bytes; nullopt when malformed.
std::optional<std::string> ParseUuid(std::string_view text);
// 16 bytes -> lower-case text.
std::string FormatUuid(std::string_view bytes);

}  // namespace floe
