package cdch;

// The user's configuration of a cell (CDCH_CONFIG, issue 25): a .properties file of BinaryLogClient
// options and EventDeserializer compatibility modes, merged over the adapter's settings.
//
//   KEY                 applied as
//   <option>            BinaryLogClient.set<Option>(value): any public one-argument setter of the
//                       running version whose argument is a boolean, int, long, String or enum
//                       (matched ignoring case: sslMode -> setSSLMode(SSLMode.valueOf)). Examples:
//                       keepAlive, keepAliveInterval, keepAliveConnectTimeout, heartbeatInterval,
//                       connectTimeout, sslMode, gtidSetFallbackToPurged,
//                       useBinlogFilenamePositionInGtidMode, useSendAnnotateRowsEvent,
//                       useNonGracefulDisconnect, netReadTimeout, netWriteTimeout (those the version has)
//   compatibilityMode   EventDeserializer.setCompatibilityMode(...): comma-separated
//                       CompatibilityMode names of the running version; empty = none (the
//                       library's defaults: java.util.Date temporals, String text)
//
// Kept by the harness (the user's value is reported in "kept"): hostname, port, username, password,
// serverId, binlogFilename, binlogPosition, gtidSet (the fake primary, the replica id and the start
// the harness chose) and blocking (the harness needs a streaming client: blocking=false asks for
// BINLOG_DUMP_NON_BLOCK, the dump ends at the end of the binlog). Refused (config-error): a key
// the running version has no such setter for, setters taking objects (eventDeserializer,
// socketFactory, sslSocketFactory, threadFactory), a value that does not parse, a mode the version
// does not know or a mode set the library itself rejects.
//
// The adapter's own defaults (effective without a file): keepAliveInterval=5000,
// connectTimeout=30000 (timers; manifest header) and
// compatibilityMode=DATE_AND_TIME_AS_LONG_MICRO,CHAR_AND_BINARY_AS_BYTE_ARRAY (the library README's
// usage). The modes change the Java types the library emits; Modes tells Main how to map them.

import cdch.common.UserConfig;
import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

final class ClientConfig {
    static final String MODES = "compatibilityMode";
    static final String DEFAULT_MODES = "DATE_AND_TIME_AS_LONG_MICRO,CHAR_AND_BINARY_AS_BYTE_ARRAY";

    /** What the compatibility modes make the library emit (the mapping in Main reads it). */
    static final class Modes {
        /** DATE_AND_TIME_AS_LONG[_MICRO]: temporals as a long. */
        final boolean asLong;
        /** the long's units per second: 1_000_000 (LONG_MICRO) or 1000 (LONG). */
        final long perSecond;
        /** INVALID_DATE_AND_TIME_AS_*: the long standing for an invalid (zero) DATE/DATETIME, else null. */
        final Long invalid;
        /** INTEGER_AS_BYTE_ARRAY: integer columns as their little-endian bytes. */
        final boolean intBytes;

        Modes(EnumSet<?> set) {
            boolean l = has(set, "DATE_AND_TIME_AS_LONG"), lm = has(set, "DATE_AND_TIME_AS_LONG_MICRO");
            asLong = l || lm;
            perSecond = lm ? 1_000_000L : 1000L;
            // as EventDeserializer.ensureCompatibility applies them: the last one set wins
            Long inv = null;
            if (has(set, "INVALID_DATE_AND_TIME_AS_ZERO")) {
                inv = 0L;
            }
            if (has(set, "INVALID_DATE_AND_TIME_AS_NEGATIVE_ONE")) {
                inv = -1L;
            }
            if (has(set, "INVALID_DATE_AND_TIME_AS_MIN_VALUE")) {
                inv = Long.MIN_VALUE;
            }
            invalid = inv;
            intBytes = has(set, "INTEGER_AS_BYTE_ARRAY");
        }

        private static boolean has(EnumSet<?> set, String name) {
            for (Object o : set) {
                if (((Enum<?>) o).name().equals(name)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The library's defaults (no mode): what a fresh EventDeserializer decodes with. */
    static final Modes NONE = new Modes(EnumSet.noneOf(EventDeserializer.CompatibilityMode.class));

    final UserConfig.Merged merged;
    final EnumSet<EventDeserializer.CompatibilityMode> modeSet;
    final Modes modes;
    /** the user's client setters, in the file's order */
    private final List<Object[]> setters = new ArrayList<>();

    private static final Map<String, String> OWNED = new LinkedHashMap<>();
    static {
        String fake = "the harness's fake primary";
        OWNED.put("hostname", fake);
        OWNED.put("host", fake);
        OWNED.put("port", fake);
        OWNED.put("username", "the fake primary's replication account");
        OWNED.put("user", "the fake primary's replication account");
        OWNED.put("password", "the fake primary's replication account");
        OWNED.put("serverId", "the harness gives each run a unique replica server id");
        OWNED.put("binlogFilename", "the start position is the harness's (CDCH_START_FILE)");
        OWNED.put("binlogPosition", "the start position is the harness's (CDCH_START_POS)");
        OWNED.put("gtidSet", "the start GTID set is the harness's (CDCH_GTID_SET)");
        OWNED.put("blocking", "the harness needs a streaming client (blocking=false ends the dump at the end of the binlog)");
    }

    private ClientConfig(UserConfig.Merged merged, EnumSet<EventDeserializer.CompatibilityMode> modeSet) {
        this.merged = merged;
        this.modeSet = modeSet;
        this.modes = new Modes(modeSet);
    }

    /**
     * The cell's configuration: harness settings (host..start) as the adapter sets them, the
     * adapter's defaults, the user's file (env CDCH_CONFIG) over them. Throws UserConfig.Error
     * for what cannot be honoured.
     */
    static ClientConfig resolve(Map<String, String> env, Map<String, String> harness) throws UserConfig.Error {
        LinkedHashMap<String, String> defaults = new LinkedHashMap<>(harness);
        defaults.put("keepAliveInterval", "5000");
        defaults.put("connectTimeout", "30000");
        defaults.put(MODES, DEFAULT_MODES);
        Map<String, String> user = UserConfig.load(UserConfig.path(env));
        // the owned keys as the user may spell them (case-insensitive, as the setters are matched)
        Map<String, String> owned = new LinkedHashMap<>();
        for (String k : user.keySet()) {
            for (Map.Entry<String, String> o : OWNED.entrySet()) {
                if (o.getKey().equalsIgnoreCase(k)) {
                    owned.put(k, o.getValue());
                }
            }
        }
        UserConfig.Merged m = UserConfig.merge(defaults, user, owned);
        EnumSet<EventDeserializer.CompatibilityMode> set = modes(m.effective.get(MODES));
        ClientConfig cc = new ClientConfig(m, set);
        for (Map.Entry<String, String> e : m.user.entrySet()) {
            if (e.getKey().equals(MODES)) {
                continue;
            }
            cc.setters.add(new Object[] {setter(e.getKey(), e.getValue()), parse(e.getKey(), e.getValue())});
        }
        return cc;
    }

    /** Applies the adapter's timers and the user's options to a fresh client (the harness's are set by Main). */
    void apply(BinaryLogClient client) throws UserConfig.Error {
        client.setKeepAliveInterval(Long.parseLong(merged.effective.get("keepAliveInterval")));
        client.setConnectTimeout(Long.parseLong(merged.effective.get("connectTimeout")));
        // the user's own settings last: theirs win over the timers above
        for (Object[] s : setters) {
            Method m = (Method) s[0];
            try {
                m.invoke(client, s[1]);
            } catch (ReflectiveOperationException ex) {
                Throwable c = ex.getCause() != null ? ex.getCause() : ex;
                throw new UserConfig.Error(m.getName() + ": the library refused it: " + c);
            }
        }
    }

    /** An EventDeserializer with the effective modes (none: the library's default one). */
    EventDeserializer deserializer() throws UserConfig.Error {
        EventDeserializer d = new EventDeserializer();
        if (!modeSet.isEmpty()) {
            EventDeserializer.CompatibilityMode[] all = modeSet.toArray(new EventDeserializer.CompatibilityMode[0]);
            EventDeserializer.CompatibilityMode[] rest = new EventDeserializer.CompatibilityMode[all.length - 1];
            System.arraycopy(all, 1, rest, 0, rest.length);
            try {
                d.setCompatibilityMode(all[0], rest);
            } catch (RuntimeException ex) {
                throw new UserConfig.Error(MODES, merged.effective.get(MODES), "the library refused it: " + ex.getMessage());
            }
        }
        return d;
    }

    private static EnumSet<EventDeserializer.CompatibilityMode> modes(String v) throws UserConfig.Error {
        EnumSet<EventDeserializer.CompatibilityMode> set = EnumSet.noneOf(EventDeserializer.CompatibilityMode.class);
        for (String name : v.split(",")) {
            String n = name.trim();
            if (n.isEmpty()) {
                continue;
            }
            try {
                set.add(EventDeserializer.CompatibilityMode.valueOf(n.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException ex) {
                List<String> known = new ArrayList<>();
                for (EventDeserializer.CompatibilityMode c : EventDeserializer.CompatibilityMode.values()) {
                    known.add(c.name());
                }
                throw new UserConfig.Error(MODES, v, "no CompatibilityMode " + n + " in this version (it has " + String.join(", ", known) + ")");
            }
        }
        return set;
    }

    private static final String[] OBJECT_SETTERS = {"eventDeserializer", "socketFactory", "sslSocketFactory", "threadFactory"};

    /** The client's public setter for key (ignoring case) taking one property-like argument. */
    private static Method setter(String key, String value) throws UserConfig.Error {
        for (String o : OBJECT_SETTERS) {
            if (o.equalsIgnoreCase(key)) {
                throw new UserConfig.Error(key, value, "takes a Java object, which a properties file cannot give");
            }
        }
        Method found = null;
        for (Method m : BinaryLogClient.class.getMethods()) {
            if (m.getName().equalsIgnoreCase("set" + key) && m.getParameterCount() == 1 && !Modifier.isStatic(m.getModifiers())) {
                Class<?> t = m.getParameterTypes()[0];
                if (t == boolean.class || t == Boolean.class || t == int.class || t == Integer.class || t == long.class
                        || t == Long.class || t == String.class || t.isEnum()) {
                    found = m;
                }
            }
        }
        if (found == null) {
            throw new UserConfig.Error(key, value, "this version's BinaryLogClient has no such option (no set"
                    + Character.toUpperCase(key.charAt(0)) + key.substring(1) + ")");
        }
        return found;
    }

    private static Object parse(String key, String value) throws UserConfig.Error {
        Method m = setter(key, value);
        Class<?> t = m.getParameterTypes()[0];
        if (t == boolean.class || t == Boolean.class) {
            return UserConfig.bool(key, value);
        }
        if (t == long.class || t == Long.class) {
            return UserConfig.number(key, value);
        }
        if (t == int.class || t == Integer.class) {
            long n = UserConfig.number(key, value);
            if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
                throw new UserConfig.Error(key, value, "out of the int range");
            }
            return (int) n;
        }
        if (t.isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object c : t.getEnumConstants()) {
                names.add(((Enum<?>) c).name());
                if (((Enum<?>) c).name().equalsIgnoreCase(value.trim())) {
                    return c;
                }
            }
            throw new UserConfig.Error(key, value, "not a " + t.getSimpleName() + " (" + String.join(", ", names) + ")");
        }
        return value;
    }

    /** Whether this version decodes a TRANSACTION_PAYLOAD's events with the client's modes (io.debezium 0.40.5+). */
    static final boolean PAYLOAD_KEEPS_MODES = payloadKeepsModes();

    private static boolean payloadKeepsModes() {
        try {
            Class<?> c = Class.forName("com.github.shyiko.mysql.binlog.event.deserialization.TransactionPayloadEventDataDeserializer");
            c.getMethod("setCompatibilityModes", EnumSet.class);
            return true;
        } catch (ReflectiveOperationException | LinkageError ex) {
            return false;
        }
    }
}
