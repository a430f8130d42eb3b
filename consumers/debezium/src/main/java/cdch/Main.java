package cdch;

// cdcharness adapter for the Debezium MySQL connector, run in-process with the embedded engine as
// users embed it (DebeziumEngine + Json format, file offsets in CDCH_STATE_DIR). Every change
// record's JSON (JsonConverter with schemas) is mapped to a canonical line (consumers/README.md
// "Output"): column names from Debezium's schema, values by the Connect schema's logical type.
//
// Configuration (what a user runs; see manifest.yaml for the reasons), the adapter's settings:
//   snapshot.mode=never (no_data + snapshot.locking.mode=none from 3.6 on, where never is gone),
//   or, given a start point (CDCH_GTID_SET, CDCH_START_FILE/POS), seeded offsets and the version's
//   recovery snapshot mode (schema_only_recovery / recovery), as a user resuming from stored offsets,
//   FileOffsetBackingStore + offset.flush.interval.ms=0 (every batch's offsets are flushed before
//   the next poll, so a restart resumes from the last emitted event), file schema history in the
//   state dir (a restart needs the history the offsets refer to), decimal.handling.mode=string,
//   bigint.unsigned.handling.mode=precise, time.precision.mode=adaptive_time_microseconds,
//   binary columns as Connect bytes (the JsonConverter prints them base64 and the schema keeps
//   them apart from text).
// The user's file (CDCH_CONFIG: .properties, flat JSON or Kafka Connect's {"name","config"}) goes
// over them (Settings.java): its values win, except the settings the harness owns (server,
// naming, offsets, history, snapshot/start, the record format), which are kept and reported; the
// cell's {"kind":"config"} line (effective settings, kept keys) comes before "ready". Values are
// mapped by the Connect schema under every decimal/time/binary/bigint mode, a converter's output
// by its schema, SMTs that leave the envelope alone or rename its fields; what the mapping cannot
// follow is a {"kind":"config-error"} and exit status 2.
// Which release runs is read from its jars (Lib.java), not from CDCH_VERSION: the history class
// and prefix, the logical name's key, the snapshot modes, the offset key form, the SSL default.
//
// Failures: the adapter never restarts or retries anything itself. When the engine ends by
// itself (the connector or its task failed, the binlog connection dropped and the connector did
// not recover on its own), its completion message and error go out as {"kind":"error"} and the
// cell ends (session: {"kind":"ended","status":1}; one-shot: exit status 1), as an embedding
// application's engine thread ends. What Debezium does by itself stays as it does it: the binlog
// client's keep-alive reconnects, the engine's own retries of retriable errors (2.x+).
// The connector's ERROR log lines (and the binlog client's SEVERE ones) are also reported as
// error lines as soon as they are written (see StderrWatch).
//
// Session mode (CDCH_SESSION=1): stdin carries start/stop lines; one JVM, a fresh engine per cell.
//
// The same source compiles against every Debezium release from 1.2.0 on: only DebeziumEngine API
// present since 1.2.0.Alpha1 (create(Json.class), using(Properties), notifying(Consumer),
// using(CompletionCallback)); the rest is read by reflection (Lib).

import cdch.common.DebeziumCanon;
import cdch.common.Out;
import cdch.common.Session;
import cdch.common.UserConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;

public final class Main {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NF = JsonNodeFactory.instance;
    private static final AtomicInteger CELLS = new AtomicInteger();

    static void log(String msg) {
        System.err.println("cdch-debezium: " + msg);
        System.err.flush();
    }

    // The consumer's own error log lines, reported as {"kind":"error"} as soon as they are
    // written: Debezium 1.x's legacy reader logs "Error during binlog processing" when the binlog
    // client fails to deserialize an event ("Unknown event type 40"), but the engine reports the
    // failure only after its task has stopped, which waits on BinaryLogClient.disconnect()'s
    // connect lock (tens of seconds in 1.2/1.4); 2.x+ log "Producer failure" and the like. Every
    // ERROR line of the connector's logger (log4j in 1.2-1.4, slf4j-simple otherwise) and every
    // SEVERE line of the binlog client (java.util.logging) is reported, none is judged or
    // withheld (at most MAX_LOG_ERRORS distinct lines per cell).
    static final java.util.regex.Pattern ERROR_LINE = java.util.regex.Pattern.compile(
            "^\\d\\d:\\d\\d:\\d\\d,\\d{3} (ERROR |\\[[^\\]]*\\] ERROR )|^SEVERE: ");
    static final int MAX_LOG_ERRORS = 5;
    static volatile Cell LIVE;
    static StderrWatch WATCH;

    // One log record = its line and, when it logged a throwable, the throwable's own first line
    // ("io.debezium.DebeziumException: Failed to deserialize data of EventHeaderV4{... eventType=
    // TRANSACTION_PAYLOAD ...}"): the error line carries both, the library's words as it logged them
    // (the stack frames are left to stderr). Which records are reported and how many is decided on
    // the record's own line. A logger writes a record's throwable on the record's own thread, right
    // after its line, and flushes the stream at the record's end: slf4j-simple's SimpleLogger.write
    // (println, writeThrowable, flush), log4j 1.2's WriterAppender (the layout, the throwable, then
    // a flush: immediateFlush is the default) and java.util.logging's ConsoleHandler.publish (the
    // formatted record with its throwable, then flush). So a record is complete at its thread's
    // next line or at its thread's flush, whichever comes first: no timer, nothing that depends on
    // how long a loaded machine takes to schedule the logging thread. System.err is a PrintStream
    // without autoflush, so flush() comes from the loggers (and log()), not from every line.
    static final class StderrWatch extends java.io.OutputStream {
        private final PrintStream err;
        private final Map<Thread, java.io.ByteArrayOutputStream> lines = new HashMap<>(); // a line being written
        private final Map<Thread, Pending> pending = new LinkedHashMap<>(); // an ERROR record per thread

        private static final class Pending {
            final String msg;
            final Cell cell;

            Pending(String msg, Cell cell) {
                this.msg = msg;
                this.cell = cell;
            }
        }

        StderrWatch(PrintStream err) {
            this.err = err;
        }

        @Override
        public synchronized void write(int b) {
            err.write(b);
            Thread t = Thread.currentThread();
            if (b == '\n') {
                java.io.ByteArrayOutputStream line = lines.remove(t);
                check(t, line == null ? "" : line.toString(StandardCharsets.UTF_8));
                return;
            }
            java.io.ByteArrayOutputStream line = lines.computeIfAbsent(t, k -> new java.io.ByteArrayOutputStream());
            if (line.size() < 4000) {
                line.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = 0; i < len; i++) {
                write(b[off + i]);
            }
        }

        // the end of a log record written by this thread
        @Override
        public synchronized void flush() {
            err.flush();
            emit(pending.remove(Thread.currentThread()), null);
        }

        // a throwable's first line: not indented, not a frame, not "Caused by"/"... n more", not the
        // start of another log record (a time stamp, java.util.logging's date line or level)
        static boolean throwableHeader(String l) {
            return !l.isEmpty() && !Character.isWhitespace(l.charAt(0)) && !l.startsWith("Caused by")
                    && !l.startsWith("...") && !l.matches("^\\d.*")
                    && !l.matches("^[A-Z][a-z]{2} \\d\\d?, \\d{4} .*") && !l.matches("^[A-Z]+: .*")
                    && l.matches("^[\\w$.]+(: .*)?$");
        }

        private static void emit(Pending p, String throwable) {
            if (p != null && p.cell == LIVE && !p.cell.stopRequested) {
                Out.error("consumer log: " + p.msg + (throwable == null ? "" : " / " + throwable.trim()));
            }
        }

        private void check(Thread t, String l) {
            Pending p = pending.remove(t);
            if (p != null) {
                if (throwableHeader(l)) {
                    emit(p, l);
                    return;
                }
                emit(p, null);
            }
            Cell c = LIVE;
            if (c == null || c.stopRequested || !ERROR_LINE.matcher(l).find()) {
                return;
            }
            String msg = l.trim();
            // the same message repeated (1.x logs its reader state once per failed event)
            String key = msg.replaceFirst("^\\d\\d:\\d\\d:\\d\\d,\\d{3} ", "");
            synchronized (c) {
                if (c.logErrors.size() >= MAX_LOG_ERRORS || !c.logErrors.add(key)) {
                    return;
                }
            }
            pending.put(t, new Pending(msg, c));
        }

        // what is pending goes out now: before the cell's own last lines (its error, "ended")
        synchronized void drain() {
            for (Pending p : pending.values()) {
                emit(p, null);
            }
            pending.clear();
        }
    }

    public static void main(String[] args) throws Exception {
        // every line escapes strings as Jackson does (the change events are Jackson trees)
        Out.quoteWith(s -> s == null ? "null" : NF.textNode(s).toString());
        WATCH = new StderrWatch(System.err);
        System.setErr(new PrintStream(WATCH, false, StandardCharsets.UTF_8)); // flush(): a record's end
        String level = System.getenv("CDCH_DBZ_LOG");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null ? "warn" : level.toLowerCase());
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss,SSS");
        if (level != null) {
            try {   // Debezium 1.x logs through log4j 1.2 (configured by log4j.properties)
                Class<?> lm = Class.forName("org.apache.log4j.LogManager");
                Object root = lm.getMethod("getRootLogger").invoke(null);
                Class<?> lv = Class.forName("org.apache.log4j.Level");
                root.getClass().getMethod("setLevel", lv).invoke(root, lv.getMethod("toLevel", String.class).invoke(null, level));
            } catch (ReflectiveOperationException ignored) {
                // 2.x+: no log4j
            }
        }
        log(Lib.INSTANCE.toString());
        if (Session.requested()) {
            Session.serve("cdch-debezium: ", new Cells());
            System.exit(0);
        }
        Cell cell = new Cell(null, new HashMap<>(System.getenv()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cell.requestStop();
            cell.awaitEnd(4000);
        }));
        int status = cell.run();
        if (!cell.stopRequested) {
            System.exit(status == 0 ? 1 : status);   // the engine ended by itself: never healthy
        }
    }

    // ---------------------------------------------------------------------------------------
    // session mode

    /** One cell at a time, each on its own thread with a fresh engine. */
    static final class Cells implements Session.Cells {
        Cell current;
        Thread runner;

        public void start(String id, Map<String, String> env) {
            if (current != null) {   // a start without a stop: end the previous cell first
                current.requestStop();
                current.awaitEnd(8000);
            }
            Cell cell = new Cell(id, env);
            current = cell;
            runner = new Thread(() -> {
                int status = cell.run();
                synchronized (cell) {
                    if (!cell.stopRequested) {
                        cell.endedReported = true;
                        Out.ended(cell.id, status == 0 ? 1 : status);
                    }
                }
            }, "cdch-cell-" + id);
            runner.setDaemon(true);
            runner.start();
        }

        public boolean stop(String id) {
            if (current == null || !current.id.equals(id)) {
                return true;
            }
            boolean ended;
            synchronized (current) {
                ended = current.endedReported;
                current.stopRequested = true;
            }
            current.requestStop();
            current.awaitEnd(8000);
            if (runner != null) {
                try {
                    runner.join(1000);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            current = null;
            runner = null;
            return !ended;
        }

        public void close() {
            if (current != null) {
                current.requestStop();
                current.awaitEnd(4000);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // one cell: an engine (restarted from its stored offsets after a connection failure)

    static final class Cell {
        final String id;
        final Map<String, String> env;
        final String prefix;
        volatile boolean stopRequested;
        final java.util.Set<String> logErrors = new java.util.HashSet<>();
        boolean endedReported;
        volatile DebeziumEngine<ChangeEvent<String, String>> engine;
        final CountDownLatch ended = new CountDownLatch(1);

        Cell(String id, Map<String, String> env) {
            this.id = id == null ? "" : id;
            this.env = env;
            int n = CELLS.incrementAndGet();
            // one JMX / offset-key name per cell (session mode runs many cells in one JVM)
            this.prefix = id == null ? "cdch" : "cdch" + n;
        }

        String env(String k, String d) {
            String v = env.get(k);
            return v == null || v.isEmpty() ? d : v;
        }

        void requestStop() {
            stopRequested = true;
            DebeziumEngine<ChangeEvent<String, String>> e = engine;
            if (e != null) {
                try {
                    e.close();
                } catch (Exception ex) {
                    log("close: " + ex);
                }
            }
        }

        void awaitEnd(long ms) {
            try {
                ended.await(ms, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }

        int run() {
            LIVE = this;
            try {
                return runEngines();
            } catch (Throwable t) {
                Out.error("adapter: " + t);
                t.printStackTrace();
                return 1;
            } finally {
                ended.countDown();
            }
        }

        int runEngines() throws Exception {
            String state = env("CDCH_STATE_DIR", null);
            if (state == null) {
                state = java.nio.file.Files.createTempDirectory("cdch-dbz").toString();
            }
            Lib lib = Lib.INSTANCE;   // the release the jars on the classpath are, not CDCH_VERSION
            boolean ready = false;
            // The start point (consumers/README.md "Environment of a run"): CDCH_GTID_SET and/or a
            // CDCH_START_FILE/CDCH_START_POS past the first file's position 4 mean "resume here".
            // A Debezium user resuming from stored offsets has the connector's offsets (file, pos
            // and, with GTIDs, gtids: SourceInfo/MySqlOffsetContext/BinlogOffsetContext keys) and
            // takes the schema with the recovery snapshot mode (SHOW CREATE TABLE from the server,
            // then streaming from the stored offset): see props().
            String gtids = env("CDCH_GTID_SET", "");
            String startFile = env("CDCH_START_FILE", "");
            long startPos = 4;
            try {
                startPos = Long.parseLong(env("CDCH_START_POS", "4"));
            } catch (NumberFormatException ex) {
                log("unreadable CDCH_START_POS, using 4");
            }
            startPoint = !gtids.isEmpty() || startPos != 4;
            if (startPoint) {
                seeded = seedOffsets(state + "/offsets.dat", prefix, startFile, startPos, gtids.isEmpty() ? null : gtids, lib.keyEnvelope);
            } else if (!hasNever(lib)) {
                // file "" position 4 = "the server's first binlog", the offset "never" starts
                // from (MySqlOffsetContext.initial()); CDCH_START_FILE is that file. A file name
                // here without GTIDs would make 3.6.1 (binlog client 0.41.0) send a GTID dump
                // with a null set (NPE in DumpBinaryLogGtidCommand): BinaryLogClient only
                // builds the empty set when the file name is "".
                seeded = seedOffsets(state + "/offsets.dat", prefix, "", 4, null, false);
            }
            Settings.Result cfg;
            try {
                cfg = Settings.resolve(props(lib, state), env, lib);
            } catch (UserConfig.Error ex) {
                Out.configError(ex.getMessage());
                return UserConfig.EXIT_CONFIG_ERROR;
            }
            mapping = cfg.mapping;
            Out.config(cfg.merged.effective, cfg.merged.kept);
            Properties p = new Properties();
            p.putAll(cfg.merged.effective);
            final Object[] result = new Object[3];
            final CountDownLatch done = new CountDownLatch(1);
            DebeziumEngine<ChangeEvent<String, String>> e = DebeziumEngine.create(Json.class)
                    .using(p)
                    .notifying(this::record)
                    .using((DebeziumEngine.CompletionCallback) (success, message, error) -> {
                        result[0] = success;
                        result[1] = message;
                        result[2] = error;
                        done.countDown();
                    })
                    .build();
            engine = e;
            if (stopRequested) {
                e.close();
                return 0;
            }
            Thread t = new Thread(e, "cdch-engine-" + prefix);
            t.setDaemon(true);
            t.start();
            while (!done.await(50, TimeUnit.MILLISECONDS)) {
                if (!ready && streaming(prefix)) {
                    ready = true;
                    Out.ready();
                }
            }
            t.join(5000);
            engine = null;
            if (stopRequested) {
                return 0;
            }
            // the engine ended by itself: the connector failed (or stopped) and did not recover
            Throwable err = (Throwable) result[2];
            String message = (String) result[1];
            String why = message != null ? message : "engine stopped";
            if (err != null) {
                why += ": " + err + (rootCause(err) != err ? " / cause: " + rootCause(err) : "");
            }
            if (WATCH != null) {
                WATCH.drain();
            }
            Out.error(why);
            return 1;
        }

        boolean seeded;
        boolean startPoint;

        Settings.Mapping mapping = new Settings.Mapping();

        /**
         * The adapter's settings (before the user's file): the harness-owned ones (Settings.owned)
         * and the adapter's defaults, which a user's value replaces.
         */
        LinkedHashMap<String, String> props(Lib lib, String state) {
            LinkedHashMap<String, String> p = new LinkedHashMap<>();
            p.put("name", prefix);
            p.put("connector.class", "io.debezium.connector.mysql.MySqlConnector");
            p.put("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
            p.put("offset.storage.file.filename", state + "/offsets.dat");
            p.put("offset.flush.interval.ms", "0");
            p.put("database.hostname", env("CDCH_HOST", "127.0.0.1"));
            p.put("database.port", env("CDCH_PORT", "3306"));
            p.put("database.user", env("CDCH_USER", "root"));
            p.put("database.password", env.getOrDefault("CDCH_PASSWORD", ""));
            p.put("database.server.id", env("CDCH_SERVER_ID", "65535"));
            if (lib.sslDisabledByDefault()) {
                // up to 2.2.x the connector defaults to database.ssl.mode=disabled (Lib): Connector/J
                // then needs the RSA key exchange for caching_sha2_password ("Public Key Retrieval
                // is not allowed"), the pass-through driver option those users set against MySQL 8
                p.put("database.allowPublicKeyRetrieval", "true");
            }
            p.put(lib.prefixKey, prefix);
            p.put(lib.historyKey, lib.historyClass);
            p.put(lib.historyKey + ".file.filename", state + "/schema-history.dat");
            // no database/table include lists: the connector's default filters (every database
            // but MySQL's system schemas), as a user who did not narrow it runs it
            if (startPoint) {
                // resuming from stored offsets without a schema history: the recovery snapshot
                // mode of this version ("schema_only_recovery" up to 2.5, "recovery" from 2.6 on:
                // schema from SHOW CREATE TABLE, then the binlog from the stored offset; legacy
                // MySqlConnectorTask:86-100 at v1.4.0.Final, MySqlConnectorTask
                // validateAndLoadDatabaseHistory at v1.9.8.Final); "never" would need the CREATE
                // TABLE events, which are before the start point. No table locks: the schema is
                // read as it is. "recovery" is new in 2.6 (MySqlConnectorConfig.SnapshotMode
                // RECOVERY at v2.6.0.Final, schema_only_recovery deprecated); 2.0-2.5 only have
                // schema_only_recovery (MySqlConnectorConfig.java:154 at v2.3.4/v2.4.0.Final).
                // Which one: the connector's own SnapshotMode enum (Lib).
                p.put("snapshot.mode", lib.hasSnapshotMode("recovery") ? "recovery" : "schema_only_recovery");
                p.put("snapshot.locking.mode", "none");
            } else if (hasNever(lib)) {
                // "never" exists up to 3.5.x (removed in 3.6): no snapshot, stream from the first binlog
                p.put("snapshot.mode", "never");
            } else {
                // no_data alone would start at SHOW BINARY LOG STATUS (the end of the served
                // stream): the first start seeds the offsets with the harness's start position
                // and takes the schema with "recovery" (schema snapshot, stream from the stored
                // offset)
                p.put("snapshot.mode", seeded ? "recovery" : "no_data");
                p.put("snapshot.locking.mode", "none");
            }
            // the adapter's defaults (a user's file may set other values: Settings.MAPPED)
            p.put("decimal.handling.mode", "string");
            p.put("bigint.unsigned.handling.mode", "precise");
            p.put("time.precision.mode", "adaptive_time_microseconds");
            p.put("converter.schemas.enable", "true");
            if (env("CDCH_VERSION", "").contains("+retry")) {
                // variant "+retry" (manifest.yaml): a user working around DBZ-8786's
                // MySqlErrorHandler (isRetriable false for every throwable, 3.1.0.CR1 on) with
                // Debezium's own field for it, internal.custom.retriable.exception: a regex matched
                // against each throwable's message in the cause chain (ErrorHandler.isCustomRetriable,
                // debezium-core; CommonConnectorConfig.CUSTOM_RETRIABLE_EXCEPTION); "(?s).*" retries
                // every failure as the 2.x handler retried a lost binlog connection
                p.put("internal.custom.retriable.exception", "(?s).*");
            }
            return p;
        }

        void record(ChangeEvent<String, String> rec) {
            String v = rec.value();
            if (v == null) {
                return;   // tombstone after a delete
            }
            try {
                String line = canonical(JSON.readTree(v), mapping);
                if (line != null) {
                    Out.line(line);
                }
            } catch (Exception ex) {
                Out.error("adapter: cannot map record: " + ex + " in " + (v.length() > 500 ? v.substring(0, 500) + "..." : v));
            }
        }
    }

    // "never" exists up to 3.5.x (removed in 3.6); an enum the adapter could not read: as 1.x-2.x
    static boolean hasNever(Lib lib) {
        return lib.snapshotModes.isEmpty() || lib.hasSnapshotMode("never");
    }

    // Writes FileOffsetBackingStore's file (a serialized HashMap<byte[], byte[]> of the engine's
    // JSON key/value, as its internal JsonConverters write them) holding the start
    // position (offset keys "file", "pos", "gtids": SourceInfo at v1.2.5/v1.4.0, SourceInfo +
    // MySqlOffsetContext.GTID_SET_KEY at v1.9.8, BinlogSourceInfo + BinlogOffsetContext.GTID_SET_KEY
    // from v2.7), unless the file exists. Returns whether it wrote it.
    // The 1.x EmbeddedEngine configures its internal key converter (JsonConverter) without
    // schemas.enable=false (EmbeddedEngine.java:583-584 at v1.9.8.Final, :582-583 at v1.2.5/v1.4.0;
    // only the value converter gets it, :586-590): its keys are written in the schema envelope,
    // {"schema":null,"payload":[name,{"server":...}]} (keyEnvelope). 2.x+ configure both without
    // schemas (EmbeddedEngine.java:351-355 at v2.7.4.Final).
    static boolean seedOffsets(String path, String prefix, String file, long pos, String gtids, boolean keyEnvelope) throws java.io.IOException {
        java.io.File f = new java.io.File(path);
        if (f.exists()) {
            return false;
        }
        ObjectNode part = NF.objectNode();
        part.put("server", prefix);
        ArrayNode key = NF.arrayNode();
        key.add(prefix);
        key.add(part);
        JsonNode keyNode = key;
        if (keyEnvelope) {
            ObjectNode env = NF.objectNode();
            env.putNull("schema");
            env.set("payload", key);
            keyNode = env;
        }
        ObjectNode val = NF.objectNode();
        val.put("file", file);
        val.put("pos", pos);
        if (gtids != null) {
            val.put("gtids", gtids);
        }
        HashMap<byte[], byte[]> raw = new HashMap<>();
        raw.put(keyNode.toString().getBytes(StandardCharsets.UTF_8), val.toString().getBytes(StandardCharsets.UTF_8));
        try (java.io.ObjectOutputStream os = new java.io.ObjectOutputStream(new java.io.FileOutputStream(f))) {
            os.writeObject(raw);
        }
        log("seeded " + path + ": " + keyNode + " -> " + val);
        return true;
    }

    static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    // streaming = the connector's streaming (1.5+) or binlog (legacy 1.x reader) metrics say Connected
    static boolean streaming(String server) {
        try {
            MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> names = mbs.queryNames(new ObjectName("debezium.mysql:type=connector-metrics,*"), null);
            for (ObjectName n : names) {
                String ctx = n.getKeyProperty("context");
                if (!server.equals(n.getKeyProperty("server")) || !("streaming".equals(ctx) || "binlog".equals(ctx))) {
                    continue;
                }
                Object c = mbs.getAttribute(n, "Connected");
                if (Boolean.TRUE.equals(c)) {
                    return true;
                }
            }
        } catch (Exception ignored) {
            // not registered yet
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------
    // record -> canonical line

    static String canonical(JsonNode rec, Settings.Mapping m) {
        JsonNode schema = rec.path("schema");
        JsonNode payload = rec.path("payload");
        if (!m.renamed.isEmpty()) {   // ReplaceField$Value renamed envelope fields: their own names back
            schema = unrename(schema, m);
            payload = unrename(payload, m);
        }
        return DebeziumCanon.canonical(schema, payload, (s, text) -> binaryString(s, text, m));
    }

    // the record's schema or payload with the envelope's fields under their own names again
    static JsonNode unrename(JsonNode n, Settings.Mapping m) {
        if (n.isObject()) {
            ObjectNode o = NF.objectNode();
            n.fields().forEachRemaining(e -> o.set(m.renamed.getOrDefault(e.getKey(), e.getKey()), e.getValue()));
            if (o.has("fields")) {   // a schema: its fields' names
                ArrayNode a = NF.arrayNode();
                for (JsonNode f : o.path("fields")) {
                    String name = f.path("field").asText();
                    if (f.isObject() && m.renamed.containsKey(name)) {
                        ObjectNode g = ((ObjectNode) f).deepCopy();
                        g.put("field", m.renamed.get(name));
                        f = g;
                    }
                    a.add(f);
                }
                o.set("fields", a);
            }
            return o;
        }
        return n;
    }

    // a binary column's value under binary.handling.mode base64 / base64-url-safe / hex: a plain
    // string schema, told apart from text by the column's source type (Settings.resolve has the
    // connector add it: column.propagate.source.type)
    static byte[] binaryString(JsonNode s, String text, Settings.Mapping m) {
        if (m.binary.equals("bytes")) {
            return null;
        }
        String src = s.path("parameters").path("__debezium.source.column.type").asText("");
        if (!Settings.BINARY_TYPES.contains(src.toUpperCase(java.util.Locale.ROOT))) {
            return null;
        }
        switch (m.binary) {
            case "base64":
                return Base64.getDecoder().decode(text);
            case "base64-url-safe":
                return Base64.getUrlDecoder().decode(text);
            case "hex": {
                byte[] b = new byte[text.length() / 2];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
                }
                return b;
            }
            default:
                return null;
        }
    }
}
