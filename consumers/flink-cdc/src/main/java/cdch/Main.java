package cdch;

// cdcharness adapter for Flink CDC's MySQL source, run as its users run it: a Flink DataStream job
// whose source is MySqlSource (the incremental-snapshot source, FLIP-27) with Flink CDC's own
// JsonDebeziumDeserializationSchema(true), checkpointing enabled (every CHECKPOINT_MS, exactly-once
// mode, Flink's defaults otherwise), parallelism 1, on a Flink mini-cluster in this JVM (what
// StreamExecutionEnvironment.execute() does in a local environment). The job's sink maps each record
// as the debezium adapter maps its own (java-common's DebeziumCanon) and prints it through the
// contract. The consumer's ERROR log lines and Flink's task failures are error lines as soon as they
// are written (StderrWatch).
//
// Start (consumers/README.md "Environment of a run"): StartupOptions.specificOffset at
// CDCH_START_FILE/CDCH_START_POS (the first file, position 4, by default), with CDCH_GTID_SET as
// the offset's GTID set when the harness gives one: how a Flink CDC user starts a job at a stored
// binlog position ('scan.startup.mode' = 'specific-offset'). The fake primary serves a binlog, no
// table contents, so the snapshot phase (StartupOptions.initial) is not run. Captured: every table
// of CDCH_DATABASES (databaseList), as a user listing the databases.
//
// The mini-cluster is started once per JVM (session mode: one per session) and each cell is one
// job on it, submitted, watched and cancelled through the MiniCluster API: a cell's job is isolated
// as a job of its own (its own source, reader, binlog connection and checkpoints), and the JVM and
// the cluster's start-up are paid once. Failures: the job's failures are reported as the cluster
// records them (the execution graph's latest failure, a {"kind":"error"} line each). Flink's own
// restart strategy stays as it is for a job with checkpointing (fixed-delay, unlimited attempts,
// 1 s): a failed task restarts from the last completed checkpoint, as it would for a user; a job
// that ends FAILED ends the cell with status 1. The adapter itself never retries anything.
//
// Session mode (CDCH_SESSION=1): stdin carries start/stop lines; one JVM, one cluster, a job a cell.

import cdch.common.DebeziumCanon;
import cdch.common.Out;
import cdch.common.Session;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.ververica.cdc.connectors.mysql.source.MySqlSource;
import com.ververica.cdc.connectors.mysql.source.offset.BinlogOffset;
import com.ververica.cdc.connectors.mysql.source.offset.BinlogOffsetBuilder;
import com.ververica.cdc.connectors.mysql.table.StartupOptions;
import com.ververica.cdc.debezium.JsonDebeziumDeserializationSchema;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public final class Main {
    private static final AtomicInteger CELLS = new AtomicInteger();
    // Checkpointing every 60 s. Flink CDC's DataStream example uses 3 s (docs/content/connectors/
    // mysql-cdc.md at release-2.4.2), but with 3 s whether a checkpoint falls between a restart
    // scenario's last row and its cut decides where the restarted job resumes (the checkpoint or the
    // start offset), so the verdict would follow the machine's load; with 60 s no checkpoint
    // completes within a cell and a restarted job always resumes from the offset it started at
    // (manifest.yaml: restart-replays-since-checkpoint). The stream and the rows are the same.
    // The minimum pause is the interval too: Flink triggers a job's first checkpoint at a random
    // time between the minimum pause (default 0) and the interval (CheckpointCoordinator
    // getRandomInitDelay: ThreadLocalRandom nextLong(minPauseBetweenCheckpoints, baseInterval + 1)),
    // so with the default one cell in about twenty had a checkpoint before its cut, and its restart
    // resumed there: restart-by-gtid-set was a pass once where it is a duplicate (main.sh,
    // 2026-12-05). With both at 60 s the first checkpoint comes 60 s after the job starts.
    static final long CHECKPOINT_MS = 60_000;
    /** The cell whose job may print (a cancelled job's late records are dropped). */
    static volatile int LIVE = -1;
    private static MiniCluster cluster;

    static void log(String msg) {
        System.err.println("cdch-flink-cdc: " + msg);
        System.err.flush();
    }

    // The consumer's own error log lines, reported as {"kind":"error"} as soon as they are written
    // (as the debezium family does): Debezium's "Error during binlog processing" / "Producer
    // failure", Flink's fetcher and task failures ("... switched from RUNNING to FAILED"). A task
    // failure reaches the job's failure record only once the restart is handled, which can come
    // after the harness has judged the stream; the log line comes at once. Every ERROR line of a
    // logger (slf4j-simple) and the task's FAILED transition are reported, none is judged or
    // withheld (at most MAX_ERRORS distinct lines per cell).
    static final java.util.regex.Pattern ERROR_LINE = java.util.regex.Pattern.compile(
            "^\\d\\d:\\d\\d:\\d\\d,\\d{3} \\[[^\\]]*\\] (ERROR |WARN org\\.apache\\.flink\\.runtime\\.taskmanager\\.Task - .* switched from RUNNING to FAILED)|^SEVERE: ");
    static volatile Cell CURRENT;

    static final class StderrWatch extends java.io.OutputStream {
        private final java.io.PrintStream err;
        private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

        StderrWatch(java.io.PrintStream err) {
            this.err = err;
        }

        @Override
        public synchronized void write(int b) {
            err.write(b);
            if (b == '\n') {
                check(line.toString(java.nio.charset.StandardCharsets.UTF_8));
                line.reset();
            } else if (line.size() < 4000) {
                line.write(b);
            }
        }

        @Override
        public void flush() {
            err.flush();
        }

        private void check(String l) {
            Cell c = CURRENT;
            if (c == null || c.stopRequested || LIVE != c.seq || !ERROR_LINE.matcher(l).find()) {
                return;
            }
            // without the time and the thread (a restarted task logs the same line again)
            String key = l.trim().replaceFirst("^\\d\\d:\\d\\d:\\d\\d,\\d{3} \\[[^\\]]*\\] ", "").replaceAll("#\\d+ \\([0-9a-f_]+\\)", "");
            c.report("consumer log: " + key);
        }
    }

    public static void main(String[] args) throws Exception {
        Out.quoteWith(s -> s == null ? "null" : JsonNodeFactory.instance.textNode(s).toString());
        System.setErr(new java.io.PrintStream(new StderrWatch(System.err), true, java.nio.charset.StandardCharsets.UTF_8));
        String level = System.getenv("CDCH_FLINK_LOG");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level == null ? "warn" : level.toLowerCase());
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss,SSS");
        // CDCH_FLINK_TRACE=LOGGER[,LOGGER]: those loggers at TRACE (e.g.
        // io.debezium.connector.mysql.MySqlStreamingChangeEventSource, whose ignoreEvent says at
        // TRACE only what it drops: test.sh shows the TRANSACTION_PAYLOAD events it ignores)
        String trace = System.getenv("CDCH_FLINK_TRACE");
        if (trace != null) {
            for (String name : trace.split(",")) {
                if (!name.isBlank()) {
                    System.setProperty("org.slf4j.simpleLogger.log." + name.trim(), "trace");
                }
            }
        }
        log("flink-connector-mysql-cdc " + pkgVersion(MySqlSource.class) + ", flink-runtime " + pkgVersion(MiniCluster.class)
                + ", MySqlStreamingChangeEventSource from " + jarOf("io.debezium.connector.mysql.MySqlStreamingChangeEventSource"));
        if (Session.requested()) {
            Session.serve("cdch-flink-cdc: ", new Cells());
            closeCluster();
            System.exit(0);
        }
        Cell cell = new Cell(null, new HashMap<>(System.getenv()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cell.requestStop();
            cell.awaitEnd(4000);
        }));
        int status = cell.run();
        if (!cell.stopRequested) {
            closeCluster();
            System.exit(status);
        }
    }

    static String pkgVersion(Class<?> c) {
        String v = c.getPackage() == null ? null : c.getPackage().getImplementationVersion();
        if (v != null) {
            return v;
        }
        String jar = String.valueOf(c.getProtectionDomain().getCodeSource().getLocation());
        return jar.substring(jar.lastIndexOf('/') + 1);
    }

    // the jar a class is loaded from: Flink CDC's own copy of Debezium's streaming source must win
    // over debezium-connector-mysql's (the manifest's run puts {cache}/first/ before {cache}/lib/)
    static String jarOf(String cls) {
        try {
            String jar = String.valueOf(Class.forName(cls).getProtectionDomain().getCodeSource().getLocation());
            return jar.substring(jar.lastIndexOf('/') + 1);
        } catch (ClassNotFoundException ex) {
            return "nowhere (" + ex + ")";
        }
    }

    static synchronized MiniCluster cluster() throws Exception {
        if (cluster == null) {
            Configuration conf = new Configuration();
            // what a local environment's mini-cluster is given (LocalExecutor): a REST endpoint on a
            // free loopback port, so that concurrent JVMs never clash on 8081
            conf.set(RestOptions.BIND_PORT, "0");
            conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
            conf.set(RestOptions.ADDRESS, "127.0.0.1");
            // two slots: a cancelled job's slot may still be releasing when the next cell starts
            conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
            MiniClusterConfiguration mc = new MiniClusterConfiguration.Builder()
                    .setConfiguration(conf).setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build();
            MiniCluster c = new MiniCluster(mc);
            c.start();
            cluster = c;
        }
        return cluster;
    }

    static synchronized void closeCluster() {
        if (cluster != null) {
            try {
                cluster.closeAsync().get(5, TimeUnit.SECONDS);
            } catch (Exception ex) {
                log("closing the mini-cluster: " + ex);
            }
            cluster = null;
        }
    }

    // ---------------------------------------------------------------------------------------
    // session mode

    static final class Cells implements Session.Cells {
        Cell current;
        Thread runner;

        public void start(String id, Map<String, String> env) {
            if (current != null) {
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
                        Out.ended(cell.id, status);
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
    // one cell: one job

    static final class Cell {
        final String id;
        final int seq;
        final Map<String, String> env;
        volatile boolean stopRequested;
        boolean endedReported;
        volatile JobID job;
        final CountDownLatch ended = new CountDownLatch(1);

        Cell(String id, Map<String, String> env) {
            this.id = id == null ? "" : id;
            this.env = env;
            this.seq = CELLS.incrementAndGet();
        }

        String env(String k, String d) {
            String v = env.get(k);
            return v == null || v.isEmpty() ? d : v;
        }

        void requestStop() {
            stopRequested = true;
            if (LIVE == seq) {
                LIVE = -1;
            }
            JobID j = job;
            if (j != null) {
                try {
                    MiniCluster c = cluster();
                    c.cancelJob(j);
                    c.requestJobResult(j).get(5, TimeUnit.SECONDS);
                } catch (Exception ex) {
                    log("cancel: " + ex);
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
            CURRENT = this;
            try {
                return runJob();
            } catch (Throwable t) {
                if (!stopRequested) {
                    Out.error("adapter: " + t);
                    t.printStackTrace();
                }
                return 1;
            } finally {
                ended.countDown();
            }
        }

        StartupOptions startup() {
            String gtids = env("CDCH_GTID_SET", "");
            String file = env("CDCH_START_FILE", "");
            long pos = Long.parseLong(env("CDCH_START_POS", "4"));
            BinlogOffsetBuilder b = BinlogOffset.builder();
            if (!file.isEmpty()) {
                b.setBinlogFilePosition(file, pos);
            }
            if (!gtids.isEmpty()) {
                b.setGtidSet(gtids);
            }
            return StartupOptions.specificOffset(b.build());
        }

        int runJob() throws Exception {
            if (env.get("CDCH_CONFIG") != null && !env.get("CDCH_CONFIG").isEmpty()) {
                Out.configError("CDCH_CONFIG=" + env.get("CDCH_CONFIG") + ": the flink-cdc adapter takes no configuration yet (its MySqlSource settings are fixed: manifest.yaml)");
                return 2;
            }
            String[] dbs = env("CDCH_DATABASES", "").split(",");
            StartupOptions startup = startup();
            MySqlSource<String> source = MySqlSource.<String>builder()
                    .hostname(env("CDCH_HOST", "127.0.0.1"))
                    .port(Integer.parseInt(env("CDCH_PORT", "3306")))
                    .username(env("CDCH_USER", "root"))
                    .password(env("CDCH_PASSWORD", ""))
                    .serverId(env("CDCH_SERVER_ID", "5400"))
                    .serverTimeZone("UTC")
                    .databaseList(dbs)
                    .tableList(tables(dbs))
                    .startupOptions(startup)
                    .deserializer(new JsonDebeziumDeserializationSchema(true))
                    .build();
            Map<String, String> eff = new java.util.LinkedHashMap<>();
            eff.put("hostname", env("CDCH_HOST", "127.0.0.1"));
            eff.put("port", env("CDCH_PORT", "3306"));
            eff.put("username", env("CDCH_USER", "root"));
            eff.put("password", "***");
            eff.put("server-id", env("CDCH_SERVER_ID", "5400"));
            eff.put("server-time-zone", "UTC");
            eff.put("database-list", String.join(",", dbs));
            eff.put("table-list", String.join(",", tables(dbs)));
            eff.put("scan.startup.mode", "specific-offset");
            eff.put("scan.startup.specific-offset", startup.binlogOffset.toString());
            eff.put("deserializer", "JsonDebeziumDeserializationSchema(includeSchema=true)");
            eff.put("execution.checkpointing.interval", String.valueOf(CHECKPOINT_MS));
            eff.put("execution.checkpointing.min-pause", String.valueOf(CHECKPOINT_MS));
            eff.put("parallelism", "1");
            Out.config(eff, new java.util.LinkedHashMap<>());

            StreamExecutionEnvironment senv = StreamExecutionEnvironment.getExecutionEnvironment();
            senv.setParallelism(1);
            senv.enableCheckpointing(CHECKPOINT_MS);
            senv.getCheckpointConfig().setMinPauseBetweenCheckpoints(CHECKPOINT_MS);
            senv.fromSource(source, WatermarkStrategy.noWatermarks(), "MySQL Source")
                    .addSink(new Print(seq)).name("cdch");
            JobGraph graph = senv.getStreamGraph().getJobGraph();
            MiniCluster c = cluster();
            LIVE = seq;
            if (stopRequested) {
                return 0;
            }
            c.submitJob(graph).get();
            job = graph.getJobID();
            return watch(c, graph.getJobID());
        }

        static String[] tables(String[] dbs) {
            String[] t = new String[dbs.length];
            for (int i = 0; i < dbs.length; i++) {
                t[i] = dbs[i].replace(".", "\\.") + "\\..*";   // every table of the database (a regex, as table.include.list)
            }
            return t;
        }

        // follows the job: ready once every task runs, an error line for every failure the cluster
        // records, the cell's end when the job reaches a terminal state by itself
        static final int MAX_ERRORS = 8;
        final java.util.Set<String> reported = new java.util.HashSet<>();

        /** Prints an error line once per cell (at most MAX_ERRORS); true when printed. */
        boolean report(String msg) {
            synchronized (reported) {
                if (reported.size() >= MAX_ERRORS || !reported.add(msg)) {
                    return false;
                }
            }
            Out.error(msg);
            return true;
        }

        int watch(MiniCluster c, JobID j) throws Exception {
            boolean ready = false;
            long lastFailure = 0;
            while (true) {
                JobStatus st;
                try {
                    st = c.getJobStatus(j).get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException ex) {
                    continue;   // the cluster is slow to answer (a loaded machine): ask again
                } catch (Exception ex) {
                    if (stopRequested) {
                        return 0;
                    }
                    throw ex;
                }
                AccessExecutionGraph g = null;
                try {
                    g = c.getExecutionGraph(j).get(5, TimeUnit.SECONDS);
                } catch (Exception ex) {
                    // archived or not yet there
                }
                if (g != null) {
                    ErrorInfo f = g.getFailureInfo();
                    if (f != null && f.getTimestamp() != lastFailure) {
                        lastFailure = f.getTimestamp();
                        String msg = summary(f.getExceptionAsString());
                        // Flink restarts a failed job without end (fixed-delay, unlimited, 1 s): the
                        // same failure again is logged, not printed (a line is progress to the harness,
                        // so a job failing in a loop would otherwise never be judged)
                        if (!stopRequested && report("flink job " + st + ": " + msg)) {
                            log("job failure: " + f.getExceptionAsString());
                        } else {
                            log("job failure again (" + st + "): " + (msg.length() > 300 ? msg.substring(0, 300) + "..." : msg));
                        }
                    }
                    if (!ready && st == JobStatus.RUNNING && allRunning(g)) {
                        ready = true;
                        if (!stopRequested) {
                            Out.ready();
                        }
                    }
                }
                if (st.isGloballyTerminalState()) {
                    if (stopRequested) {
                        return 0;
                    }
                    return st == JobStatus.FINISHED ? 0 : 1;
                }
                Thread.sleep(ready ? 250 : 100);
            }
        }

        static boolean allRunning(AccessExecutionGraph g) {
            for (AccessExecutionVertex v : g.getAllExecutionVertices()) {
                if (v.getExecutionState() != org.apache.flink.runtime.execution.ExecutionState.RUNNING) {
                    return false;
                }
            }
            return true;
        }

        // "Class: message" of the exception and of each cause, as Flink's trace has them
        static String summary(String trace) {
            StringBuilder sb = new StringBuilder();
            for (String l : trace.split("\n")) {
                String s = l.trim();
                if (s.startsWith("at ") || s.startsWith("...") || s.isEmpty()) {
                    continue;
                }
                if (sb.length() > 0) {
                    sb.append(" / ");
                }
                sb.append(s);
                if (sb.length() > 2000) {
                    break;
                }
            }
            return sb.toString();
        }
    }

    /** The job's sink: every record mapped to a canonical line, printed while its cell is live. */
    static final class Print extends RichSinkFunction<String> {
        private static final long serialVersionUID = 1L;
        private final int cell;

        Print(int cell) {
            this.cell = cell;
        }

        @Override
        public void invoke(String value, Context context) {
            if (LIVE != cell) {
                return;
            }
            try {
                String line = DebeziumCanon.line(value);
                if (line != null) {
                    Out.line(line);
                }
            } catch (Exception ex) {
                Out.error("adapter: cannot map record: " + ex + " in " + (value.length() > 500 ? value.substring(0, 500) + "..." : value));
            }
        }
    }
}
