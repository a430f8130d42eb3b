package cdch;

// cdcharness adapter for mysql-binlog-connector-java (shyiko / zendesk / Debezium fork): a plain
// BinaryLogClient with an EventListener, as in-house Java consumers run it. Row events are mapped
// with the TABLE_MAP that precedes them to canonical JSON lines (consumers/README.md); column names
// are "@1".. (the client has no catalogue). ENUM comes out as its index and SET as its bitmap,
// as the library gives them.
//
// Settings: the library's README usage (EventDeserializer with DATE_AND_TIME_AS_LONG[_MICRO] +
// CHAR_AND_BINARY_AS_BYTE_ARRAY; the _MICRO variant keeps DATETIME(6)/TIMESTAMP(6)/TIME(6)
// fractions, which the default java.util.Date types truncate to milliseconds). The long is
// formatted with java.time as the Unix time the library's Javadoc says it is; for dates before
// 1582-10-15 the library computes it through java.util.GregorianCalendar (Julian calendar), so
// those come out shifted (a library defect, recorded in manifest.yaml). Everything else is the
// library's default: keep-alive on (it reconnects after a lost connection by itself), no event
// filter; a deserialization failure is reported and ends the cell (the stream after it cannot
// be trusted); nothing is retried by the adapter.
//
// CDCH_VERSION "...+unwrap": the listener also unwraps TRANSACTION_PAYLOAD (type 40) events via
// TransactionPayloadEventData.getUncompressedEvents() (reflection: the class exists from 0.26.0
// on). Without it, a payload event reaches the listener as one wrapper and is ignored, as it is by
// any listener written before compressed binlogs.
//
// Session mode (CDCH_SESSION=1, consumers/README.md "Session mode"): one JVM, start/stop lines on
// stdin, a fresh BinaryLogClient (and fresh table-map/GTID state) per cell on its own thread; a
// deserialization failure ends the cell with {"kind":"ended","status":1} instead of exiting.
//
// The user's configuration (CDCH_CONFIG, issue 25): BinaryLogClient options and EventDeserializer
// compatibility modes, ClientConfig; the values are mapped by the modes in force for each event
// (ClientConfig.Modes: milliseconds or microseconds, the INVALID_DATE_AND_TIME_AS_* stand-in,
// INTEGER_AS_BYTE_ARRAY), the library's defaults for events inside a payload before io.debezium
// 0.40.5 (its payload deserializer ignores the client's modes). One {"kind":"config"} line per
// cell before ready.
//
// The same source compiles against every version from 0.19.0 (TableMapEventMetadata): only API
// present since shyiko 0.19.0 is used directly, the rest through reflection.

import cdch.common.Json;
import cdch.common.Out;
import cdch.common.Session;
import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeader;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventMetadata;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.json.JsonBinary;

import java.io.Serializable;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Main {
    public static void main(String[] args) throws Exception {
        // the fake primary runs in UTC and the library builds its java.util.Date values from UTC
        // fields: the JDK's field conversions (java.sql.Date.toLocalDate() ...) read them in UTC
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("UTC"));
        if (Session.requested()) {
            Session.serve("adapter: ", new Cells());
            System.exit(0);
        }
        Cell cell = new Cell(System.getenv(), false);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> cell.stopping = true));
        int status = cell.run();   // blocks, reading events on this thread
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Session mode (consumers/README.md): a fresh BinaryLogClient per cell, on its own thread. */
    static final class Cells implements Session.Cells {
        Cell cur;

        public void start(String id, Map<String, String> env) {
            if (cur != null) {
                cur.stop();
            }
            Cell c = new Cell(env, true);
            c.id = id;
            cur = c;
            Thread t = new Thread(() -> {
                int status = c.run();
                synchronized (c) {
                    c.done = true;
                    if (!c.stopping) {
                        c.ended = true;
                        Out.ended(c.id, status);
                    }
                    c.notifyAll();
                }
            }, "cdch-cell-" + id);
            t.setDaemon(true);
            c.thread = t;
            t.start();
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

    /** One consumer run: a BinaryLogClient with the cell's settings (one-shot: the process env). */
    static final class Cell {
        final Map<String, String> env;
        final boolean session;
        final Map<Long, TableMapEventData> tables = new HashMap<>();
        String gtid;
        boolean unwrap;
        ClientConfig.Modes modes;
        volatile boolean stopping;
        boolean done;
        boolean ended;
        String id;
        Thread thread;
        volatile BinaryLogClient client;

        Cell(Map<String, String> env, boolean session) {
            this.env = env;
            this.session = session;
        }

        String env(String k, String d) {
            String v = env.get(k);
            return v == null || v.isEmpty() ? d : v;
        }

        /** Thrown from a listener to unwind the client's reader once the cell has ended by itself. */
        static final class CellEnded extends RuntimeException {
            CellEnded() {
                super("the cell ended (adapter)", null, false, false);
            }
        }

        /**
         * Session mode: the consumer ended by itself with the one-shot exit status. Says "ended" at
         * once (unless the harness is stopping the cell) and silences the cell: what the client's
         * threads do afterwards is no longer the cell's.
         */
        void endByItself(int status) {
            synchronized (this) {
                if (stopping) {
                    return;
                }
                stopping = true;
                ended = true;
                Out.ended(id, status);
            }
        }

        /** Stops the client (session mode) and waits for its thread, at most 5 s. */
        void stop() {
            synchronized (this) {
                if (done) {
                    return;
                }
                stopping = true;
            }
            BinaryLogClient c = client;
            if (c != null) {
                try {
                    c.disconnect();
                } catch (Exception ex) {
                    System.err.println("adapter: disconnect: " + ex);
                }
            }
            synchronized (this) {
                long until = System.currentTimeMillis() + 5000;
                while (!done && System.currentTimeMillis() < until) {
                    try {
                        wait(200);
                    } catch (InterruptedException ignored) {
                        break;
                    }
                }
            }
            if (!done) {
                System.err.println("adapter: client thread did not end within 5 s");
            }
        }

        /** Runs the client until it disconnects; returns the exit status a one-shot run has. */
        int run() {
            String version = env("CDCH_VERSION", "");
            unwrap = version.contains("+unwrap");
            // the harness's settings, the adapter's defaults and the user's file (CDCH_CONFIG,
            // ClientConfig): reported once, before ready; what cannot be honoured ends the cell (2)
            Map<String, String> harness = new LinkedHashMap<>();
            harness.put("hostname", env("CDCH_HOST", "127.0.0.1"));
            harness.put("port", env("CDCH_PORT", "3306"));
            harness.put("username", env("CDCH_USER", "root"));
            harness.put("password", env("CDCH_PASSWORD", ""));
            harness.put("serverId", env("CDCH_SERVER_ID", "65535"));
            String gtidSet = env.get("CDCH_GTID_SET");
            if (gtidSet != null) {
                harness.put("gtidSet", gtidSet);
            } else {
                // "" = the server's first binlog (without a file name the client would ask
                // SHOW MASTER STATUS and start at the end)
                harness.put("binlogFilename", env("CDCH_START_FILE", ""));
                harness.put("binlogPosition", env("CDCH_START_POS", "4"));
            }
            ClientConfig config;
            BinaryLogClient client;
            EventDeserializer deserializer;
            try {
                config = ClientConfig.resolve(env, harness);
                client = new BinaryLogClient(harness.get("hostname"), Integer.parseInt(harness.get("port")),
                        harness.get("username"), harness.get("password"));
                client.setServerId(Long.parseLong(harness.get("serverId")));
                // keep-alive stays on (the library's default), with a 5 s interval instead of the
                // default 60 s (BinaryLogClient.setKeepAliveInterval, public API since shyiko 0.x):
                // after a lost connection the library's own keep-alive thread pings, reconnects
                // (terminateConnect(); connect()) and resumes from its last position or GTID set -
                // the recovery the library gives its users - after ~5 s instead of ~60 s, and a
                // reconnect that times out on a loaded machine is tried again 5 s later instead of
                // after the harness's resume wait. Only the timer differs from the default.
                // The connect timeout is 30 s instead of the default 3 s (setConnectTimeout, public
                // API since shyiko 0.x; 30 s is what Debezium, the library's main user, sets:
                // connect.timeout.ms). connect() closes the channel when the handshake (greeting to
                // COM_BINLOG_DUMP) takes longer (scheduleDisconnectIn): on a loaded machine a starved
                // JVM took ~3 s and the cell ended "Socket closed" (0.23.2 rows-split, once in a full
                // matrix). Only the timer differs from the default. Both are ClientConfig's defaults,
                // applied here with the user's options (which win).
                config.apply(client);
                if (gtidSet != null) {
                    try {
                        client.setGtidSet(gtidSet);
                    } catch (RuntimeException ex) {
                        // the client rejects the start GTID set (e.g. a tagged set, uuid:tag:N, before
                        // the client parses tags: NumberFormatException in GtidSet's constructor): the
                        // connector cannot start, as its user's would not
                        Out.error("setGtidSet(\"" + gtidSet + "\"): " + ex);
                        return 1;
                    }
                } else {
                    client.setBinlogFilename(harness.get("binlogFilename"));
                    client.setBinlogPosition(Long.parseLong(harness.get("binlogPosition")));
                }
                deserializer = config.deserializer();
            } catch (cdch.common.UserConfig.Error ex) {
                Out.configError(ex.getMessage());
                return cdch.common.UserConfig.EXIT_CONFIG_ERROR;
            }
            modes = config.modes;
            this.client = client;
            Out.config(config.merged.effective, config.merged.kept);
            client.setEventDeserializer(deserializer);
            final int[] failed = {0};

            client.registerLifecycleListener(new BinaryLogClient.LifecycleListener() {
                public void onConnect(BinaryLogClient c) {
                    Out.ready();
                }

                public void onCommunicationFailure(BinaryLogClient c, Exception ex) {
                    if (!stopping) {
                        Out.error("communication failure: " + ex);
                    }
                }

                public void onEventDeserializationFailure(BinaryLogClient c, Exception ex) {
                    // an in-house consumer stops here: after a failure the stream is not trustworthy
                    // (shyiko <= 0.21.0 / zendesk <= 0.23.2 have consumed only the event header)
                    if (failed[0] != 0) {
                        return;   // a one-shot run has exited at the first one
                    }
                    Out.error("event deserialization failure: " + ex + (ex.getCause() != null ? " / " + ex.getCause() : ""));
                    if (!session) {
                        System.exit(1);
                    }
                    // session mode: the cell ends here, as the one-shot process does, whatever the
                    // client's threads do next. "ended" now (a teardown that waited for the client
                    // raced the harness's idle wait: 0.21.0 many-tables, whose keep-alive thread
                    // pings into the desynchronised stream, ran on for 46 s and was judged
                    // announced-skip instead of this parse-failure); then unwind the reader
                    // (listenForEventPackets closes its channel in its finally) and let run()
                    // disconnect the client (its keep-alive thread) on the cell's thread.
                    failed[0] = 1;
                    endByItself(1);
                    throw new CellEnded();
                }

                public void onDisconnect(BinaryLogClient c) {
                }
            });
            client.registerEventListener(event -> {
                if (failed[0] != 0) {
                    return;
                }
                try {
                    handle(client, event, null);
                } catch (Exception ex) {
                    Out.error("adapter: " + ex);
                    ex.printStackTrace();
                }
            });
            try {
                client.connect();   // blocks, reading events on this thread
            } catch (Exception ex) {
                if (!stopping) {
                    Out.error("connect: " + ex);
                    return 1;
                }
            }
            // connect() returns when the connection is lost; the keep-alive thread (the
            // library's, running until disconnect()) reconnects by itself, so the cell goes on
            // until it is stopped, exactly as an application whose client is still alive
            // (a failure, on this thread or the keep-alive's reconnection, stops it: endByItself)
            while (!stopping) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ex) {
                    break;
                }
            }
            if (failed[0] != 0) {
                try {
                    client.disconnect();   // its keep-alive thread would reconnect
                } catch (Exception ignored) {
                }
                return 1;
            }
            return 0;
        }

        // outer: the TRANSACTION_PAYLOAD event that carried this one (its header gives the position)
        void handle(BinaryLogClient client, Event event, Event outer) throws Exception {
        EventHeader header = event.getHeader();
        EventType type = header.getEventType();
        EventData data = event.getData();
        if (data instanceof EventDeserializer.EventDataWrapper) {
            data = ((EventDeserializer.EventDataWrapper) data).getInternal();
        }
        if (data == null) {
            return;   // UNKNOWN (type 40 in zendesk 0.23.3 .. 0.25.x) and other skipped events
        }
        String cls = data.getClass().getSimpleName();
        if (cls.equals("GtidEventData") || cls.equals("GtidTaggedEventData")) {
            // GtidTaggedEventData: MySQL 8.3+ GTID_TAGGED_LOG_EVENT (type 42), io.debezium 0.41.0+;
            // its getMySqlGtid() prints uuid:tag:gno
            gtid = gtidOf(data);
            return;
        }
        if (cls.equals("TransactionPayloadEventData")) {
            if (unwrap) {
                Method m = data.getClass().getMethod("getUncompressedEvents");
                @SuppressWarnings("unchecked")
                List<Event> inner = (List<Event>) m.invoke(data);
                for (Event e : inner) {
                    handle(client, e, event);
                }
            }
            return;
        }
        if (data instanceof TableMapEventData) {
            TableMapEventData tm = (TableMapEventData) data;
            tables.put(tm.getTableId(), tm);
            return;
        }
        if (data instanceof WriteRowsEventData) {
            WriteRowsEventData w = (WriteRowsEventData) data;
            TableMapEventData tm = tables.get(w.getTableId());
            for (Serializable[] row : w.getRows()) {
                row(client, outer, event, "insert", tm, null, null, w.getIncludedColumns(), row);
            }
        } else if (data instanceof UpdateRowsEventData) {
            UpdateRowsEventData u = (UpdateRowsEventData) data;
            TableMapEventData tm = tables.get(u.getTableId());
            for (Map.Entry<Serializable[], Serializable[]> r : u.getRows()) {
                row(client, outer, event, "update", tm, u.getIncludedColumnsBeforeUpdate(), r.getKey(),
                        u.getIncludedColumns(), r.getValue());
            }
        } else if (data instanceof DeleteRowsEventData) {
            DeleteRowsEventData d = (DeleteRowsEventData) data;
            TableMapEventData tm = tables.get(d.getTableId());
            for (Serializable[] row : d.getRows()) {
                row(client, outer, event, "delete", tm, d.getIncludedColumns(), row, null, null);
            }
        }
    }

    static String gtidOf(Object data) {
        for (String name : new String[] {"getGtid", "getMySqlGtid"}) {
            try {
                Object v = data.getClass().getMethod(name).invoke(data);
                if (v != null) {
                    return v.toString();
                }
            } catch (ReflectiveOperationException ignored) {
            }
        }
        return null;
    }

        void row(BinaryLogClient client, Event outer, Event event, String op, TableMapEventData tm,
                    BitSet beforeCols, Serializable[] before, BitSet afterCols, Serializable[] after) {
        Event posEvent = outer != null ? outer : event;
        // the Java types of the values: the client's compatibility modes, except for events inside a
        // TRANSACTION_PAYLOAD before io.debezium 0.40.5, which a fresh default EventDeserializer decodes
        ClientConfig.Modes md = outer != null && !ClientConfig.PAYLOAD_KEEPS_MODES ? ClientConfig.NONE : modes;
        StringBuilder sb = new StringBuilder();
        sb.append("{\"op\":\"").append(op).append("\",\"db\":").append(Json.quote(tm == null ? null : tm.getDatabase()))
          .append(",\"table\":").append(Json.quote(tm == null ? null : tm.getTable()))
          .append(",\"before\":").append(image(md, tm, beforeCols, before))
          .append(",\"after\":").append(image(md, tm, afterCols, after))
          .append(",\"gtid\":").append(Json.quote(gtid));
        long pos = -1;
        if (posEvent.getHeader() instanceof EventHeaderV4) {
            pos = ((EventHeaderV4) posEvent.getHeader()).getNextPosition();
        }
        if (pos <= 0) {
            pos = client.getBinlogPosition();
        }
        sb.append(",\"pos\":{\"file\":").append(Json.quote(client.getBinlogFilename())).append(",\"pos\":").append(pos).append("}}");
        Out.line(sb.toString());
    }
    }

    static String image(ClientConfig.Modes md, TableMapEventData tm, BitSet cols, Serializable[] values) {
        if (values == null) {
            return "null";
        }
        Cols info = new Cols(tm);
        StringBuilder sb = new StringBuilder("{");
        int vi = 0;
        int n = info.types.length > 0 ? info.types.length : values.length;
        boolean first = true;
        for (int c = 0; c < n && vi < values.length; c++) {
            if (cols != null && !cols.get(c)) {
                continue;
            }
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append("\"@").append(c + 1).append("\":");
            sb.append(value(md, info, c, values[vi++]));
        }
        return sb.append('}').toString();
    }

    /** Per-column facts from the TABLE_MAP (types, metadata, signedness, charsets if present). */
    static final class Cols {
        int[] types = new int[0];
        int[] meta = new int[0];
        BitSet signedness;      // bit per numeric column: set = unsigned
        Integer[] collation;    // per column, character columns only

        Cols(TableMapEventData tm) {
            if (tm == null) {
                return;
            }
            byte[] t = tm.getColumnTypes();
            types = new int[t.length];
            for (int i = 0; i < t.length; i++) {
                types[i] = t[i] & 0xff;
            }
            meta = tm.getColumnMetadata() != null ? tm.getColumnMetadata() : new int[types.length];
            collation = new Integer[types.length];
            TableMapEventMetadata md = tm.getEventMetadata();
            if (md == null) {
                return;
            }
            signedness = md.getSignedness();
            List<Integer> charsets = md.getColumnCharsets();
            TableMapEventMetadata.DefaultCharset dc = md.getDefaultCharset();
            int k = 0;
            for (int i = 0; i < types.length; i++) {
                if (!isCharacter(i)) {
                    continue;
                }
                if (charsets != null && k < charsets.size()) {
                    collation[i] = charsets.get(k);
                } else if (dc != null) {
                    Map<Integer, Integer> m = dc.getCharsetCollations();
                    collation[i] = m != null && m.containsKey(k) ? m.get(k) : dc.getDefaultCharsetCollation();
                }
                k++;
            }
        }

        int realType(int c) {
            int t = types[c];
            if (t == 254 && meta[c] >= 256) {
                int rt = meta[c] >> 8;
                if (rt == 247 || rt == 248) {
                    return rt;
                }
            }
            return t;
        }

        // the columns MySQL counts for COLUMN_CHARSET / DEFAULT_CHARSET (binlog_row_metadata)
        boolean isCharacter(int c) {
            int t = realType(c);
            return t == 254 || t == 15 || t == 253 || t == 252;
        }

        boolean isNumeric(int c) {
            int t = types[c];
            return t == 1 || t == 2 || t == 3 || t == 8 || t == 9 || t == 4 || t == 5 || t == 0 || t == 246;
        }

        boolean unsigned(int c) {
            if (signedness == null) {
                return false;
            }
            int k = 0;
            for (int i = 0; i < c; i++) {
                if (isNumeric(i)) {
                    k++;
                }
            }
            return isNumeric(c) && signedness.get(k);
        }
    }

    static String value(ClientConfig.Modes md, Cols info, int c, Serializable v) {
        if (v == null) {
            return "null";
        }
        int type = c < info.types.length ? info.realType(c) : -1;
        int meta = c < info.meta.length ? info.meta[c] : 0;
        if (md.invalid != null && isDateOrDatetime(type)) {
            // INVALID_DATE_AND_TIME_AS_*: the library hands this long (or, without a LONG mode, a
            // Date of it) for a DATE/DATETIME whose month or day is 0 (asUnixTime): its documented
            // stand-in for MySQL's zero date. A real value that equals it reads the same way.
            long raw = v instanceof Long ? (Long) v : v instanceof java.util.Date && !md.asLong ? ((java.util.Date) v).getTime() : 1L;
            if ((v instanceof Long || v instanceof java.util.Date) && raw == md.invalid) {
                return Json.quote(zeroDate(type, meta));
            }
        }
        if (md.intBytes && v instanceof byte[] && isInteger(type)) {
            // INTEGER_AS_BYTE_ARRAY: the column's little-endian bytes as stored
            byte[] b = (byte[]) v;
            byte[] be = new byte[b.length];
            for (int i = 0; i < b.length; i++) {
                be[i] = b[b.length - 1 - i];
            }
            BigInteger n = info.unsigned(c) ? new BigInteger(1, be) : new BigInteger(be);
            return n.bitLength() > 63 ? Json.quote(n.toString()) : n.toString();
        }
        if (v instanceof BigDecimal) {
            return Json.quote(((BigDecimal) v).toPlainString());
        }
        if (v instanceof Float || v instanceof Double) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return Json.quote(Double.toString(d));
            }
            return v instanceof Float ? new BigDecimal(Float.toString((Float) v)).toString() : Double.toString(d);
        }
        if (v instanceof Long && isTemporal(type)) {
            // DATE_AND_TIME_AS_LONG_MICRO: microseconds; DATE_AND_TIME_AS_LONG: milliseconds
            long l = (Long) v;
            return Json.quote(temporal(type, meta, md.perSecond == 1000L ? l * 1000L : l));
        }
        if (v instanceof Number) {
            long l = ((Number) v).longValue();
            if (l < 0 && c < info.types.length && info.unsigned(c)) {
                int bits;
                switch (info.types[c]) {
                    case 1: bits = 8; break;
                    case 2: bits = 16; break;
                    case 9: bits = 24; break;
                    case 3: bits = 32; break;
                    default: bits = 64;
                }
                BigInteger b = BigInteger.valueOf(l).add(BigInteger.ONE.shiftLeft(bits));
                return bits == 64 ? Json.quote(b.toString()) : b.toString();
            }
            return Long.toString(l);
        }
        if (v instanceof BitSet) {
            BitSet bs = (BitSet) v;
            BigInteger b = BigInteger.ZERO;
            for (int i = bs.nextSetBit(0); i >= 0; i = bs.nextSetBit(i + 1)) {
                b = b.setBit(i);
            }
            return b.bitLength() > 63 ? Json.quote(b.toString()) : b.toString();
        }
        if (v instanceof java.util.Date) {
            // the library's default (non-LONG) temporal types: here only for rows decoded inside
            // a TRANSACTION_PAYLOAD, whose inner EventDeserializer ignores the client's
            // compatibility modes before io.debezium 0.40.5. java.sql.Date/Time/Timestamp and
            // java.util.Date are calendar-field types (the library builds them from the row's
            // fields via java.util.Calendar); the JDK's own conversions to java.time keep those
            // fields (the JVM runs in UTC, see main)
            return Json.quote(legacyTemporal(type, meta, (java.util.Date) v));
        }
        if (v instanceof byte[]) {
            byte[] b = (byte[]) v;
            if (type == 245) {      // JSON
                try {
                    return JsonBinary.parseAsString(b);
                } catch (Exception ex) {
                    return Json.quote("JSON decode error: " + ex);
                }
            }
            if (type == 242 && b.length % 4 == 0) {   // VECTOR: the library's byte[] holds float32 LE
                ByteBuffer bb = ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                StringBuilder a = new StringBuilder("[");
                for (int i = 0; i < b.length / 4; i++) {
                    float f = bb.getFloat();
                    a.append(i > 0 ? "," : "").append(Float.isFinite(f) ? new BigDecimal(Float.toString(f)).toString() : Json.quote(Float.toString(f)));
                }
                return a.append(']').toString();
            }
            if (type == 255 && b.length >= 4) {   // GEOMETRY: 4-byte LE SRID + WKB
                return Json.geometry(b);
            }
            Integer coll = c < info.types.length && info.collation != null ? info.collation[c] : null;
            if (coll != null && coll == 63) {
                return Json.base64(b);
            }
            if (coll != null && isLatin1(coll)) {
                return Json.quote(new String(b, java.nio.charset.Charset.forName("windows-1252")));
            }
            String s = utf8(b);
            return s != null ? Json.quote(s) : Json.base64(b);
        }
        return Json.quote(v.toString());
    }

    static boolean isLatin1(int coll) {
        return coll == 5 || coll == 8 || coll == 15 || coll == 31 || coll == 47 || coll == 48 || coll == 49 || coll == 94;
    }

    static boolean isDateOrDatetime(int t) {
        return t == 10 || t == 14 || t == 12 || t == 18;
    }

    static boolean isInteger(int t) {
        return t == 1 || t == 2 || t == 3 || t == 8 || t == 9;
    }

    static String zeroDate(int type, int meta) {
        if (type == 10 || type == 14) {
            return "0000-00-00";
        }
        int fsp = type == 18 ? Math.min(meta, 6) : 0;
        return "0000-00-00 00:00:00" + (fsp > 0 ? "." + "000000".substring(0, fsp) : "");
    }

    static boolean isTemporal(int t) {
        return t == 7 || t == 10 || t == 11 || t == 12 || t == 14 || t == 17 || t == 18 || t == 19;
    }

    // DATE_AND_TIME_AS_LONG_MICRO: microseconds since the epoch (UTC calendar)
    static String temporal(int type, int meta, long micros) {
        long secs = Math.floorDiv(micros, 1_000_000L);
        int frac = (int) Math.floorMod(micros, 1_000_000L);
        int fsp = (type == 17 || type == 18 || type == 19) ? Math.min(meta, 6) : 0;
        String fs = "";
        if (fsp > 0) {
            fs = "." + String.format("%06d", frac).substring(0, fsp);
        } else if (frac != 0) {
            fs = "." + String.format("%06d", frac);
        }
        if (type == 11 || type == 19) {   // TIME
            boolean neg = micros < 0;
            long a = Math.abs(micros);
            long s = a / 1_000_000L;
            int f = (int) (a % 1_000_000L);
            String tfs = fsp > 0 ? "." + String.format("%06d", f).substring(0, fsp) : (f != 0 ? "." + String.format("%06d", f) : "");
            return String.format("%s%02d:%02d:%02d", neg ? "-" : "", s / 3600, (s / 60) % 60, s % 60) + tfs;
        }
        LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochSecond(secs), ZoneOffset.UTC);
        if (type == 10 || type == 14) {
            return String.format("%04d-%02d-%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth());
        }
        return String.format("%04d-%02d-%02d %02d:%02d:%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
                t.getHour(), t.getMinute(), t.getSecond()) + fs;
    }

    static String legacyTemporal(int type, int meta, java.util.Date d) {
        int fsp = (type == 17 || type == 18 || type == 19) ? Math.min(meta, 6) : 0;
        if (d instanceof java.sql.Date) {
            return ((java.sql.Date) d).toLocalDate().toString();
        }
        if (d instanceof java.sql.Time) {   // millisecond precision (java.sql.Time drops micros)
            java.sql.Timestamp ts = new java.sql.Timestamp(d.getTime());
            LocalDateTime t = ts.toLocalDateTime();
            long ms = Math.floorMod(d.getTime(), 1000L);
            return String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond()) + fraction(ms * 1000L, fsp);
        }
        java.sql.Timestamp ts = d instanceof java.sql.Timestamp ? (java.sql.Timestamp) d : new java.sql.Timestamp(d.getTime());
        LocalDateTime t = ts.toLocalDateTime();
        if (type == 10 || type == 14) {
            return t.toLocalDate().toString();
        }
        return String.format("%04d-%02d-%02d %02d:%02d:%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
                t.getHour(), t.getMinute(), t.getSecond()) + fraction(t.getNano() / 1000L, fsp);
    }

    static String fraction(long micros, int fsp) {
        if (fsp > 0) {
            return "." + String.format("%06d", micros).substring(0, fsp);
        }
        return micros != 0 ? "." + String.format("%06d", micros) : "";
    }

    static String utf8(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
