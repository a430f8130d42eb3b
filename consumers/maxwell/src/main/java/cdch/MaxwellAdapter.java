package cdch;

import cdch.common.Json;
import cdch.common.Out;
import cdch.common.Session;
import cdch.common.UserConfig;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.vividsolutions.jts.geom.Geometry;
import com.vividsolutions.jts.io.ByteOrderValues;
import com.vividsolutions.jts.io.WKBWriter;
import com.vividsolutions.jts.io.WKTReader;
import com.zendesk.maxwell.Maxwell;
import com.zendesk.maxwell.MaxwellConfig;
import com.zendesk.maxwell.replication.Replicator;
import com.zendesk.maxwell.schema.Database;
import com.zendesk.maxwell.schema.Schema;
import com.zendesk.maxwell.schema.Table;
import com.zendesk.maxwell.schema.columndef.ColumnDef;
import com.zendesk.maxwell.schema.columndef.GeometryColumnDef;
import com.zendesk.maxwell.schema.columndef.StringColumnDef;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs Maxwell (com.zendesk:maxwell, in-process, as `bin/maxwell` would: MaxwellConfig from
 * command-line options, producer=stdout) against the fake primary and maps the JSON it prints to
 * canonical change events (consumers/README.md "Output").
 *
 * Maxwell's own state store (`host`) is a real MariaDB server this adapter starts on a free
 * loopback port in a temporary data directory and stops on exit (also on SIGTERM). Schema is
 * captured from the replication host (the fake), as Maxwell does when no schema_host is given.
 *
 * One-shot: one cell from the environment. Session mode (CDCH_SESSION=1): one JVM and one MariaDB
 * per session, a fresh Maxwell per cell with its own schema_database (dropped after the cell), so
 * no cell sees another's stored positions.
 */
public final class MaxwellAdapter {
    static final PrintStream err = System.err;
    static final ObjectMapper mapper = new ObjectMapper();

    static volatile Cell current;          // the cell whose Maxwell prints to System.out
    static MariaDb db;

    static String jstr(String s) {
        try {
            return mapper.writeValueAsString(s);
        } catch (IOException e) {
            return "\"?\"";
        }
    }

    public static void main(String[] args) throws Exception {
        // Maxwell's StdoutProducer prints with System.out.println on its replicator thread;
        // the canonical lines go to the real stdout (Out writes to file descriptor 1 itself)
        System.setOut(new PrintStream(new LineTap(), true, "UTF-8"));
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
        Out.quoteWith(MaxwellAdapter::jstr);   // Jackson's escaping, as in the change events
        // Maxwell's WARN "Event deserialization failure." (an event skipped) -> error lines
        // while a cell runs (MaxwellLogLines); every log line still goes to stderr
        MaxwellLogLines.install(() -> {
            Cell c = current;
            return c != null && !c.stopping && !c.finished;
        });

        boolean session = Session.requested();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Cell c = current;
            if (c != null)
                c.stop(3000);
            if (db != null)
                db.stop();
        }, "cdch-shutdown"));

        long t0 = System.nanoTime();
        String stateDir = session ? null : System.getenv("CDCH_STATE_DIR");
        try {
            db = MariaDb.start(stateDir);
        } catch (Exception e) {
            Out.error("cannot start the MariaDB state store: " + e.getMessage());
            System.exit(1);
        }
        err.printf("cdch-maxwell: MariaDB state store on 127.0.0.1:%d ready in %.2f s (%s)%n", db.port,
                   (System.nanoTime() - t0) / 1e9, db.dir);

        if (!session) {
            Cell c = new Cell(null, System.getenv(), 0);
            current = c;
            int status = c.runToEnd();
            System.exit(status);
        }

        Session.serve("cdch-maxwell: ", new Cells());
        System.exit(0);
    }

    /** Session mode: one Maxwell at a time, each with its own schema_database. */
    static final class Cells implements Session.Cells {
        int seq;

        public void start(String id, Map<String, String> env) {
            Cell old = current;
            if (old != null && !old.finished) {
                old.stop(5000);
            }
            Cell c = new Cell(id, env, ++seq);
            current = c;
            c.startAsync();
        }

        public boolean stop(String id) {
            Cell c = current;
            if (c == null || !id.equals(c.id) || c.endedReported) {
                return false;
            }
            c.stop(5000);
            return true;
        }

        public void close() {
            Cell c = current;
            if (c != null)
                c.stop(5000);
        }
    }

    /* ---- one cell: one Maxwell ---------------------------------------------------------- */

    static final class StopRequested extends Exception {
        StopRequested() {
            super("stopped by the harness");
        }
    }

    static final class CellMaxwell extends Maxwell {
        final Cell cell;

        CellMaxwell(MaxwellConfig config, Cell cell) throws Exception {
            super(config);
            this.cell = cell;
        }

        @Override
        protected void onReplicatorStart() {
            cell.watchConnect(this);
        }

        Exception error() {
            return context.getError();
        }

        /**
         * Stops without Maxwell's "final heartbeat": terminate() writes a heartbeat row to the
         * state store and waits (5 s) to read it back from the binlog, which never happens when
         * the state store is not the replication source (here: MariaDB vs. the fake primary).
         */
        void stopNow() {
            Thread t = context.terminate(new StopRequested());
            if (t != null) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        Replicator replicator() {
            return replicator;
        }
    }

    static final class Cell {
        final String id;                   // null in one-shot mode
        final Map<String, String> env;
        final String schemaDb;
        volatile CellMaxwell maxwell;
        volatile boolean stopping, finished, endedReported, readySent;
        Thread thread;
        final Map<String, Map<String, String>> kinds = new HashMap<>(); // db.table -> column -> kind

        Cell(String id, Map<String, String> env, int seq) {
            this.id = id;
            this.env = env;
            this.schemaDb = seq == 0 ? "maxwell" : "maxwell_c" + seq;
        }

        /** The command-line settings the harness owns and the adapter's defaults (key -> value, in order). */
        Map<String, String> harnessSettings() {
            Map<String, String> a = new LinkedHashMap<>();
            a.put("host", "127.0.0.1");
            a.put("port", String.valueOf(db.port));
            a.put("user", MariaDb.USER);
            a.put("password", MariaDb.PASSWORD);
            a.put("schema_database", schemaDb);
            a.put("client_id", "cdcharness");
            a.put("replication_host", env.getOrDefault("CDCH_HOST", "127.0.0.1"));
            a.put("replication_port", env.getOrDefault("CDCH_PORT", "3306"));
            a.put("replication_user", env.getOrDefault("CDCH_USER", "root"));
            a.put("replication_password", env.getOrDefault("CDCH_PASSWORD", ""));
            a.put("producer", "stdout");
            a.put("output_binlog_position", "true");
            // Maxwell <= 1.2x refuses output_gtid_position without gtid_mode ("output_gtid_position
            // is only support with gtid mode"), and gtid_mode cannot start from a file:pos
            // init_position; so positions only, as such a user runs it.
            String sid = env.get("CDCH_SERVER_ID");
            if (sid != null && !sid.isEmpty())
                a.put("replica_server_id", sid);
            String file = env.get("CDCH_START_FILE");
            if (file != null && !file.isEmpty()) {
                String pos = env.getOrDefault("CDCH_START_POS", "4");
                a.put("init_position", file + ":" + (pos.isEmpty() ? "4" : pos));
            }
            return a;
        }

        /** output_nulls=false: Maxwell leaves NULL columns out of "data"; they are put back as null. */
        volatile boolean fillNulls;
        volatile List<java.util.regex.Pattern> excluded = new ArrayList<>();

        /** Creates Maxwell and runs it on this thread until it ends; returns the exit status. */
        int runToEnd() {
            String[] argv;
            MaxwellSettings settings;
            try {
                // the harness's settings, the adapter's and the user's config.properties
                // (CDCH_CONFIG, MaxwellSettings), reported once before ready
                settings = MaxwellSettings.resolve(env, harnessSettings());
                argv = settings.commandLine(db.dir);
            } catch (UserConfig.Error e) {
                finished = true;
                Out.configError(e.getMessage());
                return UserConfig.EXIT_CONFIG_ERROR;
            } catch (IOException e) {
                finished = true;
                Out.error("cannot write Maxwell's config file: " + e);
                return 1;
            }
            Out.config(settings.merged.effective, settings.merged.kept);
            err.println("cdch-maxwell: maxwell " + String.join(" ", argv).replaceAll("password=\\S*", "password=***"));
            Throwable failure = null;
            try {
                MaxwellConfig config = new MaxwellConfig(argv);
                fillNulls = !MaxwellSettings.includesNulls(config);
                excluded = MaxwellSettings.excludedColumns(config);
                maxwell = new CellMaxwell(config, this);
                if (stopping)
                    return 0;
                maxwell.run(); // Maxwell.run() logs and swallows what start() throws
                failure = maxwell.error();
            } catch (Throwable e) {
                failure = e;
            } finally {
                finished = true;
            }
            if (stopping)
                return 0;
            if (failure != null) {
                reportError(failure);
            } else {
                Out.error("maxwell stopped by itself");
            }
            return 1;
        }

        private boolean errorReported;   // guarded by this

        /**
         * Prints Maxwell's fatal error once, whichever thread sees it first (the watch thread or
         * the cell thread when Maxwell's run() returns). Synchronised so that the error line is
         * on stdout before runToEnd() returns and the cell's "ended" line follows it: the harness
         * reads the error as the cell's outcome only when it comes before "ended".
         */
        synchronized void reportError(Throwable e) {
            if (errorReported)
                return;
            errorReported = true;
            e.printStackTrace(err);
            Out.error("maxwell stopped: " + e);
        }

        void startAsync() {
            // Maxwell 1.22.6 records a fatal error (e.g. a DDL parse error) in its context, then its
            // shutdown can stall inside the binlog client's disconnect (and then Runtime.halt(1)s the
            // JVM); report the error as soon as it is recorded (looked at every 10 ms) so the outcome
            // does not depend on that race.
            Thread watch = new Thread(() -> {
                while (!finished && !stopping) {
                    CellMaxwell m = maxwell;
                    Exception e = m != null ? m.error() : null;
                    if (e != null && !(e instanceof StopRequested) && !stopping) {
                        reportError(e);
                        return;
                    }
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }, "cdch-watch-" + id);
            watch.setDaemon(true);
            watch.start();
            thread = new Thread(() -> {
                int status = runToEnd();
                if (!stopping) {
                    endedReported = true;
                    Out.ended(id, status);
                    dropSchemaDb();
                }
            }, "cdch-cell-" + id);
            thread.start();
        }

        /** Stops Maxwell (closes its connections and threads) within about timeoutMs. */
        void stop(long timeoutMs) {
            stopping = true;
            CellMaxwell m = maxwell;
            if (m != null && !finished) {
                Thread t = new Thread(m::stopNow, "cdch-terminate");
                t.setDaemon(true);
                t.start();
                try {
                    t.join(timeoutMs);
                    if (thread != null)
                        thread.join(Math.max(100, timeoutMs / 2));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (!finished)
                    err.println("cdch-maxwell: Maxwell did not stop within " + timeoutMs + " ms");
            }
            if (id != null)
                dropSchemaDb();
        }

        void dropSchemaDb() {
            if (db == null || id == null)
                return;
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS `" + schemaDb + "`");
            } catch (Exception e) {
                err.println("cdch-maxwell: drop " + schemaDb + ": " + e);
            }
        }

        /** Prints ready once the replicator's binlog client is connected. */
        void watchConnect(CellMaxwell m) {
            Thread t = new Thread(() -> {
                long deadline = System.currentTimeMillis() + 60000;
                while (!stopping && !finished && System.currentTimeMillis() < deadline) {
                    if (binlogConnected(m))
                        break;
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (!stopping && !finished && !readySent) {
                    readySent = true;
                    Out.ready();
                }
            }, "cdch-ready");
            t.setDaemon(true);
            t.start();
        }

        static boolean binlogConnected(CellMaxwell m) {
            try {
                Replicator r = m.replicator();
                if (r == null)
                    return false;
                for (Class<?> k = r.getClass(); k != null; k = k.getSuperclass()) {
                    try {
                        Field f = k.getDeclaredField("client");
                        f.setAccessible(true);
                        Object client = f.get(r);
                        if (client == null)
                            return false;
                        Method im = client.getClass().getMethod("isConnected");
                        return (Boolean) im.invoke(client);
                    } catch (NoSuchFieldException e) {
                        // superclass
                    }
                }
                return true; // no client field: cannot tell, say ready
            } catch (Exception e) {
                return false;
            }
        }

        /** Column kind as Maxwell's own schema knows it: "binary", "geometry" or "". */
        String kind(String dbName, String table, String column) {
            String key = dbName + "\u0000" + table;
            Map<String, String> t = kinds.get(key);
            if (t == null || !t.containsKey(column)) {
                t = new HashMap<>();
                try {
                    Schema s = maxwell.replicator().getSchema();
                    Database d = s == null ? null : s.findDatabase(dbName);
                    Table tb = d == null ? null : d.findTable(table);
                    if (tb != null)
                        for (ColumnDef cd : tb.getColumnList()) {
                            String k = "";
                            if (cd instanceof GeometryColumnDef)
                                k = "geometry";
                            else if (cd instanceof StringColumnDef && "binary".equals(((StringColumnDef) cd).getCharset()))
                                k = "binary";
                            t.put(cd.getName(), k);
                        }
                } catch (Exception e) {
                    err.println("cdch-maxwell: schema lookup " + dbName + "." + table + ": " + e);
                }
                kinds.put(key, t);
            }
            return t.getOrDefault(column, "");
        }

        /** The table's columns as Maxwell's own schema has them (empty when it has none). */
        java.util.Collection<String> columns(String dbName, String table) {
            Map<String, String> t = kinds.get(dbName + "\u0000" + table);
            if (t == null) {
                kind(dbName, table, "\u0000");
                t = kinds.get(dbName + "\u0000" + table);
            }
            return t == null ? new ArrayList<>() : t.keySet();
        }
    }

    /* ---- Maxwell JSON -> canonical ------------------------------------------------------ */

    static final class LineTap extends OutputStream {
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                flushLine();
            } else {
                buf.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = 0; i < len; i++)
                write(b[off + i]);
        }

        private void flushLine() {
            String line = new String(buf.toByteArray(), StandardCharsets.UTF_8);
            buf.reset();
            if (line.endsWith("\r"))
                line = line.substring(0, line.length() - 1);
            handleMaxwellLine(line);
        }
    }

    static void handleMaxwellLine(String line) {
        JsonNode row = null;
        if (line.startsWith("{")) {
            try {
                row = mapper.readTree(line);
            } catch (IOException e) {
                row = null;
            }
        }
        if (row == null || !row.isObject() || !row.has("type") || !row.has("database")) {
            err.println("maxwell stdout: " + line);
            return;
        }
        String type = row.path("type").asText();
        if (!type.equals("insert") && !type.equals("update") && !type.equals("delete")) {
            err.println("maxwell stdout (not a row): " + line);
            return;
        }
        Cell cell = current;
        String dbName = row.path("database").asText();
        String table = row.path("table").asText();
        JsonNode data = row.get("data");
        JsonNode old = row.get("old");
        JsonNodeFactory f = mapper.getNodeFactory();
        ObjectNode o = f.objectNode();
        o.put("op", type);
        o.put("db", dbName);
        o.put("table", table);
        ObjectNode after = null, before = null;
        if (data != null && data.isObject()) {
            ObjectNode d = (ObjectNode) data.deepCopy();
            if (type.equals("delete")) {
                before = d;
            } else {
                after = d;
                if (type.equals("update")) {
                    before = d.deepCopy();
                    if (old != null && old.isObject())
                        for (Iterator<Map.Entry<String, JsonNode>> it = old.fields(); it.hasNext();) {
                            Map.Entry<String, JsonNode> e = it.next();
                            before.set(e.getKey(), e.getValue());
                        }
                }
            }
        }
        if (cell != null) {
            mapValues(cell, dbName, table, before);
            mapValues(cell, dbName, table, after);
        }
        o.set("before", before == null ? f.nullNode() : before);
        o.set("after", after == null ? f.nullNode() : after);
        JsonNode gtid = row.get("gtid");
        if (gtid != null && gtid.isTextual() && !gtid.asText().isEmpty())
            o.put("gtid", gtid.asText());
        JsonNode pos = row.get("position");
        if (pos != null && pos.isTextual()) {
            String p = pos.asText();
            int colon = p.lastIndexOf(':');
            if (colon > 0) {
                ObjectNode po = f.objectNode();
                po.put("file", p.substring(0, colon));
                try {
                    po.put("pos", Long.parseLong(p.substring(colon + 1)));
                    o.set("pos", po);
                } catch (NumberFormatException e) {
                    // leave pos out
                }
            }
        }
        try {
            Out.line(mapper.writeValueAsString(o));
        } catch (IOException e) {
            err.println("cdch-maxwell: cannot print " + line + ": " + e);
        }
    }

    /** Maxwell prints binary strings as base64 text and geometry as WKT (SRID dropped). */
    static void mapValues(Cell cell, String dbName, String table, ObjectNode image) {
        if (image == null)
            return;
        if (cell.fillNulls) {
            // output_nulls=false: a column of the table that "data" lacks is NULL (Maxwell's
            // RowMap leaves null values out), unless exclude_columns took it out
            for (String col : cell.columns(dbName, table)) {
                if (image.has(col))
                    continue;
                boolean out = false;
                for (java.util.regex.Pattern p : cell.excluded)
                    out |= p.matcher(col).matches();
                if (!out)
                    image.putNull(col);
            }
        }
        List<String> names = new ArrayList<>();
        image.fieldNames().forEachRemaining(names::add);
        for (String col : names) {
            JsonNode v = image.get(col);
            if (v == null || !v.isTextual())
                continue;
            String k = cell.kind(dbName, table, col);
            if (k.equals("binary")) {
                ObjectNode b = mapper.getNodeFactory().objectNode();
                b.put("base64", v.asText());
                image.set(col, b);
            } else if (k.equals("geometry")) {
                try {
                    Geometry g = new WKTReader().read(v.asText());
                    byte[] wkb = new WKBWriter(2, ByteOrderValues.LITTLE_ENDIAN).write(g);
                    ObjectNode gn = mapper.getNodeFactory().objectNode();
                    gn.put("srid", g.getSRID());
                    gn.put("wkb", Json.hex(wkb, 0));
                    image.set(col, gn);
                } catch (Exception e) {
                    // leave Maxwell's text: the harness reports the mismatch
                }
            }
        }
    }

    /* ---- the MariaDB state store ---------------------------------------------------------- */

    static final class MariaDb {
        static final String USER = "maxwell";
        static final String PASSWORD = "maxwell";
        Process proc;
        Path dir;
        int port;

        static String find(String name, String... dirs) {
            for (String d : dirs) {
                File f = new File(d, name);
                if (f.canExecute())
                    return f.getPath();
            }
            String path = System.getenv("PATH");
            if (path != null)
                for (String d : path.split(":")) {
                    File f = new File(d, name);
                    if (f.canExecute())
                        return f.getPath();
                }
            return null;
        }

        static int freePort() throws IOException {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
                return s.getLocalPort();
            }
        }

        static MariaDb start(String stateDir) throws Exception {
            String mariadbd = find("mariadbd", "/usr/sbin", "/usr/bin");
            String install = find("mariadb-install-db", "/usr/bin", "/usr/sbin");
            if (mariadbd == null || install == null)
                throw new IOException("mariadbd / mariadb-install-db not found (Debian package mariadb-server)");
            removeStale();
            MariaDb m = new MariaDb();
            // the socket path must stay short (108 bytes)
            Path base = stateDir != null && !stateDir.isEmpty() && stateDir.length() < 60 ? Paths.get(stateDir) : null;
            // the harness gives each adapter its own java.io.tmpdir (removed with the process); one too
            // long for the socket falls back to /tmp
            String jtmp = System.getProperty("java.io.tmpdir", "/tmp");
            Path tmpBase = Paths.get(jtmp.length() < 60 ? jtmp : "/tmp");
            m.dir = base != null ? Files.createTempDirectory(base, "mariadb") : Files.createTempDirectory(tmpBase, "cdch-maxwell-db");
            boolean root = "root".equals(System.getProperty("user.name"));
            List<String> common = new ArrayList<>();
            common.add("--no-defaults");
            common.add("--datadir=" + m.dir.resolve("data"));
            common.add("--innodb-log-file-size=8M");
            // its own tmpdir: two bootstraps sharing /tmp collide on temp table names
            // ("Error on delete of '/tmp/#sql-temptable-...MAI'")
            Files.createDirectories(m.dir.resolve("tmp"));
            common.add("--tmpdir=" + m.dir.resolve("tmp"));
            List<String> inst = new ArrayList<>();
            inst.add(install);
            inst.addAll(common);
            inst.add("--auth-root-authentication-method=normal");
            inst.add("--skip-test-db");
            if (root)
                inst.add("--user=root");
            try {
                run(inst, m.dir.resolve("install.log"));
            } catch (Exception e) {
                m.removeDir();
                throw e;
            }
            Path init = m.dir.resolve("init.sql");
            Files.write(init, ("CREATE USER IF NOT EXISTS '" + USER + "'@'127.0.0.1' IDENTIFIED BY '" + PASSWORD + "';\n"
                               + "GRANT ALL ON *.* TO '" + USER + "'@'127.0.0.1';\n").getBytes(StandardCharsets.UTF_8));
            Exception last = null;
            for (int attempt = 0; attempt < 3; attempt++) {
                m.port = freePort();
                List<String> cmd = new ArrayList<>();
                cmd.add(mariadbd);
                cmd.addAll(common);
                if (root)
                    cmd.add("--user=root");
                cmd.add("--port=" + m.port);
                cmd.add("--bind-address=127.0.0.1");
                cmd.add("--skip-name-resolve");
                cmd.add("--socket=" + m.dir.resolve("s"));
                cmd.add("--pid-file=" + m.dir.resolve("pid"));
                cmd.add("--innodb-buffer-pool-size=32M");
                cmd.add("--init-file=" + init);
                cmd.add("--log-error=" + m.dir.resolve("error.log"));
                ProcessBuilder pb = new ProcessBuilder(cmd);
                pb.redirectErrorStream(true);
                pb.redirectOutput(m.dir.resolve("mariadbd.out").toFile());
                m.proc = pb.start();
                long deadline = System.currentTimeMillis() + 30000;
                while (System.currentTimeMillis() < deadline && m.proc.isAlive()) {
                    try (Connection c = m.connect()) {
                        return m;
                    } catch (Exception e) {
                        last = e;
                        Thread.sleep(50);
                    }
                }
                m.stopProcess();
            }
            String log = "";
            try {
                log = new String(Files.readAllBytes(m.dir.resolve("error.log")), StandardCharsets.UTF_8);
            } catch (IOException e) {
                // none
            }
            err.println(log);
            m.removeDir();
            throw new IOException("mariadbd did not come up: " + last);
        }

        /**
         * Session data directories left behind by a JVM that died without its shutdown hook
         * (Maxwell 1.22.6 calls Runtime.halt(1) when its shutdown stalls): removed when their
         * mariadbd is gone and they are older than 10 minutes.
         */
        static void removeStale() {
            File tmp = new File(System.getProperty("java.io.tmpdir"));
            File[] old = tmp.listFiles((d, n) -> n.startsWith("cdch-maxwell-db"));
            if (old == null)
                return;
            for (File d : old) {
                if (System.currentTimeMillis() - d.lastModified() < 600000)
                    continue;
                try {
                    Path pid = d.toPath().resolve("pid");
                    if (Files.exists(pid)) {
                        long p = Long.parseLong(new String(Files.readAllBytes(pid), StandardCharsets.US_ASCII).trim());
                        if (ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false))
                            continue;
                    }
                    MariaDb gone = new MariaDb();
                    gone.dir = d.toPath();
                    gone.removeDir();
                } catch (Exception e) {
                    // leave it
                }
            }
        }

        static void run(List<String> cmd, Path log) throws Exception {
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.redirectErrorStream(true);
            pb.redirectOutput(log.toFile());
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(cmd.get(0) + " timed out");
            }
            if (p.exitValue() != 0)
                throw new IOException(cmd.get(0) + " failed (" + p.exitValue() + "): "
                                      + new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
        }

        Connection connect() throws Exception {
            return DriverManager.getConnection("jdbc:mysql://127.0.0.1:" + port
                                               + "/?useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=2000",
                                               USER, PASSWORD);
        }

        void stopProcess() {
            if (proc == null)
                return;
            proc.destroy(); // SIGTERM: mariadbd shuts down cleanly
            try {
                if (!proc.waitFor(10, TimeUnit.SECONDS)) {
                    proc.destroyForcibly();
                    proc.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                proc.destroyForcibly();
            }
            proc = null;
        }

        void removeDir() {
            if (dir == null)
                return;
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // best effort
            }
        }

        synchronized void stop() {
            stopProcess();
            removeDir();
            dir = null;
        }
    }
}
