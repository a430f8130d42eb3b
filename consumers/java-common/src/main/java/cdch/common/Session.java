package cdch.common;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The session protocol (consumers/README.md "Session mode"), adapter side: start/stop lines on
 * stdin, one cell at a time, until stdin ends. The adapter says how a cell starts and stops
 * (Cells); this class reads the lines, builds each cell's environment and prints "stopped".
 */
public final class Session {
    private Session() {
    }

    /** What the adapter does for the protocol's lines. */
    public interface Cells {
        /** Starts cell id with its environment (stopping a cell still running first); returns at once. */
        void start(String id, Map<String, String> env);

        /** Stops cell id (closes the consumer's connections, ends its threads); true: print "stopped". */
        boolean stop(String id);

        /** End of stdin: stops what runs. */
        void close();
    }

    /**
     * Variables of the session's own environment a cell inherits when its env lacks them
     * (CDCH_CONFIG: the harness gives a session's configuration in its launch environment too).
     */
    private static final String[] INHERITED = {"CDCH_CACHE", "CDCH_VERSION", "CDCH_BIN", "CDCH_CONFIG"};

    /** The harness started this adapter in session mode (CDCH_SESSION=1). */
    public static boolean requested() {
        return "1".equals(System.getenv("CDCH_SESSION"));
    }

    /**
     * Serves the session on stdin until it ends, then calls cells.close(). Unreadable and unknown
     * lines are logged to stderr with the prefix log (e.g. "adapter: ") and skipped.
     */
    public static void serve(String log, Cells cells) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                continue;
            }
            Map<?, ?> m = command(line);
            if (m == null) {
                System.err.println(log + "bad session line: " + line);
                continue;
            }
            String kind = String.valueOf(m.get("kind"));
            String id = m.get("cell") == null ? "" : String.valueOf(m.get("cell"));
            if (kind.equals("start")) {
                cells.start(id, env(m.get("env")));
            } else if (kind.equals("stop")) {
                if (cells.stop(id)) {
                    Out.stopped(id);
                }
            } else {
                System.err.println(log + "unknown session line: " + line);
            }
        }
        cells.close();
    }

    private static Map<?, ?> command(String line) {
        try {
            Object o = Json.parse(line);
            return o instanceof Map ? (Map<?, ?>) o : null;
        } catch (RuntimeException ex) {
            return null;
        }
    }

    private static Map<String, String> env(Object o) {
        Map<String, String> env = new HashMap<>();
        if (o instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                env.put(String.valueOf(e.getKey()), e.getValue() == null ? null : String.valueOf(e.getValue()));
            }
        }
        for (String k : INHERITED) {
            if (!env.containsKey(k) && System.getenv(k) != null) {
                env.put(k, System.getenv(k));
            }
        }
        return env;
    }
}
