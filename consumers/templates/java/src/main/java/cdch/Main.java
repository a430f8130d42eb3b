package cdch;

// cdcharness adapter template for a Java CDC library (here: mysql-binlog-connector-java, a
// BinaryLogClient whose listener unwraps TransactionPayloadEventData, as the library's README asks).
// Output, JSON text and the config line come from the foundation, consumers/java-common (cdch.common);
// this file holds what is the library's. One-shot: SIGTERM ends the JVM. Places to change: "// CHANGE:".

import cdch.common.Json;
import cdch.common.Out;
import cdch.common.UserConfig;
// CHANGE: your library.
import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.*;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.json.JsonBinary;

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.*;

public final class Main {
    static final Map<Long, TableMapEventData> tables = new HashMap<>();
    static String gtid;
    // CHANGE: the client settings a user may give in CDCH_CONFIG (.properties or a flat JSON object);
    // any other key is refused (config-error, exit 2). OWNED: the harness's, and why.
    static final Set<String> ALLOWED = Set.of("keepAlive", "keepAliveInterval", "heartbeatInterval", "connectTimeout");
    static final Map<String, String> OWNED = Map.of("hostname", "the fake primary", "port", "the fake primary",
            "username", "the replication account", "password", "the replication account",
            "serverId", "the harness's server id", "binlogFilename", "where the cell starts",
            "binlogPosition", "where the cell starts", "gtidSet", "where the cell starts");

    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("hostname", env.getOrDefault("CDCH_HOST", "127.0.0.1"));
        defaults.put("port", env.getOrDefault("CDCH_PORT", "3306"));
        defaults.put("username", env.getOrDefault("CDCH_USER", "root"));
        defaults.put("password", env.getOrDefault("CDCH_PASSWORD", ""));
        defaults.put("serverId", env.getOrDefault("CDCH_SERVER_ID", "65535"));
        String gtidSet = env.get("CDCH_GTID_SET");
        if (gtidSet != null) {
            defaults.put("gtidSet", gtidSet);
        } else {   // "" = the first binlog (without a name the client starts at the end)
            defaults.put("binlogFilename", env.getOrDefault("CDCH_START_FILE", ""));
            defaults.put("binlogPosition", env.getOrDefault("CDCH_START_POS", "4"));
        }
        BinaryLogClient client = new BinaryLogClient(defaults.get("hostname"), Integer.parseInt(defaults.get("port")),
                defaults.get("username"), defaults.get("password"));   // CHANGE: start your library
        client.setServerId(Long.parseLong(defaults.get("serverId")));
        if (gtidSet != null) {
            client.setGtidSet(gtidSet);
        } else {
            client.setBinlogFilename(defaults.get("binlogFilename"));
            client.setBinlogPosition(Long.parseLong(defaults.get("binlogPosition")));
        }
        try {
            UserConfig.Merged m = UserConfig.merge(defaults, UserConfig.load(UserConfig.path(env)), OWNED);
            for (Map.Entry<String, String> e : m.user.entrySet()) {
                String k = e.getKey(), v = e.getValue();
                if (!ALLOWED.contains(k)) throw new UserConfig.Error(k, v, "not a setting this adapter passes " + new TreeSet<>(ALLOWED));
                if (k.equals("keepAlive")) client.setKeepAlive(UserConfig.bool(k, v));
                if (k.equals("keepAliveInterval")) client.setKeepAliveInterval(UserConfig.number(k, v));
                if (k.equals("heartbeatInterval")) client.setHeartbeatInterval(UserConfig.number(k, v));
                if (k.equals("connectTimeout")) client.setConnectTimeout(UserConfig.number(k, v));
            }
            m.effective.put("compatibilityMode", "DATE_AND_TIME_AS_LONG_MICRO,CHAR_AND_BINARY_AS_BYTE_ARRAY");
            Out.config(m.effective, m.kept);
        } catch (UserConfig.Error ex) {
            Out.configError(ex.getMessage());
            System.exit(UserConfig.EXIT_CONFIG_ERROR);
        }
        EventDeserializer d = new EventDeserializer();
        d.setCompatibilityMode(EventDeserializer.CompatibilityMode.DATE_AND_TIME_AS_LONG_MICRO,
                EventDeserializer.CompatibilityMode.CHAR_AND_BINARY_AS_BYTE_ARRAY);
        client.setEventDeserializer(d);
        client.registerLifecycleListener(new BinaryLogClient.AbstractLifecycleListener() {
            @Override public void onConnect(BinaryLogClient c) { Out.ready(); }
            @Override public void onCommunicationFailure(BinaryLogClient c, Exception ex) { Out.error("communication failure: " + ex); }
            @Override public void onEventDeserializationFailure(BinaryLogClient c, Exception ex) {
                Out.error("event deserialization failure: " + ex);
                System.exit(1);   // the consumer died: the stream after it cannot be trusted
            }
        });
        client.registerEventListener(event -> handle(client, event, event));
        try {
            client.connect();   // blocks, reading events on this thread
        } catch (Exception ex) {
            Out.error("connect: " + ex);
            System.exit(1);
        }
        Thread.currentThread().join();   // the library's keep-alive thread reconnects; SIGTERM ends it
    }

    // outer: the event whose header gives the checkpoint (the TRANSACTION_PAYLOAD for inner events)
    static void handle(BinaryLogClient client, Event event, Event outer) {
        EventData data = event.getData();
        if (data instanceof EventDeserializer.EventDataWrapper) data = ((EventDeserializer.EventDataWrapper) data).getInternal();
        if (data instanceof GtidEventData) gtid = ((GtidEventData) data).getGtid();
        if (data instanceof TransactionPayloadEventData)
            for (Event e : ((TransactionPayloadEventData) data).getUncompressedEvents()) handle(client, e, event);
        if (data instanceof TableMapEventData) tables.put(((TableMapEventData) data).getTableId(), (TableMapEventData) data);
        if (data instanceof WriteRowsEventData) {
            WriteRowsEventData w = (WriteRowsEventData) data;
            for (Serializable[] r : w.getRows()) row(client, outer, "insert", tables.get(w.getTableId()), null, null, w.getIncludedColumns(), r);
        } else if (data instanceof UpdateRowsEventData) {
            UpdateRowsEventData u = (UpdateRowsEventData) data;
            for (Map.Entry<Serializable[], Serializable[]> r : u.getRows())
                row(client, outer, "update", tables.get(u.getTableId()), u.getIncludedColumnsBeforeUpdate(), r.getKey(), u.getIncludedColumns(), r.getValue());
        } else if (data instanceof DeleteRowsEventData) {
            DeleteRowsEventData x = (DeleteRowsEventData) data;
            for (Serializable[] r : x.getRows()) row(client, outer, "delete", tables.get(x.getTableId()), x.getIncludedColumns(), r, null, null);
        }
    }

    static void row(BinaryLogClient client, Event outer, String op, TableMapEventData tm, BitSet bc, Serializable[] b, BitSet ac, Serializable[] a) {
        long pos = ((EventHeaderV4) outer.getHeader()).getNextPosition();
        Out.line("{\"op\":\"" + op + "\",\"db\":" + Json.quote(tm.getDatabase()) + ",\"table\":" + Json.quote(tm.getTable())
                + ",\"before\":" + image(tm, bc, b) + ",\"after\":" + image(tm, ac, a) + ",\"gtid\":" + Json.quote(gtid)
                + ",\"pos\":{\"file\":" + Json.quote(client.getBinlogFilename()) + ",\"pos\":" + pos + "}}");
    }

    // columns "@1".. (the client has no column names); values by the TABLE_MAP's column types
    static String image(TableMapEventData tm, BitSet cols, Serializable[] values) {
        if (values == null) return "null";
        StringJoiner sj = new StringJoiner(",", "{", "}");
        for (int c = 0, vi = 0; c < tm.getColumnTypes().length && vi < values.length; c++)
            if (cols == null || cols.get(c)) sj.add("\"@" + (c + 1) + "\":" + value(tm.getColumnTypes()[c] & 0xff, tm.getColumnMetadata()[c], values[vi++]));
        return sj.toString();
    }

    // CHANGE: the library's value -> canonical (consumers/README.md "Output"). Unsigned integers
    // (TableMapEventMetadata signedness), latin1 text, GEOMETRY and BIT are left out of the template.
    static String value(int type, int meta, Serializable v) {
        if (v == null) return "null";
        if (v instanceof BigDecimal) return Json.quote(((BigDecimal) v).toPlainString());
        if (v instanceof Long && (type == 7 || type == 10 || type == 11 || type == 12 || type >= 17 && type <= 19))
            return Json.quote(temporal(type, meta, (Long) v));   // DATE_AND_TIME_AS_LONG_MICRO: microseconds
        if (v instanceof Number) return v.toString();   // integers, ENUM index (accepted), FLOAT/DOUBLE
        if (v instanceof byte[]) {
            byte[] bytes = (byte[]) v;
            if (type == 245) {
                try { return JsonBinary.parseAsString(bytes); } catch (Exception ex) { return Json.quote("JSON: " + ex); }
            }
            try {   // text as UTF-8; bytes that are not UTF-8 as {"base64"}
                return Json.quote(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes)).toString());
            } catch (Exception ex) {
                return Json.base64(bytes);
            }
        }
        return Json.quote(v.toString());
    }

    static String temporal(int type, int meta, long us) {
        int fsp = type >= 17 ? Math.min(meta, 6) : 0;
        long a = type == 11 || type == 19 ? Math.abs(us) : us;
        String frac = fsp > 0 ? "." + String.format("%06d", Math.floorMod(a, 1_000_000L)).substring(0, fsp) : "";
        long s = Math.floorDiv(a, 1_000_000L);
        if (type == 11 || type == 19) return String.format("%s%02d:%02d:%02d", us < 0 ? "-" : "", s / 3600, s / 60 % 60, s % 60) + frac;
        LocalDateTime t = LocalDateTime.ofEpochSecond(s, 0, ZoneOffset.UTC);
        if (type == 10) return t.toLocalDate().toString();
        return t.toLocalDate() + " " + String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond()) + frac;
    }
}
