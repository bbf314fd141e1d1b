// Puffin: Iceberg's file of blobs (deletion vectors, statistics sketches). Layout, from the spec:
//   Magic Blob1 ... BlobN Footer,  Footer = Magic FooterPayload PayloadSize Flags Magic
// with Magic "PFA1" (50 46 41 31), FooterPayload the JSON {"blobs": [{type, fields, snapshot-id,
// sequence-number, offset, length, compression-codec?, properties?}], "properties"?}, PayloadSize a
// 4-byte little-endian length and Flags 4 bytes (byte 0 bit 0: the payload is LZ4-compressed).
// Bytes in, bytes out; IO lives with the caller.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "floe/base/result.h"

namespace floe::iceberg {

inline constexpr uint8_t kPuffinMagic[4] = {0x50, 0x46, 0x41, 0x31};  // "PFA1"

struct PuffinBlob {
  std::string type;             // "deletion-vector-v1", "apache-datasketches-theta-v1", ...
  std::vector<int32_t> fields;  // field ids the blob was computed from
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  int64_t offset = 0;  // from the start of the file
  int64_t length = 0;
  std::optional<std::string> compression_codec;  // none: stored as is
  std::map<std::string, std::string> properties;
};

struct PuffinFooter {
  std::vector<PuffinBlob> blobs;
  std::map<std::string, std::string> properties;
};

// The length of the footer of a Puffin file whose last 12 bytes are `trailer` (payload size, flags,
// magic), including its own leading magic: read that many bytes from the end, then ParseFooter.
Result<int64_t> PuffinFooterLength(std::span<const uint8_t> trailer, const std::string& name);

// The footer from the last `tail.size()` bytes of a file of `file_size` bytes (at least the
// footer). Blob ranges are checked to lie within the file, before the footer. `name` is for errors.
Result<PuffinFooter> ParsePuffinFooter(std::span<const uint8_t> tail, int64_t file_size,
                                       const std::string& name);

// Builds a Puffin file blob by blob.
class PuffinWriter {
 public:
  PuffinWriter();
  // Appends `bytes` (stored uncompressed); returns the blob as the footer lists it.
  PuffinBlob Add(std::string type, std::vector<int32_t> fields, std::span<const uint8_t> bytes,
                 std::map<std::string, std::string> properties = {});
  // The file's bytes, footer included (created-by in the footer's properties).
  std::string Finish(const std::map<std::string, std::string>& properties = {});

 private:
  std::string out_;
  std::vector<PuffinBlob> blobs_;
};

}  // namespace floe::iceberg
