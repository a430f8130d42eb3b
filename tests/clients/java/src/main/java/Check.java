// MySQL Connector/J against `cdcharness serve` (run by tests/clients/java.sh).
//
// usage: java Check SHA2_PORT NATIVE_PORT
//
// Prints "PASS name" / "FAIL name: detail" per check. Connector/J is what
// Debezium and Maxwell use for their JDBC connections; connecting runs its
// session-variable probe, SET NAMES etc.
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

public class Check {
    static final String UUID = "5f4b2a10-8c3d-11ee-b9d1-0242ac120002";

    interface Body {
        String run() throws Exception; // null = pass, else the failure detail
    }

    static void check(String name, Body b) {
        String r;
        try {
            r = b.run();
        } catch (Exception e) {
            r = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println(r == null ? "PASS " + name : "FAIL " + name + ": " + r);
    }

    static String eq(Object got, Object want) {
        return Objects.equals(got, want) ? null : "got " + got + ", want " + want;
    }

    static Connection connect(int port, boolean tls, String password, String extra) throws SQLException {
        String url = "jdbc:mysql://127.0.0.1:" + port + "/?connectTimeout=30000&allowPublicKeyRetrieval=true"
                + "&sslMode=" + (tls ? "REQUIRED" : "DISABLED") + extra;
        return DriverManager.getConnection(url, "cdch", password);
    }

    static List<List<String>> rows(Connection c, String sql) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++)
                    row.add(rs.getString(i));
                out.add(row);
            }
        }
        return out;
    }

    static void queries(String label, int port, boolean tls) throws Exception {
        // Debezium's URL options
        String debezium = "&useInformationSchema=true&nullCatalogMeansCurrent=false&useUnicode=true"
                + "&characterEncoding=UTF-8&characterSetResults=UTF-8&zeroDateTimeBehavior=CONVERT_TO_NULL";
        Connection c;
        try {
            c = connect(port, tls, "cdch", debezium);
            System.out.println("PASS " + label + ": connect (Connector/J session probe)");
        } catch (SQLException e) {
            System.out.println("FAIL " + label + ": connect: " + e.getErrorCode() + " " + e.getMessage());
            return;
        }
        check(label + ": identity", () -> {
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT @@version, @@server_id, @@server_uuid, @@GLOBAL.GTID_MODE")) {
                rs.next();
                return eq(List.of(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getString(4)),
                          List.of("8.0.36", 7L, UUID, "ON"));
            }
        });
        check(label + ": Debezium validation queries", () -> eq(List.of(
                rows(c, "SHOW GLOBAL VARIABLES LIKE 'binlog_format'").get(0).get(1),
                rows(c, "SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'").get(0).get(1),
                rows(c, "SHOW GLOBAL VARIABLES LIKE 'GTID_MODE'").get(0).get(1),
                rows(c, "SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')").size()),
                List.of("ROW", "FULL", "ON", 2)));
        check(label + ": SHOW BINARY LOG STATUS falls back to SHOW MASTER STATUS", () -> {
            try {
                rows(c, "SHOW BINARY LOG STATUS");
                return "SHOW BINARY LOG STATUS answered on 8.0.36";
            } catch (SQLException e) {
                if (e.getErrorCode() != 1064)
                    return "error " + e.getErrorCode();
            }
            List<String> st = rows(c, "SHOW MASTER STATUS").get(0);
            List<String> logs = rows(c, "SHOW BINARY LOGS").get(0);
            return eq(List.of(st.get(0), st.get(1), st.get(4)), List.of(logs.get(0), logs.get(1), UUID + ":1-7"));
        });
        check(label + ": Debezium snapshot statements", () -> {
            for (String sql : new String[] {"SET SESSION lock_wait_timeout=10", "SET SESSION innodb_lock_wait_timeout=10",
                     "FLUSH TABLES WITH READ LOCK", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                     "START TRANSACTION WITH CONSISTENT SNAPSHOT", "UNLOCK TABLES", "COMMIT"}) {
                try (Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            }
            return eq(List.of(rows(c, "SHOW DATABASES").size() >= 5,
                              rows(c, "SHOW FULL TABLES IN `shop` where Table_Type = 'BASE TABLE'").size(),
                              rows(c, "SHOW CREATE TABLE `shop`.`orders`").get(0).get(0),
                              rows(c, "SELECT schema_name, default_character_set_name, default_collation_name FROM "
                                      + "information_schema.schemata WHERE schema_name = 'shop'").get(0).get(1),
                              rows(c, "SHOW TABLE STATUS FROM shop LIKE 'orders'").get(0).get(0)),
                      List.of(true, 2, "orders", "utf8mb4", "orders"));
        });
        check(label + ": Maxwell queries", () -> eq(List.of(
                rows(c, "SHOW VARIABLES LIKE 'log_bin'").get(0).get(1),
                rows(c, "SELECT @@server_id as server_id").get(0).get(0),
                rows(c, "select @@lower_case_table_names").get(0).get(0)),
                List.of("ON", "7", "0")));
        check(label + ": server-side prepared statement", () -> {
            try (Connection p = connect(port, tls, "cdch", "&useServerPrepStmts=true&cachePrepStmts=false");
                 PreparedStatement ps = p.prepareStatement("SELECT COLUMN_NAME, ORDINAL_POSITION FROM "
                         + "INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
                ps.setString(1, "shop");
                ps.setString(2, "customers");
                List<String> got = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next())
                        got.add(rs.getString(1) + ":" + rs.getInt(2));
                }
                return eq(got, List.of("id:1", "email:2"));
            }
        });
        check(label + ": TLS state", () -> eq(!rows(c, "SHOW STATUS LIKE 'Ssl_cipher'").get(0).get(1).isEmpty(), tls));
        check(label + ": unknown statement -> 1064", () -> {
            try (Statement s = c.createStatement()) {
                s.execute("FROBNICATE the server"); // execute: executeQuery refuses non-SELECTs client-side
            } catch (SQLException e) {
                return eq(List.of(e.getErrorCode(), e.getMessage().contains("'FROBNICATE the server'")), List.of(1064, true));
            }
            return "no error";
        });
        check(label + ": KILL", () -> {
            try (Connection o = connect(port, tls, "cdch", "")) {
                long id = Long.parseLong(rows(o, "SELECT CONNECTION_ID()").get(0).get(0));
                try (Statement s = c.createStatement()) {
                    s.execute("KILL " + id);
                }
                try {
                    rows(o, "SELECT 1");
                } catch (SQLException e) {
                    return null;
                }
                return "the killed connection still answered";
            }
        });
        c.close();
        check(label + ": wrong password -> 1045", () -> {
            try (Connection bad = connect(port, tls, "wrong", "")) {
                return "connected";
            } catch (SQLException e) {
                return eq(List.of(e.getErrorCode(), e.getMessage()),
                          List.of(1045, "Access denied for user 'cdch'@'127.0.0.1' (using password: YES)"));
            }
        });
    }

    public static void main(String[] args) throws Exception {
        int sha2 = Integer.parseInt(args[0]), nat = Integer.parseInt(args[1]);
        queries("sha2, no TLS", sha2, false); // fresh server: full authentication, RSA key retrieved
        try (Connection c = connect(sha2, true, "cdch", ""); Statement s = c.createStatement()) {
            s.execute("FLUSH PRIVILEGES");
        }
        queries("sha2, TLS", sha2, true);           // full authentication over TLS
        queries("sha2, no TLS again", sha2, false); // fast path
        queries("native, no TLS", nat, false);
        queries("native, TLS", nat, true);
    }
}
