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
 */
public final class ErrorLines extends AppenderBase<ILoggingEvent> {
    @Override
    protected void append(ILoggingEvent e) {
        if (!e.getLevel().isGreaterOrEqual(Level.ERROR) || !Main.cellActive()) {
            return;
        }
        StringBuilder msg = new StringBuilder("canal log ERROR: ").append(e.getFormattedMessage());
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
