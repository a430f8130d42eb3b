package cdch;

// cdcharness adapter for Canal (com.alibaba.otter:canal.parse), embedded as in Canal's own
// MysqlDumpTest (parse/src/test/java/com/alibaba/otter/canal/parse/inbound/mysql/MysqlDumpTest.java):
// a MysqlEventParser with the master's AuthenticationInfo, an EntryPosition(file, pos), the slave
// id, tsdb off (table metadata from `show create table` on Canal's meta connection), an in-memory
// log-position manager and an EventSink whose sink(List<Entry>) prints each RowChange row as a
// canonical line (consumers/README.md "Output").
//
// Values: Canal hands every column over as a string plus sqlType (java.sql.Types, after its own
// BLOB/CLOB fix-up) and mysqlType (the column type from `show create table`). They are mapped
// back by type: integers/YEAR/BIT -> numbers (decimal strings beyond 64-bit), DECIMAL -> string,
// FLOAT/DOUBLE -> numbers, temporals as Canal prints them, BLOB (binary: Canal keeps the bytes as
// an ISO-8859-1 string) -> {"base64"} or, for geometry types, {"srid","wkb"}, JSON -> the value.
// ENUM comes out of Canal as its index and SET as its bitmap (RowsLogBuffer: ENUM -> INTEGER,
// SET -> BIT); printed as such (the harness accepts indexes/bitmaps).
//
// Errors: Canal never stops by itself; AbstractEventParser's parse thread logs "dump address ...
// has an error, retrying", sleeps 10-20 s and dumps again from its last position; a failure in
// the parallel parser threads is only logged (ERROR) until the next event is published. The
// adapter prints every ERROR Canal logs during a cell as {"kind":"error"} (ErrorLines, the
// operator's view) and lets Canal go on retrying, as a Canal instance would.
//
// Session mode (CDCH_SESSION=1): one JVM, a fresh MysqlEventParser per cell (consumers/README.md).

import cdch.common.Json;
import cdch.common.Out;
import cdch.common.Session;
import cdch.common.UserConfig;
import com.alibaba.otter.canal.parse.inbound.ErosaConnection;
import com.alibaba.otter.canal.parse.inbound.mysql.MysqlConnection;
import com.alibaba.otter.canal.parse.inbound.mysql.MysqlEventParser;
import com.alibaba.otter.canal.parse.index.MemoryLogPositionManager;
import com.alibaba.otter.canal.parse.support.AuthenticationInfo;
import com.alibaba.otter.canal.protocol.CanalEntry.Column;
import com.alibaba.otter.canal.protocol.CanalEntry.Entry;
import com.alibaba.otter.canal.protocol.CanalEntry.EntryType;
import com.alibaba.otter.canal.protocol.CanalEntry.EventType;
import com.alibaba.otter.canal.protocol.CanalEntry.Header;
import com.alibaba.otter.canal.protocol.CanalEntry.Pair;
import com.alibaba.otter.canal.protocol.CanalEntry.RowChange;
import com.alibaba.otter.canal.protocol.CanalEntry.RowData;
import com.alibaba.otter.canal.protocol.position.EntryPosition;
import com.alibaba.otter.canal.sink.AbstractCanalEventSink;

import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

public final class Main {
    private static volatile Cell current;

    /** A cell is running and not being stopped (ErrorLines forwards Canal's ERROR logs then). */
    static boolean cellActive() {
        Cell c = current;
        return c != null && !c.stopped;
    }

    public static void main(String[] args) throws Exception {
        if (Session.requested()) {
            Session.serve("adapter: ", new Cells());
            System.exit(0);
        }
        Cell cell = new Cell(System.getenv(), null);
        Runtime.getRuntime().addShutdownHook(new Thread(cell::stop));
        try {
            cell.start();
        } catch (UserConfig.Error ex) {
            Out.configError(ex.getMessage());
            System.exit(UserConfig.EXIT_CONFIG_ERROR);
        }
        // Canal's parse thread runs until stopped (SIGTERM); the main thread just waits.
        while (true) {
            Thread.sleep(3_600_000L);
        }
    }

    /** Session mode: one Cell at a time, started on the protocol's thread (Canal runs its own). */
    static final class Cells implements Session.Cells {
        Cell cur;

        public void start(String id, Map<String, String> env) {
            close();
            cur = new Cell(env, id);
            try {
                cur.start();
            } catch (UserConfig.Error ex) {
                Out.configError(ex.getMessage());
                Out.ended(id, UserConfig.EXIT_CONFIG_ERROR);
                cur = null;
            } catch (Exception ex) {
                Out.error("canal start: " + ex);
                Out.ended(id, 1);
                cur = null;
            }
        }

        public boolean stop(String id) {
            close();
            return true;
        }

        public void close() {
            if (cur != null) {
                cur.stop();
                cur = null;
            }
        }
    }

    /** One run of a fresh MysqlEventParser against one fake primary. */
    static final class Cell {
        final Map<String, String> env;
        final String id;
        MysqlEventParser parser;
        volatile MysqlConnection dumpConn;
        volatile boolean ready;
        volatile boolean stopped;

        Cell(Map<String, String> env, String id) {
            this.env = env;
            this.id = id;
        }

        String env(String k, String d) {
            String v = env.get(k);
            return v == null || v.isEmpty() ? d : v;
        }

        /** Starts the parser; a configuration it cannot honour: UserConfig.Error, nothing started. */
        void start() throws UserConfig.Error {
            // the harness's settings, the adapter's and the user's instance.properties (CDCH_CONFIG,
            // InstanceConfig), reported once before ready
            Map<String, String> harness = new LinkedHashMap<>();
            String host = env("CDCH_HOST", "127.0.0.1"), port = env("CDCH_PORT", "3306");
            harness.put(InstanceConfig.P + "master.address", host + ":" + port);
            harness.put(InstanceConfig.P + "dbUsername", env("CDCH_USER", "root"));
            harness.put(InstanceConfig.P + "dbPassword", env("CDCH_PASSWORD", ""));
            harness.put(InstanceConfig.P + "mysql.slaveId", env("CDCH_SERVER_ID", "65535"));
            String gtidSet = env.get("CDCH_GTID_SET");
            if (gtidSet != null) {
                harness.put(InstanceConfig.P + "gtidon", "true");
                harness.put(InstanceConfig.P + "master.gtid", gtidSet);
            } else {
                harness.put(InstanceConfig.P + "gtidon", "false");
                harness.put(InstanceConfig.P + "master.journal.name", env("CDCH_START_FILE", ""));
                harness.put(InstanceConfig.P + "master.position", env("CDCH_START_POS", "4"));
            }
            InstanceConfig config = InstanceConfig.resolve(env, harness);
            current = this;
            parser = new MysqlEventParser() {
                @Override
                protected ErosaConnection buildErosaConnection() {
                    ErosaConnection c = super.buildErosaConnection();
                    if (c instanceof MysqlConnection) {
                        dumpConn = (MysqlConnection) c;
                    }
                    return c;
                }

                @Override
                protected boolean processTableMeta(EntryPosition position) {
                    boolean ok = super.processTableMeta(position);
                    // the start position is known; the next step is COM_BINLOG_DUMP
                    if (ok && !ready && !stopped) {
                        ready = true;
                        Out.ready();
                    }
                    return ok;
                }
            };
            parser.setDestination("cdch");
            InstanceConfig.utf8(parser);   // setConnectionCharsetStd (1.1.5+) / setConnectionCharset(Charset)
            parser.setSlaveId(Long.parseLong(env("CDCH_SERVER_ID", "65535")));
            parser.setDetectingEnable(false);
            AuthenticationInfo master = new AuthenticationInfo(new InetSocketAddress(host, Integer.parseInt(port)),
                    env("CDCH_USER", "root"), env("CDCH_PASSWORD", ""));
            parser.setMasterInfo(master);
            EntryPosition start;
            if (gtidSet != null) {
                start = new EntryPosition();
                start.setGtid(gtidSet);
                parser.setIsGTIDMode(true);
            } else {
                start = new EntryPosition(env("CDCH_START_FILE", ""), Long.parseLong(env("CDCH_START_POS", "4")));
                parser.setIsGTIDMode(false);
            }
            parser.setMasterPosition(start);
            parser.setEnableTsdb(false);
            config.apply(parser, master);   // the user's settings win over the adapter's above
            Out.config(config.merged.effective, config.merged.kept);
            MemoryLogPositionManager positions = new MemoryLogPositionManager();
            positions.start();   // the parser does not start it (its map is made in start())
            parser.setLogPositionManager(positions);
            // dump failures reach ParserExceptionHandler too, but Canal has already logged them
            // at ERROR ("dump address ... has an error, retrying"): ErrorLines prints those.
            parser.setEventSink(new AbstractCanalEventSink<List<Entry>>() {
                public boolean sink(List<Entry> entries, InetSocketAddress remote, String destination) {
                    if (stopped) {
                        return false;
                    }
                    for (Entry entry : entries) {
                        try {
                            entry(entry);
                        } catch (Exception ex) {
                            Out.error("adapter: " + ex);
                            ex.printStackTrace();
                        }
                    }
                    return true;
                }
            });
            parser.start();
        }

        void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            // MysqlEventParser.stop() interrupts the parse thread and joins it; the dump connection
            // blocks in a socket read, so close it first (what the parse thread's finally does).
            MysqlConnection c = dumpConn;
            Thread t = new Thread(() -> {
                try {
                    if (c != null) {
                        c.disconnect();
                    }
                } catch (Throwable ignored) {
                }
                try {
                    if (parser != null && parser.isStart()) {
                        parser.stop();
                    }
                } catch (Throwable ex) {
                    System.err.println("adapter: parser stop: " + ex);
                }
            }, "cdch-stop");
            t.setDaemon(true);
            t.start();
            try {
                t.join(4000);
            } catch (InterruptedException ignored) {
            }
            if (t.isAlive()) {
                System.err.println("adapter: Canal parser did not stop within 4 s");
            }
        }
    }

    static void entry(Entry entry) throws Exception {
        if (entry.getEntryType() != EntryType.ROWDATA) {
            return;
        }
        RowChange rc = RowChange.parseFrom(entry.getStoreValue());
        EventType et = rc.getEventType();
        String op;
        switch (et) {
            case INSERT: op = "insert"; break;
            case UPDATE: op = "update"; break;
            case DELETE: op = "delete"; break;
            default: return;
        }
        if (rc.getIsDdl()) {
            return;
        }
        Header h = entry.getHeader();
        String gtid = h.getGtid();
        if (gtid == null || gtid.isEmpty()) {
            gtid = null;
            for (Pair p : h.getPropsList()) {
                if ("curtGtid".equals(p.getKey()) && !p.getValue().isEmpty()) {
                    gtid = p.getValue();
                }
            }
        }
        for (RowData row : rc.getRowDatasList()) {
            StringBuilder sb = new StringBuilder();
            sb.append("{\"op\":\"").append(op).append("\",\"db\":").append(Json.quote(h.getSchemaName()))
              .append(",\"table\":").append(Json.quote(h.getTableName()))
              .append(",\"before\":").append(op.equals("insert") ? "null" : image(row.getBeforeColumnsList()))
              .append(",\"after\":").append(op.equals("delete") ? "null" : image(row.getAfterColumnsList()))
              .append(",\"gtid\":").append(Json.quote(gtid))
              .append(",\"pos\":{\"file\":").append(Json.quote(h.getLogfileName())).append(",\"pos\":")
              .append(h.getLogfileOffset()).append("}}");
            Out.line(sb.toString());
        }
    }

    static String image(List<Column> cols) {
        StringBuilder sb = new StringBuilder("{");
        boolean first = true;
        for (Column c : cols) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            String name = c.getName().isEmpty() ? "@" + (c.getIndex() + 1) : c.getName();
            sb.append(Json.quote(name)).append(':').append(value(c));
        }
        return sb.append('}').toString();
    }

    static String baseType(String mysqlType) {
        String t = mysqlType == null ? "" : mysqlType.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < t.length() && (Character.isLetterOrDigit(t.charAt(i)) || t.charAt(i) == '_')) {
            i++;
        }
        return t.substring(0, i);
    }

    static boolean isGeometry(String b) {
        switch (b) {
            case "geometry": case "point": case "linestring": case "polygon": case "multipoint":
            case "multilinestring": case "multipolygon": case "geometrycollection": case "geomcollection":
                return true;
            default:
                return false;
        }
    }

    static String value(Column c) {
        if (c.getIsNull()) {
            return "null";
        }
        String v = c.getValue();
        String b = baseType(c.getMysqlType());
        int st = c.getSqlType();
        switch (b) {
            case "tinyint": case "smallint": case "mediumint": case "int": case "integer": case "bigint":
            case "year": case "bit": case "enum": case "set":
                return integer(v);
            case "decimal": case "numeric":
                return Json.quote(v);
            case "float": case "double": case "real":
                return number(v);
            case "json":
                return json(v);
            default:
                break;
        }
        if (isGeometry(b) || st == Types.BLOB) {
            byte[] bytes = v.getBytes(StandardCharsets.ISO_8859_1);
            if (isGeometry(b) && bytes.length >= 4) {
                return Json.geometry(bytes);
            }
            return Json.base64(bytes);
        }
        if (b.isEmpty()) {   // no table meta: go by sqlType
            switch (st) {
                case Types.TINYINT: case Types.SMALLINT: case Types.INTEGER: case Types.BIGINT: case Types.BIT:
                    return integer(v);
                case Types.REAL: case Types.DOUBLE: case Types.FLOAT:
                    return number(v);
                default:
                    break;
            }
        }
        return Json.quote(v);
    }

    static String integer(String v) {
        try {
            BigInteger b = new BigInteger(v.trim());
            return b.bitLength() <= 63 ? b.toString() : Json.quote(b.toString());
        } catch (NumberFormatException ex) {
            return Json.quote(v);
        }
    }

    static String number(String v) {
        try {
            double d = Double.parseDouble(v);
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return Json.quote(v);
            }
            Json.parse(v);   // Java's "1.0E10" is a JSON number too
            return v;
        } catch (RuntimeException ex) {
            return Json.quote(v);
        }
    }

    /** JSON text as the value when it parses, else as a string (e.g. Canal's partial-update text). */
    static String json(String v) {
        try {
            Json.parse(v);
            return v;
        } catch (RuntimeException ex) {
            return Json.quote(v);
        }
    }
}
