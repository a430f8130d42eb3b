package cdch;

import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Properties;
import java.util.Set;

/**
 * The Debezium release this JVM runs, as its jars say: the connector jar's version
 * (META-INF/maven/io.debezium/debezium-connector-mysql/pom.properties) and what its classes offer.
 * The adapter decides by these, never by CDCH_VERSION (an unpinned or local build's version is
 * whatever its jars are), so one source drives every release from 1.2.0 on:
 *
 * <ul>
 * <li>schema history: io.debezium.storage.file.history.FileSchemaHistory under
 *     "schema.history.internal." (2.0.0.Beta2 on), io.debezium.storage.file.history.FileDatabaseHistory
 *     under "database.history." (2.0.0.Beta1, the first with debezium-storage-file), else
 *     io.debezium.relational.history.FileDatabaseHistory in debezium-core (1.x, 2.0.0.Alpha1-3);</li>
 * <li>the logical server name: "topic.prefix" when CommonConnectorConfig.TOPIC_PREFIX exists
 *     (2.0.0.Beta2 on), else "database.server.name";</li>
 * <li>the snapshot modes the connector knows (its SnapshotMode enum: MySqlConnectorConfig up to 2.6,
 *     BinlogConnectorConfig from 2.7): "recovery" is new in 2.6.0, "never" is gone in 3.6;</li>
 * <li>the default database.ssl.mode (MySqlConnectorConfig.SSL_MODE): "disabled" up to 2.2.x,
 *     "preferred" from 2.3.0.Alpha1;</li>
 * <li>the offset file's key form: the engine configures its internal key converter with schemas
 *     (so keys are written in the {"schema":null,"payload":...} envelope) while it still has the
 *     internal.key.converter option, EmbeddedEngine.INTERNAL_KEY_CONVERTER_CLASS (up to 2.0.0.Beta1;
 *     gone in 2.0.0.Beta2, DBZ-4617 09b99840d8, which configures both converters without schemas).</li>
 * </ul>
 */
final class Lib {
    static final Lib INSTANCE = new Lib();

    /** debezium-connector-mysql's version as its jar says ("?" when it says nothing). */
    final String version;
    /** The version's major number (0 when unreadable). */
    final int major;
    final String historyClass;
    /** "schema.history.internal" or "database.history" (the prefix of the history's settings). */
    final String historyKey;
    /** "topic.prefix" or "database.server.name". */
    final String prefixKey;
    final boolean keyEnvelope;
    final Set<String> snapshotModes;
    /** The connector's default database.ssl.mode ("disabled" up to 2.2, "preferred" from 2.3.0.Alpha1; null: unreadable). */
    final String sslDefault;

    private Lib() {
        ClassLoader cl = Lib.class.getClassLoader();
        version = connectorVersion(cl);
        int m = 0;
        try {
            m = Integer.parseInt(version.split("[.]")[0]);
        } catch (NumberFormatException ex) {
            m = 0;
        }
        major = m;
        if (exists(cl, "io.debezium.storage.file.history.FileSchemaHistory")) {
            historyClass = "io.debezium.storage.file.history.FileSchemaHistory";
            historyKey = "schema.history.internal";
        } else if (exists(cl, "io.debezium.storage.file.history.FileDatabaseHistory")) {
            historyClass = "io.debezium.storage.file.history.FileDatabaseHistory";
            historyKey = "database.history";
        } else {
            historyClass = "io.debezium.relational.history.FileDatabaseHistory";
            historyKey = "database.history";
        }
        prefixKey = hasField(cl, "io.debezium.config.CommonConnectorConfig", "TOPIC_PREFIX") ? "topic.prefix" : "database.server.name";
        keyEnvelope = hasField(cl, "io.debezium.embedded.EmbeddedEngine", "INTERNAL_KEY_CONVERTER_CLASS");
        Set<String> modes = enumValues(cl, "io.debezium.connector.binlog.BinlogConnectorConfig$SnapshotMode");
        if (modes.isEmpty()) {
            modes = enumValues(cl, "io.debezium.connector.mysql.MySqlConnectorConfig$SnapshotMode");
        }
        snapshotModes = Collections.unmodifiableSet(modes);
        sslDefault = fieldDefault(cl, "io.debezium.connector.mysql.MySqlConnectorConfig", "SSL_MODE");
    }

    /** Whether the connector connects without TLS unless told (database.ssl.mode's default is disabled). */
    boolean sslDisabledByDefault() {
        return sslDefault == null ? major < 2 : sslDefault.equalsIgnoreCase("disabled");
    }

    boolean hasSnapshotMode(String mode) {
        return snapshotModes.contains(mode);
    }

    @Override
    public String toString() {
        return "debezium-connector-mysql " + version + " (history " + historyClass + " under " + historyKey
            + ", " + prefixKey + ", snapshot modes " + snapshotModes + ", database.ssl.mode default " + sslDefault + (keyEnvelope ? ", offset keys in a schema envelope" : "") + ")";
    }

    static String connectorVersion(ClassLoader cl) {
        try (InputStream in = cl.getResourceAsStream("META-INF/maven/io.debezium/debezium-connector-mysql/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null && !v.isBlank()) {
                    return v.trim();
                }
            }
        } catch (Exception ignored) {
            // fall back to the connector's own Module.version()
        }
        try {
            Object v = Class.forName("io.debezium.connector.mysql.Module", true, cl).getMethod("version").invoke(null);
            if (v != null) {
                return v.toString();
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ignored) {
            // no version to be found
        }
        return "?";
    }

    static boolean exists(ClassLoader cl, String name) {
        try {
            Class.forName(name, false, cl);
            return true;
        } catch (ClassNotFoundException | LinkageError ex) {
            return false;
        }
    }

    static boolean hasField(ClassLoader cl, String cls, String field) {
        try {
            Class.forName(cls, false, cl).getDeclaredField(field);
            return true;
        } catch (ClassNotFoundException | NoSuchFieldException | LinkageError ex) {
            return false;
        }
    }

    // the default of a connector setting: the public static io.debezium.config.Field cls.field's defaultValueAsString()
    static String fieldDefault(ClassLoader cl, String cls, String field) {
        try {
            Object f = Class.forName(cls, true, cl).getField(field).get(null);
            Object d = f.getClass().getMethod("defaultValueAsString").invoke(f);
            return d == null ? null : d.toString();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
            return null;
        }
    }

    static Set<String> enumValues(ClassLoader cl, String cls) {
        Set<String> out = new LinkedHashSet<>();
        try {
            Class<?> c = Class.forName(cls, true, cl);
            Object[] values = c.getEnumConstants();
            if (values == null) {
                return out;
            }
            Method getValue = c.getMethod("getValue");
            for (Object v : values) {
                out.add(String.valueOf(getValue.invoke(v)));
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
            out.clear();
        }
        return out;
    }
}
