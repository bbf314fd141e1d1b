#include "floe/avro/container.h"

#include <map>
#include <mutex>

#include "floe/base/random.h"

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

namespace floe::avro {
namespace {

constexpr std::string_view kMagic("Obj\x01", 4);
constexpr size_t kSyncSize = 16;
// A block may not claim to inflate past this (guards against decompression bombs).
constexpr size_t kMaxBlockBytes = size_t{1} << 30;

Result<std::string> Inflate(std::string_view in, const std::string& name) {
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Internal("zlib inflateInit2 failed");
  std::string out;
  out.resize(std::max<size_t>(in.size() * 4, 1024));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (zs.total_out == out.size()) {
      if (out.size() >= kMaxBlockBytes) {
        inflateEnd(&zs);
        return Corrupt("avro file '{}': deflate block inflates past 1 GiB", name);
      }
      out.resize(out.size() * 2);
    }
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
    zs.avail_out = static_cast<uInt>(out.size() - zs.total_out);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // truncated input
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) break;
  }
  size_t n = zs.total_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return Corrupt("avro file '{}': bad deflate block", name);
  out.resize(n);
  return out;
}

std::string Deflate(std::string_view in) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::string out;
  out.resize(deflateBound(&zs, in.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// The schemas of the headers read so far, by their JSON text: the manifests of a table repeat
// one schema (a few kB of JSON, the costliest part of opening a small file), and a schema is
// immutable, so one parse serves them all. A pure memo: bounded, it forgets everything when full.
class SchemaMemo {
 public:
  static SchemaMemo& Default() {
    static SchemaMemo* memo = new SchemaMemo();  // never destroyed: used until exit
    return *memo;
  }

  Result<SchemaPtr> Parse(std::string_view json_text) {
    {
      std::lock_guard lock(mu_);
      if (auto it = schemas_.find(json_text); it != schemas_.end()) return it->second;
    }
    FLOE_ASSIGN_OR_RETURN(SchemaPtr schema, ParseSchema(json_text));
    std::lock_guard lock(mu_);
    if (bytes_ + json_text.size() > kMaxBytes) {
      schemas_.clear();
      bytes_ = 0;
    }
    bytes_ += json_text.size();
    schemas_.emplace(std::string(json_text), schema);
    return schema;
  }

 private:
  static constexpr size_t kMaxBytes = size_t{4} << 20;
  std::mutex mu_;
  std::map<std::string, SchemaPtr, std::less<>> schemas_;
  size_t bytes_ = 0;
};

}  // namespace

std::string_view CodecName(Codec c) {
  switch (c) {
    case Codec::kNull:
      return "null";
    case Codec::kDeflate:
      return "deflate";
    case Codec::kSnappy:
      return "snappy";
    case Codec::kZstandard:
      return "zstandard";
  }
  return "null";
}

Result<ContainerReader> ContainerReader::Open(Buffer file, std::string name) {
  ContainerReader r;
  r.file_ = std::move(file);
  r.name_ = std::move(name);
  std::string_view bytes = r.file_.string_view();
  if (bytes.size() < kMagic.size() || bytes.substr(0, 4) != kMagic) {
    return Corrupt("'{}' is not an avro file (bad magic)", r.name_);
  }
  Decoder in(r.file_.view().subspan(4));
  std::string schema_json;
  std::string codec = "null";
  // The metadata map, in blocks like any Avro map.
  for (;;) {
    auto count = in.ReadLong();
    if (!count) return Corrupt("avro file '{}': bad header: {}", r.name_, count.error().message);
    if (*count == 0) break;
    int64_t n = *count;
    if (n < 0) {
      n = -n;
      if (!in.ReadLong()) return Corrupt("avro file '{}': bad header block size", r.name_);
    }
    if (n > static_cast<int64_t>(in.remaining())) {
      return Corrupt("avro file '{}': header claims {} entries", r.name_, n);
    }
    for (int64_t i = 0; i < n; ++i) {
      auto k = in.ReadBytes();
      if (!k) return Corrupt("avro file '{}': bad header key", r.name_);
      auto v = in.ReadBytes();
      if (!v) return Corrupt("avro file '{}': bad header value for '{}'", r.name_, *k);
      if (*k == "avro.schema") schema_json = std::string(*v);
      if (*k == "avro.codec") codec = std::string(*v);
      r.metadata_.emplace_back(std::string(*k), std::string(*v));
    }
  }
  auto sync = in.ReadFixed(kSyncSize);
  if (!sync) return Corrupt("avro file '{}': truncated header (no sync marker)", r.name_);
  r.sync_ = std::string(*sync);
  r.data_start_ = 4 + in.position();
  if (schema_json.empty()) return Corrupt("avro file '{}': no avro.schema in header", r.name_);
  auto schema = SchemaMemo::Default().Parse(schema_json);
  if (!schema) return Corrupt("avro file '{}': {}", r.name_, schema.error().message);
  r.schema_ = std::move(*schema);
  if (codec == "null") {
    r.codec_ = Codec::kNull;
  } else if (codec == "deflate") {
    r.codec_ = Codec::kDeflate;
  } else if (codec == "snappy") {
    r.codec_ = Codec::kSnappy;
  } else if (codec == "zstandard") {
    r.codec_ = Codec::kZstandard;
  } else {
    return Unsupported("avro file '{}': codec '{}'", r.name_, codec);
  }
  return r;
}

std::optional<std::string> ContainerReader::Meta(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Result<std::string> ContainerReader::DecompressBlock(std::string_view block, int64_t index) const {
  switch (codec_) {
    case Codec::kNull:
      return std::string(block);
    case Codec::kDeflate:
      return Inflate(block, name_);
    case Codec::kSnappy: {
      if (block.size() < 4)
        return Corrupt("avro file '{}': block {} too short for snappy", name_, index);
      std::string_view body = block.substr(0, block.size() - 4);
      size_t n = 0;
      if (snappy_uncompressed_length(body.data(), body.size(), &n) != SNAPPY_OK ||
          n > kMaxBlockBytes) {
        return Corrupt("avro file '{}': bad snappy block {}", name_, index);
      }
      std::string out(n, '\0');
      if (snappy_uncompress(body.data(), body.size(), out.data(), &n) != SNAPPY_OK) {
        return Corrupt("avro file '{}': bad snappy block {}", name_, index);
      }
      out.resize(n);
      auto* tail = reinterpret_cast<const uint8_t*>(block.data() + block.size() - 4);
      uint32_t want = (uint32_t{tail[0]} << 24) | (uint32_t{tail[1]} << 16) |
                      (uint32_t{tail[2]} << 8) | tail[3];
      uint32_t got = static_cast<uint32_t>(
          crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
      if (want != got)
        return Corrupt("avro file '{}': snappy block {} fails its CRC", name_, index);
      return out;
    }
    case Codec::kZstandard: {
      std::string out;
      ZSTD_DStream* ds = ZSTD_createDStream();
      ZSTD_inBuffer zin{block.data(), block.size(), 0};
      std::string chunk(ZSTD_DStreamOutSize(), '\0');
      size_t rc = 1;
      while (zin.pos < zin.size || rc != 0) {
        ZSTD_outBuffer zout{chunk.data(), chunk.size(), 0};
        rc = ZSTD_decompressStream(ds, &zout, &zin);
        if (ZSTD_isError(rc) || out.size() + zout.pos > kMaxBlockBytes ||
            (zout.pos == 0 && zin.pos == zin.size && rc != 0)) {
          ZSTD_freeDStream(ds);
          return Corrupt("avro file '{}': bad zstandard block {}", name_, index);
        }
        out.append(chunk.data(), zout.pos);
      }
      ZSTD_freeDStream(ds);
      return out;
    }
  }
  return Internal("bad codec");
}

Status ContainerReader::VisitBlocks(const std::function<Status(Block&&, int64_t)>& fn) const {
  Decoder in(file_.view().subspan(data_start_));
  int64_t index = 0;
  while (in.remaining() > 0) {
    auto count = in.ReadLong();
    auto size = count ? in.ReadLong() : Result<int64_t>(0);
    if (!count || !size || *count < 0 || *size < 0 ||
        static_cast<uint64_t>(*size) > in.remaining()) {
      return Corrupt("avro file '{}': bad header of block {}", name_, index);
    }
    auto raw = in.ReadFixed(static_cast<size_t>(*size));
    auto sync = raw ? in.ReadFixed(kSyncSize) : Result<std::string_view>(std::string_view());
    if (!raw || !sync || *sync != sync_) {
      return Corrupt("avro file '{}': block {} is not followed by the sync marker", name_, index);
    }
    FLOE_ASSIGN_OR_RETURN(std::string data, DecompressBlock(*raw, index));
    if (static_cast<uint64_t>(*count) > data.size() + 1 && schema_->type != Type::kNull) {
      return Corrupt("avro file '{}': block {} claims {} values in {} bytes", name_, index, *count,
                     data.size());
    }
    FLOE_RETURN_IF_ERROR(fn(Block{std::move(data), *count}, index));
    ++index;
  }
  return {};
}

Result<std::vector<ContainerReader::Block>> ContainerReader::ReadBlocks() const {
  std::vector<Block> blocks;
  FLOE_RETURN_IF_ERROR(VisitBlocks([&](Block&& b, int64_t) -> Status {
    blocks.push_back(std::move(b));
    return {};
  }));
  return blocks;
}

Result<std::vector<Value>> ContainerReader::ReadAll() {
  std::vector<Value> values;
  FLOE_RETURN_IF_ERROR(VisitBlocks([&](Block&& b, int64_t index) -> Status {
    Decoder block(AsBytes(b.data));
    for (int64_t i = 0; i < b.count; ++i) {
      auto v = DecodeValue(*schema_, block);
      if (!v) {
        return Corrupt("avro file '{}': value {} of block {}: {}", name_, i, index,
                       v.error().message);
      }
      values.push_back(std::move(*v));
    }
    if (block.remaining() != 0) {
      return Corrupt("avro file '{}': block {} has {} bytes after its values", name_, index,
                     block.remaining());
    }
    return {};
  }));
  return values;
}

ContainerWriter::ContainerWriter(SchemaPtr schema,
                                 std::vector<std::pair<std::string, std::string>> metadata,
                                 Codec codec, size_t block_bytes)
    : schema_(std::move(schema)), codec_(codec), block_bytes_(block_bytes) {
  for (size_t i = 0; i < kSyncSize; ++i) sync_.push_back(static_cast<char>(RandomU64()));
  Encoder header;
  header.WriteFixed(kMagic);
  metadata.insert(metadata.begin(), {"avro.codec", std::string(CodecName(codec_))});
  metadata.insert(metadata.begin(), {"avro.schema", schema_->ToJson().dump()});
  header.WriteLong(static_cast<int64_t>(metadata.size()));
  for (const auto& [k, v] : metadata) {
    header.WriteBytes(k);
    header.WriteBytes(v);
  }
  header.WriteLong(0);
  header.WriteFixed(sync_);
  out_ = std::move(header.bytes());
}

Status ContainerWriter::Append(const Value& value) {
  FLOE_RETURN_IF_ERROR(EncodeValue(*schema_, value, block_));
  ++block_count_;
  ++total_;
  if (block_.size() >= block_bytes_) return FlushBlock();
  return {};
}

Status ContainerWriter::FlushBlock() {
  if (block_count_ == 0) return {};
  std::string data = codec_ == Codec::kDeflate ? Deflate(block_.bytes()) : block_.bytes();
  if (codec_ != Codec::kNull && codec_ != Codec::kDeflate) {
    return Unsupported("writing avro codec {}", CodecName(codec_));
  }
  Encoder head;
  head.WriteLong(block_count_);
  head.WriteLong(static_cast<int64_t>(data.size()));
  out_ += head.bytes();
  out_ += data;
  out_ += sync_;
  block_.clear();
  block_count_ = 0;
  return {};
}

Result<std::string> ContainerWriter::Finish() {
  FLOE_RETURN_IF_ERROR(FlushBlock());
  return std::move(out_);
}

}  // namespace floe::avro
