#include "floe/catalog/rest_catalog.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "floe/base/buffer.h"
#include "floe/base/random.h"

namespace floe::catalog {

// One request of the protocol: what it does (for messages), its method and path below
// <uri>/v1/, its body, and whether it changes the catalog (sent with an idempotency key, never
// re-sent blindly).
struct RestCatalog::Call {
  std::string what;  // "load table 'db.t'"
  std::string method = "GET";
  std::string path;  // "namespaces/db/tables/t", query included
  std::string body;  // JSON, or a form for the token exchange
  bool changes = false;
  bool form = false;      // body is application/x-www-form-urlencoded
  bool delegate = false;  // asks for storage credentials (X-Iceberg-Access-Delegation)
  std::string url;        // absolute; overrides path (the token endpoint)
};

namespace {

// RFC 3986 percent-encoding of everything but the unreserved characters.
std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::vector<std::string> Levels(std::string_view ns) {
  std::vector<std::string> levels;
  size_t start = 0;
  while (true) {
    size_t dot = ns.find('.', start);
    levels.emplace_back(
        ns.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return levels;
}

std::string JoinLevels(const nlohmann::json& levels) {
  std::string s;
  for (const auto& l : levels) {
    if (!s.empty()) s += ".";
    s += l.is_string() ? l.get<std::string>() : l.dump();
  }
  return s;
}

nlohmann::json IdentifierJson(const TableIdentifier& id) {
  return {{"namespace", id.ns}, {"name", id.name}};
}

// A version-7 UUID (the spec's form for Idempotency-Key): 48 bits of Unix milliseconds, then
// random bits.
std::string NewIdempotencyKey() {
  const auto ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::system_clock::now().time_since_epoch())
                                            .count());
  const uint64_t r1 = RandomU64(), r2 = RandomU64();
  const uint64_t hi = (ms << 16) | 0x7000 | (r1 & 0x0FFF);
  const uint64_t lo = (r2 & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull);
}

// The error a failed response carries: the service's ErrorModel message and type where it sent
// one, the status otherwise; never a header, so never a token.
Error FailureOf(const std::string& catalog_uri, const std::string& what,
                const io::HttpResponse& r) {
  if (r.TransportFailed()) {
    return Error{
        ErrorKind::kIO,
        fmt::format("REST catalog {}: {} failed: {}", catalog_uri, what, r.transport_error),
        r.transport_transient};
  }
  std::string detail;
  auto body = nlohmann::json::parse(r.BodyText(), nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    const auto& e = body["error"];
    std::string type = e.value("type", "");
    std::string message = e.value("message", "");
    detail = type.empty() ? message : fmt::format("{}: {}", type, message);
  } else if (!r.body.empty() && r.body.size() < 200) {
    detail = std::string(r.BodyText());
  }
  std::string text = fmt::format("REST catalog {}: {}: HTTP {}{}{}", catalog_uri, what, r.status,
                                 detail.empty() ? "" : " ", detail);
  switch (r.status) {
    case 400:
    case 422:
      return Error{ErrorKind::kInvalidInput, text};
    case 404:
      return Error{ErrorKind::kNotFound, text};
    case 409:
      return Error{ErrorKind::kConflict, text};
    case 406:
    case 501:
      return Error{ErrorKind::kUnsupported, text};
    default:
      return Error{ErrorKind::kIO, text, r.status == 503 || r.status == 429};
  }
}

bool IsStorageProperty(const std::string& key) {
  return key.starts_with("s3.") || key == "client.region";
}

std::string EnvOr(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

}  // namespace

std::vector<StorageCredential> VendedCredentials(const nlohmann::json& body) {
  std::vector<StorageCredential> out;
  if (!body.is_object()) return out;
  if (auto it = body.find("storage-credentials"); it != body.end() && it->is_array()) {
    for (const auto& c : *it) {
      if (!c.is_object() || !c.contains("prefix") || !c["prefix"].is_string()) continue;
      StorageCredential cred{c["prefix"].get<std::string>(), {}};
      if (auto cfg = c.find("config"); cfg != c.end() && cfg->is_object()) {
        for (auto kv = cfg->begin(); kv != cfg->end(); ++kv) {
          if (kv.value().is_string()) cred.config[kv.key()] = kv.value().get<std::string>();
        }
      }
      out.push_back(std::move(cred));
    }
  }
  std::map<std::string, std::string> config;
  if (auto it = body.find("config"); it != body.end() && it->is_object()) {
    for (auto kv = it->begin(); kv != it->end(); ++kv) {
      if (kv.value().is_string() && IsStorageProperty(kv.key())) {
        config[kv.key()] = kv.value().get<std::string>();
      }
    }
  }
  if (config.empty()) return out;
  // The table's config reaches the table's objects: those under its location, and under the
  // data and metadata paths its properties may set elsewhere.
  const auto metadata = body.find("metadata");
  if (metadata == body.end() || !metadata->is_object()) return out;
  std::vector<std::string> prefixes;
  if (auto l = metadata->find("location"); l != metadata->end() && l->is_string()) {
    prefixes.push_back(l->get<std::string>());
  }
  if (auto props = metadata->find("properties"); props != metadata->end() && props->is_object()) {
    for (const char* key : {"write.data.path", "write.metadata.path"}) {
      if (auto p = props->find(key); p != props->end() && p->is_string()) {
        prefixes.push_back(p->get<std::string>());
      }
    }
  }
  for (auto& p : prefixes) out.push_back(StorageCredential{std::move(p), config});
  return out;
}

Result<RestCatalogOptions> ParseRestCatalogUri(std::string_view text) {
  std::string_view rest = text;
  if (rest.starts_with("rest:")) rest.remove_prefix(5);
  if (!rest.starts_with("http://") && !rest.starts_with("https://")) {
    return InvalidInput("catalog '{}': expected rest:http://HOST:PORT[/PATH][?warehouse=W]", text);
  }
  RestCatalogOptions o;
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  while (rest.ends_with('/')) rest.remove_suffix(1);
  if (rest.ends_with(':')) {
    return InvalidInput("catalog '{}' names no host", text);
  }
  o.uri = std::string(rest);
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    std::string_view key = pair.substr(0, eq);
    std::string value(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    if (key == "warehouse") {
      o.warehouse = value;
    } else if (key == "scope") {
      o.scope = value;
    } else if (key == "oauth2-server-uri") {
      o.oauth2_server_uri = value;
    } else if (key == "access-delegation") {
      if (value != "vended-credentials" && value != "none") {
        return InvalidInput(
            "catalog '{}': access-delegation '{}': floe takes vended-credentials or none", o.uri,
            value);
      }
      o.access_delegation = value == "none" ? "" : value;
    } else if (key == "credential" || key == "token") {
      return InvalidInput(
          "catalog '{}': a {} does not belong in a URI (it would show in logs and process "
          "lists); set FLOE_REST_{} instead",
          o.uri, key, key == "token" ? "TOKEN" : "CREDENTIAL");
    } else {
      return InvalidInput(
          "catalog '{}': unknown parameter '{}' (known: warehouse, scope, oauth2-server-uri, "
          "access-delegation)",
          o.uri, key);
    }
  }
  o.credential = EnvOr("FLOE_REST_CREDENTIAL");
  o.token = EnvOr("FLOE_REST_TOKEN");
  return o;
}

RestCatalog::RestCatalog(RestCatalogOptions options) : options_(std::move(options)) {
  io::HttpClientOptions h;
  h.max_connections = 8;
  h.request_timeout_ms = options_.request_timeout_ms;
  h.max_attempts = 3;
  h.retry_budget_ms = 10000;
  h.log_name = "rest";
  http_ = std::make_unique<io::HttpClient>(h);
  token_ = options_.token;
}

RestCatalog::~RestCatalog() = default;

Result<std::shared_ptr<RestCatalog>> RestCatalog::Open(RestCatalogOptions options) {
  if (!options.uri.starts_with("http://") && !options.uri.starts_with("https://")) {
    return InvalidInput("REST catalog URI '{}' is not http:// or https://", options.uri);
  }
  auto catalog = std::shared_ptr<RestCatalog>(new RestCatalog(std::move(options)));
  if (catalog->token_.empty() && !catalog->options_.credential.empty()) {
    FLOE_RETURN_IF_ERROR(catalog->SignIn());
  }
  FLOE_RETURN_IF_ERROR(catalog->ReadConfig());
  return catalog;
}

Status RestCatalog::SignIn() {
  std::string id, secret = options_.credential;
  if (auto colon = secret.find(':'); colon != std::string::npos) {
    id = secret.substr(0, colon);
    secret = secret.substr(colon + 1);
  }
  Call c;
  c.what = "sign in (OAuth2 client credentials)";
  c.method = "POST";
  c.url = options_.oauth2_server_uri.empty() ? options_.uri + "/v1/oauth/tokens"
                                             : options_.oauth2_server_uri;
  c.form = true;
  c.body = "grant_type=client_credentials";
  if (!id.empty()) c.body += "&client_id=" + UrlEncode(id);
  c.body += "&client_secret=" + UrlEncode(secret);
  if (!options_.scope.empty()) c.body += "&scope=" + UrlEncode(options_.scope);
  io::HttpRequest req;
  req.method = c.method;
  req.url = c.url;
  req.headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
  req.body = AsBytes(c.body);
  req.label = "POST token";
  FLOE_ASSIGN_OR_RETURN(io::HttpResponse r, http_->Execute(std::move(req)));
  if (r.TransportFailed() || r.status != 200) {
    Error e = FailureOf(options_.uri, c.what, r);
    if (r.status == 400 || r.status == 401) e.kind = ErrorKind::kInvalidInput;
    return std::unexpected(e);
  }
  auto body = nlohmann::json::parse(r.BodyText(), nullptr, false);
  if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string()) {
    return Corrupt("REST catalog {}: {}: the response has no access_token", options_.uri, c.what);
  }
  std::lock_guard lock(token_mu_);
  token_ = body["access_token"].get<std::string>();
  return {};
}

Status RestCatalog::ReadConfig() {
  Call c;
  c.what = "read the configuration (GET /v1/config)";
  c.path = "config";
  if (!options_.warehouse.empty()) c.path += "?warehouse=" + UrlEncode(options_.warehouse);
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  if (!body.is_object()) {
    return Corrupt("REST catalog {}: {}: the response is not a JSON object", options_.uri, c.what);
  }
  for (const char* part : {"defaults", "overrides"}) {
    if (!body.contains(part) || !body[part].is_object()) continue;
    for (auto it = body[part].begin(); it != body[part].end(); ++it) {
      if (it.value().is_string()) config_[it.key()] = it.value().get<std::string>();
    }
  }
  if (auto it = config_.find("prefix"); it != config_.end() && !it->second.empty()) {
    prefix_ = it->second + "/";
  }
  if (auto it = config_.find("namespace-separator"); it != config_.end() && !it->second.empty()) {
    separator_ = it->second;
  }
  idempotency_keys_ =
      config_.contains("idempotency-key-lifetime") || (body.contains("idempotency-key-lifetime"));
  if (auto it = body.find("endpoints"); it != body.end() && it->is_array()) {
    for (const auto& e : *it) {
      if (e.is_string() &&
          e.get<std::string>() ==
              "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials") {
        credentials_route_ = true;
      }
    }
  }
  return {};
}

std::string RestCatalog::BearerHeader() {
  std::lock_guard lock(token_mu_);
  return token_.empty() ? "" : "Authorization: Bearer " + token_;
}

Result<io::HttpResponse> RestCatalog::Send(const Call& call) {
  const std::string key = call.changes && idempotency_keys_ ? NewIdempotencyKey() : "";
  for (int attempt = 0;; ++attempt) {
    io::HttpRequest req;
    req.method = call.method;
    req.url =
        call.url.empty()
            ? fmt::format("{}/v1/{}{}", options_.uri,
                          call.path == "config" || call.path.starts_with("config?") ? "" : prefix_,
                          call.path)
            : call.url;
    req.headers.emplace_back("Accept: application/json");
    req.headers.emplace_back("X-Client-Version: floe " FLOE_VERSION);
    if (!call.body.empty()) req.headers.emplace_back("Content-Type: application/json");
    if (!key.empty()) req.headers.push_back("Idempotency-Key: " + key);
    if (call.delegate && !options_.access_delegation.empty()) {
      req.headers.push_back("X-Iceberg-Access-Delegation: " + options_.access_delegation);
    }
    if (std::string auth = BearerHeader(); !auth.empty()) req.headers.push_back(std::move(auth));
    req.body = AsBytes(call.body);
    req.label = call.method + " " + call.path;
    // A read, or a change the service deduplicates by its key, may be sent again; a change it
    // cannot deduplicate is sent once.
    req.retry_transport = !call.changes || !key.empty();
    if (req.retry_transport) {
      req.retry_if = [](const io::HttpResponse& r) { return r.status == 503 || r.status == 429; };
    }
    FLOE_ASSIGN_OR_RETURN(io::HttpResponse r, http_->Execute(std::move(req)));
    const bool expired = r.status == 401 || r.status == 419;
    if (expired && attempt == 0 && !options_.credential.empty()) {
      FLOE_RETURN_IF_ERROR(SignIn());
      continue;
    }
    return r;
  }
}

Result<nlohmann::json> RestCatalog::Exchange(const Call& call) {
  FLOE_ASSIGN_OR_RETURN(io::HttpResponse r, Send(call));
  if (r.TransportFailed() || r.status < 200 || r.status >= 300) {
    return std::unexpected(FailureOf(options_.uri, call.what, r));
  }
  if (r.body.empty()) return nlohmann::json();
  auto body = nlohmann::json::parse(r.BodyText(), nullptr, false);
  if (body.is_discarded()) {
    return Corrupt("REST catalog {}: {}: the response is not JSON", options_.uri, call.what);
  }
  return body;
}

std::string RestCatalog::NamespacePath(const std::vector<std::string>& levels) const {
  std::string s = "namespaces/";
  for (size_t i = 0; i < levels.size(); ++i) {
    if (i) s += separator_;
    s += UrlEncode(levels[i]);
  }
  return s;
}

std::string RestCatalog::TablePath(const TableIdentifier& id) const {
  return NamespacePath(id.ns) + "/tables/" + UrlEncode(id.name);
}

Result<std::vector<std::string>> RestCatalog::ListNamespaces() {
  std::vector<std::string> out;
  // Depth first from the top level: the protocol lists one level under a parent at a time.
  std::vector<std::vector<std::string>> pending = {{}};
  while (!pending.empty()) {
    std::vector<std::string> parent = std::move(pending.back());
    pending.pop_back();
    std::string token;
    do {
      Call c;
      c.what = "list namespaces";
      c.path = "namespaces";
      std::string sep = "?";
      if (!parent.empty()) {
        // The parent's levels as in a path: encoded, joined by the service's separator.
        c.path += "?parent=" + NamespacePath(parent).substr(std::string_view("namespaces/").size());
        sep = "&";
      }
      if (!token.empty()) c.path += sep + "pageToken=" + UrlEncode(token);
      FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
      if (!body.is_object() || !body.contains("namespaces") || !body["namespaces"].is_array()) {
        return Corrupt("REST catalog {}: {}: no namespaces in the response", options_.uri, c.what);
      }
      for (const auto& ns : body["namespaces"]) {
        if (!ns.is_array() || ns.size() <= parent.size()) continue;
        std::vector<std::string> levels;
        for (const auto& l : ns) levels.push_back(l.is_string() ? l.get<std::string>() : l.dump());
        out.push_back(JoinLevels(ns));
        pending.push_back(std::move(levels));
      }
      token = body.contains("next-page-token") && body["next-page-token"].is_string()
                  ? body["next-page-token"].get<std::string>()
                  : "";
    } while (!token.empty());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> RestCatalog::NamespaceExists(std::string_view ns) {
  Call c;
  c.what = fmt::format("check namespace '{}'", ns);
  c.method = "HEAD";
  c.path = NamespacePath(Levels(ns));
  FLOE_ASSIGN_OR_RETURN(io::HttpResponse r, Send(c));
  if (r.status == 404) return false;
  if (!r.TransportFailed() && r.status >= 200 && r.status < 300) return true;
  return std::unexpected(FailureOf(options_.uri, c.what, r));
}

Status RestCatalog::CreateNamespace(std::string_view ns,
                                    const std::map<std::string, std::string>& properties) {
  Call c;
  c.what = fmt::format("create namespace '{}'", ns);
  c.method = "POST";
  c.path = "namespaces";
  c.changes = true;
  nlohmann::json props = nlohmann::json::object();
  for (const auto& [k, v] : properties) props[k] = v;
  c.body = nlohmann::json{{"namespace", Levels(ns)}, {"properties", props}}.dump();
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  (void)body;
  return {};
}

Status RestCatalog::DropNamespace(std::string_view ns) {
  Call c;
  c.what = fmt::format("drop namespace '{}'", ns);
  c.method = "DELETE";
  c.path = NamespacePath(Levels(ns));
  c.changes = true;
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  (void)body;
  return {};
}

Result<std::map<std::string, std::string>> RestCatalog::NamespaceProperties(std::string_view ns) {
  Call c;
  c.what = fmt::format("load namespace '{}'", ns);
  c.path = NamespacePath(Levels(ns));
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  std::map<std::string, std::string> out;
  if (body.is_object() && body.contains("properties") && body["properties"].is_object()) {
    for (auto it = body["properties"].begin(); it != body["properties"].end(); ++it) {
      out[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    }
  }
  return out;
}

Result<std::vector<TableIdentifier>> RestCatalog::ListTables(std::string_view ns) {
  std::vector<TableIdentifier> out;
  std::string token;
  do {
    Call c;
    c.what = fmt::format("list tables of '{}'", ns);
    c.path = NamespacePath(Levels(ns)) + "/tables";
    if (!token.empty()) c.path += "?pageToken=" + UrlEncode(token);
    FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
    if (!body.is_object() || !body.contains("identifiers") || !body["identifiers"].is_array()) {
      return Corrupt("REST catalog {}: {}: no identifiers in the response", options_.uri, c.what);
    }
    for (const auto& i : body["identifiers"]) {
      if (!i.is_object() || !i.contains("name") || !i["name"].is_string()) continue;
      TableIdentifier id;
      id.name = i["name"].get<std::string>();
      if (i.contains("namespace") && i["namespace"].is_array()) {
        for (const auto& l : i["namespace"]) {
          id.ns.push_back(l.is_string() ? l.get<std::string>() : l.dump());
        }
      }
      out.push_back(std::move(id));
    }
    token = body.contains("next-page-token") && body["next-page-token"].is_string()
                ? body["next-page-token"].get<std::string>()
                : "";
  } while (!token.empty());
  std::sort(out.begin(), out.end());
  return out;
}

Result<LoadedTable> RestCatalog::LoadedTableOf(const nlohmann::json& body,
                                               const TableIdentifier& id, const std::string& what) {
  if (!body.is_object() || !body.contains("metadata-location") ||
      !body["metadata-location"].is_string() || !body.contains("metadata") ||
      !body["metadata"].is_object()) {
    return Corrupt("REST catalog: {}: the response lacks metadata-location or metadata", what);
  }
  LoadedTable t{body["metadata-location"].get<std::string>(), body["metadata"],
                VendedCredentials(body), nullptr};
  if (!t.credentials.empty()) {
    t.refresh_credentials = [weak = weak_from_this(),
                             id]() -> Result<std::vector<StorageCredential>> {
      auto self = weak.lock();
      if (!self) return Unsupported("table '{}': its REST catalog is closed", id.ToString());
      return self->LoadCredentials(id);
    };
  }
  return t;
}

Result<std::vector<StorageCredential>> RestCatalog::LoadCredentials(const TableIdentifier& id) {
  if (!credentials_route_) {
    FLOE_ASSIGN_OR_RETURN(LoadedTable t, Load(id));
    return std::move(t.credentials);
  }
  Call c;
  c.what = fmt::format("load the credentials of table '{}'", id.ToString());
  c.path = TablePath(id) + "/credentials";
  c.delegate = true;
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  return VendedCredentials(body);
}

Result<LoadedTable> RestCatalog::Load(const TableIdentifier& id) {
  Call c;
  c.what = fmt::format("load table '{}'", id.ToString());
  c.path = TablePath(id);
  c.delegate = true;
  auto body = Exchange(c);
  if (!body) {
    if (body.error().kind == ErrorKind::kNotFound) {
      return NotFound("table '{}' does not exist in REST catalog {}", id.ToString(), options_.uri);
    }
    return std::unexpected(body.error());
  }
  return LoadedTableOf(*body, id, c.what);
}

Result<std::string> RestCatalog::LoadTable(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable t, Load(id));
  return t.metadata_location;
}

Status RestCatalog::CreateTable(const TableIdentifier& id, std::string_view metadata_location) {
  Call c;
  c.what = fmt::format("register table '{}'", id.ToString());
  c.method = "POST";
  c.path = NamespacePath(id.ns) + "/register";
  c.changes = true;
  c.body = nlohmann::json{{"name", id.name}, {"metadata-location", std::string(metadata_location)}}
               .dump();
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  (void)body;
  return {};
}

Status RestCatalog::CommitTable(const TableIdentifier& id, std::string_view /*expected*/,
                                std::string_view /*next*/) {
  return Unsupported("REST catalog {} commits changes, not metadata locations (table '{}')",
                     options_.uri, id.ToString());
}

Status RestCatalog::DropTable(const TableIdentifier& id) {
  Call c;
  c.what = fmt::format("drop table '{}'", id.ToString());
  c.method = "DELETE";
  c.path = TablePath(id) + "?purgeRequested=false";
  c.changes = true;
  auto body = Exchange(c);
  if (!body && body.error().kind == ErrorKind::kNotFound) {
    return NotFound("table '{}' does not exist in REST catalog {}", id.ToString(), options_.uri);
  }
  if (!body) return std::unexpected(body.error());
  return {};
}

Status RestCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  Call c;
  c.what = fmt::format("rename table '{}' to '{}'", from.ToString(), to.ToString());
  c.method = "POST";
  c.path = "tables/rename";
  c.changes = true;
  c.body =
      nlohmann::json{{"source", IdentifierJson(from)}, {"destination", IdentifierJson(to)}}.dump();
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  (void)body;
  return {};
}

Result<LoadedTable> RestCatalog::CreateTableFromRequest(const TableIdentifier& id,
                                                        const nlohmann::json& request) {
  Call c;
  c.what = fmt::format("create table '{}'", id.ToString());
  c.method = "POST";
  c.path = NamespacePath(id.ns) + "/tables";
  c.changes = true;
  c.delegate = true;
  nlohmann::json body = request;
  body["name"] = id.name;
  c.body = body.dump();
  auto response = Exchange(c);
  if (!response && response.error().kind == ErrorKind::kConflict) {
    return Conflict("table '{}' already exists", id.ToString());
  }
  if (!response) return std::unexpected(response.error());
  return LoadedTableOf(*response, id, c.what);
}

Result<LoadedTable> RestCatalog::CommitChanges(const TableIdentifier& id,
                                               const TableChanges& changes) {
  Call c;
  c.what = fmt::format("commit to table '{}'", id.ToString());
  c.method = "POST";
  c.path = TablePath(id);
  c.changes = true;
  c.body = nlohmann::json{{"identifier", IdentifierJson(id)},
                          {"requirements", changes.requirements},
                          {"updates", changes.updates}}
               .dump();
  FLOE_ASSIGN_OR_RETURN(nlohmann::json body, Exchange(c));
  return LoadedTableOf(body, id, c.what);
}

}  // namespace floe::catalog
