package cdch.common;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The user's configuration of a cell (CDCH_CONFIG, consumers/README.md; issue 25): read in the
 * family's native format, merged over the adapter's defaults with the harness-owned settings kept,
 * and reported once per cell as {"kind":"config","effective":{...},"kept":{...}} before "ready".
 *
 * <pre>
 *   Map&lt;String,String&gt; user = UserConfig.load(UserConfig.path(env));   // {} when CDCH_CONFIG is unset/empty
 *   UserConfig.Merged m = UserConfig.merge(defaults, user, owned);      // owned: key (or "prefix.*") -&gt; why
 *   ... refuse what the adapter cannot honour: throw new UserConfig.Error("k=v: why") ...
 *   Out.config(m.effective, m.kept);                                    // passwords masked
 * </pre>
 *
 * A setting the adapter cannot honour: {@link Out#configError} and exit 2 (session: ended, status 2).
 */
public final class UserConfig {
    private UserConfig() {
    }

    /** The exit status of a cell whose configuration cannot be honoured (INTERFACE: config-error). */
    public static final int EXIT_CONFIG_ERROR = 2;

    /** A configuration the adapter cannot read or honour; the message is the config-error line's. */
    public static final class Error extends Exception {
        private static final long serialVersionUID = 1L;

        public Error(String message) {
            super(message);
        }

        public Error(String key, String value, String why) {
            super(key + "=" + value + ": " + why);
        }
    }

    /** The effective settings (what the library is given) and the user's keys the harness kept. */
    public static final class Merged {
        /** Every setting after the merge, in order: the defaults' keys first, then the user's new keys. */
        public final LinkedHashMap<String, String> effective = new LinkedHashMap<>();
        /** Each key of the user's file the harness overrode (or dropped), with the reason. */
        public final LinkedHashMap<String, String> kept = new LinkedHashMap<>();
        /** The user's keys whose values are in effective (not kept), in the file's order. */
        public final LinkedHashMap<String, String> user = new LinkedHashMap<>();
    }

    /** The configuration file of a cell: env's CDCH_CONFIG, null when unset or empty. */
    public static String path(Map<String, String> env) {
        String p = env.get("CDCH_CONFIG");
        return p == null || p.isEmpty() ? null : p;
    }

    /**
     * Reads a configuration file in order: JSON when it ends in .json or its first non-blank
     * character is '{' (a flat {"k":"v"} object, or Kafka Connect's {"name":..,"config":{...}}),
     * else Java .properties (full syntax: escapes, continuation lines, ':' or '='). Values are
     * strings (JSON numbers as written, booleans as true/false); a nested JSON value or a null is
     * refused. path null: an empty map.
     */
    public static LinkedHashMap<String, String> load(String path) throws Error {
        LinkedHashMap<String, String> out = new LinkedHashMap<>();
        if (path == null) {
            return out;
        }
        String text;
        try {
            text = Files.readString(Path.of(path), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException ex) {
            throw new Error("CDCH_CONFIG=" + path + ": cannot read it: " + ex);
        }
        String t = text.stripLeading();
        if (path.endsWith(".json") || t.startsWith("{")) {
            loadJson(path, text, out);
        } else {
            loadProperties(path, text, out);
        }
        return out;
    }

    private static void loadProperties(String path, String text, LinkedHashMap<String, String> out) throws Error {
        Properties p = new Properties() {
            private static final long serialVersionUID = 1L;

            @Override
            public synchronized Object put(Object k, Object v) {
                out.remove((String) k); // a repeated key: the last wins, at its last place
                out.put((String) k, (String) v);
                return super.put(k, v);
            }
        };
        try (Reader r = new java.io.StringReader(text)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException ex) {
            throw new Error("CDCH_CONFIG=" + path + ": not a .properties file: " + ex.getMessage());
        }
    }

    private static void loadJson(String path, String text, LinkedHashMap<String, String> out) throws Error {
        Object o;
        try {
            o = Json.parse(text.strip());
        } catch (RuntimeException ex) {
            throw new Error("CDCH_CONFIG=" + path + ": not JSON: " + ex.getMessage());
        }
        if (!(o instanceof Map)) {
            throw new Error("CDCH_CONFIG=" + path + ": a JSON object of settings is expected");
        }
        Map<?, ?> m = (Map<?, ?>) o;
        if (m.get("config") instanceof Map && m.keySet().stream().allMatch(k -> k.equals("name") || k.equals("config"))) {
            m = (Map<?, ?>) m.get("config"); // Kafka Connect's connector JSON
        }
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String k = String.valueOf(e.getKey());
            Object v = e.getValue();
            if (v == null || v instanceof Map || v instanceof List) {
                throw new Error(k + "=" + (v == null ? "null" : "(nested)") + ": a setting's value must be a string, number or boolean");
            }
            out.put(k, String.valueOf(v));
        }
    }

    /**
     * The user's values over the adapter's defaults (which hold the harness-owned settings with
     * the harness's values). owned maps a key, or a prefix written "prefix*", to the reason the
     * harness keeps it: a user key it matches keeps the default's value (or stays out when the
     * defaults lack it) and is listed in kept with that reason.
     */
    public static Merged merge(Map<String, String> defaults, Map<String, String> user, Map<String, String> owned) {
        Merged m = new Merged();
        m.effective.putAll(defaults);
        for (Map.Entry<String, String> e : user.entrySet()) {
            String why = ownedReason(owned, e.getKey());
            if (why != null) {
                m.kept.put(e.getKey(), why);
            } else {
                m.effective.put(e.getKey(), e.getValue());
                m.user.put(e.getKey(), e.getValue());
            }
        }
        return m;
    }

    /** The reason owned gives for key (exact key, or the longest "prefix*" it starts with), else null. */
    public static String ownedReason(Map<String, String> owned, String key) {
        if (owned == null) {
            return null;
        }
        String why = owned.get(key);
        if (why != null) {
            return why;
        }
        int best = -1;
        for (Map.Entry<String, String> e : owned.entrySet()) {
            String k = e.getKey();
            if (k.endsWith("*") && key.startsWith(k.substring(0, k.length() - 1)) && k.length() > best) {
                best = k.length();
                why = e.getValue();
            }
        }
        return why;
    }

    /** A key whose value the config line shows as "***": it names a password or a secret. */
    public static boolean secret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("passwd") || k.contains("secret") || k.endsWith(".pass")
            || k.equals("pass") || k.contains("credential");
    }

    /** The {"kind":"config",...} line (Out.config prints it with Out's string writer). */
    public static String configLine(Map<String, String> effective, Map<String, String> kept, java.util.function.Function<String, String> quote) {
        StringBuilder sb = new StringBuilder("{\"kind\":\"config\",\"effective\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : effective.entrySet()) {
            sb.append(first ? "" : ",").append(quote.apply(e.getKey())).append(':')
                .append(quote.apply(e.getValue() != null && secret(e.getKey()) ? "***" : e.getValue()));
            first = false;
        }
        sb.append("},\"kept\":{");
        first = true;
        for (Map.Entry<String, String> e : (kept == null ? Collections.<String, String>emptyMap() : kept).entrySet()) {
            sb.append(first ? "" : ",").append(quote.apply(e.getKey())).append(':').append(quote.apply(e.getValue()));
            first = false;
        }
        return sb.append("}}").toString();
    }

    /** A boolean setting as Java's users write it (true/false, any case); else Error naming it. */
    public static boolean bool(String key, String value) throws Error {
        String v = value.trim();
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new Error(key, value, "not a boolean (true or false)");
    }

    /** A long setting; else Error naming it. */
    public static long number(String key, String value) throws Error {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException ex) {
            throw new Error(key, value, "not an integer");
        }
    }
}
