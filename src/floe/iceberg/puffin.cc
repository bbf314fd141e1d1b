#include "floe/iceberg/puffin.h"

#include <cstring>

#include <nlohmann/json.hpp>

#include "floe/parquet/writer.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kTrailerLength = 12;  // payload size, flags, magic

uint32_t LittleEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

bool IsMagic(const uint8_t* p) { return std::memcmp(p, kPuffinMagic, 4) == 0; }

void AppendMagic(std::string* out) { out->append(reinterpret_cast<const char*>(kPuffinMagic), 4); }

}  // namespace

Result<int64_t> PuffinFooterLength(std::span<const uint8_t> trailer, const std::string& name) {
  if (trailer.size() < kTrailerLength) {
    return Corrupt("puffin file '{}': {} bytes is too short for a footer", name, trailer.size());
  }
  const uint8_t* t = trailer.data() + trailer.size() - kTrailerLength;
  if (!IsMagic(t + 8)) return Corrupt("puffin file '{}': no PFA1 magic at its end", name);
  const uint32_t payload = LittleEndian32(t);
  return int64_t{4} + payload + kTrailerLength;
}

Result<PuffinFooter> ParsePuffinFooter(std::span<const uint8_t> tail, int64_t file_size,
                                       const std::string& name) {
  FLOE_ASSIGN_OR_RETURN(int64_t footer_length, PuffinFooterLength(tail, name));
  if (footer_length + 4 > file_size || footer_length > static_cast<int64_t>(tail.size())) {
    return Corrupt("puffin file '{}': its footer of {} bytes does not fit in {} bytes", name,
                   footer_length, std::min<int64_t>(file_size, static_cast<int64_t>(tail.size())));
  }
  const uint8_t* footer = tail.data() + tail.size() - footer_length;
  if (!IsMagic(footer)) return Corrupt("puffin file '{}': no PFA1 magic at its footer", name);
  const uint8_t flags = footer[footer_length - 8];
  if (flags & 1) {
    return Unsupported("puffin file '{}': its footer is LZ4-compressed, which floe does not read",
                       name);
  }
  const int64_t footer_start = file_size - footer_length;
  const char* payload = reinterpret_cast<const char*>(footer + 4);
  const size_t payload_size = static_cast<size_t>(footer_length - 4 - kTrailerLength);
  nlohmann::json j = nlohmann::json::parse(payload, payload + payload_size, nullptr, false);
  auto bad = [&](const std::string& what) -> std::unexpected<Error> {
    return Corrupt("puffin file '{}': footer {}", name, what);
  };
  if (j.is_discarded() || !j.is_object()) return bad("is not a JSON object");
  PuffinFooter out;
  try {
    if (auto p = j.find("properties"); p != j.end() && p->is_object()) {
      for (auto& [k, v] : p->items()) out.properties[k] = v.get<std::string>();
    }
    auto blobs = j.find("blobs");
    if (blobs == j.end() || !blobs->is_array()) return bad("has no blobs array");
    for (const nlohmann::json& b : *blobs) {
      PuffinBlob blob;
      blob.type = b.at("type").get<std::string>();
      for (const nlohmann::json& f : b.at("fields")) blob.fields.push_back(f.get<int32_t>());
      blob.snapshot_id = b.at("snapshot-id").get<int64_t>();
      blob.sequence_number = b.at("sequence-number").get<int64_t>();
      blob.offset = b.at("offset").get<int64_t>();
      blob.length = b.at("length").get<int64_t>();
      if (auto c = b.find("compression-codec"); c != b.end() && c->is_string()) {
        blob.compression_codec = c->get<std::string>();
      }
      if (auto p = b.find("properties"); p != b.end() && p->is_object()) {
        for (auto& [k, v] : p->items()) blob.properties[k] = v.get<std::string>();
      }
      if (blob.offset < 4 || blob.length < 0 || blob.offset > footer_start - blob.length) {
        return bad(fmt::format("lists a {} blob at bytes {}+{}, outside the blobs ({} to {})",
                               blob.type, blob.offset, blob.length, 4, footer_start));
      }
      out.blobs.push_back(std::move(blob));
    }
  } catch (const nlohmann::json::exception& e) {
    return bad(std::string("is malformed: ") + e.what());
  }
  return out;
}

PuffinWriter::PuffinWriter() { AppendMagic(&out_); }

PuffinBlob PuffinWriter::Add(std::string type, std::vector<int32_t> fields,
                             std::span<const uint8_t> bytes,
                             std::map<std::string, std::string> properties) {
  PuffinBlob b;
  b.type = std::move(type);
  b.fields = std::move(fields);
  b.offset = static_cast<int64_t>(out_.size());
  b.length = static_cast<int64_t>(bytes.size());
  b.properties = std::move(properties);
  out_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  blobs_.push_back(b);
  return b;
}

std::string PuffinWriter::Finish(const std::map<std::string, std::string>& properties) {
  nlohmann::json blobs = nlohmann::json::array();
  for (const PuffinBlob& b : blobs_) {
    nlohmann::json j = {{"type", b.type},
                        {"fields", b.fields},
                        {"snapshot-id", b.snapshot_id},
                        {"sequence-number", b.sequence_number},
                        {"offset", b.offset},
                        {"length", b.length}};
    if (b.compression_codec) j["compression-codec"] = *b.compression_codec;
    if (!b.properties.empty()) j["properties"] = b.properties;
    blobs.push_back(std::move(j));
  }
  nlohmann::json props = properties;
  if (!props.contains("created-by")) props["created-by"] = parquet::DefaultCreatedBy();
  const std::string payload = nlohmann::json{{"blobs", blobs}, {"properties", props}}.dump();
  std::string out = std::move(out_);
  AppendMagic(&out);
  out += payload;
  const auto size = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  out.append(4, '\0');  // flags: the payload is not compressed
  AppendMagic(&out);
  out_.clear();
  AppendMagic(&out_);
  blobs_.clear();
  return out;
}

}  // namespace floe::iceberg
