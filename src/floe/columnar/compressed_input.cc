#include "floe/columnar/compressed_input.h"

#include <algorithm>
#include <climits>

#include <zlib.h>
#include <zstd.h>

namespace floe::columnar {
namespace {

constexpr size_t kChunk = 1 << 20;

// Room for `more` bytes after `used`, growing geometrically so a large file is not quadratic.
void Grow(ByteVector* out, size_t used, size_t more) {
  if (out->size() < used + more) out->resize(std::max(used + more, out->size() * 2));
}

// Every gzip member back to back (`cat a.gz b.gz` is a valid .gz), as gzip -d reads them.
Result<Buffer> Gunzip(ByteView in, std::string_view name) {
  ByteVector out;
  size_t used = 0;
  z_stream s{};
  if (inflateInit2(&s, 15 + 16) != Z_OK) return Internal("{}: zlib inflateInit2 failed", name);
  size_t consumed = 0;
  int rc = Z_OK;
  while (true) {
    if (s.avail_in == 0 && consumed < in.size()) {
      const size_t n = std::min<size_t>(in.size() - consumed, UINT_MAX / 2);
      s.next_in = const_cast<Bytef*>(in.data() + consumed);
      s.avail_in = static_cast<uInt>(n);
      consumed += n;
    }
    Grow(&out, used, kChunk);
    s.next_out = out.data() + used;
    s.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - used, UINT_MAX / 2));
    const uInt before = s.avail_out;
    rc = inflate(&s, Z_NO_FLUSH);
    used += before - s.avail_out;
    if (rc == Z_STREAM_END) {
      if (s.avail_in == 0 && consumed == in.size()) break;
      if (inflateReset(&s) != Z_OK) {
        inflateEnd(&s);
        return Internal("{}: zlib inflateReset failed", name);
      }
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && s.avail_in == 0 && consumed == in.size()) {
      inflateEnd(&s);
      return InvalidInput("{}: the gzip stream is truncated", name);
    }
    if (rc == Z_BUF_ERROR) continue;
    std::string why = s.msg != nullptr ? s.msg : "error";
    inflateEnd(&s);
    return InvalidInput("{}: the gzip stream is corrupt ({})", name, why);
  }
  inflateEnd(&s);
  out.resize(used);
  return Buffer(std::move(out));
}

Result<Buffer> Unzstd(ByteView in, std::string_view name) {
  ByteVector out;
  size_t used = 0;
  ZSTD_DStream* ds = ZSTD_createDStream();
  if (ds == nullptr) return Internal("{}: ZSTD_createDStream failed", name);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t last = 0;
  while (input.pos < input.size || last != 0) {
    Grow(&out, used, kChunk);
    ZSTD_outBuffer output{out.data() + used, out.size() - used, 0};
    const size_t before_in = input.pos;
    last = ZSTD_decompressStream(ds, &output, &input);
    used += output.pos;
    if (ZSTD_isError(last)) {
      std::string why = ZSTD_getErrorName(last);
      ZSTD_freeDStream(ds);
      return InvalidInput("{}: the zstd stream is corrupt ({})", name, why);
    }
    // A frame not finished when the input is: truncated.
    if (last != 0 && input.pos == input.size && output.pos == 0 && before_in == input.pos) {
      ZSTD_freeDStream(ds);
      return InvalidInput("{}: the zstd stream is truncated", name);
    }
  }
  ZSTD_freeDStream(ds);
  out.resize(used);
  return Buffer(std::move(out));
}

}  // namespace

InputCompression DetectCompression(std::string_view b, std::string_view name) {
  if (b.size() >= 2 && b[0] == '\x1f' && b[1] == '\x8b') return InputCompression::kGzip;
  if (b.size() >= 4 && b.substr(0, 4) == std::string_view("\x28\xb5\x2f\xfd", 4))
    return InputCompression::kZstd;
  if (name.ends_with(".gz")) return InputCompression::kGzip;
  if (name.ends_with(".zst")) return InputCompression::kZstd;
  return InputCompression::kNone;
}

std::string_view WithoutCompressionSuffix(std::string_view name) {
  if (name.ends_with(".gz")) name.remove_suffix(3);
  if (name.ends_with(".zst")) name.remove_suffix(4);
  return name;
}

Result<Buffer> DecompressInput(Buffer bytes, std::string_view name) {
  switch (DetectCompression(bytes.string_view(), name)) {
    case InputCompression::kGzip:
      return Gunzip(ByteView(bytes.data(), bytes.size()), name);
    case InputCompression::kZstd:
      return Unzstd(ByteView(bytes.data(), bytes.size()), name);
    case InputCompression::kNone:
      break;
  }
  return bytes;
}

}  // namespace floe::columnar
