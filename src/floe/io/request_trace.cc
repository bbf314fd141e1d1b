#include "floe/io/request_trace.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace floe::io {

namespace {

std::atomic<int> g_attached_traces{0};

thread_local std::string t_purpose;
thread_local std::string t_detail;

// `inner` joined under `outer`'s scope: the outer purpose stays, the inner one becomes detail.
void Nest(std::string_view purpose, std::string_view detail, std::string* out_purpose,
          std::string* out_detail) {
  if (t_purpose.empty()) {
    *out_purpose = purpose;
    *out_detail = detail;
    return;
  }
  *out_purpose = t_purpose;
  std::string d = t_detail;
  for (std::string_view part : {purpose, detail}) {
    if (part.empty()) continue;
    if (!d.empty()) d += ": ";
    d += part;
  }
  *out_detail = std::move(d);
}

}  // namespace

double RequestTrace::NowMs() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
      .count();
}

void RequestTrace::Add(TracedRequest r) {
  std::lock_guard lock(mu_);
  requests_.push_back(std::move(r));
}

std::vector<TracedRequest> RequestTrace::Requests() const {
  std::vector<TracedRequest> out;
  {
    std::lock_guard lock(mu_);
    out = requests_;
  }
  std::stable_sort(out.begin(), out.end(), [](const TracedRequest& a, const TracedRequest& b) {
    return a.start_ms < b.start_ms;
  });
  return out;
}

std::string TraceJsonLines(const std::vector<TracedRequest>& requests, int statement) {
  std::string out;
  for (const TracedRequest& r : requests) {
    nlohmann::ordered_json j;
    j["type"] = "request";
    j["statement"] = statement;
    j["kind"] = r.kind;
    j["object"] = r.object;
    if (r.kind == "GET") {
      if (r.range.kind == Range::Kind::kBounded) {
        j["offset"] = r.range.offset;
        j["length"] = r.range.length;
      } else if (r.range.kind == Range::Kind::kSuffix) {
        j["suffix"] = r.range.length;
      }
    }
    j["bytes"] = r.bytes;
    j["start_ms"] = std::round(r.start_ms * 1000) / 1000;
    j["end_ms"] = std::round(r.end_ms * 1000) / 1000;
    j["purpose"] = r.purpose;
    j["detail"] = r.detail;
    if (!r.error.empty()) j["error"] = r.error;
    out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  return out;
}

RequestPurpose::RequestPurpose(std::string_view purpose, std::string_view detail)
    : saved_purpose_(t_purpose), saved_detail_(t_detail) {
  std::string p, d;
  Nest(purpose, detail, &p, &d);
  t_purpose = std::move(p);
  t_detail = std::move(d);
}

RequestPurpose::~RequestPurpose() {
  t_purpose = std::move(saved_purpose_);
  t_detail = std::move(saved_detail_);
}

const std::string& RequestPurpose::CurrentPurpose() { return t_purpose; }
const std::string& RequestPurpose::CurrentDetail() { return t_detail; }

void RequestPurpose::Label(std::string_view purpose, std::string_view detail,
                           ReadRequest* request) {
  Nest(purpose, detail, &request->purpose, &request->detail);
}

bool TraceAttached() { return g_attached_traces.load(std::memory_order_relaxed) > 0; }

void CountAttachedTraces(int delta) {
  g_attached_traces.fetch_add(delta, std::memory_order_relaxed);
}

std::string PurposeFromName(std::string_view kind, std::string_view key) {
  const size_t slash = key.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  if (kind == "GET" || kind == "PUT") {
    if (name.ends_with(".metadata.json") || name.ends_with(".metadata.json.gz") ||
        name.ends_with(".gz.metadata.json") || name == "version-hint.text") {
      return "table metadata";
    }
    if (name.ends_with(".avro")) return name.starts_with("snap-") ? "manifest list" : "manifest";
    if (name.ends_with(".puffin")) return "deletes";
  }
  if (kind == "PUT") return "write";
  if (kind == "LIST") return "list";
  if (kind == "DELETE") return "delete";
  if (kind == "HEAD") return "length";
  return "read";
}

}  // namespace floe::io
