#include "floe/base/uuid.h"

#include <fmt/format.h>

namespace floe {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> ParseUuid(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    int hi = HexDigit(text[i]), lo = HexDigit(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string FormatUuid(std::string_view b) {
  std::string hex;
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex.push_back('-');
    hex += fmt::format("{:02x}", static_cast<unsigned char>(b[i]));
  }
  return hex;
}

}  // namespace floe
