package cdch.common;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * The adapter's stdout (consumers/README.md "Output"): JSON Lines in UTF-8, one object a line,
 * flushed per line, written whole under one lock from any thread. It writes to file descriptor 1
 * itself, so an adapter may point System.out elsewhere (Maxwell's stdout producer is read back).
 */
public final class Out {
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    private static volatile Function<String, String> quote = Json::quote;

    private Out() {
    }

    /**
     * The string writer of the control lines' text (default Json.quote). An adapter that prints
     * its change events with Jackson passes Jackson's, so that all its lines escape alike.
     */
    public static void quoteWith(Function<String, String> q) {
        quote = q;
    }

    /** One line as it is (a change event the adapter built). */
    public static synchronized void line(String line) {
        OUT.println(line);
        OUT.flush();
    }

    /** {"kind":"ready"}: the consumer is connected and streaming. */
    public static void ready() {
        line("{\"kind\":\"ready\"}");
    }

    /** {"kind":"error","message":...}: an error the consumer reported. */
    public static void error(String message) {
        line("{\"kind\":\"error\",\"message\":" + quote.apply(message) + "}");
    }

    /**
     * {"kind":"config","effective":{...},"kept":{...}}: a cell's configuration, once, before
     * ready (UserConfig.merge builds the maps; values of password/secret keys print as "***").
     */
    public static void config(java.util.Map<String, String> effective, java.util.Map<String, String> kept) {
        line(UserConfig.configLine(effective, kept, quote));
    }

    /** {"kind":"config-error","message":...}: a setting the adapter cannot honour (then exit 2). */
    public static void configError(String message) {
        line("{\"kind\":\"config-error\",\"message\":" + quote.apply(message) + "}");
    }

    /** {"kind":"stopped","cell":...}: the session's answer to stop. */
    public static void stopped(String cell) {
        line("{\"kind\":\"stopped\",\"cell\":" + quote.apply(cell) + "}");
    }

    /** {"kind":"ended","cell":...,"status":N}: the consumer ended by itself during a cell. */
    public static void ended(String cell, int status) {
        line("{\"kind\":\"ended\",\"cell\":" + quote.apply(cell) + ",\"status\":" + status + "}");
    }
}
