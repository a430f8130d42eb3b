package cdch;

import cdch.common.Out;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;

import java.util.function.BooleanSupplier;

/**
 * Passes Maxwell's own WARN about an event it could not deserialize, and therefore skipped,
 * through as an {"kind":"error"} line (consumers/README.md: "Print every error the library
 * reports, as the library reports it, and its own WARN/ERROR log lines about events it skips").
 *
 * Maxwell logs through slf4j to log4j2 (log4j-slf4j-impl and log4j-core 2.8.2 at 1.22.6), with the
 * log4j2.xml its jar ships (root INFO to stderr, "%d %-5level %logger{1} - %msg%n"). The binlog
 * client (mysql-binlog-connector-java) calls LifecycleListener.onEventDeserializationFailure for an
 * event it cannot read and goes on with the next packet (BinaryLogClient.listenForEventPackets,
 * `continue`); Maxwell's listener only logs it:
 *   BinlogConnectorLifecycleListener.java:28 at zendesk/maxwell@v1.22.6
 *     LOGGER.warn("Event deserialization failure.", ex);   (:29 LOGGER.warn("cause: ", ex.getCause()))
 *   BinlogConnectorLifecycleListener.java:22 at zendesk/maxwell@v1.17.0 (no "cause:" line)
 * That WARN, and nothing else, becomes an error line here: the logger's text and the exception as
 * log4j prints it (its toString, then each "Caused by:"), e.g.
 *   maxwell log WARN BinlogConnectorLifecycleListener - Event deserialization failure. / java.io.IOException: Unknown event type 40
 * One line per failure: the "cause: " WARN that 1.22.6 logs right after it repeats the same
 * exception's cause (already quoted) and stays in stderr, as does every other WARN and ERROR
 * (Maxwell's fatal errors are reported by MaxwellAdapter itself, "maxwell stopped: ..."). The
 * appender is added to the root logger beside Maxwell's own console appender, which still prints
 * everything to stderr as Maxwell configures it.
 */
final class MaxwellLogLines extends AbstractAppender {
    static final String LISTENER = "com.zendesk.maxwell.replication.BinlogConnectorLifecycleListener";
    static final String FAILURE = "Event deserialization failure.";

    /** CDCH_MAXWELL_NO_LOG_LINES=1 leaves the WARN in stderr only (consumers/maxwell/test.sh checks
     *  that its announced-skip assertion then fails). */
    static final String DISABLE = "CDCH_MAXWELL_NO_LOG_LINES";

    private final BooleanSupplier active;

    private MaxwellLogLines(BooleanSupplier active) {
        super("cdch-error-lines", null, null, true);
        this.active = active;
    }

    /** Adds the appender to log4j2's root logger (initialising Maxwell's log4j2.xml first). */
    static void install(BooleanSupplier active) {
        if ("1".equals(System.getenv(DISABLE))) {
            System.err.println("cdch-maxwell: " + DISABLE + "=1: Maxwell's deserialization WARNs stay in stderr only");
            return;
        }
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        MaxwellLogLines a = new MaxwellLogLines(active);
        a.start();
        config.addAppender(a);
        config.getRootLogger().addAppender(a, null, null);
        ctx.updateLoggers();
    }

    static boolean announces(String logger, Level level, String text) {
        return LISTENER.equals(logger) && level.isMoreSpecificThan(Level.WARN) && FAILURE.equals(text);
    }

    /** The line's message: what Maxwell's log4j2.xml pattern prints, the stack frames left out. */
    static String message(String logger, Level level, String text, Throwable t) {
        StringBuilder m = new StringBuilder("maxwell log ").append(level.name()).append(' ')
            .append(logger.substring(logger.lastIndexOf('.') + 1)).append(" - ").append(text);
        String sep = " / ";
        for (int depth = 0; t != null && depth < 8; t = t.getCause(), depth++) {
            m.append(sep).append(t);
            sep = " / Caused by: ";
        }
        return m.toString();
    }

    @Override
    public void append(LogEvent e) {
        String text = e.getMessage() == null ? null : e.getMessage().getFormattedMessage();
        if (!announces(e.getLoggerName(), e.getLevel(), text) || !active.getAsBoolean()) {
            return;
        }
        Out.error(message(e.getLoggerName(), e.getLevel(), text, e.getThrown()));
    }
}
