package cdch;

import cdch.common.UserConfig;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A cell's connector configuration: the adapter's defaults, the user's file (CDCH_CONFIG:
 * .properties, flat JSON or Kafka Connect's {"name":..,"config":{..}}) over them, the settings the
 * harness owns kept, and what the mapping of records needs to know about the result (Mapping).
 * A setting whose effect on the records the adapter cannot map is refused (UserConfig.Error, the
 * config-error line).
 */
final class Settings {
    private Settings() {
    }

    /** What the harness owns: key (or "prefix*") -> why it is kept. */
    static Map<String, String> owned(Lib lib) {
        Map<String, String> o = new LinkedHashMap<>();
        String naming = "naming only: the engine name and logical server name key the offsets the harness seeds and the cell's JMX metrics";
        o.put("name", naming);
        o.put("topic.prefix", naming);
        o.put("database.server.name", naming);
        o.put("connector.class", "the family is Debezium's MySQL connector");
        String server = "the harness's fake primary (host, port and account of the cell)";
        o.put("database.hostname", server);
        o.put("database.port", server);
        o.put("database.user", server);
        o.put("database.password", server);
        o.put("database.server.id", "the harness gives each cell a unique replica server id");
        String offsets = "offset storage: the cell's own file in its state dir, flushed after every batch, seeded with the harness's start point";
        o.put("offset.storage", offsets);
        o.put("offset.storage.*", offsets);
        o.put("offset.flush.interval.ms", offsets);
        o.put("internal.key.converter*", offsets);
        o.put("internal.value.converter*", offsets);
        String history = "schema history: the cell's own file in its state dir (a resumed cell needs the history its offsets refer to)";
        o.put("schema.history.internal", history);
        o.put("schema.history.internal.file.filename", history);
        o.put("database.history", history);
        o.put("database.history.file.filename", history);
        String snapshot = "where the connector starts is the harness's (the scenario's start point; the fake primary serves the binlog, no table contents to snapshot)";
        o.put("snapshot.mode", snapshot);
        o.put("snapshot.locking.mode", snapshot);
        String records = "the adapter reads the Connect records through the embedded engine's Json format with schemas (they give the mapping its types); a worker's converter serializes the same records";
        o.put("converter.schemas.enable", records);
        o.put("key.converter*", records);
        o.put("value.converter*", records);
        o.put("header.converter*", records);
        return o;
    }

    /** Accepted values of the settings the mapping depends on (anything else: config-error). */
    static final Map<String, List<String>> MAPPED = new LinkedHashMap<>();

    static {
        MAPPED.put("decimal.handling.mode", Arrays.asList("precise", "string", "double"));
        MAPPED.put("time.precision.mode", Arrays.asList("adaptive", "adaptive_time_microseconds", "connect", "microseconds", "nanoseconds", "isostring"));
        MAPPED.put("binary.handling.mode", Arrays.asList("bytes", "base64", "base64-url-safe", "hex"));
        MAPPED.put("bigint.unsigned.handling.mode", Arrays.asList("long", "precise"));
        MAPPED.put("converter.decimal.format", Arrays.asList("BASE64", "NUMERIC", "base64", "numeric"));
    }

    /** MySQL type names Debezium's DDL parsers give the JDBC types BINARY, VARBINARY and BLOB (MySqlAntlrDdlParser's DataTypeEntry list). */
    static final Set<String> BINARY_TYPES = Set.of("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "LONG VARBINARY");

    /** Connect SMTs that leave a change event's op, before, after and source as they are. */
    static final Set<String> SMT_KEEP = Set.of(
        "org.apache.kafka.connect.transforms.RegexRouter",
        "org.apache.kafka.connect.transforms.TimestampRouter",
        "org.apache.kafka.connect.transforms.Filter",
        "org.apache.kafka.connect.transforms.InsertHeader",
        "org.apache.kafka.connect.transforms.DropHeaders",
        "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value",
        "io.debezium.transforms.Filter",
        "io.debezium.transforms.ByLogicalTableRouter",
        "io.debezium.transforms.ExtractChangedRecordState",
        "io.debezium.transforms.partitions.PartitionRouting",
        "io.debezium.transforms.partitions.ComputePartition",
        "io.debezium.transforms.tracing.ActivateTracingSpan");

    static final List<String> ENVELOPE = Arrays.asList("op", "before", "after", "source");

    /** What the mapping of a record needs from the configuration. */
    static final class Mapping {
        /** binary.handling.mode: bytes, base64, base64-url-safe or hex. */
        String binary = "bytes";
        /** Envelope fields renamed by ReplaceField$Value: the name in the record -> the envelope's own. */
        final Map<String, String> renamed = new HashMap<>();
    }

    /** The result: the effective settings, the kept keys and the mapping. */
    static final class Result {
        UserConfig.Merged merged;
        final Mapping mapping = new Mapping();
    }

    /**
     * defaults: the adapter's settings (harness-owned included), in order; env: the cell's. Reads
     * CDCH_CONFIG, merges, checks; throws UserConfig.Error with the config-error message.
     */
    static Result resolve(LinkedHashMap<String, String> defaults, Map<String, String> env, Lib lib) throws UserConfig.Error {
        LinkedHashMap<String, String> user = UserConfig.load(UserConfig.path(env));
        Result r = new Result();
        r.merged = UserConfig.merge(defaults, user, owned(lib));
        Map<String, String> eff = r.merged.effective;
        for (Map.Entry<String, String> e : r.merged.user.entrySet()) {
            check(e.getKey(), e.getValue());
        }
        checkTransforms(eff, r.mapping);
        String bin = eff.getOrDefault("binary.handling.mode", "bytes").trim();
        r.mapping.binary = bin;
        if (!bin.equals("bytes")) {
            // base64 / base64-url-safe / hex give binary columns a plain string schema
            // (CommonConnectorConfig.BinaryHandlingMode: SchemaBuilder::string), the same as text:
            // the column's source type, which column.propagate.source.type adds to the field's
            // schema parameters (__debezium.source.column.type; values untouched), tells them apart
            String prop = eff.get("column.propagate.source.type");
            if (prop == null || prop.isBlank()) {
                eff.put("column.propagate.source.type", ".*");
            } else if (!Arrays.asList(prop.split(",")).contains(".*")) {
                eff.put("column.propagate.source.type", prop + ",.*");
            }
        }
        return r;
    }

    static void check(String k, String v) throws UserConfig.Error {
        List<String> ok = MAPPED.get(k);
        if (ok != null && !ok.contains(v.trim())) {
            throw new UserConfig.Error(k, v, "the adapter maps the records only under " + String.join(", ", ok));
        }
        if (k.startsWith("column.mask.") || k.startsWith("column.truncate.")) {
            throw new UserConfig.Error(k, v, "rewrites column values (masking, hashing or truncating): the adapter cannot map them back to the values the stream holds");
        }
        if (k.equals("field.name.adjustment.mode") && !v.trim().equalsIgnoreCase("none")) {
            throw new UserConfig.Error(k, v, "renames columns whose names are not Avro names: the adapter cannot map the adjusted names back");
        }
        if (k.equals("sanitize.field.names") && v.trim().equalsIgnoreCase("true")) {
            throw new UserConfig.Error(k, v, "renames columns whose names are not Avro names: the adapter cannot map the adjusted names back");
        }
    }

    static void checkTransforms(Map<String, String> eff, Mapping m) throws UserConfig.Error {
        String list = eff.get("transforms");
        if (list == null || list.isBlank()) {
            return;
        }
        for (String alias : list.split(",")) {
            alias = alias.trim();
            if (alias.isEmpty()) {
                continue;
            }
            String key = "transforms." + alias + ".type";
            String type = eff.get(key);
            if (type == null) {
                continue;   // Debezium's own error ("Missing required configuration")
            }
            type = type.trim();
            String p = "transforms." + alias + ".";
            if (SMT_KEEP.contains(type) || (type.startsWith("org.apache.kafka.connect.transforms.") && type.endsWith("$Key"))) {
                continue;   // topic, key, headers, partition, schema name, or drops records: the envelope is untouched
            }
            if (type.equals("org.apache.kafka.connect.transforms.InsertField$Value")) {
                for (String f : Arrays.asList("topic.field", "partition.field", "offset.field", "timestamp.field", "static.field")) {
                    String name = eff.get(p + f);
                    if (name != null && ENVELOPE.contains(name.trim().replaceAll("[!?]$", ""))) {
                        throw new UserConfig.Error(p + f, name, "replaces the change event's own '" + name.trim() + "' field");
                    }
                }
                continue;   // adds fields beside the envelope's
            }
            if (type.equals("io.debezium.transforms.HeaderToValue")) {
                String fields = eff.getOrDefault(p + "fields", "");
                for (String f : fields.split(",")) {
                    if (ENVELOPE.contains(f.trim())) {
                        throw new UserConfig.Error(p + "fields", fields, "replaces the change event's own '" + f.trim() + "' field");
                    }
                }
                continue;
            }
            if (type.equals("org.apache.kafka.connect.transforms.ReplaceField$Value")) {
                replaceField(eff, p, m);
                continue;
            }
            throw new UserConfig.Error(key, type, "an SMT the adapter cannot map (it reads op, before, after and source of Debezium's change event envelope; this transform may reshape or rewrite them)");
        }
    }

    /** ReplaceField$Value on the envelope: renames of its fields are mapped back; dropping them is refused. */
    static void replaceField(Map<String, String> eff, String p, Mapping m) throws UserConfig.Error {
        for (String k : Arrays.asList("exclude", "blacklist")) {
            String v = eff.get(p + k);
            if (v == null) {
                continue;
            }
            for (String f : v.split(",")) {
                if (ENVELOPE.contains(f.trim())) {
                    throw new UserConfig.Error(p + k, v, "drops the change event's '" + f.trim() + "' field");
                }
            }
        }
        for (String k : Arrays.asList("include", "whitelist")) {
            String v = eff.get(p + k);
            if (v == null || v.isBlank()) {
                continue;
            }
            List<String> inc = Arrays.asList(v.replace(" ", "").split(","));
            for (String f : ENVELOPE) {
                if (!inc.contains(f)) {
                    throw new UserConfig.Error(p + k, v, "drops the change event's '" + f + "' field");
                }
            }
        }
        String renames = eff.get(p + "renames");
        if (renames == null || renames.isBlank()) {
            return;
        }
        for (String pair : renames.split(",")) {
            String[] ab = pair.trim().split(":");
            if (ab.length != 2) {
                continue;   // Kafka's own ConfigException
            }
            String from = ab[0].trim();
            String to = ab[1].trim();
            if (ENVELOPE.contains(from)) {
                m.renamed.put(to, from);
            } else if (ENVELOPE.contains(to)) {
                throw new UserConfig.Error(p + "renames", renames, "gives another field the change event's name '" + to + "'");
            }
        }
    }
}
