package cdch;

import cdch.common.Out;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;

/**
 * Canal reports trouble in its log, not to the embedding code: a failure inside the parallel
 * parser (MysqlMultiStageCoprocessor) kills a disruptor thread with an ERROR from
 * NamedThreadFactory and surfaces to the parse loop only at the next publish. So every ERROR
 * Canal logs while a cell runs (and is not being stopped) becomes an {"kind":"error"} line: that is
 * what a Canal operator's log alerting sees, connection trouble included (an IOException at the
 * root: the primary closed the socket): nothing is held back. Canal's parse loop then reconnects and
 * re-dumps from its last position by design; when every row still arrives, the harness shows these
 * lines as warnings on a pass (consumers/README.md).
 *
 * WARNs of Canal's binlog decoder (com.taobao.tddl.dbsync.binlog.LogDecoder) are passed through too:
 * every one of them says that an event was skipped or not decoded ("Skipping unrecognized binlog
 * event Unknown from: binlog.000001:1763", LogDecoder.java:459 at canal-1.1.5, the default branch a
 * TRANSACTION_PAYLOAD takes before 1.1.6). That is Canal announcing a loss in its own words, and the
 * harness judges it so (announced-skip); WARNs of other loggers stay in stderr only.
 */
public final class ErrorLines extends AppenderBase<ILoggingEvent> {
    static final String DECODER = "com.taobao.tddl.dbsync.binlog.LogDecoder";

    @Override
    protected void append(ILoggingEvent e) {
        boolean error = e.getLevel().isGreaterOrEqual(Level.ERROR);
        boolean decoderWarn = e.getLevel().isGreaterOrEqual(Level.WARN) && DECODER.equals(e.getLoggerName());
        if (!(error || decoderWarn) || !Main.cellActive()) {
            return;
        }
        StringBuilder msg = new StringBuilder(error ? "canal log ERROR: " : "canal log WARN: ").append(e.getFormattedMessage());
        IThrowableProxy t = e.getThrowableProxy();
        IThrowableProxy root = t;
        while (root != null && root.getCause() != null) {
            root = root.getCause();
        }
        if (root != null) {
            msg.append(" / ").append(root.getClassName()).append(": ").append(root.getMessage());
        }
        Out.error(msg.toString());
    }
}
