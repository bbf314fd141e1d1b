#include "floe/io/s3_xml_internal.h"

#include <charconv>
#include <ctime>

namespace floe::io::s3 {
namespace {

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decodes the entity body between '&' and ';' ("amp", "#34", "#x22"); false if unknown.
bool DecodeEntity(std::string_view name, std::string& out) {
  if (name == "amp") return out += '&', true;
  if (name == "lt") return out += '<', true;
  if (name == "gt") return out += '>', true;
  if (name == "quot") return out += '"', true;
  if (name == "apos") return out += '\'', true;
  if (name.size() < 2 || name[0] != '#') return false;
  int base = 10;
  std::string_view digits = name.substr(1);
  if (digits[0] == 'x' || digits[0] == 'X') {
    base = 16;
    digits.remove_prefix(1);
  }
  uint32_t cp = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, base);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
      cp > 0x10FFFF) {
    return false;
  }
  AppendUtf8(out, cp);
  return true;
}

// Finds the opening tag "<tag>" or "<tag ...>" or "<tag/>" at or after `from`. Returns the
// position just past '>' and whether the element was self-closing, or npos.
size_t FindOpen(std::string_view xml, std::string_view tag, size_t from, bool* self_closing) {
  while (true) {
    size_t lt = xml.find('<', from);
    if (lt == std::string_view::npos) return lt;
    size_t name_end = lt + 1 + tag.size();
    if (xml.compare(lt + 1, tag.size(), tag) == 0 && name_end < xml.size()) {
      char c = xml[name_end];
      if (c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        size_t gt = xml.find('>', name_end);
        if (gt == std::string_view::npos) return gt;
        *self_closing = xml[gt - 1] == '/';
        return gt + 1;
      }
    }
    from = lt + 1;
  }
}

}  // namespace

std::string XmlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '&') {
      size_t semi = text.find(';', i + 1);
      // Entities are short; a far-away ';' means this '&' is not one.
      if (semi != std::string_view::npos && semi - i <= 12 &&
          DecodeEntity(text.substr(i + 1, semi - i - 1), out)) {
        i = semi + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::optional<std::string_view> XmlFirst(std::string_view xml, std::string_view tag) {
  bool self_closing = false;
  size_t start = FindOpen(xml, tag, 0, &self_closing);
  if (start == std::string_view::npos) return std::nullopt;
  if (self_closing) return std::string_view();
  std::string close = "</" + std::string(tag) + ">";
  size_t end = xml.find(close, start);
  if (end == std::string_view::npos) return std::nullopt;
  return xml.substr(start, end - start);
}

std::vector<std::string_view> XmlAll(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> out;
  std::string close = "</" + std::string(tag) + ">";
  size_t from = 0;
  while (true) {
    bool self_closing = false;
    size_t start = FindOpen(xml, tag, from, &self_closing);
    if (start == std::string_view::npos) break;
    if (self_closing) {
      out.emplace_back();
      from = start;
      continue;
    }
    size_t end = xml.find(close, start);
    if (end == std::string_view::npos) break;
    out.push_back(xml.substr(start, end - start));
    from = end + close.size();
  }
  return out;
}

std::optional<int64_t> ParseIso8601Ms(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.fff...]Z
  auto num = [&](size_t pos, size_t len, int* out) {
    if (pos + len > t.size()) return false;
    auto [ptr, ec] = std::from_chars(t.data() + pos, t.data() + pos + len, *out);
    return ec == std::errc() && ptr == t.data() + pos + len;
  };
  int year, month, day, hour, minute, second;
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != 't') ||
      t[13] != ':' || t[16] != ':' || !num(0, 4, &year) || !num(5, 2, &month) || !num(8, 2, &day) ||
      !num(11, 2, &hour) || !num(14, 2, &minute) || !num(17, 2, &second)) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t millis = 0;
  if (t[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < t.size() && t[pos] >= '0' && t[pos] <= '9') {
      if (digits < 3) millis = millis * 10 + (t[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int d = digits; d < 3; ++d) millis *= 10;
  }
  if (pos + 1 != t.size() || (t[pos] != 'Z' && t[pos] != 'z')) return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
}

std::string UnquoteEtag(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return std::string(etag);
}

ErrorBody ParseErrorBody(std::string_view body) {
  ErrorBody out;
  auto error = XmlFirst(body, "Error");
  if (!error) return out;
  if (auto code = XmlFirst(*error, "Code")) out.code = XmlDecode(*code);
  if (auto message = XmlFirst(*error, "Message")) out.message = XmlDecode(*message);
  if (auto size = XmlFirst(*error, "ActualObjectSize")) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(size->data(), size->data() + size->size(), v);
    if (ec == std::errc() && ptr == size->data() + size->size()) out.actual_object_size = v;
  }
  return out;
}

Result<ListResult> ParseListObjectsV2(std::string_view body) {
  auto root = XmlFirst(body, "ListBucketResult");
  if (!root) {
    return Corrupt("ListObjectsV2 response has no <ListBucketResult> ({} bytes)", body.size());
  }
  ListResult out;
  for (std::string_view contents : XmlAll(*root, "Contents")) {
    ListEntry entry;
    auto key = XmlFirst(contents, "Key");
    auto size = XmlFirst(contents, "Size");
    if (!key || !size) return Corrupt("ListObjectsV2 <Contents> without <Key> or <Size>");
    entry.key = XmlDecode(*key);
    auto [ptr, ec] = std::from_chars(size->data(), size->data() + size->size(), entry.size);
    if (ec != std::errc() || ptr != size->data() + size->size()) {
      return Corrupt("ListObjectsV2 entry '{}' has a bad <Size> '{}'", entry.key, *size);
    }
    if (auto modified = XmlFirst(contents, "LastModified")) {
      auto ms = ParseIso8601Ms(*modified);
      if (!ms) {
        return Corrupt("ListObjectsV2 entry '{}' has a bad <LastModified> '{}'", entry.key,
                       *modified);
      }
      entry.mtime_ms = *ms;
    }
    if (auto etag = XmlFirst(contents, "ETag")) entry.etag = UnquoteEtag(XmlDecode(*etag));
    out.entries.push_back(std::move(entry));
  }
  // <CommonPrefixes> also holds <Prefix>, so read the top-level fields from outside <Contents>.
  auto truncated = XmlFirst(*root, "IsTruncated");
  out.truncated = truncated && *truncated == "true";
  if (out.truncated) {
    auto token = XmlFirst(*root, "NextContinuationToken");
    if (!token || token->empty()) {
      return Corrupt("ListObjectsV2 page is truncated but has no <NextContinuationToken>");
    }
    out.next_token = XmlDecode(*token);
  }
  return out;
}

}  // namespace floe::io::s3
