package cdch;

// The user's configuration of a cell (CDCH_CONFIG, issue 25): a Maxwell config.properties. Its keys
// reach Maxwell's MaxwellConfig as its own options do: a key that is an option of Maxwell's command
// line as --key=value (some, e.g. replay and recapture_schema, are read from the command line only),
// the others (replication_jdbc_options, ...) in a --config file, which Maxwell reads as
// config.properties. The settings the harness owns stay as the adapter sets them on the command line
// (reported as kept, and not handed to Maxwell).
//
// Honoured: every other key this version of Maxwell takes, e.g. filter, include_dbs, exclude_dbs,
// include_tables, exclude_tables, blacklist_dbs, blacklist_tables, include_column_values,
// exclude_columns, output_binlog_position, output_commit_info, output_xoffset, output_nulls,
// output_server_id, output_thread_id, output_schema_id, output_row_query, output_primary_keys,
// output_primary_key_columns, output_ddl, output_null_zerodates, log_level, bootstrapper,
// max_schemas, recapture_schema, replay, binlog_connector, replication_ssl, replication_jdbc_options,
// metrics_* / http_*. What they change in Maxwell's JSON is mapped as Maxwell documents it:
// output_nulls=false leaves NULL columns out of "data" (the adapter puts them back as null from
// Maxwell's own schema of the table, minus exclude_columns); other keys add fields the adapter does
// not read, or change which rows and columns come (shown as what they are).
// Kept by the harness: host, port, user, password, jdbc_options, ssl (the state store is the
// adapter's own MariaDB), schema_database, client_id (Maxwell's state is per cell), replication_host,
// replication_port, replication_user, replication_password (the fake primary), schema_* (the schema
// is captured from the replication host), replica_server_id, init_position, gtid_mode (the start
// the harness chose), master_recovery (one primary), producer and every producer's settings
// (producer_*, custom_producer*, kafka*, kinesis_*, sqs_*, pubsub_*, rabbitmq_*, redis_*, nats_*,
// output_file, dead_letter_topic, ddl_*_topic, ignore_producer_error: the producer is stdout, read
// back by the adapter), daemon, config, env_config*, help.
// Refused (config-error): a key this version's Maxwell does not know, javascript (Nashorn is not in
// Java 17), encrypt other than none (encrypted output cannot be mapped), output_gtid_position=true
// (Maxwell takes it only with gtid_mode, which the harness keeps off: it starts by file:position),
// output_naming_strategy other than none (renames the fields).

import cdch.common.UserConfig;
import com.zendesk.maxwell.MaxwellConfig;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

final class MaxwellSettings {
    private static final Map<String, String> OWNED = new LinkedHashMap<>();
    static {
        String store = "the state store is the adapter's own MariaDB";
        for (String k : new String[] {"host", "port", "user", "password", "jdbc_options", "ssl"}) {
            OWNED.put(k, store);
        }
        String state = "Maxwell's state (positions, schemas) is kept per cell by the adapter";
        OWNED.put("schema_database", state);
        OWNED.put("client_id", state);
        String fake = "the harness's fake primary and its replication account";
        for (String k : new String[] {"replication_host", "replication_port", "replication_user", "replication_password"}) {
            OWNED.put(k, fake);
        }
        OWNED.put("schema_*", "the schema is captured from the replication host (the fake primary)");
        OWNED.put("replica_server_id", "the harness gives each run a unique replica server id");
        OWNED.put("init_position", "the start position is the harness's");
        OWNED.put("gtid_mode", "the harness starts Maxwell by file:position");
        OWNED.put("master_recovery", "the harness serves one primary");
        String producer = "the producer is the harness's: stdout, read back by the adapter";
        for (String k : new String[] {"producer", "producer_*", "custom_producer*", "kafka*", "kinesis_*", "sqs_*",
                "pubsub_*", "rabbitmq_*", "redis_*", "nats_*", "bigquery_*", "output_file", "dead_letter_topic",
                "ddl_kafka_topic", "ddl_pubsub_topic", "ignore_producer_error", "sns_*"}) {
            OWNED.put(k, producer);
        }
        OWNED.put("daemon", "the adapter runs Maxwell in its own process");
        String conf = "the harness gives the configuration (CDCH_CONFIG)";
        OWNED.put("config", conf);
        OWNED.put("env_config_prefix", conf);
        OWNED.put("env_config", conf);
        OWNED.put("help", conf);
    }

    final UserConfig.Merged merged;
    /** the command line: the harness's and the adapter's settings */
    final List<String> argv = new ArrayList<>();
    /** the user's settings that are options of Maxwell's command line */
    final List<String> userArgv = new ArrayList<>();
    /** the user's other keys Maxwell takes, for its --config file */
    final Properties file = new Properties();

    private MaxwellSettings(UserConfig.Merged merged) {
        this.merged = merged;
    }

    /** harness: the command-line settings (key -> value, in order), the adapter's defaults included. */
    static MaxwellSettings resolve(Map<String, String> env, Map<String, String> harness) throws UserConfig.Error {
        Map<String, String> user = UserConfig.load(UserConfig.path(env));
        UserConfig.Merged m = UserConfig.merge(harness, user, OWNED);
        MaxwellSettings s = new MaxwellSettings(m);
        Set<String> known = knownOptions();
        for (Map.Entry<String, String> e : m.user.entrySet()) {
            String k = e.getKey(), v = e.getValue().trim();
            if (k.equals("javascript")) {
                throw new UserConfig.Error(k, v, "Maxwell's javascript filters run on Nashorn, which Java 17 does not have");
            }
            if (k.equals("encrypt") && !v.equals("none")) {
                throw new UserConfig.Error(k, v, "encrypted output cannot be mapped to change events");
            }
            if (k.equals("output_gtid_position") && !v.equalsIgnoreCase("false")) {
                throw new UserConfig.Error(k, v, "Maxwell takes it only with gtid_mode, which the harness keeps off (it starts by file:position)");
            }
            if (k.equals("output_naming_strategy") && !v.equals("none")) {
                throw new UserConfig.Error(k, v, "renames the fields of Maxwell's JSON, which the adapter reads by their names");
            }
            if (known != null && !known.contains(k) && !k.startsWith("replication_") && !k.startsWith("schema_")) {
                throw new UserConfig.Error(k, v, "this version of Maxwell has no such option");
            }
            // an option of the parser goes on the command line (some, e.g. replay and
            // recapture_schema, are read from there only); the others (replication_jdbc_options,
            // kafka.*, ...) are config-file keys
            if (known != null && known.contains(k)) {
                s.userArgv.add("--" + k + "=" + e.getValue());
            } else {
                s.file.setProperty(k, e.getValue());
            }
        }
        // the command line: what the harness owns and the adapter's defaults, where the user did not set them
        for (Map.Entry<String, String> e : harness.entrySet()) {
            if (!m.user.containsKey(e.getKey())) {
                s.argv.add("--" + e.getKey() + "=" + e.getValue());
            }
        }
        return s;
    }

    /** The options this version's MaxwellConfig parser takes (null when it cannot say). */
    private static Set<String> knownOptions() {
        try {
            Method b = MaxwellConfig.class.getDeclaredMethod("buildOptionParser");
            b.setAccessible(true);
            Object parser = b.invoke(new MaxwellConfig());
            Object opts = parser.getClass().getMethod("recognizedOptions").invoke(parser);
            return ((Map<?, ?>) opts).keySet().stream().map(String::valueOf).collect(java.util.stream.Collectors.toSet());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
            System.err.println("cdch-maxwell: cannot list Maxwell's options (" + ex + "): not checked");
            return null;
        }
    }

    /** The full command line: argv plus --config=FILE (written into dir) when the user gave settings. */
    String[] commandLine(Path dir) throws IOException {
        List<String> a = new ArrayList<>(argv);
        a.addAll(userArgv);
        if (!file.isEmpty()) {
            Path f = Files.createTempFile(dir, "maxwell-config", ".properties");
            try (java.io.Writer w = Files.newBufferedWriter(f, StandardCharsets.UTF_8)) {
                file.store(w, "the user's settings (CDCH_CONFIG) less those the harness keeps");
            }
            a.add("--config=" + f);
        }
        return a.toArray(new String[0]);
    }

    /** MaxwellConfig.outputConfig.includesNulls of a parsed config (true when it cannot say). */
    static boolean includesNulls(MaxwellConfig c) {
        try {
            Object oc = c.getClass().getField("outputConfig").get(c);
            return oc.getClass().getField("includesNulls").getBoolean(oc);
        } catch (ReflectiveOperationException | RuntimeException ex) {
            return true;
        }
    }

    /** MaxwellConfig.outputConfig.excludeColumns of a parsed config (empty when it cannot say). */
    static List<Pattern> excludedColumns(MaxwellConfig c) {
        List<Pattern> out = new ArrayList<>();
        try {
            Object oc = c.getClass().getField("outputConfig").get(c);
            Object l = oc.getClass().getField("excludeColumns").get(oc);
            if (l instanceof List) {
                for (Object p : (List<?>) l) {
                    if (p instanceof Pattern) {
                        out.add((Pattern) p);
                    }
                }
            }
        } catch (ReflectiveOperationException | RuntimeException ex) {
            // none
        }
        return out;
    }
}
