package cdch;

// The user's configuration of a cell (CDCH_CONFIG, issue 25): a Canal instance.properties. Each
// canal.instance.* key the event parser takes is applied as Canal's own spring instance files apply
// it (deployer/src/main/resources/spring/default-instance.xml at canal-1.1.7: key -> parser property),
// through the running version's setter (reflection: a key whose setter the version lacks is a
// config-error naming it).
//
// Honoured (key -> MysqlEventParser property): filter.regex -> eventFilter (AviaterRegexFilter),
// filter.black.regex -> eventBlackFilter (AviaterRegexFilter(regex, false)), filter.field ->
// fieldFilter, filter.black.field -> fieldBlackFilter, filter.query.dml/dcl/ddl -> filterQueryDml/
// Dcl/Ddl, filter.druid.ddl -> useDruidDdlFilter, filter.dml.insert/update/delete -> filterDmlInsert/
// Update/Delete, filter.rows -> filterRows, filter.table.error -> filterTableError, transaction.size,
// network.receiveBufferSize, network.sendBufferSize, network.soTimeout ->
// defaultConnectionTimeoutInSeconds, connectionCharset, fallbackIntervalInSeconds, binlog.format ->
// supportBinlogFormats, binlog.image -> supportBinlogImages, parser.parallel, parser.parallelThreadSize,
// parser.parallelBufferSize, detecting.enable/sql/interval.time, defaultDatabaseName (masterInfo),
// destination, multi.stream.on -> multiStreamEnable, canal.auto.reset.latest.pos.mode, and
// tsdb.enable=false (the adapter's default, as in Canal's MysqlDumpTest).
// Kept by the harness: master.address, dbUsername, dbPassword, pwdPublicKey, enableDruid (the fake
// primary and its account), mysql.slaveId (a unique replica id per run), master.journal.name,
// master.position, master.timestamp, master.gtid, gtidon (the start the harness chose), standby.*,
// detecting.retry.threshold, detecting.heartbeatHaEnable (one primary, no standby to switch to),
// rds.*/canal.aliyun.* (Aliyun's binlog download), tsdb.* other than enable (no table-meta store:
// see below), memory.*, canal.mq.*, global.* (the adapter's sink prints the rows: no store, no MQ).
// Refused (config-error): tsdb.enable=true (the embedded parser has no table-meta store: Canal's
// tsdb is a spring/H2 setup of the deployer), any other key, a value that does not parse.

import cdch.common.UserConfig;
import com.alibaba.otter.canal.parse.inbound.mysql.MysqlEventParser;
import com.alibaba.otter.canal.parse.support.AuthenticationInfo;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

final class InstanceConfig {
    static final String P = "canal.instance.";

    /** canal.instance.KEY -> the parser property Canal's default-instance.xml sets from it */
    private static final Map<String, String> PROPS = new LinkedHashMap<>();
    static {
        String[][] t = {
            {"destination", "destination"},
            {"filter.regex", "eventFilter"},
            {"filter.black.regex", "eventBlackFilter"},
            {"filter.field", "fieldFilter"},
            {"filter.black.field", "fieldBlackFilter"},
            {"transaction.size", "transactionSize"},
            {"network.receiveBufferSize", "receiveBufferSize"},
            {"network.sendBufferSize", "sendBufferSize"},
            {"network.soTimeout", "defaultConnectionTimeoutInSeconds"},
            {"connectionCharset", "connectionCharset"},
            {"fallbackIntervalInSeconds", "fallbackIntervalInSeconds"},
            {"filter.query.dml", "filterQueryDml"},
            {"filter.query.dcl", "filterQueryDcl"},
            {"filter.query.ddl", "filterQueryDdl"},
            {"filter.druid.ddl", "useDruidDdlFilter"},
            {"filter.dml.insert", "filterDmlInsert"},
            {"filter.dml.update", "filterDmlUpdate"},
            {"filter.dml.delete", "filterDmlDelete"},
            {"filter.rows", "filterRows"},
            {"filter.table.error", "filterTableError"},
            {"binlog.format", "supportBinlogFormats"},
            {"binlog.image", "supportBinlogImages"},
            {"tsdb.enable", "enableTsdb"},
            {"parser.parallel", "parallel"},
            {"parser.parallelThreadSize", "parallelThreadSize"},
            {"parser.parallelBufferSize", "parallelBufferSize"},
            {"detecting.enable", "detectingEnable"},
            {"detecting.sql", "detectingSQL"},
            {"detecting.interval.time", "detectingIntervalInSeconds"},
            {"multi.stream.on", "multiStreamEnable"},
        };
        for (String[] r : t) {
            PROPS.put(P + r[0], r[1]);
        }
        PROPS.put("canal.auto.reset.latest.pos.mode", "autoResetLatestPosMode");
    }

    private static final Map<String, String> OWNED = new LinkedHashMap<>();
    static {
        String fake = "the harness's fake primary and its replication account";
        for (String k : new String[] {"master.address", "dbUsername", "dbPassword", "pwdPublicKey", "enableDruid"}) {
            OWNED.put(P + k, fake);
        }
        OWNED.put(P + "mysql.slaveId", "the harness gives each run a unique replica server id");
        String start = "the start position / GTID set is the harness's";
        for (String k : new String[] {"master.journal.name", "master.position", "master.timestamp", "master.gtid", "gtidon"}) {
            OWNED.put(P + k, start);
        }
        String one = "the harness serves one primary (no standby to switch to)";
        OWNED.put(P + "standby.*", one);
        OWNED.put(P + "detecting.retry.threshold", one);
        OWNED.put(P + "detecting.heartbeatHaEnable", one);
        OWNED.put(P + "rds.*", "Aliyun RDS binlog download: not the fake primary");
        OWNED.put("canal.aliyun.*", "Aliyun RDS binlog download: not the fake primary");
        OWNED.put(P + "tsdb.*", "tsdb is off: the embedded parser has no table-meta store (Canal's tsdb is the deployer's spring/H2 setup)");
        String sink = "the adapter's event sink prints the rows (no event store, no MQ)";
        OWNED.put(P + "memory.*", sink);
        OWNED.put(P + "global.*", sink);
        OWNED.put("canal.mq.*", sink);
    }

    final UserConfig.Merged merged;

    private InstanceConfig(UserConfig.Merged merged) {
        this.merged = merged;
    }

    /** Harness settings (as the adapter sets them) and defaults, with the user's file over them. */
    static InstanceConfig resolve(Map<String, String> env, Map<String, String> harness) throws UserConfig.Error {
        LinkedHashMap<String, String> defaults = new LinkedHashMap<>(harness);
        defaults.put(P + "destination", "cdch");
        defaults.put(P + "connectionCharset", "UTF-8");
        defaults.put(P + "detecting.enable", "false");
        defaults.put(P + "tsdb.enable", "false");
        Map<String, String> user = UserConfig.load(UserConfig.path(env));
        Map<String, String> owned = new LinkedHashMap<>(OWNED);
        owned.remove(P + "tsdb.*");
        if (user.containsKey(P + "tsdb.enable") && !"false".equalsIgnoreCase(user.get(P + "tsdb.enable").trim())) {
            throw new UserConfig.Error(P + "tsdb.enable", user.get(P + "tsdb.enable"),
                "the embedded parser has no table-meta store (Canal's tsdb is the deployer's spring/H2 setup); "
                + "the adapter reads table metadata from the primary as tsdb.enable=false does");
        }
        for (String k : user.keySet()) {
            if (k.startsWith(P + "tsdb.") && !k.equals(P + "tsdb.enable")) {
                owned.put(k, OWNED.get(P + "tsdb.*"));
            }
        }
        UserConfig.Merged m = UserConfig.merge(defaults, user, owned);
        for (Map.Entry<String, String> e : m.user.entrySet()) {
            if (!PROPS.containsKey(e.getKey())) {
                throw new UserConfig.Error(e.getKey(), e.getValue(), "not an instance setting the embedded event parser takes");
            }
        }
        return new InstanceConfig(m);
    }

    /** Applies the user's settings to the parser (after the adapter's own). */
    void apply(MysqlEventParser parser, AuthenticationInfo master) throws UserConfig.Error {
        for (Map.Entry<String, String> e : merged.user.entrySet()) {
            String key = e.getKey(), value = e.getValue(), prop = PROPS.get(key);
            if (prop.equals("eventFilter") || prop.equals("eventBlackFilter")) {
                Object filter;
                try {
                    Class<?> c = Class.forName("com.alibaba.otter.canal.filter.aviater.AviaterRegexFilter");
                    filter = prop.equals("eventFilter") ? c.getConstructor(String.class).newInstance(value)
                        : c.getConstructor(String.class, boolean.class).newInstance(value, false);
                } catch (ReflectiveOperationException | LinkageError ex) {
                    Throwable c = ex.getCause() != null ? ex.getCause() : ex;
                    throw new UserConfig.Error(key, value, "Canal refused it: " + c);
                }
                invoke(parser, key, value, prop, filter);
                continue;
            }
            if (key.equals(P + "defaultDatabaseName")) {
                invoke(master, key, value, "defaultDatabaseName", value);
                continue;
            }
            invoke(parser, key, value, prop, null);
        }
    }

    /** target.set<Prop>(arg, or value parsed for the setter's parameter type). */
    private static void invoke(Object target, String key, String value, String prop, Object arg) throws UserConfig.Error {
        Method best = null;
        for (Method m : target.getClass().getMethods()) {
            if (!m.getName().equalsIgnoreCase("set" + prop) || m.getParameterCount() != 1 || Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Class<?> t = m.getParameterTypes()[0];
            if (arg != null ? t.isInstance(arg) : (t == String.class || t == boolean.class || t == Boolean.class
                    || t == int.class || t == Integer.class || t == long.class || t == Long.class)) {
                // connectionCharset: the String setter, as Canal's spring file sets it
                if (best == null || t == String.class) {
                    best = m;
                }
            }
        }
        if (best == null) {
            throw new UserConfig.Error(key, value, "this Canal version's parser has no " + prop + " setting");
        }
        Object a = arg;
        if (a == null) {
            Class<?> t = best.getParameterTypes()[0];
            if (t == boolean.class || t == Boolean.class) {
                a = UserConfig.bool(key, value);
            } else if (t == int.class || t == Integer.class) {
                long n = UserConfig.number(key, value);
                if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
                    throw new UserConfig.Error(key, value, "out of the int range");
                }
                a = (int) n;
            } else if (t == long.class || t == Long.class) {
                a = UserConfig.number(key, value);
            } else {
                a = value;
            }
        }
        try {
            best.invoke(target, a);
        } catch (ReflectiveOperationException ex) {
            Throwable c = ex.getCause() != null ? ex.getCause() : ex;
            throw new UserConfig.Error(key, value, "Canal refused it: " + c);
        }
    }

    /**
     * The parser's connection charset as the adapter has always set it (UTF-8), through the
     * Charset setter of the running version: setConnectionCharsetStd (1.1.5+) or
     * setConnectionCharset(Charset) (1.1.0 .. 1.1.4).
     */
    static void utf8(MysqlEventParser parser) {
        for (String name : new String[] {"setConnectionCharsetStd", "setConnectionCharset"}) {
            try {
                parser.getClass().getMethod(name, Charset.class).invoke(parser, StandardCharsets.UTF_8);
                return;
            } catch (NoSuchMethodException ex) {
                // the other one
            } catch (ReflectiveOperationException ex) {
                throw new IllegalStateException(name + ": " + ex.getCause(), ex);
            }
        }
        throw new IllegalStateException("MysqlEventParser has no connection charset setter taking a Charset");
    }
}
