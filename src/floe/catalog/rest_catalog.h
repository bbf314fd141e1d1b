// RestCatalog: a client of Iceberg's REST catalog protocol (the REST OpenAPI spec): the service
// writes the metadata, floe sends each change as requirements and updates and gets the new
// metadata back. It reads the service's configuration (prefix, namespace separator) once, signs in
// with an OAuth2 client credential or a bearer token (refreshed once on a 401 or 419), and sends an
// Idempotency-Key with every change when the service supports them (a change is otherwise never
// re-sent after its body went out). Thread-safe: the HTTP client is, and the token is guarded.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/io/http_client.h"

namespace floe::catalog {

struct RestCatalogOptions {
  std::string uri;        // http(s)://host:port[/path]: the base the /v1/... routes hang from
  std::string warehouse;  // sent to GET /v1/config as ?warehouse=; empty: none
  // OAuth2 client credentials "client_id:client_secret" (or a secret alone), exchanged at
  // `oauth2_server_uri` (default <uri>/v1/oauth/tokens) for a bearer token.
  std::string credential;
  std::string token;  // a bearer token to use as is
  std::string oauth2_server_uri;
  std::string scope = "catalog";
  // Sent as X-Iceberg-Access-Delegation when loading or creating a table: "vended-credentials"
  // (as Iceberg's Java client does by default) asks the service for storage credentials; "" asks
  // for none. Remote signing is not supported.
  std::string access_delegation = "vended-credentials";
  std::string name = "rest";  // the catalog's name in messages
  int request_timeout_ms = 60000;
};

class RestCatalog final : public Catalog, public std::enable_shared_from_this<RestCatalog> {
 public:
  // Signs in (when given a credential) and reads the service's configuration: an IO error naming
  // the URI when the service does not answer, an invalid-input error for a malformed URI.
  static Result<std::shared_ptr<RestCatalog>> Open(RestCatalogOptions options);
  ~RestCatalog() override;

  std::string name() const override { return options_.name; }
  const std::string& uri() const { return options_.uri; }
  // The service's merged configuration (its defaults, then its overrides).
  const std::map<std::string, std::string>& config() const { return config_; }

  Result<std::vector<std::string>> ListNamespaces() override;
  Result<bool> NamespaceExists(std::string_view ns) override;
  Status CreateNamespace(std::string_view ns,
                         const std::map<std::string, std::string>& properties) override;
  Status DropNamespace(std::string_view ns) override;
  Result<std::map<std::string, std::string>> NamespaceProperties(std::string_view ns) override;
  Result<std::vector<TableIdentifier>> ListTables(std::string_view ns) override;
  Result<std::string> LoadTable(const TableIdentifier& id) override;
  // Registers an existing metadata file (the protocol's register route).
  Status CreateTable(const TableIdentifier& id, std::string_view metadata_location) override;
  // Unsupported: the service commits changes, not locations.
  Status CommitTable(const TableIdentifier& id, std::string_view expected,
                     std::string_view next) override;
  Status DropTable(const TableIdentifier& id) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;

  bool WritesMetadata() const override { return true; }
  Result<LoadedTable> Load(const TableIdentifier& id) override;
  Result<LoadedTable> CreateTableFromRequest(const TableIdentifier& id,
                                             const nlohmann::json& request) override;
  Result<LoadedTable> CommitChanges(const TableIdentifier& id,
                                    const TableChanges& changes) override;
  // The table's storage credentials anew: from the protocol's credentials route when the service
  // lists it among its endpoints, else by loading the table again.
  Result<std::vector<StorageCredential>> LoadCredentials(const TableIdentifier& id);

 private:
  struct Call;
  explicit RestCatalog(RestCatalogOptions options);
  Status SignIn();
  Status ReadConfig();
  // Sends a request to `path` (below <uri>/v1/) and returns the response; a 401 or 419 signs in
  // again once. Transport failures and error statuses come back as responses for the caller to
  // name.
  Result<io::HttpResponse> Send(const Call& call);
  // Sends `call` and returns its JSON body (null for an empty one), or the error the response
  // carries, named by `call.what`.
  Result<nlohmann::json> Exchange(const Call& call);
  std::string NamespacePath(const std::vector<std::string>& levels) const;
  std::string TablePath(const TableIdentifier& id) const;
  std::string BearerHeader();
  // A LoadTableResult's table and the credentials it vends, renewed through this catalog.
  Result<LoadedTable> LoadedTableOf(const nlohmann::json& body, const TableIdentifier& id,
                                    const std::string& what);

  RestCatalogOptions options_;
  std::unique_ptr<io::HttpClient> http_;
  std::map<std::string, std::string> config_;
  std::string prefix_;              // "" or "<prefix>/" from the configuration
  std::string separator_ = "%1F";   // the namespace separator in paths, URL-encoded
  bool idempotency_keys_ = false;   // the service advertised idempotency-key-lifetime
  bool credentials_route_ = false;  // the service listed GET .../tables/{table}/credentials
  std::mutex token_mu_;
  std::string token_;
};

// The storage credentials of a LoadTableResult (or a LoadCredentialsResponse): each of its
// "storage-credentials", then its "config"'s storage properties ("s3.*", "client.region") as a
// credential for the table's location (and its write.data.path / write.metadata.path), which is
// where Iceberg's Java client applies them.
std::vector<StorageCredential> VendedCredentials(const nlohmann::json& body);

// "rest:http://host:port/path?warehouse=W&scope=S&oauth2-server-uri=U&access-delegation=D" (the
// `rest:` prefix optional; D is vended-credentials, the default, or none) -> options; the secrets
// (credential, token) come from the environment, never from a URI: FLOE_REST_CREDENTIAL and
// FLOE_REST_TOKEN.
Result<RestCatalogOptions> ParseRestCatalogUri(std::string_view text);

}  // namespace floe::catalog
