/* vars.c — system and status variables of the fake primary.
 *
 * Owns: the variable tables. Values that describe the stream (version,
 * server_id/uuid, GTID mode and sets, binlog checksum, row image/metadata,
 * compression, ...) come from the scenario and the stream catalogue; the
 * rest are MySQL 8.0 defaults with the settings a CDC source needs
 * (binlog_format=ROW, log_bin=ON, time zone UTC). A variable a version no
 * longer has (removed_in: 8.4.0's removals) is unknown there, as on MySQL.
 * Session values a client SETs are kept in its srv_conn.
 *
 * To answer a new variable: add a line to k_vars (static value) or a case
 * to dyn_value (computed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "event.h"
#include "gtid.h"
#include "mysql_types.h"
#include "query_internal.h"

typedef enum vt { VT_STR = 0, VT_INT, VT_BOOL } vt;
enum { SC_GLOBAL = 1, SC_SESSION = 2, SC_BOTH = 3 };

typedef struct sysvar {
    const char *name;
    vt type;
    int scope;
    const char *value;   /* NULL: computed in dyn_value */
    uint32_t removed_in; /* version product from which the server has no such variable (0: never):
                          * SELECT @@name answers 1193, SHOW VARIABLES omits it */
} sysvar;

/* Removed in 8.4.0 ("Option and Variable Changes for MySQL 8.4",
 * https://dev.mysql.com/doc/mysqld-version-reference/en/optvar-changes-8-4.html: "Removed in version
 * 8.4.0" for binlog_transaction_dependency_tracking, default_authentication_plugin, have_openssl,
 * have_ssl; MySQL 8.4 manual section 1.5 "Server and Status Variables and Options Added,
 * Deprecated, or Removed in MySQL 8.4 since 8.0"). */
#define GONE_84 80400

#define SQL_MODE_DEFAULT                                                                                       \
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"          \
    "NO_ENGINE_SUBSTITUTION"

/* In name order (SHOW VARIABLES sorts anyway). */
static const sysvar k_vars[] = {
    {"authentication_policy", VT_STR, SC_GLOBAL, "*,,"},
    {"auto_increment_increment", VT_INT, SC_BOTH, "1"},
    {"auto_increment_offset", VT_INT, SC_BOTH, "1"},
    {"autocommit", VT_BOOL, SC_BOTH, "ON"},
    {"basedir", VT_STR, SC_GLOBAL, "/usr/"},
    {"binlog_cache_size", VT_INT, SC_GLOBAL, "32768"},
    {"binlog_checksum", VT_STR, SC_GLOBAL, NULL},
    {"binlog_encryption", VT_BOOL, SC_GLOBAL, "OFF"},
    {"binlog_expire_logs_auto_purge", VT_BOOL, SC_GLOBAL, "ON"},
    {"binlog_expire_logs_seconds", VT_INT, SC_GLOBAL, "2592000"},
    {"binlog_format", VT_STR, SC_BOTH, "ROW"},
    {"binlog_gtid_simple_recovery", VT_BOOL, SC_GLOBAL, "ON"},
    {"binlog_max_flush_queue_time", VT_INT, SC_GLOBAL, "0"},
    {"binlog_order_commits", VT_BOOL, SC_GLOBAL, "ON"},
    {"binlog_row_event_max_size", VT_INT, SC_GLOBAL, NULL},
    {"binlog_row_image", VT_STR, SC_BOTH, NULL},
    {"binlog_row_metadata", VT_STR, SC_GLOBAL, NULL},
    {"binlog_row_value_options", VT_STR, SC_BOTH, NULL},
    {"binlog_rows_query_log_events", VT_BOOL, SC_BOTH, NULL},
    {"binlog_stmt_cache_size", VT_INT, SC_GLOBAL, "32768"},
    {"binlog_transaction_compression", VT_BOOL, SC_BOTH, NULL},
    {"binlog_transaction_compression_level_zstd", VT_INT, SC_BOTH, NULL},
    {"binlog_transaction_dependency_history_size", VT_INT, SC_GLOBAL, "25000"},
    {"binlog_transaction_dependency_tracking", VT_STR, SC_GLOBAL, "COMMIT_ORDER", GONE_84},
    {"character_set_client", VT_STR, SC_BOTH, "utf8mb4"},
    {"character_set_connection", VT_STR, SC_BOTH, "utf8mb4"},
    {"character_set_database", VT_STR, SC_BOTH, "utf8mb4"},
    {"character_set_filesystem", VT_STR, SC_BOTH, "binary"},
    {"character_set_results", VT_STR, SC_BOTH, "utf8mb4"},
    {"character_set_server", VT_STR, SC_BOTH, "utf8mb4"},
    {"character_set_system", VT_STR, SC_GLOBAL, "utf8mb3"},
    {"character_sets_dir", VT_STR, SC_GLOBAL, "/usr/share/mysql-8.0/charsets/"},
    {"collation_connection", VT_STR, SC_BOTH, "utf8mb4_0900_ai_ci"},
    {"collation_database", VT_STR, SC_BOTH, "utf8mb4_0900_ai_ci"},
    {"collation_server", VT_STR, SC_BOTH, "utf8mb4_0900_ai_ci"},
    {"completion_type", VT_STR, SC_BOTH, "NO_CHAIN"},
    {"connect_timeout", VT_INT, SC_GLOBAL, "10"},
    {"datadir", VT_STR, SC_GLOBAL, "/var/lib/mysql/"},
    {"default_authentication_plugin", VT_STR, SC_GLOBAL, NULL, GONE_84},
    {"default_collation_for_utf8mb4", VT_STR, SC_BOTH, "utf8mb4_0900_ai_ci"},
    {"default_password_lifetime", VT_INT, SC_GLOBAL, "0"},
    {"default_storage_engine", VT_STR, SC_BOTH, "InnoDB"},
    {"default_table_encryption", VT_BOOL, SC_BOTH, "OFF"},
    {"default_tmp_storage_engine", VT_STR, SC_BOTH, "InnoDB"},
    {"default_week_format", VT_INT, SC_BOTH, "0"},
    {"div_precision_increment", VT_INT, SC_BOTH, "4"},
    {"enforce_gtid_consistency", VT_STR, SC_GLOBAL, NULL},
    {"event_scheduler", VT_STR, SC_GLOBAL, "ON"},
    {"explicit_defaults_for_timestamp", VT_BOOL, SC_BOTH, "ON"},
    {"foreign_key_checks", VT_BOOL, SC_BOTH, "ON"},
    {"gtid_executed", VT_STR, SC_GLOBAL, NULL},
    {"gtid_executed_compression_period", VT_INT, SC_GLOBAL, "0"},
    {"gtid_mode", VT_STR, SC_GLOBAL, NULL},
    {"gtid_next", VT_STR, SC_SESSION, "AUTOMATIC"},
    {"gtid_owned", VT_STR, SC_BOTH, ""},
    {"gtid_purged", VT_STR, SC_GLOBAL, NULL},
    {"have_compress", VT_STR, SC_GLOBAL, "YES"},
    {"have_dynamic_loading", VT_STR, SC_GLOBAL, "YES"},
    {"have_openssl", VT_STR, SC_GLOBAL, "YES", GONE_84},
    {"have_query_cache", VT_STR, SC_GLOBAL, "NO"},
    {"have_ssl", VT_STR, SC_GLOBAL, "YES", GONE_84},
    {"hostname", VT_STR, SC_GLOBAL, "cdcharness"},
    {"information_schema_stats_expiry", VT_INT, SC_BOTH, "86400"},
    {"init_connect", VT_STR, SC_GLOBAL, ""},
    {"innodb_lock_wait_timeout", VT_INT, SC_BOTH, "50"},
    {"innodb_read_only", VT_BOOL, SC_GLOBAL, "OFF"},
    {"innodb_strict_mode", VT_BOOL, SC_BOTH, "ON"},
    {"innodb_version", VT_STR, SC_GLOBAL, NULL},
    {"interactive_timeout", VT_INT, SC_BOTH, "28800"},
    {"lc_messages", VT_STR, SC_BOTH, "en_US"},
    {"lc_time_names", VT_STR, SC_BOTH, "en_US"},
    {"license", VT_STR, SC_GLOBAL, "GPL"},
    {"local_infile", VT_BOOL, SC_GLOBAL, "OFF"},
    {"lock_wait_timeout", VT_INT, SC_BOTH, "31536000"},
    {"log_bin", VT_BOOL, SC_GLOBAL, "ON"},
    {"log_bin_basename", VT_STR, SC_GLOBAL, NULL},
    {"log_bin_index", VT_STR, SC_GLOBAL, NULL},
    {"log_bin_trust_function_creators", VT_BOOL, SC_GLOBAL, "OFF"},
    {"log_replica_updates", VT_BOOL, SC_GLOBAL, "ON"},
    {"log_slave_updates", VT_BOOL, SC_GLOBAL, "ON"},
    {"lower_case_file_system", VT_BOOL, SC_GLOBAL, "OFF"},
    {"lower_case_table_names", VT_INT, SC_GLOBAL, "0"},
    {"max_allowed_packet", VT_INT, SC_BOTH, "67108864"}, /* SRV_MAX_ALLOWED_PACKET: conn_read refuses more */
    {"max_binlog_cache_size", VT_INT, SC_GLOBAL, "18446744073709547520"},
    {"max_binlog_size", VT_INT, SC_GLOBAL, NULL},
    {"max_connections", VT_INT, SC_GLOBAL, "151"},
    {"max_execution_time", VT_INT, SC_BOTH, "0"},
    {"net_buffer_length", VT_INT, SC_BOTH, "16384"},
    {"net_read_timeout", VT_INT, SC_BOTH, "30"},
    {"net_retry_count", VT_INT, SC_BOTH, "10"},
    {"net_write_timeout", VT_INT, SC_BOTH, "60"},
    {"performance_schema", VT_BOOL, SC_GLOBAL, "ON"},
    {"pid_file", VT_STR, SC_GLOBAL, "/var/run/mysqld/mysqld.pid"},
    {"port", VT_INT, SC_GLOBAL, NULL},
    {"protocol_version", VT_INT, SC_GLOBAL, "10"},
    {"read_only", VT_BOOL, SC_GLOBAL, "OFF"},
    {"require_secure_transport", VT_BOOL, SC_GLOBAL, "OFF"},
    {"resultset_metadata", VT_STR, SC_SESSION, "FULL"},
    {"server_id", VT_INT, SC_GLOBAL, NULL},
    {"server_id_bits", VT_INT, SC_GLOBAL, "32"},
    {"server_uuid", VT_STR, SC_GLOBAL, NULL},
    {"session_track_gtids", VT_STR, SC_BOTH, "OFF"},
    {"skip_name_resolve", VT_BOOL, SC_GLOBAL, "OFF"},
    {"skip_networking", VT_BOOL, SC_GLOBAL, "OFF"},
    {"socket", VT_STR, SC_GLOBAL, "/var/run/mysqld/mysqld.sock"},
    {"sql_auto_is_null", VT_BOOL, SC_SESSION, "OFF"},
    {"sql_log_bin", VT_BOOL, SC_SESSION, "ON"},
    {"sql_mode", VT_STR, SC_BOTH, SQL_MODE_DEFAULT},
    {"sql_notes", VT_BOOL, SC_SESSION, "ON"},
    {"sql_quote_show_create", VT_BOOL, SC_SESSION, "ON"},
    {"sql_require_primary_key", VT_BOOL, SC_BOTH, "OFF"},
    {"sql_safe_updates", VT_BOOL, SC_SESSION, "OFF"},
    {"sql_select_limit", VT_INT, SC_SESSION, "18446744073709551615"},
    {"sql_warnings", VT_BOOL, SC_SESSION, "OFF"},
    {"ssl_ca", VT_STR, SC_GLOBAL, "ca.pem"},
    {"ssl_cert", VT_STR, SC_GLOBAL, "server-cert.pem"},
    {"ssl_key", VT_STR, SC_GLOBAL, "server-key.pem"},
    {"super_read_only", VT_BOOL, SC_GLOBAL, "OFF"},
    {"sync_binlog", VT_INT, SC_GLOBAL, "1"},
    {"system_time_zone", VT_STR, SC_GLOBAL, "UTC"},
    {"time_zone", VT_STR, SC_BOTH, "UTC"},
    {"timestamp", VT_STR, SC_SESSION, NULL},
    {"tls_version", VT_STR, SC_GLOBAL, "TLSv1.2,TLSv1.3"},
    {"transaction_isolation", VT_STR, SC_BOTH, "REPEATABLE-READ"},
    {"transaction_read_only", VT_BOOL, SC_BOTH, "OFF"},
    {"transaction_write_set_extraction", VT_STR, SC_BOTH, "XXHASH64"},
    {"unique_checks", VT_BOOL, SC_BOTH, "ON"},
    {"version", VT_STR, SC_GLOBAL, NULL},
    {"version_comment", VT_STR, SC_GLOBAL, "MySQL Community Server - GPL"},
    {"version_compile_machine", VT_STR, SC_GLOBAL, "x86_64"},
    {"version_compile_os", VT_STR, SC_GLOBAL, "Linux"},
    {"version_compile_zlib", VT_STR, SC_GLOBAL, "1.2.13"},
    {"wait_timeout", VT_INT, SC_BOTH, "28800"},
};
#define N_VARS (sizeof k_vars / sizeof k_vars[0])

/* Variables that moved between names: SELECT @@tx_isolation etc. */
static const char *alias_of(const char *name)
{
    if (!strcasecmp(name, "tx_isolation"))
        return "transaction_isolation";
    if (!strcasecmp(name, "tx_read_only"))
        return "transaction_read_only";
    return name;
}

static bool var_exists(const struct cdch_server *srv, const sysvar *v)
{
    return !v->removed_in || cdch_version_product(srv->version) < v->removed_in;
}

/* The variable `name` of this server's version, or NULL. */
static const sysvar *find_var(const struct cdch_server *srv, const char *name)
{
    name = alias_of(name);
    for (size_t i = 0; i < N_VARS; i++)
        if (strcasecmp(k_vars[i].name, name) == 0)
            return var_exists(srv, &k_vars[i]) ? &k_vars[i] : NULL;
    return NULL;
}

static int cmp_var(const void *a, const void *b)
{
    return strcasecmp((*(const sysvar *const *)a)->name, (*(const sysvar *const *)b)->name);
}

const char *srv_binlog_compression_now(const struct cdch_server *srv)
{
    const char *mode = srv_catalog_mode(srv->cat);
    if (mode && strcmp(mode, "compressed") == 0)
        return "ON";
    if (mode && strcmp(mode, "flip") == 0) { /* the state after the scenario's last switch */
        bool on = false;
        for (size_t i = 0; i < srv->s->nitems; i++) {
            const cdch_sc_item *it = &srv->s->items[i];
            cdch_sc_compress cmp = it->kind == CDCH_SC_ITEM_TXN ? it->u.txn.compress : it->u.bulk.compress;
            if (cmp == CDCH_SC_COMPRESS_ON)
                on = true;
            else if (cmp == CDCH_SC_COMPRESS_OFF)
                on = false;
        }
        return on ? "ON" : "OFF";
    }
    return "OFF";
}

static const char *dyn_value(srv_conn *c, const char *name, char *buf, size_t cap)
{
    const struct cdch_server *srv = c->srv;
    const cdch_scenario *s = srv->s;
    const srv_catalog *cat = srv->cat;
    if (!strcmp(name, "version") || !strcmp(name, "innodb_version"))
        return srv->version;
    if (!strcmp(name, "server_id")) {
        snprintf(buf, cap, "%u", srv_catalog_server_id(cat));
        return buf;
    }
    if (!strcmp(name, "server_uuid"))
        return srv_catalog_server_uuid(cat);
    if (!strcmp(name, "port")) {
        snprintf(buf, cap, "%u", srv->port);
        return buf;
    }
    if (!strcmp(name, "gtid_mode") || !strcmp(name, "enforce_gtid_consistency"))
        return srv_catalog_gtid_mode(cat) ? "ON" : "OFF";
    if (!strcmp(name, "gtid_executed"))
        return srv_catalog_gtid_executed(cat);
    if (!strcmp(name, "gtid_purged"))
        return srv_catalog_gtid_purged(cat);
    if (!strcmp(name, "binlog_checksum"))
        return srv_catalog_checksum(cat);
    if (!strcmp(name, "binlog_row_image"))
        return srv_catalog_row_image(cat);
    if (!strcmp(name, "binlog_row_metadata"))
        return srv_catalog_row_metadata(cat);
    if (!strcmp(name, "binlog_row_value_options"))
        return s->binlog.partial_json ? "PARTIAL_JSON" : "";
    if (!strcmp(name, "binlog_rows_query_log_events"))
        return s->binlog.rows_query ? "ON" : "OFF";
    if (!strcmp(name, "binlog_transaction_compression"))
        return srv_binlog_compression_now(srv);
    if (!strcmp(name, "binlog_transaction_compression_level_zstd")) {
        snprintf(buf, cap, "%d", s->binlog.zstd_level);
        return buf;
    }
    if (!strcmp(name, "binlog_row_event_max_size")) {
        snprintf(buf, cap, "%u", s->binlog.row_event_max_size);
        return buf;
    }
    if (!strcmp(name, "max_binlog_size")) {
        snprintf(buf, cap, "%llu", (unsigned long long)s->binlog.max_size);
        return buf;
    }
    if (!strcmp(name, "log_bin_basename")) {
        snprintf(buf, cap, "/var/lib/mysql/%s", srv_catalog_basename(cat));
        return buf;
    }
    if (!strcmp(name, "log_bin_index")) {
        snprintf(buf, cap, "/var/lib/mysql/%s.index", srv_catalog_basename(cat));
        return buf;
    }
    if (!strcmp(name, "default_authentication_plugin"))
        return srv->opts.auth == CDCH_AUTH_NATIVE ? "mysql_native_password" : "caching_sha2_password";
    if (!strcmp(name, "timestamp")) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(buf, cap, "%lld.%06ld", (long long)ts.tv_sec, ts.tv_nsec / 1000);
        return buf;
    }
    return "";
}

static const srv_uservar *session_value(const srv_conn *c, const char *name)
{
    size_t i = srv_var_index(c->sysvars, c->nsysvars, name);
    return i < c->nsysvars ? &c->sysvars[i] : NULL;
}

const char *srv_sysvar(srv_conn *c, const char *name, bool global, bool for_show, char *buf, size_t cap,
                       uint8_t *type, bool *is_null)
{
    *is_null = false;
    const sysvar *v = find_var(c->srv, name);
    if (!v)
        return NULL;
    *type = v->type == VT_STR ? CDCH_T_VAR_STRING : CDCH_T_LONGLONG;
    const char *val = NULL;
    if (!global && (v->scope & SC_SESSION)) {
        const srv_uservar *sv = session_value(c, v->name);
        if (sv) {
            if (sv->is_null) {
                *is_null = true;
                return NULL;
            }
            val = sv->value;
        }
    }
    if (!val)
        val = v->value ? v->value : dyn_value(c, v->name, buf, cap);
    if (v->type == VT_BOOL) {
        bool on = !strcasecmp(val, "ON") || !strcmp(val, "1") || !strcasecmp(val, "TRUE");
        if (for_show)
            return on ? "ON" : "OFF";
        return on ? "1" : "0";
    }
    if (val != buf) {
        snprintf(buf, cap, "%s", val);
        val = buf;
    }
    return val;
}

int srv_sysvar_set(srv_conn *c, const char *name, const char *value, bool is_null, bool global, sql_ctx *cx)
{
    const sysvar *v = find_var(c->srv, name);
    const char *canon = v ? v->name : name;
    if (!v && srv_utf8_chars(name, strlen(name)) > SRV_NAME_CHARS) /* no server has such a variable */
        return sql_fail(cx, 1193, "HY000", "Unknown system variable '%.64s'", name);
    if (!v)
        fprintf(stderr, "cdcharness serve: connection %u: SET of unknown system variable '%s' accepted\n", c->id,
                name);
    if (global)
        return 0; /* the stream is fixed: accept and ignore */
    if (v && !(v->scope & SC_SESSION))
        return sql_fail(cx, 1229, "HY000",
                        "Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL", v->name);
    if (v && v->type == VT_BOOL && value) {
        bool on = !strcasecmp(value, "ON") || !strcmp(value, "1") || !strcasecmp(value, "TRUE");
        bool off = !strcasecmp(value, "OFF") || !strcmp(value, "0") || !strcasecmp(value, "FALSE");
        if (!on && !off)
            return sql_fail(cx, 1231, "42000", "Variable '%s' can't be set to the value of '%s'", v->name, value);
        value = on ? "ON" : "OFF";
        if (!strcmp(v->name, "autocommit"))
            c->status = (uint16_t)(on ? (c->status | SERVER_STATUS_AUTOCOMMIT)
                                      : (c->status & ~SERVER_STATUS_AUTOCOMMIT));
    }
    size_t at = srv_var_index(c->sysvars, c->nsysvars, canon);
    srv_uservar *slot = at < c->nsysvars ? &c->sysvars[at] : NULL;
    if (!slot) {
        size_t capv = sizeof c->sysvars / sizeof c->sysvars[0];
        slot = c->nsysvars < capv ? &c->sysvars[c->nsysvars++] : &c->sysvars[capv - 1];
        snprintf(slot->name, sizeof slot->name, "%s", canon);
        for (char *q = slot->name; *q; q++)
            if (*q >= 'A' && *q <= 'Z')
                *q = (char)(*q + 32);
    }
    slot->is_null = is_null;
    srv_var_set_value(slot, value);
    return 0;
}

void srv_sysvars_rs(srv_conn *c, bool global, srv_rs *rs)
{
    srv_rs_col(rs, "Variable_name", CDCH_T_VAR_STRING)->length = 64 * 4;
    srv_rs_col(rs, "Value", CDCH_T_VAR_STRING)->length = 4096 * 4;
    char buf[4096];
    const sysvar *sorted[N_VARS];
    for (size_t i = 0; i < N_VARS; i++)
        sorted[i] = &k_vars[i];
    qsort(sorted, N_VARS, sizeof sorted[0], cmp_var);
    for (size_t i = 0; i < N_VARS; i++) {
        const sysvar *v = sorted[i];
        if ((global && !(v->scope & SC_GLOBAL)) || !var_exists(c->srv, v))
            continue;
        uint8_t type;
        bool is_null;
        const char *val = srv_sysvar(c, v->name, global, true, buf, sizeof buf, &type, &is_null);
        srv_rs_str(rs, v->name);
        srv_rs_str(rs, is_null ? NULL : val);
    }
}

void srv_status_rs(srv_conn *c, bool global, srv_rs *rs)
{
    struct cdch_server *srv = c->srv;
    cdch_server_stats st;
    cdch_server_get_stats(srv, &st);
    pthread_mutex_lock(&srv->mu);
    size_t nconns = srv->nconns;
    uint64_t active = srv->active_dumps;
    pthread_mutex_unlock(&srv->mu);
    char b[64];
    srv_rs_col(rs, "Variable_name", CDCH_T_VAR_STRING)->length = 64 * 4;
    srv_rs_col(rs, "Value", CDCH_T_VAR_STRING)->length = 1024 * 4;
#define ROW_U(n, v)                                                                                            \
    do {                                                                                                       \
        snprintf(b, sizeof b, "%llu", (unsigned long long)(v));                                                \
        srv_rs_str(rs, n);                                                                                     \
        srv_rs_str(rs, b);                                                                                     \
    } while (0)
#define ROW_S(n, v)                                                                                            \
    do {                                                                                                       \
        srv_rs_str(rs, n);                                                                                     \
        srv_rs_str(rs, v);                                                                                     \
    } while (0)
    uint64_t uptime = (uint64_t)(time(NULL) - srv->start_time);
    ROW_U("Aborted_clients", 0);
    ROW_U("Aborted_connects", 0);
    ROW_U("Binlog_cache_disk_use", 0);
    ROW_U("Binlog_cache_use", 0);
    ROW_U("Bytes_received", 0);
    ROW_U("Bytes_sent", global ? st.bytes_sent : c->bytes_sent);
    ROW_U("Com_binlog_dump", st.dumps);
    ROW_U("Connections", st.connections);
    ROW_S("Innodb_buffer_pool_dump_status", "Dumping of buffer pool not started");
    ROW_U("Queries", global ? st.queries : c->queries);
    ROW_U("Questions", global ? st.queries : c->queries);
    ROW_U("Slow_queries", 0);
    ROW_S("Ssl_cipher", global ? "" : srv_tls_cipher(c));
    ROW_S("Ssl_version", global ? "" : srv_tls_version(c));
    ROW_U("Threads_binlog_dump", active);
    ROW_U("Threads_cached", 0);
    ROW_U("Threads_connected", nconns);
    ROW_U("Threads_created", st.connections);
    ROW_U("Threads_running", 1 + active);
    ROW_U("Uptime", uptime);
    ROW_U("Uptime_since_flush_status", uptime);
#undef ROW_U
#undef ROW_S
}
