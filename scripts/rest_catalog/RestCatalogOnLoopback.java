// Serves Iceberg's reference REST catalog (iceberg-core's RESTCatalogAdapter over a JdbcCatalog)
// on 127.0.0.1 only: RESTCatalogServer binds every interface, and floe's tests listen on loopback.
// Usage: java -cp "JARS/*:DIR" RestCatalogOnLoopback PORT WAREHOUSE JDBC_URI
// The backing JdbcCatalog is named "rest" and uses the V1 schema (the one pyiceberg's SqlCatalog and
// floe's own SQLite catalog share).
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
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
    Catalog catalog = CatalogUtil.buildIcebergCatalog("rest", props, new Configuration());

    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(catalog))), "/*");
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
