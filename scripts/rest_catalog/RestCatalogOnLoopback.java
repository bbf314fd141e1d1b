// Serves Iceberg's reference REST catalog (iceberg-core's RESTCatalogAdapter over a JdbcCatalog)
// on 127.0.0.1 only: RESTCatalogServer binds every interface, and floe's tests listen on loopback.
// Usage: java -cp "JARS/*:DIR" org.apache.iceberg.rest.RestCatalogOnLoopback PORT WAREHOUSE JDBC_URI
// The backing JdbcCatalog is named "rest" and uses the V1 schema (the one pyiceberg's SqlCatalog and
// floe's own SQLite catalog share).
//
// With FLOE_REST_S3_ENDPOINT, FLOE_REST_S3_ACCESS_KEY and FLOE_REST_S3_SECRET_KEY in the
// environment (never on the command line, where process lists show them), WAREHOUSE is an s3://
// location the catalog reaches with Iceberg's S3FileIO, and the catalog vends its keys with every
// table it loads: Iceberg's own RESTServerCatalogAdapter with include-credentials (the fixture's
// access delegation), which is why this class lives in that adapter's package.
package org.apache.iceberg.rest;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public final class RestCatalogOnLoopback {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: RestCatalogOnLoopback PORT WAREHOUSE JDBC_URI");
      System.exit(2);
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
    props.put(CatalogProperties.WAREHOUSE_LOCATION, args[1]);
    props.put(CatalogProperties.URI, args[2]);
    props.put("jdbc.schema-version", "V1");
    String endpoint = System.getenv("FLOE_REST_S3_ENDPOINT");
    boolean vending = endpoint != null && !endpoint.isEmpty();
    if (vending) {
      props.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
      props.put("s3.endpoint", endpoint);
      props.put("s3.path-style-access", "true");
      props.put("s3.access-key-id", System.getenv("FLOE_REST_S3_ACCESS_KEY"));
      props.put("s3.secret-access-key", System.getenv("FLOE_REST_S3_SECRET_KEY"));
      props.put("client.region", "us-east-1");
      props.put("include-credentials", "true");
    }
    Catalog catalog = CatalogUtil.buildIcebergCatalog("rest", props, new Configuration());
    RESTCatalogAdapter adapter =
        vending
            ? new RESTServerCatalogAdapter(new RESTCatalogServer.CatalogContext(catalog, props))
            : new RESTCatalogAdapter(catalog);

    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(Integer.parseInt(args[0]));
    server.addConnector(connector);
    server.setHandler(context);
    server.start();
    server.join();
  }
}
