/* record.c — `cdcharness record` from a server: connect as a replica
 * through MariaDB Connector/C and write what the dump sends into a capture
 * directory (record_capture.c).
 *
 * Why not mariadb_rpl_*: Connector/C's replication API sends COM_BINLOG_DUMP
 * only (MariaDB GTIDs go through @slave_connect_state), so it cannot start
 * from a MySQL GTID set (COM_BINLOG_DUMP_GTID), and it parses every event
 * (MySQL 8 types included) where we want the bytes. Instead the connection,
 * authentication (caching_sha2_password, mysql_native_password) and TLS are
 * Connector/C's (mysql_real_connect), the queries are mysql_real_query, and
 * the replication commands go through the connection's command method
 * (mysql->methods->db_command, the public st_mariadb_methods table of
 * mysql.h that Connector/C's own simple_command uses) with the dump's
 * packets read by mysql_net_read_packet (exported; it reassembles packets
 * of 16 MiB and more and turns an ERR packet into mysql_error()).
 *
 * A dropped connection (or a read timeout, or an event whose CRC32 does not
 * match) resumes from the end of the last complete event written: the same
 * file and position (COM_BINLOG_DUMP), or for a GTID-set start
 * COM_BINLOG_DUMP_GTID with that file and position and the original set
 * (MySQL's sender starts at the named file and still skips the set's
 * transactions). The server re-sends the fake ROTATE and the FDE, which are
 * not written again, so the files stay byte-identical.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <errmsg.h>
#include <mysql.h>

#include "arena.h"
#include "cursor.h"
#include "event.h"
#include "gtid.h"
#include "jsonstr.h"
#include "record_internal.h"
#include "sys.h"

#define COM_BINLOG_DUMP_GTID_CMD 30 /* MySQL's; not in Connector/C's enum */
#define BINLOG_DUMP_NON_BLOCK 0x0001
#define HEARTBEAT_NS 1000000000ull /* 1 s: bounds by duration are checked at least that often */
#define PACKET_ERROR ((unsigned long)packet_error) /* mariadb_com.h: (unsigned int)-1 */

int cdch_ssl_mode_parse(const char *s)
{
    static const char *const names[] = {"PREFERRED", "DISABLED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY"};
    for (int i = 0; i < 5; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    return -1;
}

static volatile sig_atomic_t g_interrupted;

void cdch_record_interrupt(void) { g_interrupted = 1; }

/* How a dump ended. */
typedef enum { PUMP_DONE, PUMP_RETRY, PUMP_FATAL } pump_rc;

typedef struct rec_run {
    const cdch_record_opts *o;
    rec_capture cap;
    MYSQL *m;
    char version[128];
    char server_uuid[64];
    char tls[128];        /* the cipher of the first connection, "" = none */
    uint8_t net_alg;      /* @@global.binlog_checksum: fake ROTATEs carry a CRC when CRC32 */
    uint8_t alg;          /* the checksum of the events (from the last FDE) */
    char file[512];       /* the server's file of the last event ("" = none yet) */
    uint64_t pos;         /* end of the last complete event written in it */
    char stop_file[512];  /* --stop, or the end of the log for --until-end */
    uint64_t stop_pos;
    bool bound_hit;       /* --max-bytes / --duration reached: stop at the next transaction */
    bool done;
    uint64_t t0, last_progress;
    unsigned reconnects;
    uint8_t *gtid_enc;    /* the --gtid-set, encoded for COM_BINLOG_DUMP_GTID */
    size_t gtid_enc_len;
    char uuid[37];        /* @replica_uuid: a resumed dump replaces our old one */
} rec_run;

/* ---- connection ----------------------------------------------------------------- */

static int set_tls(MYSQL *m, const cdch_record_opts *o, bool tls)
{
    my_bool yes = 1, no = 0;
    if (!tls)
        return 0;
    int rc = mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &yes);
    if (o->ssl_ca)
        rc |= mysql_optionsv(m, MYSQL_OPT_SSL_CA, o->ssl_ca);
    rc |= mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT,
                         o->ssl_mode == CDCH_SSL_VERIFY_IDENTITY ? &yes : &no);
    return rc;
}

static MYSQL *try_connect(const cdch_record_opts *o, bool tls, cdch_err *err)
{
    MYSQL *m = mysql_init(NULL);
    if (!m) {
        cdch_err_set(err, "out of memory (mysql_init)");
        return NULL;
    }
    unsigned int timeout = (unsigned int)(o->net_timeout_s > 0 ? o->net_timeout_s + 0.999 : 60);
    unsigned int ctimeout = 10;
    unsigned long maxpkt = 1024ul * 1024ul * 1024ul;
    mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &ctimeout);
    mysql_optionsv(m, MYSQL_OPT_READ_TIMEOUT, &timeout);
    mysql_optionsv(m, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
    mysql_optionsv(m, MYSQL_OPT_MAX_ALLOWED_PACKET, &maxpkt);
    mysql_optionsv(m, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", "cdcharness record");
    if (set_tls(m, o, tls) != 0) {
        cdch_err_set(err, "cannot set the TLS options: %s", mysql_error(m));
        mysql_close(m);
        return NULL;
    }
    if (!mysql_real_connect(m, o->host, o->user, o->password, NULL, o->port, NULL, 0)) {
        cdch_err_set(err, "cannot connect to %s:%u as '%s': %s (error %u)", o->host, o->port, o->user,
                     mysql_error(m), mysql_errno(m));
        err->offset = mysql_errno(m);
        mysql_close(m);
        return NULL;
    }
    if (tls && !mysql_get_ssl_cipher(m)) {
        cdch_err_set(err, "%s:%u did not switch to TLS (--ssl-mode %s)", o->host, o->port,
                     o->ssl_mode == CDCH_SSL_REQUIRED ? "REQUIRED" : "VERIFY_*");
        mysql_close(m);
        return NULL;
    }
    return m;
}

/* --ssl-mode PREFERRED: TLS first; without it when that fails as a TLS error. */
static MYSQL *rec_connect(const cdch_record_opts *o, cdch_err *err)
{
    bool tls = o->ssl_mode != CDCH_SSL_DISABLED;
    MYSQL *m = try_connect(o, tls, err);
    if (!m && o->ssl_mode == CDCH_SSL_PREFERRED && err->offset == CR_SSL_CONNECTION_ERROR) {
        fprintf(stderr, "cdcharness record: %s; connecting without TLS (--ssl-mode PREFERRED)\n", err->msg);
        m = try_connect(o, false, err);
    }
    return m;
}

/* One value of a one-row query, copied into out; false (err set) on failure. */
static bool query_value(MYSQL *m, const char *q, char *out, size_t n, cdch_err *err)
{
    MYSQL_RES *r = NULL;
    if (mysql_query(m, q) != 0 || !(r = mysql_store_result(m))) {
        cdch_err_set(err, "%s: %s", q, mysql_error(m));
        return false;
    }
    MYSQL_ROW row = mysql_fetch_row(r);
    snprintf(out, n, "%s", row && row[0] ? row[0] : "");
    mysql_free_result(r);
    return true;
}

/* The session a MySQL replica's receiver sets up: checksum and heartbeat
 * (both the 8.0.26+ and the older names), its UUID; then COM_REGISTER_SLAVE. */
static int rec_session(rec_run *r, cdch_err *err)
{
    char alg[32];
    if (!query_value(r->m, "SELECT @@GLOBAL.binlog_checksum", alg, sizeof alg, err))
        return -1;
    r->net_alg = strcasecmp(alg, "CRC32") == 0 ? CDCH_CHECKSUM_CRC32 : CDCH_CHECKSUM_OFF;
    char q[512];
    snprintf(q, sizeof q,
             "SET @master_binlog_checksum = @@GLOBAL.binlog_checksum, @source_binlog_checksum = "
             "@@GLOBAL.binlog_checksum, @master_heartbeat_period = %llu, @source_heartbeat_period = %llu, "
             "@slave_uuid = '%s', @replica_uuid = '%s'",
             HEARTBEAT_NS, HEARTBEAT_NS, r->uuid, r->uuid);
    if (mysql_query(r->m, q) != 0)
        return cdch_err_set(err, "setting up the replication session failed: %s", mysql_error(r->m));
    /* COM_REGISTER_SLAVE: server_id, host, user, password (empty), port, rank, source id */
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_le32(&b, r->o->server_id);
    cdch_put_zero(&b, 3);
    cdch_put_le16(&b, 0);
    cdch_put_le32(&b, 0);
    cdch_put_le32(&b, 0);
    int rc = r->m->methods->db_command(r->m, COM_REGISTER_SLAVE, (const char *)b.data, b.len, 0, NULL);
    cdch_buf_free(&b);
    if (rc != 0)
        return cdch_err_set(err, "COM_REGISTER_SLAVE (server id %u) was refused: %s (the account needs "
                                 "REPLICATION SLAVE)",
                            r->o->server_id, mysql_error(r->m));
    return 0;
}

/* COM_BINLOG_DUMP from file:pos, or COM_BINLOG_DUMP_GTID (the set; with a
 * file and position when resuming). */
static int rec_request(rec_run *r, cdch_err *err)
{
    const cdch_record_opts *o = r->o;
    uint16_t flags = o->until_end ? BINLOG_DUMP_NON_BLOCK : 0;
    const char *file = r->file[0] ? r->file : o->start_file ? o->start_file : "";
    uint64_t pos = r->file[0] ? r->pos : o->start_file ? o->start_pos : 4;
    cdch_buf b = CDCH_BUF_INIT;
    int cmd;
    if (o->gtid_set) {
        cmd = COM_BINLOG_DUMP_GTID_CMD;
        cdch_put_le16(&b, flags);
        cdch_put_le32(&b, o->server_id);
        cdch_put_le32(&b, (uint32_t)strlen(file));
        cdch_put_str(&b, file);
        cdch_put_le64(&b, pos);
        cdch_put_le32(&b, (uint32_t)r->gtid_enc_len);
        cdch_put_bytes(&b, r->gtid_enc, r->gtid_enc_len);
    } else {
        if (pos > UINT32_MAX) {
            cdch_buf_free(&b);
            return cdch_err_set(err, "position %" PRIu64 " of %s is past 4 GiB: COM_BINLOG_DUMP cannot ask for it",
                                pos, file);
        }
        cmd = COM_BINLOG_DUMP;
        cdch_put_le32(&b, (uint32_t)pos);
        cdch_put_le16(&b, flags);
        cdch_put_le32(&b, o->server_id);
        cdch_put_str(&b, file);
    }
    int rc = r->m->methods->db_command(r->m, (enum enum_server_command)cmd, (const char *)b.data, b.len, 1, NULL);
    cdch_buf_free(&b);
    if (rc != 0)
        return cdch_err_set(err, "sending the binlog dump request failed: %s", mysql_error(r->m));
    return 0;
}

/* ---- progress ------------------------------------------------------------------- */

static void progress(rec_run *r, bool last)
{
    if (!r->o->progress)
        return;
    uint64_t now = cdch_now_ns();
    if (!last && now - r->last_progress < 250000000ull)
        return;
    r->last_progress = now;
    double s = (double)(now - r->t0) / 1e9;
    fprintf(stderr, "\rrecord: %s:%" PRIu64 "  %.1f MB  %" PRIu64 " events  %.1f MB/s   %s", r->file, r->pos,
            (double)r->cap.bytes / 1e6, r->cap.events, s > 0 ? (double)r->cap.bytes / 1e6 / s : 0.0,
            last ? "\n" : "");
    fflush(stderr);
}

/* ---- one event ------------------------------------------------------------------ */

static bool is_gtid(uint8_t t) { return t == CDCH_EV_GTID || t == CDCH_EV_ANONYMOUS_GTID || t == CDCH_EV_GTID_TAGGED; }

/* A fake ROTATE names the file the next events belong to. */
static pump_rc on_fake_rotate(rec_run *r, const uint8_t *ev, size_t len, cdch_err *err)
{
    size_t crc = r->net_alg == CDCH_CHECKSUM_CRC32 ? CDCH_CHECKSUM_LEN : 0;
    if (len < CDCH_HEADER_LEN + 8 + crc + 1) {
        cdch_err_set(err, "malformed fake ROTATE event (%zu bytes)", len);
        return PUMP_FATAL;
    }
    char name[512];
    size_t nl = len - CDCH_HEADER_LEN - 8 - crc;
    snprintf(name, sizeof name, "%.*s", (int)(nl < sizeof name ? nl : sizeof name - 1),
             (const char *)ev + CDCH_HEADER_LEN + 8);
    uint64_t pos = cdch_le64(ev + CDCH_HEADER_LEN);
    if (r->stop_file[0] && strcmp(name, r->stop_file) > 0) {
        cdch_err_set(err, "the stream went on to %s without reaching %s:%" PRIu64 " (is the stop position right?)",
                     name, r->stop_file, r->stop_pos);
        return PUMP_FATAL;
    }
    if (rec_cap_file(&r->cap, name, err) != 0)
        return PUMP_FATAL;
    if (strcmp(name, r->file) != 0 || pos > r->pos) {
        snprintf(r->file, sizeof r->file, "%s", name);
        r->pos = pos;
    }
    return PUMP_DONE;
}

/* After an event is written: the position, and the --stop / --until-end bound. */
static pump_rc after_event(rec_run *r, uint32_t log_pos, cdch_err *err)
{
    if (log_pos)
        r->pos = log_pos;
    if (r->o->max_bytes && r->cap.bytes >= r->o->max_bytes)
        r->bound_hit = true;
    if (r->stop_file[0] && strcmp(r->file, r->stop_file) == 0 && r->pos >= r->stop_pos) {
        if (r->pos == r->stop_pos) {
            r->done = true;
            return PUMP_DONE;
        }
        cdch_err_set(err, "%s:%" PRIu64 " is not the end of an event: the event before it ends at %" PRIu64,
                     r->stop_file, r->stop_pos, r->pos);
        return PUMP_FATAL;
    }
    return PUMP_DONE;
}

static pump_rc on_event(rec_run *r, const uint8_t *ev, size_t len, cdch_err *err)
{
    if (len < CDCH_HEADER_LEN || cdch_le32(ev + 9) != len) {
        cdch_err_set(err, "malformed event after %s:%" PRIu64 " (%zu bytes, header says %u)", r->file, r->pos, len,
                     len >= CDCH_HEADER_LEN ? cdch_le32(ev + 9) : 0);
        return PUMP_RETRY;
    }
    uint8_t type = ev[4];
    uint32_t log_pos = cdch_le32(ev + 13);
    uint16_t flags = cdch_le16(ev + 17);
    if (type == CDCH_EV_HEARTBEAT || type == CDCH_EV_HEARTBEAT_V2) {
        if (r->bound_hit)
            r->done = true; /* the server is idle (or skipping): a transaction boundary */
        return PUMP_DONE;
    }
    if (type == CDCH_EV_ROTATE && ((flags & CDCH_LOG_EVENT_ARTIFICIAL_F) || log_pos == 0))
        return on_fake_rotate(r, ev, len, err);
    if (type == CDCH_EV_FORMAT_DESCRIPTION) {
        r->alg = rec_fde_checksum_alg(ev, len);
        if (r->cap.cur_has_fde)
            return PUMP_DONE; /* re-sent after a reconnect */
    }
    if (r->alg == CDCH_CHECKSUM_CRC32 && !rec_crc_ok(ev, len)) {
        cdch_err_set(err, "the event ending at %s:%u (type %u) has a bad CRC32 checksum", r->file, log_pos, type);
        return PUMP_RETRY;
    }
    if (r->bound_hit && (is_gtid(type) || type == CDCH_EV_ROTATE)) {
        r->done = true;
        return PUMP_DONE;
    }
    if (rec_cap_event(&r->cap, ev, len, err) != 0)
        return PUMP_FATAL;
    return after_event(r, log_pos, err);
}

/* Read the dump's packets until the bound, the end, or an error. */
static pump_rc pump(rec_run *r, cdch_err *err)
{
    const cdch_record_opts *o = r->o;
    uint64_t dur_ns = o->duration_s > 0 ? (uint64_t)(o->duration_s * 1e9) : 0;
    for (uint64_t n = 0; !r->done; n++) {
        if (g_interrupted) {
            cdch_err_set(err, "interrupted");
            return PUMP_FATAL;
        }
        unsigned long len = mysql_net_read_packet(r->m);
        if (len == PACKET_ERROR || len == 0) {
            unsigned e = mysql_errno(r->m);
            cdch_err_set(err, "the dump stopped after %s:%" PRIu64 ": %s (error %u)", r->file, r->pos,
                         mysql_error(r->m), e);
            return e >= CR_MIN_ERROR && e <= CR_MAX_ERROR ? PUMP_RETRY : PUMP_FATAL;
        }
        const uint8_t *p = r->m->net.read_pos;
        if (p[0] == 0xFE && len < 8) { /* EOF: the end of a non-blocking dump */
            if (r->bound_hit || (r->stop_file[0] && !strcmp(r->file, r->stop_file) && r->pos == r->stop_pos)) {
                r->done = true;
                break;
            }
            if (r->stop_file[0])
                cdch_err_set(err, "the server ended the dump at %s:%" PRIu64 " before %s:%" PRIu64, r->file, r->pos,
                             r->stop_file, r->stop_pos);
            else
                cdch_err_set(err, "the server ended the dump at %s:%" PRIu64 " before the bound was reached",
                             r->file, r->pos);
            return PUMP_FATAL;
        }
        if (p[0] != 0x00) {
            cdch_err_set(err, "unexpected packet 0x%02x in the dump after %s:%" PRIu64, p[0], r->file, r->pos);
            return PUMP_FATAL;
        }
        pump_rc rc = on_event(r, p + 1, len - 1, err);
        if (rc != PUMP_DONE)
            return rc;
        if (dur_ns && cdch_now_ns() - r->t0 >= dur_ns)
            r->bound_hit = true;
        if ((n & 1023) == 0 || p[5] == CDCH_EV_HEARTBEAT)
            progress(r, false);
    }
    return PUMP_DONE;
}

/* ---- the run -------------------------------------------------------------------- */


static void make_uuid(char out[37])
{
    uint8_t b[16];
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(b, 1, sizeof b, f) != sizeof b) {
        uint64_t t = cdch_now_ns() ^ ((uint64_t)getpid() << 32);
        for (int i = 0; i < 16; i++)
            b[i] = (uint8_t)(t >> (8 * (i % 8))) ^ (uint8_t)(i * 37);
    }
    if (f)
        fclose(f);
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    cdch_uuid_format(b, out);
}

/* --until-end: where the log ends now (SHOW BINARY LOG STATUS from 8.2, SHOW MASTER STATUS before). */
static int end_of_log(rec_run *r, cdch_err *err)
{
    const char *q = cdch_version_product(r->version) >= 80200 ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
    MYSQL_RES *res = NULL;
    if (mysql_query(r->m, q) != 0 || !(res = mysql_store_result(r->m)))
        return cdch_err_set(err, "%s: %s (the account needs REPLICATION CLIENT)", q, mysql_error(r->m));
    MYSQL_ROW row = mysql_fetch_row(res);
    int rc = 0;
    if (!row || !row[0] || !row[1] || !row[0][0])
        rc = cdch_err_set(err, "%s returned no file: binary logging is off on %s:%u", q, r->o->host, r->o->port);
    else {
        snprintf(r->stop_file, sizeof r->stop_file, "%s", row[0]);
        r->stop_pos = strtoull(row[1], NULL, 10);
    }
    mysql_free_result(res);
    return rc;
}

/* The first connection: server facts, the end of the log, the schema. */
static int first_connect(rec_run *r, rec_schema *schema, cdch_err *err)
{
    if (!(r->m = rec_connect(r->o, err)))
        return -1;
    snprintf(r->version, sizeof r->version, "%s", mysql_get_server_info(r->m));
    const char *cipher = mysql_get_ssl_cipher(r->m);
    snprintf(r->tls, sizeof r->tls, "%s", cipher ? cipher : "");
    cdch_err ignored;
    if (!query_value(r->m, "SELECT @@GLOBAL.server_uuid", r->server_uuid, sizeof r->server_uuid, &ignored))
        r->server_uuid[0] = '\0';
    if (r->o->until_end && end_of_log(r, err) != 0)
        return -1;
    if (r->o->stop_file)
        snprintf(r->stop_file, sizeof r->stop_file, "%s", r->o->stop_file), r->stop_pos = r->o->stop_pos;
    return rec_schema_load(r->m, schema, err);
}

static pump_rc one_dump(rec_run *r, cdch_err *err)
{
    if (!r->m && !(r->m = rec_connect(r->o, err)))
        return PUMP_RETRY;
    if (rec_session(r, err) != 0 || rec_request(r, err) != 0) {
        unsigned e = mysql_errno(r->m);
        return e >= CR_MIN_ERROR && e <= CR_MAX_ERROR ? PUMP_RETRY : PUMP_FATAL;
    }
    return pump(r, err);
}

/* Dump, reconnecting after a drop up to --retries times in all (0.5 s, 1 s, then 2 s apart). */
static int dump_loop(rec_run *r, cdch_err *err)
{
    for (;;) {
        pump_rc rc = one_dump(r, err);
        if (rc == PUMP_DONE)
            return 0;
        if (r->m)
            mysql_close(r->m);
        r->m = NULL;
        if (rc == PUMP_FATAL || g_interrupted)
            return -1;
        if (r->reconnects >= (unsigned)r->o->retries)
            return cdch_err_wrap(err, "gave up after %u reconnect(s) (--retries %d)", r->reconnects, r->o->retries);
        r->reconnects++;
        double wait = 0.5 * (double)(1u << (r->reconnects - 1 < 2 ? r->reconnects - 1 : 2)); /* 0.5, 1, 2, 2 ... s */
        fprintf(stderr, "%scdcharness record: %s; reconnecting in %.1f s to resume at %s:%" PRIu64 " (%u of %d)\n",
                r->o->progress ? "\n" : "", err->msg, wait, r->file[0] ? r->file : "the start", r->pos,
                r->reconnects, r->o->retries);
        struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

static void put_kv_str(cdch_buf *b, const char *key, const char *v)
{
    cdch_buf_printf(b, ",\"%s\":", key);
    if (v)
        cdch_put_json_str(b, v, strlen(v), 0);
    else
        cdch_put_str(b, "null");
}

/* capture.json's fields besides files, tables, bytes and events. */
static void capture_fields(rec_run *r, bool complete, const char *error, cdch_buf *b)
{
    const cdch_record_opts *o = r->o;
    cdch_buf_printf(b, "\"format\":1,\"source\":\"server\",\"complete\":%s", complete ? "true" : "false");
    put_kv_str(b, "error", error);
    cdch_put_str(b, ",\"server\":{\"host\":");
    cdch_put_json_str(b, o->host, strlen(o->host), 0);
    cdch_buf_printf(b, ",\"port\":%u", o->port);
    put_kv_str(b, "version", r->version);
    put_kv_str(b, "server_uuid", r->server_uuid[0] ? r->server_uuid : NULL);
    put_kv_str(b, "tls", r->tls[0] ? r->tls : NULL);
    cdch_buf_printf(b, ",\"replica_server_id\":%u}", o->server_id);
    if (o->gtid_set)
        cdch_put_str(b, ",\"start\":{\"gtid_set\":"), cdch_put_json_str(b, o->gtid_set, strlen(o->gtid_set), 0);
    else
        cdch_put_str(b, ",\"start\":{\"file\":"), cdch_put_json_str(b, o->start_file, strlen(o->start_file), 0),
            cdch_buf_printf(b, ",\"pos\":%" PRIu64, o->start_pos);
    cdch_put_str(b, "},\"bound\":{");
    if (r->stop_file[0]) {
        cdch_buf_printf(b, "\"%s\":{\"file\":", o->until_end ? "until_end" : "stop");
        cdch_put_json_str(b, r->stop_file, strlen(r->stop_file), 0);
        cdch_buf_printf(b, ",\"pos\":%" PRIu64 "}", r->stop_pos);
    } else if (o->max_bytes)
        cdch_buf_printf(b, "\"max_bytes\":%" PRIu64, o->max_bytes);
    else
        cdch_buf_printf(b, "\"duration_s\":%g", o->duration_s);
    cdch_put_str(b, "},\"end\":{\"file\":");
    cdch_put_json_str(b, r->file, strlen(r->file), 0);
    cdch_buf_printf(b, ",\"pos\":%" PRIu64 "},\"reconnects\":%u,\"seconds\":%.3f", r->pos, r->reconnects,
                    (double)(cdch_now_ns() - r->t0) / 1e9);
    cdch_put_str(b, ",\"schema\":\"schema.sql\",\"schema_as_of\":\"start\",\"options\":");
    cdch_put_str(b, o->options_json ? o->options_json : "[]");
}

static int finish(rec_run *r, rec_schema *schema, bool complete, const char *error, cdch_err *err)
{
    cdch_buf f = CDCH_BUF_INIT, h = CDCH_BUF_INIT;
    capture_fields(r, complete, error, &f);
    cdch_buf_printf(&h,
                    "-- cdcharness record: the schema as of the start of the capture (SHOW CREATE DATABASE / "
                    "SHOW CREATE TABLE\n-- through the recording account '%s' on %s:%u, MySQL %s), for %s.\n"
                    "-- DDL inside the range is in the stream, not here.\n",
                    r->o->user, r->o->host, r->o->port, r->version,
                    r->o->tables_touched ? "the tables the range touches"
                                         : "every base table outside the system schemas");
    char *sql = rec_schema_sql(schema, &r->cap, cdch_buf_cstr(&h));
    int rc = rec_cap_finish(&r->cap, cdch_buf_cstr(&f), sql, rec_schema_has, schema, err);
    free(sql);
    cdch_buf_free(&f);
    cdch_buf_free(&h);
    return rc;
}

int cdch_record(const cdch_record_opts *o, cdch_record_result *res, cdch_err *err)
{
    memset(res, 0, sizeof *res);
    rec_run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.t0 = cdch_now_ns();
    make_uuid(r.uuid);
    cdch_arena ar = CDCH_ARENA_INIT;
    if (o->gtid_set) {
        cdch_gtid_set gs;
        if (cdch_gtid_set_parse(o->gtid_set, &ar, &gs, err) != 0) {
            cdch_arena_free(&ar);
            return cdch_err_wrap(err, "--gtid-set");
        }
        cdch_buf b = CDCH_BUF_INIT;
        cdch_gtid_set_encode(&gs, &b);
        r.gtid_enc = b.data;
        r.gtid_enc_len = b.len;
    }
    cdch_arena_free(&ar);
    rec_schema schema;
    memset(&schema, 0, sizeof schema);
    int rc = -1;
    if (rec_cap_begin(&r.cap, o->out_dir, err) == 0) {
        r.cap.scan_tables = o->tables_touched;
        if (first_connect(&r, &schema, err) != 0) {
            rec_cap_abort(&r.cap); /* nothing received: nothing written */
        } else {
            rc = dump_loop(&r, err);
            if (g_interrupted && rc != 0)
                cdch_err_set(err, "interrupted at %s:%" PRIu64, r.file, r.pos);
            progress(&r, true);
            res->bytes = r.cap.bytes;
            res->events = r.cap.events;
            res->files = r.cap.nfiles;
            cdch_err ferr;
            if (rc != 0 && r.cap.events == 0) {
                rec_cap_abort(&r.cap);
            } else if (finish(&r, &schema, rc == 0, rc == 0 ? NULL : err->msg, &ferr) != 0) {
                *err = ferr;
                rc = -1;
            } else {
                res->written = true;
            }
        }
    }
    if (r.m)
        mysql_close(r.m);
    rec_schema_free(&schema);
    free(r.gtid_enc);
    res->reconnects = r.reconnects;
    snprintf(res->end_file, sizeof res->end_file, "%s", r.file);
    res->end_pos = r.pos;
    res->seconds = (double)(cdch_now_ns() - r.t0) / 1e9;
    return rc;
}
