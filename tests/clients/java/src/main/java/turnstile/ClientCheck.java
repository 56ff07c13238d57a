package turnstile;

import java.io.ByteArrayInputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.ConnectionEvent;
import javax.sql.ConnectionEventListener;
import javax.sql.PooledConnection;

/**
 * The JDBC program of Turnstile's client compatibility suite (contract: tests/clients/README.md).
 *
 * <p>{@code ClientCheck mysql} drives MySQL Connector/J, {@code ClientCheck mariadb} drives MariaDB
 * Connector/J, both through plain JDBC (DriverManager, jdbc:mysql: and jdbc:mariadb: URLs). Every
 * check writes one JSON line; a check that throws is a {@code fail} with the error as detail.
 */
public final class ClientCheck {

  /** Thrown by a check whose feature the driver does not have. */
  static final class NotApplicable extends RuntimeException {
    NotApplicable(String why) {
      super(why);
    }
  }

  interface Body {
    String run() throws Exception;
  }

  interface Action {
    Object run() throws Exception;
  }

  interface SqlConsumer<T> {
    void accept(T t) throws Exception;
  }

  private final boolean mysql; // true: Connector/J, false: MariaDB Connector/J
  private final String host = env("TS_HOST", "127.0.0.1");
  private final String port = env("TS_PORT", "3306");
  private final String db = env("TS_DB", "test");
  private final String nativeUser = env("TS_NATIVE_USER", "root");
  private final String nativePassword = env("TS_NATIVE_PASSWORD", "");
  private final String sha2User = env("TS_SHA2_USER", "root");
  private final String sha2Password = env("TS_SHA2_PASSWORD", "");
  private final PrintStream out;

  private ClientCheck(boolean mysql) {
    this.mysql = mysql;
    this.out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
  }

  private static String env(String key, String def) {
    String v = System.getenv(key);
    return v == null || v.isEmpty() ? def : v;
  }

  public static void main(String[] args) {
    if (args.length < 1 || args.length > 2 || !(args[0].equals("mysql") || args[0].equals("mariadb"))) {
      System.err.println("usage: ClientCheck mysql|mariadb [check]");
      System.exit(2);
    }
    if (args.length == 2) only = args[1];
    new ClientCheck(args[0].equals("mysql")).runAll();
    System.exit(0);
  }

  // ---------------------------------------------------------------- output

  private static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': b.append("\\\""); break;
        case '\\': b.append("\\\\"); break;
        case '\n': b.append("\\n"); break;
        case '\r': b.append("\\r"); break;
        case '\t': b.append("\\t"); break;
        default:
          if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
          else b.append(c);
      }
    }
    return b.append('"').toString();
  }

  private void emit(Map<String, String> obj) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, String> e : obj.entrySet()) {
      if (b.length() > 1) b.append(", ");
      b.append(json(e.getKey())).append(": ").append(json(e.getValue()));
    }
    out.println(b.append('}'));
  }

  private void verdict(String feature, String status, String detail) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("feature", feature);
    m.put("status", status);
    m.put("detail", detail);
    emit(m);
  }

  private static String describe(Throwable t) {
    StringBuilder b = new StringBuilder();
    Throwable cur = t;
    for (int depth = 0; cur != null && depth < 3; depth++, cur = cur.getCause()) {
      if (depth > 0) b.append(" <- caused by ");
      b.append(cur.getClass().getName()).append(": ").append(cur.getMessage());
      if (cur instanceof SQLException) {
        SQLException se = (SQLException) cur;
        b.append(" [SQLState ").append(se.getSQLState()).append(", error ").append(se.getErrorCode()).append("]");
      }
      if (cur.getCause() == cur) break;
    }
    return b.toString();
  }

  /** One check to run (a test of its own, tests/test_tls.py), or null for all. */
  private static String only = null;

  private void check(String feature, Body body) {
    if (only != null && !only.equals(feature)) return;
    long t0 = System.nanoTime();
    try {
      String detail = body.run();
      verdict(feature, "pass", detail);
    } catch (NotApplicable na) {
      verdict(feature, "n/a", na.getMessage());
    } catch (Throwable t) {
      System.err.println("check " + feature + " failed:");
      t.printStackTrace(System.err);
      verdict(feature, "fail", describe(t));
    } finally {
      System.err.printf("%s: %d ms%n", feature, (System.nanoTime() - t0) / 1_000_000);
    }
  }

  // ---------------------------------------------------------------- assertions

  private static String show(Object o) {
    if (o == null) return "null";
    if (o instanceof byte[]) {
      byte[] b = (byte[]) o;
      return "byte[" + b.length + "] " + hex(b, 24);
    }
    if (o instanceof String) return "\"" + o + "\"";
    return o + " (" + o.getClass().getSimpleName() + ")";
  }

  private static String hex(byte[] b, int max) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < b.length && i < max; i++) s.append(String.format("%02x", b[i] & 0xff));
    if (b.length > max) s.append("...");
    return s.toString();
  }

  private static void eq(String what, Object expected, Object actual) {
    if (!Objects.deepEquals(expected, actual)) {
      throw new AssertionError(what + ": expected " + show(expected) + ", got " + show(actual));
    }
  }

  private static void truth(String what, boolean ok) {
    if (!ok) throw new AssertionError(what);
  }

  /** Runs body, which must fail with the given MySQL error code and SQLState; returns the exception. */
  private static SQLException expectError(String what, int code, String state, Action body) throws Exception {
    try {
      body.run();
    } catch (SQLException e) {
      if (e.getErrorCode() != code || (state != null && !state.equals(e.getSQLState()))) {
        throw new AssertionError(what + ": expected error " + code + "/" + state + ", got " + describe(e), e);
      }
      return e;
    }
    throw new AssertionError(what + ": expected error " + code + ", but it succeeded");
  }

  // ---------------------------------------------------------------- connections

  private String driverName() {
    return mysql ? "MySQL Connector/J" : "MariaDB Connector/J";
  }

  private String url(String options) {
    StringBuilder u = new StringBuilder(mysql ? "jdbc:mysql://" : "jdbc:mariadb://");
    u.append(host).append(':').append(port).append('/').append(db);
    u.append("?connectTimeout=10000&socketTimeout=60000");
    if (options != null && !options.isEmpty()) u.append('&').append(options);
    return u.toString();
  }

  private Connection connect(String user, String password, String options) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    return DriverManager.getConnection(url(options), p);
  }

  /** The native-password account, default options (client-side prepared statements, text protocol). */
  private Connection open() throws SQLException {
    return connect(nativeUser, nativePassword, "");
  }

  private Connection open(String options) throws SQLException {
    return connect(nativeUser, nativePassword, options);
  }

  /** Server-side prepared statements: results come in the binary protocol. */
  private static final String SERVER_PS = "useServerPrepStmts=true";

  private Connection openServerPs() throws SQLException {
    return open(SERVER_PS);
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static Object scalar(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      truth("query returned no row: " + sql, rs.next());
      return rs.getObject(1);
    }
  }

  private static long scalarLong(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      truth("query returned no row: " + sql, rs.next());
      long v = rs.getLong(1);
      truth("NULL from " + sql, !rs.wasNull());
      return v;
    }
  }

  private static String scalarString(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      truth("query returned no row: " + sql, rs.next());
      return rs.getString(1);
    }
  }

  private static long count(Connection c, String table) throws SQLException {
    return scalarLong(c, "SELECT COUNT(*) FROM " + table);
  }

  private boolean isServerPrepared(PreparedStatement ps) throws SQLException {
    Class<?> cls = mysql ? com.mysql.cj.jdbc.ServerPreparedStatement.class : org.mariadb.jdbc.ServerPreparedStatement.class;
    return ps.isWrapperFor(cls);
  }

  private boolean isClientPrepared(PreparedStatement ps) throws SQLException {
    if (mysql) {
      return ps.isWrapperFor(com.mysql.cj.jdbc.ClientPreparedStatement.class)
          && !ps.isWrapperFor(com.mysql.cj.jdbc.ServerPreparedStatement.class);
    }
    return ps.isWrapperFor(org.mariadb.jdbc.ClientPreparedStatement.class);
  }

  private PreparedStatement serverPs(Connection c, String sql) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    if (!isServerPrepared(ps)) {
      ps.close();
      throw new AssertionError("expected a server-side prepared statement, got " + ps.getClass().getName());
    }
    return ps;
  }

  private PreparedStatement clientPs(Connection c, String sql) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    if (!isClientPrepared(ps)) {
      ps.close();
      throw new AssertionError("expected a client-side prepared statement, got " + ps.getClass().getName());
    }
    return ps;
  }

  /**
   * Writes one row through a client-side prepared statement (text protocol) and one through a
   * server-side one (binary protocol), then reads both rows back over both protocols. {@code
   * bind} sets the parameters after the id (parameter 1); {@code verify} gets the label of the
   * read path and a result set positioned on the row.
   */
  private void roundTrip(String table, String columns, int nParams, SqlConsumer<PreparedStatement> bind,
      String select, VerifyRow verify) throws Exception {
    String marks = "?" + ", ?".repeat(nParams);
    String insert = "INSERT INTO " + table + " (id, " + columns + ") VALUES (" + marks + ")";
    try (Connection text = open(); Connection bin = openServerPs()) {
      try (PreparedStatement ps = clientPs(text, insert)) {
        ps.setInt(1, 1);
        bind.accept(ps);
        eq("insert count (client-side prepared)", 1, ps.executeUpdate());
      }
      try (PreparedStatement ps = serverPs(bin, insert)) {
        ps.setInt(1, 2);
        bind.accept(ps);
        eq("insert count (server-side prepared)", 1, ps.executeUpdate());
      }
      String sql = "SELECT " + select + " FROM " + table + " WHERE id = ";
      for (int id = 1; id <= 2; id++) {
        String written = id == 1 ? "written client-side" : "written server-side";
        try (Statement s = text.createStatement(); ResultSet rs = s.executeQuery(sql + id)) {
          truth("row " + id + " missing", rs.next());
          verify.check(written + ", read as text", rs);
        }
        try (PreparedStatement ps = serverPs(bin, sql + "?")) {
          ps.setInt(1, id);
          try (ResultSet rs = ps.executeQuery()) {
            truth("row " + id + " missing", rs.next());
            verify.check(written + ", read as binary", rs);
          }
        }
      }
    }
  }

  interface VerifyRow {
    void check(String path, ResultSet rs) throws Exception;
  }

  // ---------------------------------------------------------------- the run

  private String driverVersion() {
    Package p = (mysql ? com.mysql.cj.jdbc.Driver.class : org.mariadb.jdbc.Driver.class).getPackage();
    String v = p == null ? null : p.getImplementationVersion();
    if (v == null || v.isEmpty()) {
      v = mysql ? com.mysql.cj.Constants.CJ_VERSION : org.mariadb.jdbc.util.VersionFactory.getInstance().getVersion();
    }
    return v + " (JDBC, Java " + System.getProperty("java.version") + ")";
  }

  private void runAll() {
    Map<String, String> head = new LinkedHashMap<>();
    head.put("client", driverName());
    String version;
    try {
      version = driverVersion();
    } catch (Throwable t) {
      version = "unknown (" + t + ")";
    }
    head.put("version", version);
    emit(head);

    check("connect_native", this::connectNative);
    check("connect_sha2", this::connectSha2);
    check("connect_tls", this::connectTls);
    check("x_tls_self_signed", this::tlsSelfSigned);
    check("types_integer", this::typesInteger);
    check("types_decimal", this::typesDecimal);
    check("types_float", this::typesFloat);
    check("types_string", this::typesString);
    check("types_blob", this::typesBlob);
    check("types_temporal", this::typesTemporal);
    check("types_null", this::typesNull);
    check("prepared", this::prepared);
    check("x_client_prepared", this::clientPrepared);
    check("tx_rollback", this::txRollback);
    check("tx_commit", this::txCommit);
    check("duplicate_key", this::duplicateKey);
    check("last_insert_id", this::lastInsertId);
    check("affected_rows", this::affectedRows);
    check("multi_results", this::multiResults);
    check("pool_reuse", mysql ? this::poolReuseConnectorJ : this::poolReuseMariaDb);
    check("x_batch", this::batch);
    check("x_metadata", this::metadata);
    if (mysql) check("x_change_user", this::changeUser);
  }

  // ---------------------------------------------------------------- connect

  private String connectAndSelect(String user, String password, String options) throws Exception {
    try (Connection c = connect(user, password, options)) {
      eq("SELECT 1", 1L, scalarLong(c, "SELECT 1"));
      String cu = scalarString(c, "SELECT CURRENT_USER()");
      truth("CURRENT_USER() is " + cu + ", expected " + user + "@...", cu != null && cu.startsWith(user + "@"));
      eq("DATABASE()", db, scalarString(c, "SELECT DATABASE()"));
      return cu;
    }
  }

  /**
   * The options that verify the server's certificate against the CA in {@code caFile}, as
   * strictly as the driver can: the chain and the host name (127.0.0.1, an IP SAN).
   * MySQL Connector/J reads a trust store only (JKS or PKCS12), so the CA goes into one;
   * MariaDB Connector/J takes the PEM file itself.
   */
  private String tlsOptions(String caFile) throws Exception {
    if (!mysql) return "sslMode=verify-full&serverSslCert=" + caFile;
    java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    try (java.io.FileInputStream in = new java.io.FileInputStream(caFile)) {
      ks.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    java.io.File store = java.io.File.createTempFile("ts-trust-", ".p12");
    store.deleteOnExit();
    try (java.io.FileOutputStream out = new java.io.FileOutputStream(store)) {
      ks.store(out, "changeit".toCharArray());
    }
    return "sslMode=VERIFY_IDENTITY&trustCertificateKeyStoreUrl=file:" + store.getPath()
        + "&trustCertificateKeyStoreType=PKCS12&trustCertificateKeyStorePassword=changeit";
  }

  private String connectTls() throws Exception {
    String cipher;
    try (Connection c = connect(sha2User, sha2Password, tlsOptions(env("TS_CA", "")))) {
      eq("SELECT 1", 1L, scalarLong(c, "SELECT 1"));
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
        truth("SHOW SESSION STATUS LIKE 'Ssl_cipher' returned no row", rs.next());
        cipher = rs.getString(2);
      }
      truth("Ssl_cipher is empty: the connection is not TLS", cipher != null && !cipher.isEmpty());
    }
    String refused = null;
    try (Connection c = connect(sha2User, sha2Password, tlsOptions(env("TS_OTHER_CA", "")))) {
      scalarLong(c, "SELECT 1");
    } catch (SQLException e) {
      String m = String.valueOf(e.getMessage());
      refused = m.substring(0, Math.min(80, m.length()));
    }
    truth("a CA that signed nothing of the server's was accepted", refused != null);
    return (mysql ? "sslMode=VERIFY_IDENTITY with the CA in a PKCS12 trust store" : "sslMode=verify-full&serverSslCert=<CA file>")
        + ", " + cipher + "; with another CA: " + refused;
  }

  /**
   * MariaDB Connector/J only: verify-full with no CA at all. The driver cannot validate the
   * server's self-signed certificate, so it trusts it only if the login's OK carries the proof
   * that the server knows the account's password hash (SHA-256 of the hash, the scramble and the
   * certificate's fingerprint: MariaDB 11.4's, Turnstile's for mysql_native_password accounts).
   */
  private String tlsSelfSigned() throws Exception {
    if (mysql) throw new NotApplicable("MySQL Connector/J has no proof of the certificate in the OK packet: it needs a CA");
    try (Connection c = open()) {
      String plugin = scalarString(c, "SELECT @@default_authentication_plugin");
      if (!"mysql_native_password".equals(plugin)) {
        throw new NotApplicable("the greeting names " + plugin + ", which the driver does not let vouch for a"
            + " certificate; with default_authentication_plugin=mysql_native_password it passes"
            + " (tests/test_tls.py runs this check so)");
      }
    }
    String cipher;
    try (Connection c = connect(nativeUser, nativePassword, "sslMode=verify-full")) {
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
        truth("SHOW SESSION STATUS LIKE 'Ssl_cipher' returned no row", rs.next());
        cipher = rs.getString(2);
      }
      truth("Ssl_cipher is empty: the connection is not TLS", cipher != null && !cipher.isEmpty());
    }
    // A wrong password: the server cannot prove the certificate, and the login fails anyway.
    String refused = null;
    try (Connection c = connect(nativeUser, nativePassword + "x", "sslMode=verify-full")) {
      scalarLong(c, "SELECT 1");
    } catch (SQLException e) {
      refused = e.getSQLState() + " " + e.getErrorCode();
    }
    truth("a wrong password logged in", refused != null);
    return "sslMode=verify-full with no serverSslCert, mysql_native_password: the OK's proof accepted, " + cipher
        + "; a wrong password: " + refused;
  }

  private String connectNative() throws Exception {
    String cu = connectAndSelect(nativeUser, nativePassword, "");
    expectError("wrong password", 1045, "28000", () -> {
      connect(nativeUser, nativePassword + "x", "").close();
      return null;
    });
    return "mysql_native_password: SELECT 1 as " + cu + "; a wrong password gets 1045/28000";
  }

  private String connectSha2() throws Exception {
    // No allowPublicKeyRetrieval / serverRsaPublicKeyFile / TLS: only the fast path can work
    // (the account's first login, which fills the server's cache, was made by the harness).
    String cu = connectAndSelect(sha2User, sha2Password, "");
    // A wrong password makes the server ask for the password itself (a full authentication,
    // as MySQL 8 does): on plain TCP the driver must be allowed to fetch the RSA key to send it.
    expectError("wrong password", 1045, "28000", () -> {
      connect(sha2User, sha2Password + "x", "allowPublicKeyRetrieval=true").close();
      return null;
    });
    // The plugin must really be caching_sha2_password: ask the driver to start with it directly.
    String direct = mysql ? "defaultAuthenticationPlugin=caching_sha2_password" : "restrictedAuth=caching_sha2_password";
    connectAndSelect(sha2User, sha2Password, direct);
    String how = mysql
        ? "default options (no TLS, no allowPublicKeyRetrieval)"
        : "default options (no TLS, no allowPublicKeyRetrieval; the driver starts with mysql_native_password and follows the AuthSwitchRequest)";
    return "caching_sha2_password fast path with " + how + ": SELECT 1 as " + cu
        + "; also with " + direct + "; a wrong password gets 1045/28000";
  }

  // ---------------------------------------------------------------- types

  private String typesInteger() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_int (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,"
          + " mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED)");
    }
    BigInteger u64max = new BigInteger("18446744073709551615");
    String cols = "ti, tu, si, su, mi, mu, i, iu, bi, bu";
    String[] names = cols.split(", ");
    // Rows: the minimums; the maximums with BIGINT UNSIGNED at 2^63-1; then BIGINT UNSIGNED's own max.
    Object[][] limits = {
        {-128L, 0L, -32768L, 0L, -8388608L, 0L, (long) Integer.MIN_VALUE, 0L, Long.MIN_VALUE, BigInteger.ZERO},
        {127L, 255L, 32767L, 65535L, 8388607L, 16777215L, (long) Integer.MAX_VALUE, 4294967295L, Long.MAX_VALUE,
            BigInteger.valueOf(Long.MAX_VALUE)},
        {127L, 255L, 32767L, 65535L, 8388607L, 16777215L, (long) Integer.MAX_VALUE, 4294967295L, Long.MAX_VALUE, u64max},
    };
    for (int row = 0; row < limits.length; row++) {
      final Object[] vals = limits[row];
      String table = "t_int";
      try (Connection c = open()) { // each row of limits uses ids 1 and 2
        exec(c, "DELETE FROM t_int");
      }
      final String rowName = row == 0 ? "minimums" : row == 1 ? "maximums (BIGINT UNSIGNED 2^63-1)" : "BIGINT UNSIGNED max 18446744073709551615";
      try {
        roundTripIntegers(table, cols, names, vals);
      } catch (Throwable t) {
        throw new AssertionError("row of " + rowName + ": " + describe(t)
            + (row == 2 ? " (the rows of minimums and maximums up to 2^63-1 passed)" : ""), t);
      }
    }
    return "TINYINT..BIGINT signed and UNSIGNED at min and max (BIGINT UNSIGNED max 18446744073709551615 as BigInteger),"
        + " written via client- and server-side prepared statements, read via text and binary protocol"
        + " (getObject is a Number, getLong/getInt/getShort/getByte, getObject(BigInteger.class), getBigDecimal, getString)";
  }

  private void roundTripIntegers(String table, String cols, String[] names, Object[] vals) throws Exception {
      roundTrip(table, cols, names.length, ps -> {
        for (int k = 0; k < vals.length; k++) {
          if (vals[k] instanceof BigInteger) ps.setObject(k + 2, vals[k]);
          else ps.setLong(k + 2, (Long) vals[k]);
        }
      }, cols, (path, rs) -> {
        for (int k = 0; k < vals.length; k++) {
          String what = path + ": " + names[k];
          Object o = rs.getObject(k + 1);
          truth(what + ": getObject gave " + show(o) + ", not a Number", o instanceof Number);
          if (vals[k] instanceof BigInteger) {
            eq(what + " getObject(BigInteger.class)", vals[k], rs.getObject(k + 1, BigInteger.class));
            eq(what + " getBigDecimal", new BigDecimal((BigInteger) vals[k]), rs.getBigDecimal(k + 1));
            eq(what + " getString", vals[k].toString(), rs.getString(k + 1));
            BigInteger bi = o instanceof BigInteger ? (BigInteger) o : BigInteger.valueOf(((Number) o).longValue());
            eq(what + " getObject value", vals[k], bi);
          } else {
            eq(what + " getLong", vals[k], rs.getLong(k + 1));
            eq(what + " getObject value", vals[k], ((Number) o).longValue());
            eq(what + " getString", vals[k].toString(), rs.getString(k + 1));
          }
        }
        // getInt where it fits, getLong on INT UNSIGNED max (needs 64 bits)
        eq(path + ": i getInt", (int) (long) (Long) vals[6], rs.getInt(7));
        eq(path + ": ti getByte", (byte) (long) (Long) vals[0], rs.getByte(1));
        eq(path + ": si getShort", (short) (long) (Long) vals[2], rs.getShort(3));
      });
      // The server compares the stored values as integers too.
      try (Connection c = open();
           PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM t_int WHERE bi = ? AND iu = ? AND bu = ?")) {
        ps.setLong(1, (Long) vals[8]);
        ps.setLong(2, (Long) vals[7]);
        ps.setObject(3, vals[9]);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          eq("rows matching the limits in WHERE", 2L, rs.getLong(1));
        }
      }
  }

  private String typesDecimal() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_dec (id INT PRIMARY KEY, d1 DECIMAL(10,2), d2 DECIMAL(20,6), d3 DECIMAL(18,0), d4 DECIMAL(5,5))");
    }
    String[][] rows = {
        {"12345678.90", "-12345678.123456", "999999999999999999", "0.12345"},
        {"-0.05", "0.000001", "-999999999999999999", "-0.99999"},
        {"0.00", "100.500000", "0", "0.00000"},
    };
    for (String[] r : rows) {
      try (Connection c = open()) {
        exec(c, "DELETE FROM t_dec");
      }
      roundTrip("t_dec", "d1, d2, d3, d4", 4, ps -> {
        for (int k = 0; k < 4; k++) ps.setBigDecimal(k + 2, new BigDecimal(r[k]));
      }, "d1, d2, d3, d4", (path, rs) -> {
        for (int k = 0; k < 4; k++) {
          BigDecimal exp = new BigDecimal(r[k]);
          eq(path + ": d" + (k + 1) + " getBigDecimal (value and scale " + exp.scale() + ")", exp, rs.getBigDecimal(k + 1));
          Object o = rs.getObject(k + 1);
          eq(path + ": d" + (k + 1) + " getObject", exp, o);
          eq(path + ": d" + (k + 1) + " getString", r[k], rs.getString(k + 1));
        }
      });
    }
    return "DECIMAL(10,2), DECIMAL(20,6), DECIMAL(18,0), DECIMAL(5,5) incl. negatives and zero keep value and scale as"
        + " java.math.BigDecimal (getBigDecimal, getObject, getString), both write and read paths";
  }

  private String typesFloat() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_float (id INT PRIMARY KEY, f FLOAT, d DOUBLE)");
    }
    float[] fs = {1.5f, -0.1f, 3.0e20f, 0f};
    double[] ds = {Math.PI, -1.0e-300, 1.7976931348623157E308, 0.1 + 0.2};
    for (int i = 0; i < fs.length; i++) {
      float f = fs[i];
      double d = ds[i];
      try (Connection c = open()) {
        exec(c, "DELETE FROM t_float");
      }
      roundTrip("t_float", "f, d", 2, ps -> {
        ps.setFloat(2, f);
        ps.setDouble(3, d);
      }, "f, d", (path, rs) -> {
        eq(path + ": FLOAT getFloat", f, rs.getFloat(1));
        eq(path + ": DOUBLE getDouble", d, rs.getDouble(2));
        Object fo = rs.getObject(1);
        Object dob = rs.getObject(2);
        truth(path + ": FLOAT getObject is " + show(fo) + ", expected Float", fo instanceof Float);
        eq(path + ": FLOAT getObject", f, fo);
        eq(path + ": DOUBLE getObject", d, dob);
      });
    }
    return "FLOAT (1.5, -0.1, 3e20, 0) as java.lang.Float and DOUBLE (pi, -1e-300, Double.MAX_VALUE, 0.1+0.2) as"
        + " java.lang.Double, exact, both write and read paths";
  }

  private String typesString() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_str (id INT PRIMARY KEY, v VARCHAR(100), t TEXT, c CHAR(10))");
    }
    String v = "h\u00e9llo w\u00f6rld \u2014 \u4e2d\u6587 \uD83D\uDE00 \uD834\uDD1E end";
    StringBuilder tb = new StringBuilder();
    for (int i = 0; i < 2000; i++) tb.append("\uD83D\uDE00a\u00e9\u4e2d");
    String t = tb.toString();
    String ch = "\uD83D\uDE00x\u00e9";
    roundTrip("t_str", "v, t, c", 3, ps -> {
      ps.setString(2, v);
      ps.setString(3, t);
      ps.setString(4, ch);
    }, "v, t, c, CHAR_LENGTH(v), LENGTH(v), CHAR_LENGTH(t), LENGTH(t), HEX(c)", (path, rs) -> {
      eq(path + ": VARCHAR", v, rs.getString(1));
      eq(path + ": TEXT (" + t.length() + " UTF-16 units)", t, rs.getString(2));
      eq(path + ": CHAR", ch, rs.getString(3));
      eq(path + ": VARCHAR getObject", v, rs.getObject(1));
      eq(path + ": CHAR_LENGTH(v) (U+1F600 and U+1D11E are one character each)", (long) v.codePointCount(0, v.length()), rs.getLong(4));
      eq(path + ": LENGTH(v) in UTF-8 bytes", (long) v.getBytes(StandardCharsets.UTF_8).length, rs.getLong(5));
      eq(path + ": CHAR_LENGTH(t)", (long) t.codePointCount(0, t.length()), rs.getLong(6));
      eq(path + ": LENGTH(t)", (long) t.getBytes(StandardCharsets.UTF_8).length, rs.getLong(7));
      eq(path + ": HEX(c)", hex(ch.getBytes(StandardCharsets.UTF_8), 1000).toUpperCase(), rs.getString(8));
    });
    // 4-byte characters as parameters in WHERE and as literals in SQL text
    try (Connection c = open(); Connection b = openServerPs()) {
      for (Connection conn : new Connection[] {c, b}) {
        try (PreparedStatement ps = conn.prepareStatement("SELECT COUNT(*) FROM t_str WHERE v = ?")) {
          ps.setString(1, v);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            eq("rows with v = ? (" + (conn == c ? "client" : "server") + "-side)", 2L, rs.getLong(1));
          }
        }
      }
      eq("literal in SQL text", "\uD83D\uDE00\u00e9", scalarString(c, "SELECT '\uD83D\uDE00\u00e9'"));
    }
    return "VARCHAR, TEXT (8000 characters) and CHAR with U+1F600, U+1D11E, CJK and accents round-trip as String;"
        + " server sees the right CHAR_LENGTH/LENGTH/HEX; 4-byte string as WHERE parameter and as a literal";
  }

  private String typesBlob() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_blob (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300), lb LONGBLOB)");
    }
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) all[i] = (byte) i;
    byte[] rev = new byte[256];
    for (int i = 0; i < 256; i++) rev[i] = (byte) (255 - i);
    byte[] big = new byte[200_000];
    for (int i = 0; i < big.length; i++) big[i] = (byte) (i * 31 + (i >> 8));
    String allHex = hex(all, 1000).toUpperCase();
    roundTrip("t_blob", "b, vb, lb", 3, ps -> {
      ps.setBytes(2, all);
      ps.setBytes(3, rev);
      ps.setBinaryStream(4, new ByteArrayInputStream(big), big.length);
    }, "b, vb, lb, LENGTH(b), HEX(b), LENGTH(lb)", (path, rs) -> {
      eq(path + ": BLOB getBytes", all, rs.getBytes(1));
      eq(path + ": VARBINARY getBytes", rev, rs.getBytes(2));
      eq(path + ": LONGBLOB (200000 bytes) getBytes", big, rs.getBytes(3));
      Object o = rs.getObject(2);
      truth(path + ": VARBINARY getObject is " + show(o) + ", expected byte[]", o instanceof byte[]);
      eq(path + ": VARBINARY getObject", rev, o);
      eq(path + ": LENGTH(b)", 256L, rs.getLong(4));
      eq(path + ": HEX(b)", allHex, rs.getString(5));
      eq(path + ": LENGTH(lb)", (long) big.length, rs.getLong(6));
      java.sql.Blob blob = rs.getBlob(1);
      eq(path + ": getBlob", all, blob.getBytes(1, (int) blob.length()));
    });
    try (Connection c = open(); Connection b = openServerPs()) {
      for (Connection conn : new Connection[] {c, b}) {
        try (PreparedStatement ps = conn.prepareStatement("SELECT COUNT(*) FROM t_blob WHERE vb = ?")) {
          ps.setBytes(1, rev);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            eq("rows with vb = ? (" + (conn == c ? "client" : "server") + "-side)", 2L, rs.getLong(1));
          }
        }
      }
    }
    return "BLOB and VARBINARY with all 256 byte values (and reversed) as byte[] via getBytes/getObject/getBlob;"
        + " 200000-byte LONGBLOB via setBinaryStream; server LENGTH/HEX agree; bytes as WHERE parameter";
  }

  private String typesTemporal() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_time (id INT PRIMARY KEY, d DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME, tm3 TIME(3))");
    }
    LocalDate d = LocalDate.of(2024, 2, 29);
    LocalDateTime dt = LocalDateTime.of(2024, 2, 29, 13, 45, 56);
    LocalDateTime dt6 = LocalDateTime.of(1999, 12, 31, 23, 59, 59, 123_456_000);
    LocalDateTime ts = LocalDateTime.of(2038, 1, 19, 3, 14, 7);
    LocalTime tm = LocalTime.of(23, 59, 58);
    LocalTime tm3 = LocalTime.of(12, 34, 56, 789_000_000);
    roundTrip("t_time", "d, dt, dt6, ts, tm, tm3", 6, ps -> {
      ps.setObject(2, d);
      ps.setObject(3, dt);
      ps.setObject(4, dt6);
      ps.setObject(5, ts);
      ps.setObject(6, tm);
      ps.setObject(7, tm3);
    }, "d, dt, dt6, ts, tm, tm3, CAST(d AS CHAR), CAST(dt AS CHAR), CAST(dt6 AS CHAR), CAST(ts AS CHAR), CAST(tm AS CHAR), CAST(tm3 AS CHAR)",
        (path, rs) -> {
          eq(path + ": DATE getObject(LocalDate)", d, rs.getObject(1, LocalDate.class));
          eq(path + ": DATETIME getObject(LocalDateTime)", dt, rs.getObject(2, LocalDateTime.class));
          eq(path + ": DATETIME(6) getObject(LocalDateTime)", dt6, rs.getObject(3, LocalDateTime.class));
          eq(path + ": TIMESTAMP getObject(LocalDateTime)", ts, rs.getObject(4, LocalDateTime.class));
          eq(path + ": TIME getObject(LocalTime)", tm, rs.getObject(5, LocalTime.class));
          eq(path + ": TIME(3) getObject(LocalTime)", tm3, rs.getObject(6, LocalTime.class));
          eq(path + ": DATE getDate", java.sql.Date.valueOf(d), rs.getDate(1));
          eq(path + ": DATETIME getTimestamp", Timestamp.valueOf(dt), rs.getTimestamp(2));
          eq(path + ": DATETIME(6) getTimestamp", Timestamp.valueOf(dt6), rs.getTimestamp(3));
          eq(path + ": TIME getTime", java.sql.Time.valueOf(tm), rs.getTime(5));
          eq(path + ": DATE as stored", "2024-02-29", rs.getString(7));
          eq(path + ": DATETIME as stored", "2024-02-29 13:45:56", rs.getString(8));
          eq(path + ": DATETIME(6) as stored", "1999-12-31 23:59:59.123456", rs.getString(9));
          eq(path + ": TIMESTAMP as stored", "2038-01-19 03:14:07", rs.getString(10));
          eq(path + ": TIME as stored", "23:59:58", rs.getString(11));
          eq(path + ": TIME(3) as stored", "12:34:56.789", rs.getString(12));
        });
    return "DATE, DATETIME, DATETIME(6), TIMESTAMP, TIME, TIME(3) via setObject/getObject with LocalDate, LocalDateTime,"
        + " LocalTime (and getDate/getTimestamp/getTime), fractional seconds kept; server-side CAST shows the canonical text";
  }

  private String typesNull() throws Exception {
    String[][] cols = {
        {"ti", "TINYINT", "" + Types.TINYINT}, {"bu", "BIGINT UNSIGNED", "" + Types.BIGINT}, {"i", "INT", "" + Types.INTEGER},
        {"de", "DECIMAL(10,2)", "" + Types.DECIMAL}, {"f", "FLOAT", "" + Types.REAL}, {"d", "DOUBLE", "" + Types.DOUBLE},
        {"v", "VARCHAR(20)", "" + Types.VARCHAR}, {"t", "TEXT", "" + Types.LONGVARCHAR}, {"b", "BLOB", "" + Types.BLOB},
        {"vb", "VARBINARY(20)", "" + Types.VARBINARY}, {"da", "DATE", "" + Types.DATE}, {"dt", "DATETIME", "" + Types.TIMESTAMP},
        {"ts", "TIMESTAMP NULL", "" + Types.TIMESTAMP}, {"tm", "TIME", "" + Types.TIME}, {"y", "YEAR", "" + Types.SMALLINT},
        {"e", "ENUM('a','b')", "" + Types.VARCHAR}, {"j", "JSON", "" + Types.VARCHAR}, {"bt", "BIT(8)", "" + Types.BIT},
    };
    StringBuilder ddl = new StringBuilder("CREATE TABLE t_null (id INT PRIMARY KEY");
    StringBuilder names = new StringBuilder();
    for (String[] col : cols) {
      ddl.append(", ").append(col[0]).append(' ').append(col[1]);
      if (names.length() > 0) names.append(", ");
      names.append(col[0]);
    }
    try (Connection c = open()) {
      exec(c, ddl.append(")").toString());
    }
    roundTrip("t_null", names.toString(), cols.length, ps -> {
      for (int k = 0; k < cols.length; k++) ps.setNull(k + 2, Integer.parseInt(cols[k][2]));
    }, names + ", " + names.toString().replaceAll("(\\w+)", "$1 IS NULL"), (path, rs) -> {
      for (int k = 0; k < cols.length; k++) {
        String what = path + ": " + cols[k][1];
        eq(what + " getObject", null, rs.getObject(k + 1));
        eq(what + " getString", null, rs.getString(k + 1));
        truth(what + " wasNull after getString", rs.wasNull());
        eq(what + " getBytes", null, rs.getBytes(k + 1));
        rs.getLong(k + 1 + cols.length); // the IS NULL column
        eq(what + " IS NULL on the server", 1L, rs.getLong(k + 1 + cols.length));
      }
      rs.getInt(3);
      truth(path + ": wasNull after getInt on INT", rs.wasNull());
      eq(path + ": getObject(LocalDate.class) on DATE", null, rs.getObject(11, LocalDate.class));
      eq(path + ": getBigDecimal on DECIMAL", null, rs.getBigDecimal(4));
    });
    return "NULL written with setNull into " + cols.length + " column types (integers, DECIMAL, FLOAT, DOUBLE, VARCHAR,"
        + " TEXT, BLOB, VARBINARY, DATE, DATETIME, TIMESTAMP, TIME, YEAR, ENUM, JSON, BIT) reads back as Java null"
        + " (getObject, getString, getBytes, wasNull) over text and binary protocol; IS NULL true on the server";
  }

  // ---------------------------------------------------------------- prepared statements

  private String prepared() throws Exception {
    try (Connection c = openServerPs()) {
      exec(c, "CREATE TABLE t_prep (id INT PRIMARY KEY, name VARCHAR(50), score DOUBLE, born DATE, data BLOB)");
      long prepares = -1;
      try (PreparedStatement ins = serverPs(c, "INSERT INTO t_prep (id, name, score, born, data) VALUES (?, ?, ?, ?, ?)")) {
        eq("parameter count from the server's prepare response", 5, ins.getParameterMetaData().getParameterCount());
        Object[][] rows = {
            {1, "alpha", 1.25, LocalDate.of(2001, 1, 1), new byte[] {0, 1, 2}},
            {2, "b\u00e9ta \uD83D\uDE00", -7.5, LocalDate.of(1970, 1, 1), new byte[] {(byte) 0xff, 0}},
            {3, null, null, null, null},
            {4, "it's \"quoted\" \\ back", 0.0, LocalDate.of(2099, 12, 31), new byte[0]},
        };
        for (Object[] r : rows) {
          ins.setInt(1, (Integer) r[0]);
          if (r[1] == null) ins.setNull(2, Types.VARCHAR); else ins.setString(2, (String) r[1]);
          if (r[2] == null) ins.setNull(3, Types.DOUBLE); else ins.setDouble(3, (Double) r[2]);
          if (r[3] == null) ins.setNull(4, Types.DATE); else ins.setObject(4, r[3]);
          if (r[4] == null) ins.setNull(5, Types.BLOB); else ins.setBinaryStream(5, new ByteArrayInputStream((byte[]) r[4]));
          eq("executeUpdate for id " + r[0], 1, ins.executeUpdate());
        }
        try (PreparedStatement sel = serverPs(c, "SELECT id, name, score, born, data FROM t_prep WHERE id = ? OR name = ?")) {
          eq("result columns from the prepare response", 5, sel.getMetaData() == null ? -1 : sel.getMetaData().getColumnCount());
          for (Object[] r : rows) {
            sel.setInt(1, (Integer) r[0]);
            sel.setString(2, "no such name");
            try (ResultSet rs = sel.executeQuery()) {
              truth("row " + r[0] + " not found", rs.next());
              eq("id", r[0], rs.getInt(1));
              eq("name of " + r[0], r[1], rs.getString(2));
              eq("score of " + r[0], r[2], rs.getObject(3));
              eq("born of " + r[0], r[3], rs.getObject(4, LocalDate.class));
              eq("data of " + r[0], r[4], rs.getBytes(5));
              truth("one row only for id " + r[0], !rs.next());
            }
          }
          // re-execute with a parameter of another type than before (string id), and with no match
          sel.setString(1, "2");
          sel.setString(2, "alpha");
          try (ResultSet rs = sel.executeQuery()) {
            List<Integer> ids = new ArrayList<>();
            while (rs.next()) ids.add(rs.getInt(1));
            eq("ids for id='2' OR name='alpha'", List.of(1, 2), ids);
          }
          sel.setInt(1, 99);
          sel.setString(2, "nobody");
          try (ResultSet rs = sel.executeQuery()) {
            truth("no row for id 99", !rs.next());
          }
        }
      }
      // an error from a prepared execute leaves the statement usable
      try (PreparedStatement ps = serverPs(c, "INSERT INTO t_prep (id, name) VALUES (?, ?)")) {
        ps.setInt(1, 1);
        ps.setString(2, "dup");
        expectError("duplicate id through the prepared insert", 1062, "23000", () -> ps.executeUpdate());
        ps.setInt(1, 5);
        eq("same statement after the error", 1, ps.executeUpdate());
      }
      eq("rows in t_prep", 5L, count(c, "t_prep"));
      return "server-side prepared statements (" + (mysql ? "com.mysql.cj.jdbc.ServerPreparedStatement" : "org.mariadb.jdbc.ServerPreparedStatement")
          + ", " + SERVER_PS + "): INSERT executed 4 times (strings, 4-byte UTF-8, doubles, dates, BLOB via setBinaryStream, NULLs),"
          + " SELECT executed 6 times with changing values and parameter types; parameter/column counts from the prepare"
          + " response; a 1062 on execute leaves the statement usable";
    }
  }

  private String clientPrepared() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_cprep (id INT PRIMARY KEY, s VARCHAR(100), n BIGINT, b VARBINARY(20))");
      String[] tricky = {
          "plain", "it's", "\"double\"", "back\\slash", "nul\u0000byte", "\uD83D\uDE00 emoji", "'; DROP TABLE t_cprep; --",
          "%_ like", "\\'", "line\nbreak\ttab", "\u00e9\u00e8 \u4e2d",
      };
      try (PreparedStatement ins = clientPs(c, "INSERT INTO t_cprep (id, s, n, b) VALUES (?, ?, ?, ?)")) {
        for (int i = 0; i < tricky.length; i++) {
          ins.setInt(1, i + 1);
          ins.setString(2, tricky[i]);
          ins.setLong(3, i % 2 == 0 ? Long.MIN_VALUE + i : Long.MAX_VALUE - i);
          ins.setBytes(4, new byte[] {(byte) i, '\'', '\\', 0, (byte) 0xff});
          eq("executeUpdate for " + show(tricky[i]), 1, ins.executeUpdate());
        }
      }
      try (PreparedStatement sel = clientPs(c, "SELECT id, s, n, b, ? AS echo FROM t_cprep WHERE s = ?")) {
        for (int i = 0; i < tricky.length; i++) {
          sel.setString(1, tricky[i]);
          sel.setString(2, tricky[i]);
          try (ResultSet rs = sel.executeQuery()) {
            truth("row for " + show(tricky[i]) + " not found by s = ?", rs.next());
            eq("id of " + show(tricky[i]), i + 1, rs.getInt(1));
            eq("stored string", tricky[i], rs.getString(2));
            eq("stored bigint", i % 2 == 0 ? Long.MIN_VALUE + i : Long.MAX_VALUE - i, rs.getLong(3));
            eq("stored bytes", new byte[] {(byte) i, '\'', '\\', 0, (byte) 0xff}, rs.getBytes(4));
            eq("echoed parameter", tricky[i], rs.getString(5));
            truth("exactly one row for " + show(tricky[i]), !rs.next());
          }
        }
      }
      eq("table still has all rows", (long) tricky.length, count(c, "t_cprep"));
      return "client-side prepared statements (" + (mysql ? "com.mysql.cj.jdbc.ClientPreparedStatement" : "org.mariadb.jdbc.ClientPreparedStatement")
          + ", the default) escape " + tricky.length + " tricky strings (quotes, backslashes, NUL, newline, 4-byte UTF-8,"
          + " an injection attempt), bigint limits and binary bytes; each found again by s = ? and echoed";
    }
  }

  // ---------------------------------------------------------------- transactions

  private String txRollback() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_tx_rb (id INT PRIMARY KEY, v VARCHAR(10))");
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_tx_rb VALUES (?, ?)")) {
        for (int i = 1; i <= 3; i++) {
          ps.setInt(1, i);
          ps.setString(2, "v" + i);
          ps.executeUpdate();
        }
      }
      eq("rows seen inside the transaction", 3L, count(c, "t_tx_rb"));
      eq("@@autocommit inside", 0L, scalarLong(c, "SELECT @@autocommit"));
      c.rollback();
      eq("rows after rollback (same connection)", 0L, count(c, "t_tx_rb"));
      // savepoint: partial rollback
      try (Statement s = c.createStatement()) {
        s.executeUpdate("INSERT INTO t_tx_rb VALUES (10, 'keep')");
        java.sql.Savepoint sp = c.setSavepoint("sp1");
        s.executeUpdate("INSERT INTO t_tx_rb VALUES (11, 'drop')");
        c.rollback(sp);
        c.commit();
      }
      c.setAutoCommit(true);
      try (Connection o = open()) {
        eq("rows seen from another connection", 1L, count(o, "t_tx_rb"));
        eq("the row before the savepoint survived", "keep", scalarString(o, "SELECT v FROM t_tx_rb"));
      }
      return "setAutoCommit(false), 3 inserts seen inside, rollback() leaves 0 rows; setSavepoint/rollback(savepoint)/commit keeps only the row before the savepoint";
    }
  }

  private String txCommit() throws Exception {
    try (Connection c = open(); Connection other = open()) {
      exec(c, "CREATE TABLE t_tx_c (id INT PRIMARY KEY, v VARCHAR(10))");
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        eq("insert", 2, s.executeUpdate("INSERT INTO t_tx_c VALUES (1, 'a'), (2, 'b')"));
        eq("update", 1, s.executeUpdate("UPDATE t_tx_c SET v = 'B' WHERE id = 2"));
      }
      eq("rows seen from another connection before commit", 0L, count(other, "t_tx_c"));
      c.commit();
      eq("rows seen from another connection after commit", 2L, count(other, "t_tx_c"));
      eq("updated value seen from the other connection", "B", scalarString(other, "SELECT v FROM t_tx_c WHERE id = 2"));
      // the next transaction starts by itself (autocommit still off)
      exec(c, "INSERT INTO t_tx_c VALUES (3, 'c')");
      c.rollback();
      c.setAutoCommit(true);
      eq("rows after a second, rolled back transaction", 2L, count(other, "t_tx_c"));
      return "setAutoCommit(false), insert+update invisible to a second connection until commit(), then visible; the next implicit transaction rolls back on its own";
    }
  }

  private String duplicateKey() throws Exception {
    try (Connection c = open(); Connection b = openServerPs()) {
      exec(c, "CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50), UNIQUE KEY uq_email (email))");
      exec(c, "INSERT INTO t_dup VALUES (1, 'a@example.com')");
      List<String> seen = new ArrayList<>();
      SQLException e = expectError("duplicate primary key (Statement)", 1062, "23000", () -> {
        try (Statement s = c.createStatement()) {
          s.executeUpdate("INSERT INTO t_dup VALUES (1, 'b@example.com')");
        }
        return null;
      });
      truth("exception class " + e.getClass().getName() + " is not SQLIntegrityConstraintViolationException",
          e instanceof SQLIntegrityConstraintViolationException);
      truth("message names the key: " + e.getMessage(), e.getMessage().contains("PRIMARY"));
      seen.add(e.getClass().getSimpleName() + " \"" + e.getMessage() + "\"");
      e = expectError("duplicate unique key (server-side prepared)", 1062, "23000", () -> {
        try (PreparedStatement ps = serverPs(b, "INSERT INTO t_dup VALUES (?, ?)")) {
          ps.setInt(1, 2);
          ps.setString(2, "A@example.com"); // utf8mb4_general_ci: same as 'a@example.com'
          ps.executeUpdate();
        }
        return null;
      });
      truth("exception class " + e.getClass().getName() + " is not SQLIntegrityConstraintViolationException",
          e instanceof SQLIntegrityConstraintViolationException);
      truth("message names the key: " + e.getMessage(), e.getMessage().contains("uq_email"));
      e = expectError("duplicate key (client-side prepared)", 1062, "23000", () -> {
        try (PreparedStatement ps = clientPs(c, "UPDATE t_dup SET id = ? WHERE id = ?")) {
          exec(c, "INSERT INTO t_dup VALUES (3, 'c@example.com')");
          ps.setInt(1, 1);
          ps.setInt(2, 3);
          ps.executeUpdate();
        }
        return null;
      });
      truth("exception class is SQLIntegrityConstraintViolationException", e instanceof SQLIntegrityConstraintViolationException);
      eq("connection still works", 2L, count(c, "t_dup"));
      return "INSERT on PRIMARY (Statement), on a UNIQUE key case-insensitively (server-side prepared) and an UPDATE"
          + " (client-side prepared) each raise SQLIntegrityConstraintViolationException, SQLState 23000, error 1062; e.g. " + seen.get(0);
    }
  }

  private String lastInsertId() throws Exception {
    try (Connection c = open(); Connection b = openServerPs()) {
      exec(c, "CREATE TABLE t_ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))");
      List<Long> got = new ArrayList<>();
      try (Statement s = c.createStatement()) {
        eq("insert", 1, s.executeUpdate("INSERT INTO t_ai (v) VALUES ('a')", Statement.RETURN_GENERATED_KEYS));
        try (ResultSet k = s.getGeneratedKeys()) {
          truth("no generated key", k.next());
          eq("generated key of the first insert", 1L, k.getLong(1));
          got.add(k.getLong(1));
        }
        eq("SELECT LAST_INSERT_ID()", 1L, scalarLong(c, "SELECT LAST_INSERT_ID()"));
        eq("multi-row insert", 3, s.executeUpdate("INSERT INTO t_ai (v) VALUES ('b'), ('c'), ('d')", Statement.RETURN_GENERATED_KEYS));
        List<Long> keys = new ArrayList<>();
        try (ResultSet k = s.getGeneratedKeys()) {
          while (k.next()) keys.add(k.getLong(1));
        }
        truth("no generated keys after the multi-row insert", !keys.isEmpty());
        eq("first generated key of the multi-row insert", 2L, keys.get(0));
        if (mysql) {
          eq("Connector/J derives every id of the multi-row insert", List.of(2L, 3L, 4L), keys);
        }
        got.addAll(keys);
        eq("SELECT LAST_INSERT_ID() after the multi-row insert (first id)", 2L, scalarLong(c, "SELECT LAST_INSERT_ID()"));
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_ai (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS);
           PreparedStatement sps = b.prepareStatement("INSERT INTO t_ai (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
        truth("server-side prepared", isServerPrepared(sps));
        ps.setString(1, "e");
        ps.executeUpdate();
        try (ResultSet k = ps.getGeneratedKeys()) {
          truth("no generated key (client-side prepared)", k.next());
          eq("generated key (client-side prepared)", 5L, k.getLong(1));
        }
        sps.setString(1, "f");
        sps.executeUpdate();
        try (ResultSet k = sps.getGeneratedKeys()) {
          truth("no generated key (server-side prepared)", k.next());
          eq("generated key (server-side prepared)", 6L, k.getLong(1));
        }
      }
      // an explicit id moves the counter; the next generated id follows it
      try (Statement s = c.createStatement()) {
        s.executeUpdate("INSERT INTO t_ai (id, v) VALUES (100, 'x')");
        s.executeUpdate("INSERT INTO t_ai (v) VALUES ('y')", Statement.RETURN_GENERATED_KEYS);
        try (ResultSet k = s.getGeneratedKeys()) {
          truth("no generated key after explicit id", k.next());
          eq("generated key after an explicit id 100", 101L, k.getLong(1));
        }
      }
      if (!mysql) {
        // MariaDB Connector/J returns only the first id of a multi-row insert unless returnMultiValuesGeneratedIds
        try (Connection m = open("returnMultiValuesGeneratedIds=true"); Statement s = m.createStatement()) {
          s.executeUpdate("INSERT INTO t_ai (v) VALUES ('p'), ('q')", Statement.RETURN_GENERATED_KEYS);
          List<Long> keys = new ArrayList<>();
          try (ResultSet k = s.getGeneratedKeys()) {
            while (k.next()) keys.add(k.getLong(1));
          }
          eq("ids of a 2-row insert with returnMultiValuesGeneratedIds=true", List.of(102L, 103L), keys);
        }
      }
      return "getGeneratedKeys: " + got + " after a single insert and a 3-row insert (first id 2 = LAST_INSERT_ID()"
          + (mysql ? ", Connector/J lists all three" : ", MariaDB lists only the first unless returnMultiValuesGeneratedIds=true, checked too")
          + "); client- and server-side prepared inserts; an explicit id 100 makes the next 101";
    }
  }

  private String affectedRows() throws Exception {
    try (Connection c = open(); Connection b = openServerPs()) {
      exec(c, "CREATE TABLE t_aff (id INT PRIMARY KEY, grp INT, v INT)");
      try (Statement s = c.createStatement()) {
        eq("INSERT 5 rows", 5, s.executeUpdate("INSERT INTO t_aff VALUES (1,1,0),(2,1,0),(3,2,0),(4,2,0),(5,3,0)"));
        eq("UPDATE 2 rows", 2, s.executeUpdate("UPDATE t_aff SET v = 7 WHERE grp = 1"));
        eq("UPDATE no match", 0, s.executeUpdate("UPDATE t_aff SET v = 1 WHERE grp = 99"));
        eq("UPDATE matching but unchanged (driver default CLIENT_FOUND_ROWS: found rows)", 2, s.executeUpdate("UPDATE t_aff SET v = 7 WHERE grp = 1"));
        eq("DELETE 1 row", 1, s.executeUpdate("DELETE FROM t_aff WHERE id = 5"));
        eq("executeLargeUpdate DELETE 0 rows", 0L, s.executeLargeUpdate("DELETE FROM t_aff WHERE id = 5"));
        truth("execute() of an UPDATE returns false", !s.execute("UPDATE t_aff SET v = 8 WHERE grp = 2"));
        eq("getUpdateCount after execute()", 2, s.getUpdateCount());
      }
      try (PreparedStatement ps = serverPs(b, "UPDATE t_aff SET v = v + ? WHERE grp = ?")) {
        ps.setInt(1, 1);
        ps.setInt(2, 2);
        eq("server-side prepared UPDATE", 2, ps.executeUpdate());
        ps.setInt(2, 1);
        eq("server-side prepared UPDATE, again", 2, ps.executeUpdate());
      }
      try (PreparedStatement ps = serverPs(b, "DELETE FROM t_aff WHERE grp = ?")) {
        ps.setInt(1, 2);
        eq("server-side prepared DELETE", 2, ps.executeUpdate());
      }
      eq("rows left", 2L, count(c, "t_aff"));
      eq("values left", "1:8,2:8", scalarString(c, "SELECT GROUP_CONCAT(CONCAT(id, ':', v) ORDER BY id) FROM t_aff"));
    }
    // useAffectedRows=true: the driver leaves CLIENT_FOUND_ROWS off, so MySQL counts changed rows only
    try (Connection a = open("useAffectedRows=true"); Statement s = a.createStatement()) {
      try {
        eq("useAffectedRows=true: UPDATE matching 2 rows that changes 1", 1,
            s.executeUpdate("UPDATE t_aff SET v = IF(id = 1, 9, v) WHERE grp = 1"));
        eq("useAffectedRows=true: UPDATE matching 2 rows that changes none", 0, s.executeUpdate("UPDATE t_aff SET v = v WHERE grp = 1"));
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + " (the counts with the driver defaults passed; without CLIENT_FOUND_ROWS"
            + " MySQL counts the rows an UPDATE changed, the server reported the rows it matched)", e);
      }
      eq("useAffectedRows=true: DELETE 1 row", 1, s.executeUpdate("DELETE FROM t_aff WHERE id = 2"));
      return "executeUpdate counts: INSERT 5, UPDATE 2, UPDATE 0 (no match), UPDATE 2 (matched, unchanged: found rows,"
          + " the driver default), DELETE 1, executeLargeUpdate 0, getUpdateCount 2; server-side prepared UPDATE 2/2 and DELETE 2;"
          + " with useAffectedRows=true (no CLIENT_FOUND_ROWS) an UPDATE counts changed rows: 1 of 2 matched, then 0";
    }
  }

  private String multiResults() throws Exception {
    try (Connection c = open("allowMultiQueries=true")) {
      exec(c, "CREATE TABLE t_multi (id INT PRIMARY KEY, v VARCHAR(10))");
      try (Statement s = c.createStatement()) {
        boolean isRs = s.execute("INSERT INTO t_multi VALUES (1, 'a'), (2, 'b'); SELECT id, v FROM t_multi ORDER BY id;"
            + " UPDATE t_multi SET v = 'z' WHERE id = 2; SELECT 42 AS answer, 'x' AS s; SELECT v FROM t_multi WHERE id = 2");
        List<String> seen = new ArrayList<>();
        truth("first result is the INSERT's update count", !isRs);
        eq("INSERT count", 2, s.getUpdateCount());
        seen.add("count 2");
        truth("second result is a result set", s.getMoreResults());
        try (ResultSet rs = s.getResultSet()) {
          List<String> rows = new ArrayList<>();
          while (rs.next()) rows.add(rs.getInt(1) + ":" + rs.getString(2));
          eq("rows of the first SELECT", List.of("1:a", "2:b"), rows);
          seen.add("rows " + rows);
        }
        truth("third result is an update count", !s.getMoreResults());
        eq("UPDATE count", 1, s.getUpdateCount());
        seen.add("count 1");
        truth("fourth result is a result set", s.getMoreResults());
        try (ResultSet rs = s.getResultSet()) {
          truth("row", rs.next());
          eq("answer", 42, rs.getInt("answer"));
          eq("s", "x", rs.getString("s"));
          seen.add("row [42, x]");
        }
        truth("fifth result is a result set", s.getMoreResults());
        try (ResultSet rs = s.getResultSet()) {
          truth("row", rs.next());
          eq("value updated by the third statement", "z", rs.getString(1));
          seen.add("row [z]");
        }
        truth("no more results", !s.getMoreResults());
        eq("end of results", -1, s.getUpdateCount());
        // an error in the middle: the first result arrives, then the error (Connector/J and MariaDB
        // Connector/J read every result of a multi-statement at execute() time, so the error may
        // surface there; either way it must be 1146 and the first result must not be lost).
        String where;
        SQLException e;
        try {
          truth("first of an erroring batch", s.execute("SELECT 1; SELECT * FROM no_such_table; SELECT 3"));
          try (ResultSet rs = s.getResultSet()) {
            rs.next();
            eq("result before the error", 1, rs.getInt(1));
          }
          e = expectError("the failing statement", 1146, "42S02", () -> s.getMoreResults());
          where = "at getMoreResults()";
        } catch (SQLException ex) {
          e = ex;
          where = "at execute()";
        }
        eq("error of the failing statement (" + describe(e) + ")", 1146, e.getErrorCode());
        eq("SQLState of the failing statement", "42S02", e.getSQLState());
        seen.add("then 1146 " + where);
        eq("connection still works", 1L, scalarLong(c, "SELECT 1"));
        return "allowMultiQueries=true: INSERT; SELECT; UPDATE; SELECT; SELECT gives " + seen
            + " via execute/getMoreResults/getUpdateCount";
      }
    }
  }

  // ---------------------------------------------------------------- pool reuse

  /** Dirties a session: user variable, temporary table, open transaction with an uncommitted row. */
  private long dirtySession(Connection c) throws SQLException {
    // qualified names: the current database may have been changed by the caller
    exec(c, "SET @pool_marker = 42");
    exec(c, "CREATE TEMPORARY TABLE `" + db + "`.t_pool_tmp (x INT)");
    exec(c, "INSERT INTO `" + db + "`.t_pool_tmp VALUES (1)");
    c.setAutoCommit(false);
    exec(c, "INSERT INTO `" + db + "`.t_pool VALUES (1)");
    eq("marker set", 42L, scalarLong(c, "SELECT @pool_marker"));
    return scalarLong(c, "SELECT CONNECTION_ID()");
  }

  private String poolReuseConnectorJ() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_pool (id INT PRIMARY KEY)");
    }
    com.mysql.cj.jdbc.MysqlConnectionPoolDataSource ds = new com.mysql.cj.jdbc.MysqlConnectionPoolDataSource();
    ds.setUrl(url(""));
    ds.setUser(nativeUser);
    ds.setPassword(nativePassword);
    PooledConnection pc = ds.getPooledConnection();
    AtomicInteger closedEvents = new AtomicInteger();
    pc.addConnectionEventListener(new ConnectionEventListener() {
      public void connectionClosed(ConnectionEvent event) {
        closedEvents.incrementAndGet();
      }

      public void connectionErrorOccurred(ConnectionEvent event) {
      }
    });
    try {
      long id1;
      try (Connection c1 = pc.getConnection()) {
        id1 = dirtySession(c1);
      }
      eq("connectionClosed events after the logical close (connection handed back)", 1, closedEvents.get());
      try (Connection c2 = pc.getConnection()) { // MysqlPooledConnection: resetServerState() = COM_RESET_CONNECTION
        eq("CONNECTION_ID() of the reused connection", id1, scalarLong(c2, "SELECT CONNECTION_ID()"));
        eq("user variable after reset", null, scalar(c2, "SELECT @pool_marker"));
        expectError("temporary table after reset", 1146, "42S02", () -> scalar(c2, "SELECT COUNT(*) FROM t_pool_tmp"));
        truth("autocommit back on", c2.getAutoCommit());
        eq("@@autocommit", 1L, scalarLong(c2, "SELECT @@autocommit"));
        eq("uncommitted row rolled back", 0L, count(c2, "t_pool"));
        exec(c2, "INSERT INTO t_pool VALUES (2)");
        eq("reused connection works (autocommit insert)", 1L, count(c2, "t_pool"));
        eq("database kept", db, scalarString(c2, "SELECT DATABASE()"));
      }
      // the driver's reset also on a plain connection
      try (Connection c = open()) {
        long id = dirtySession(c);
        c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).resetServerState();
        eq("CONNECTION_ID() after resetServerState()", id, scalarLong(c, "SELECT CONNECTION_ID()"));
        eq("user variable after resetServerState()", null, scalar(c, "SELECT @pool_marker"));
        expectError("temporary table after resetServerState()", 1146, "42S02", () -> scalar(c, "SELECT COUNT(*) FROM t_pool_tmp"));
        truth("autocommit on after resetServerState()", c.getAutoCommit());
        eq("uncommitted row rolled back", 1L, count(c, "t_pool"));
      }
    } finally {
      pc.close();
    }
    return "Connector/J has no in-JVM pool; its pooling building block MysqlConnectionPoolDataSource/MysqlPooledConnection"
        + " (what app-server pools use): logical close fires connectionClosed, the next getConnection() calls"
        + " resetServerState() = COM_RESET_CONNECTION: same CONNECTION_ID(), @user variable NULL, temporary table gone (1146),"
        + " open transaction rolled back, autocommit on, connection works; JdbcConnection.resetServerState() directly: the same";
  }

  private String poolReuseMariaDb() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_pool (id INT PRIMARY KEY)");
    }
    List<String> notes = new ArrayList<>();
    for (String opts : new String[] {"maxPoolSize=1&minPoolSize=1", "maxPoolSize=1&minPoolSize=1&useResetConnection=true"}) {
      try (Connection c = open()) {
        exec(c, "DELETE FROM t_pool");
      }
      try (org.mariadb.jdbc.MariaDbPoolDataSource ds = new org.mariadb.jdbc.MariaDbPoolDataSource(url(opts))) {
        ds.setUser(nativeUser);
        ds.setPassword(nativePassword);
        // round 1: another current database and isolation level
        long id1;
        try (Connection c1 = ds.getConnection()) {
          id1 = scalarLong(c1, "SELECT CONNECTION_ID()");
          c1.setCatalog("information_schema");
          c1.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
          eq(opts + ": DATABASE() after setCatalog", "information_schema", scalarString(c1, "SELECT DATABASE()"));
        }
        try (Connection c2 = ds.getConnection()) {
          eq(opts + ": CONNECTION_ID() of the reused connection", id1, scalarLong(c2, "SELECT CONNECTION_ID()"));
          eq(opts + ": database restored", db, scalarString(c2, "SELECT DATABASE()"));
          eq(opts + ": isolation restored", "REPEATABLE-READ", scalarString(c2, "SELECT @@transaction_isolation"));
        }
        // round 2: user variable, temporary table, open transaction
        try (Connection c1 = ds.getConnection()) {
          eq(opts + ": dirtied connection is the pooled one", id1, dirtySession(c1));
        }
        try (Connection c2 = ds.getConnection()) {
          eq(opts + ": CONNECTION_ID() of the reused connection", id1, scalarLong(c2, "SELECT CONNECTION_ID()"));
          truth(opts + ": autocommit back on", c2.getAutoCommit());
          eq(opts + ": @@autocommit", 1L, scalarLong(c2, "SELECT @@autocommit"));
          eq(opts + ": uncommitted row rolled back", 0L, count(c2, "t_pool"));
          exec(c2, "INSERT INTO t_pool VALUES (2)");
          eq(opts + ": reused connection works", 1L, count(c2, "t_pool"));
          Object marker = scalar(c2, "SELECT @pool_marker");
          String tmp;
          try {
            tmp = "temporary table kept (" + scalar(c2, "SELECT COUNT(*) FROM t_pool_tmp") + " row)";
          } catch (SQLException e) {
            tmp = "temporary table gone (" + e.getErrorCode() + ")";
          }
          notes.add(opts + ": @pool_marker=" + marker + ", " + tmp);
        }
      }
    }
    return "MariaDbPoolDataSource(maxPoolSize=1): the connection taken again is the same (CONNECTION_ID()), works, and the"
        + " driver's reset ran: database and isolation level restored, open transaction rolled back, autocommit on."
        + " MariaDB Connector/J sends COM_RESET_CONNECTION only to MariaDB servers >= 10.3.13, even with"
        + " useResetConnection=true (MySQL bug 97633), so against Turnstile, as against MySQL 8, user variables and"
        + " temporary tables survive: " + notes;
  }

  // ---------------------------------------------------------------- batch

  private String batch() throws Exception {
    List<String> done = new ArrayList<>();
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_batch (id INT PRIMARY KEY, v VARCHAR(20), n INT)");
    }
    String[] modes = {
        "rewriteBatchedStatements=false", "rewriteBatchedStatements=true",
        "rewriteBatchedStatements=false&" + SERVER_PS, "rewriteBatchedStatements=true&" + SERVER_PS,
    };
    int base = 0;
    for (String mode : modes) {
      boolean rewrite = mode.contains("rewriteBatchedStatements=true");
      // MariaDB Connector/J prepares client-side whenever rewriteBatchedStatements is on
      boolean server = mode.contains(SERVER_PS) && (mysql || !rewrite);
      try (Connection c = open(mode)) {
        // prepared INSERT batch
        int n = 6;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_batch (id, v, n) VALUES (?, ?, ?)")) {
          eq(mode + ": server-side prepared (" + ps.getClass().getName() + ")", server, isServerPrepared(ps));
          for (int i = 1; i <= n; i++) {
            ps.setInt(1, base + i);
            ps.setString(2, "row \uD83D\uDE00 " + i);
            ps.setInt(3, i % 2);
            ps.addBatch();
          }
          int[] counts = ps.executeBatch();
          eq(mode + ": number of counts", n, counts.length);
          for (int k : counts) {
            // Connector/J reports SUCCESS_NO_INFO for every row of a batch it rewrote into one multi-row INSERT
            truth(mode + ": INSERT batch counts " + Arrays.toString(counts),
                k == 1 || (rewrite && k == Statement.SUCCESS_NO_INFO));
          }
          if (!rewrite) eq(mode + ": INSERT batch counts", new int[] {1, 1, 1, 1, 1, 1}, counts);
          done.add(mode + (server ? " (server-side)" : " (client-side)") + " INSERT " + Arrays.toString(counts));
        }
        eq(mode + ": rows written by the batch", (long) n,
            scalarLong(c, "SELECT COUNT(*) FROM t_batch WHERE id > " + base + " AND id <= " + (base + n) + " AND v LIKE 'row \uD83D\uDE00 %'"));
        // prepared UPDATE batch (Connector/J with rewrite: one multi-statement round trip when > 3)
        try (PreparedStatement ps = c.prepareStatement("UPDATE t_batch SET n = n + 10 WHERE id > ? AND id <= ? AND n = ?")) {
          int[][] args = {{base, base + n, 0}, {base, base + n, 1}, {base, base + 3, 10}, {base, base + n, 99}};
          for (int[] a : args) {
            ps.setInt(1, a[0]);
            ps.setInt(2, a[1]);
            ps.setInt(3, a[2]);
            ps.addBatch();
          }
          int[] counts = ps.executeBatch();
          eq(mode + ": UPDATE batch counts", new int[] {3, 3, 1, 0}, counts);
          done.add("UPDATE " + Arrays.toString(counts));
        }
        // Statement batch with mixed statements
        try (Statement s = c.createStatement()) {
          s.addBatch("INSERT INTO t_batch (id, v, n) VALUES (" + (base + 50) + ", 'x', 0)");
          s.addBatch("UPDATE t_batch SET v = 'upd' WHERE id IN (" + (base + 1) + ", " + (base + 2) + ")");
          s.addBatch("DELETE FROM t_batch WHERE id = " + (base + 50));
          s.addBatch("DELETE FROM t_batch WHERE id = -1");
          int[] counts = s.executeBatch();
          eq(mode + ": Statement batch counts", new int[] {1, 2, 1, 0}, counts);
          done.add("Statement " + Arrays.toString(counts));
        }
        // a duplicate key inside a batch
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_batch (id, v, n) VALUES (?, 'd', 0)")) {
          int[] ids = {base + 20, base + 1, base + 21};
          for (int id : ids) {
            ps.setInt(1, id);
            ps.addBatch();
          }
          try {
            ps.executeBatch();
            throw new AssertionError(mode + ": a batch with a duplicate key succeeded");
          } catch (BatchUpdateException e) {
            SQLException cause = e.getNextException() != null ? e.getNextException() : e;
            truth(mode + ": batch error is 1062/23000: " + describe(e),
                e.getErrorCode() == 1062 || cause.getErrorCode() == 1062
                    || (e.getCause() instanceof SQLException && ((SQLException) e.getCause()).getErrorCode() == 1062));
            truth(mode + ": SQLState 23000: " + describe(e), "23000".equals(e.getSQLState()) || "23000".equals(cause.getSQLState()));
            done.add("dup -> BatchUpdateException " + e.getErrorCode() + " counts " + Arrays.toString(e.getUpdateCounts()));
          }
          long first = scalarLong(c, "SELECT COUNT(*) FROM t_batch WHERE id = " + (base + 20));
          if (rewrite) {
            // one multi-row INSERT: the statement fails as a whole
            eq(mode + ": rows of the rewritten multi-row INSERT that hit the duplicate", 0L, first);
          } else {
            eq(mode + ": the row before the duplicate is written (autocommit)", 1L, first);
          }
        }
        eq(mode + ": connection still works", 1L, scalarLong(c, "SELECT 1"));
      }
      base += 100;
    }
    // generated keys of a batch
    try (Connection c = open("rewriteBatchedStatements=true")) {
      exec(c, "CREATE TABLE t_batch_ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT)");
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_batch_ai (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
        for (int i = 0; i < 3; i++) {
          ps.setInt(1, i);
          ps.addBatch();
        }
        ps.executeBatch();
        List<Long> keys = new ArrayList<>();
        try (ResultSet k = ps.getGeneratedKeys()) {
          while (k.next()) keys.add(k.getLong(1));
        }
        truth("generated keys of the batch: " + keys, !keys.isEmpty() && keys.get(0) == 1L);
        if (mysql) eq("generated keys of the batch", List.of(1L, 2L, 3L), keys);
        done.add("batch generated keys " + keys);
      }
      eq("rows", 3L, count(c, "t_batch_ai"));
    }
    return "addBatch/executeBatch with " + String.join("; ", done);
  }

  // ---------------------------------------------------------------- metadata

  private String metadata() throws Exception {
    try (Connection c = open()) {
      exec(c, "CREATE TABLE t_meta (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, name VARCHAR(40) NOT NULL DEFAULT 'n',"
          + " price DECIMAL(10,2), created DATETIME, note TEXT, PRIMARY KEY (id), UNIQUE KEY uq_meta_name (name), KEY ix_meta_price (price))");
      exec(c, "CREATE TABLE t_meta2 (a INT, b INT, PRIMARY KEY (a, b))");
    }
    List<String> detail = new ArrayList<>();
    String[] variants = mysql ? new String[] {"", "useInformationSchema=true", "databaseTerm=SCHEMA"} : new String[] {"", "useCatalogTerm=Schema"};
    for (String v : variants) {
      try (Connection c = open(v)) {
        DatabaseMetaData md = c.getMetaData();
        String label = v.isEmpty() ? "defaults" : v;
        boolean schemaTerm = v.contains("databaseTerm=SCHEMA") || v.contains("useCatalogTerm=Schema");
        String cat = schemaTerm ? null : db;
        String sch = schemaTerm ? db : null;
        if (v.isEmpty()) {
          eq("getDatabaseProductName", "MySQL", md.getDatabaseProductName());
          String pv = md.getDatabaseProductVersion();
          truth("getDatabaseProductVersion " + pv + " should be 8.0.36-turnstile", pv.startsWith("8.0.36"));
          eq("getDatabaseMajorVersion", 8, md.getDatabaseMajorVersion());
          eq("getDatabaseMinorVersion", 0, md.getDatabaseMinorVersion());
          eq("getUserName", nativeUser, md.getUserName().replaceAll("@.*", ""));
          detail.add("product " + md.getDatabaseProductName() + " " + pv + ", driver " + md.getDriverName() + " " + md.getDriverVersion());
          // the database is listed
          Set<String> dbs = new HashSet<>();
          try (ResultSet rs = schemaTerm ? md.getSchemas() : md.getCatalogs()) {
            while (rs.next()) dbs.add(rs.getString(1));
          }
          truth("getCatalogs lists " + db + ": " + dbs, dbs.contains(db));
        }
        // getTables
        List<String> tables = new ArrayList<>();
        try (ResultSet rs = md.getTables(cat, sch, "t_meta%", new String[] {"TABLE"})) {
          while (rs.next()) {
            eq(label + ": TABLE_TYPE", "TABLE", rs.getString("TABLE_TYPE"));
            eq(label + ": TABLE_CAT/SCHEM", db, schemaTerm ? rs.getString("TABLE_SCHEM") : rs.getString("TABLE_CAT"));
            tables.add(rs.getString("TABLE_NAME"));
          }
        }
        eq(label + ": getTables t_meta%", List.of("t_meta", "t_meta2"), tables);
        // getColumns
        List<String> cols = new ArrayList<>();
        try (ResultSet rs = md.getColumns(cat, sch, "t_meta", "%")) {
          while (rs.next()) {
            cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE") + ":" + rs.getString("TYPE_NAME") + ":"
                + rs.getInt("COLUMN_SIZE") + ":" + rs.getInt("NULLABLE") + ":" + rs.getString("IS_AUTOINCREMENT") + ":"
                + rs.getInt("ORDINAL_POSITION"));
            if (rs.getString("COLUMN_NAME").equals("price")) eq(label + ": DECIMAL_DIGITS of price", 2, rs.getInt("DECIMAL_DIGITS"));
            if (rs.getString("COLUMN_NAME").equals("name")) {
              String def = rs.getString("COLUMN_DEF");
              truth(label + ": COLUMN_DEF of name is " + def, "n".equals(def) || "'n'".equals(def));
            }
          }
        }
        eq(label + ": getColumns(t_meta)", List.of(
            "id:" + Types.BIGINT + ":BIGINT UNSIGNED:20:0:YES:1",
            "name:" + Types.VARCHAR + ":VARCHAR:40:0:NO:2",
            "price:" + Types.DECIMAL + ":DECIMAL:10:1:NO:3",
            "created:" + Types.TIMESTAMP + ":DATETIME:19:1:NO:4",
            "note:" + Types.LONGVARCHAR + ":TEXT:65535:1:NO:5"), cols);
        // getPrimaryKeys
        List<String> pk = new ArrayList<>();
        try (ResultSet rs = md.getPrimaryKeys(cat, sch, "t_meta2")) {
          while (rs.next()) pk.add(rs.getString("COLUMN_NAME") + "#" + rs.getInt("KEY_SEQ") + "@" + rs.getString("PK_NAME"));
        }
        eq(label + ": getPrimaryKeys(t_meta2)", List.of("a#1@PRIMARY", "b#2@PRIMARY"), pk);
        // getIndexInfo
        List<String> idx = new ArrayList<>();
        try (ResultSet rs = md.getIndexInfo(cat, sch, "t_meta", false, false)) {
          while (rs.next()) {
            idx.add(rs.getString("INDEX_NAME") + ":" + rs.getString("COLUMN_NAME") + ":" + (rs.getBoolean("NON_UNIQUE") ? "nonunique" : "unique"));
          }
        }
        java.util.Collections.sort(idx);
        eq(label + ": getIndexInfo(t_meta)", List.of("PRIMARY:id:unique", "ix_meta_price:price:nonunique", "uq_meta_name:name:unique"), idx);
        List<String> uniq = new ArrayList<>();
        try (ResultSet rs = md.getIndexInfo(cat, sch, "t_meta", true, false)) {
          while (rs.next()) uniq.add(rs.getString("INDEX_NAME"));
        }
        java.util.Collections.sort(uniq);
        eq(label + ": getIndexInfo(t_meta, unique only)", List.of("PRIMARY", "uq_meta_name"), uniq);
        // result set metadata of a query
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, name, price, created FROM t_meta")) {
          java.sql.ResultSetMetaData rm = rs.getMetaData();
          eq(label + ": column count", 4, rm.getColumnCount());
          eq(label + ": column 1 label", "id", rm.getColumnLabel(1));
          eq(label + ": column 1 table", "t_meta", rm.getTableName(1));
          eq(label + ": column 1 type", Types.BIGINT, rm.getColumnType(1));
          truth(label + ": column 1 is auto increment", rm.isAutoIncrement(1));
          truth(label + ": column 1 is unsigned", !rm.isSigned(1));
          eq(label + ": column 3 precision", 10, rm.getPrecision(3));
          eq(label + ": column 3 scale", 2, rm.getScale(3));
          eq(label + ": column 2 nullable", java.sql.ResultSetMetaData.columnNoNulls, rm.isNullable(2));
        }
        detail.add(label + ": getTables, getColumns " + cols.size() + ", getPrimaryKeys " + pk + ", getIndexInfo " + idx);
      }
    }
    return "DatabaseMetaData: " + String.join("; ", detail) + "; ResultSetMetaData of a query (type, table, auto-increment, unsigned, precision, scale, nullability)";
  }

  // ---------------------------------------------------------------- change user (Connector/J)

  private String changeUser() throws Exception {
    try (Connection c = open()) {
      long id = scalarLong(c, "SELECT CONNECTION_ID()");
      exec(c, "SET @cu_marker = 7");
      com.mysql.cj.jdbc.JdbcConnection jc = c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class);
      jc.changeUser(sha2User, sha2Password);
      String cu = scalarString(c, "SELECT CURRENT_USER()");
      truth("CURRENT_USER() after changeUser is " + cu, cu.startsWith(sha2User + "@"));
      eq("CONNECTION_ID() after changeUser", id, scalarLong(c, "SELECT CONNECTION_ID()"));
      eq("user variable after changeUser", null, scalar(c, "SELECT @cu_marker"));
      eq("database after changeUser", db, scalarString(c, "SELECT DATABASE()"));
      jc.changeUser(nativeUser, nativePassword);
      cu = scalarString(c, "SELECT CURRENT_USER()");
      truth("CURRENT_USER() after changing back is " + cu, cu.startsWith(nativeUser + "@"));
      eq("SELECT 1 as the native user again", 1L, scalarLong(c, "SELECT 1"));
      try {
        jc.changeUser(nativeUser, "wrong-password");
        throw new AssertionError("changeUser with a wrong password succeeded");
      } catch (SQLException e) {
        eq("changeUser with a wrong password: error code (" + e.getMessage() + ")", 1045, e.getErrorCode());
      }
      return "JdbcConnection.changeUser (COM_CHANGE_USER) native -> caching_sha2_password -> native on one connection:"
          + " CURRENT_USER() follows, CONNECTION_ID() kept, user variables cleared, database kept; a wrong password gets 1045";
    }
  }
}
