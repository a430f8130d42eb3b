/* ev_control.c — FORMAT_DESCRIPTION, QUERY, GTID/ANONYMOUS_GTID and
 * HEARTBEAT_V2 bodies, and the FDE a given server version writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_internal.h"

/* ---- FORMAT_DESCRIPTION --------------------------------------------------- */

uint32_t cdch_version_product(const char *v)
{
    /* "8.0.28-debug" -> 80028; absurd components (hostile input) saturate */
    long maj = 0, min = 0, pat = 0;
    if (sscanf(v, "%4ld.%4ld.%4ld", &maj, &min, &pat) < 1 || maj < 0 || min < 0 || pat < 0)
        return 0;
    long long p = (long long)maj * 10000 + (long long)min * 100 + pat;
    return p > 99999999 ? 99999999u : (uint32_t)p;
}

/* Copy the next n bytes into dst if they are there (else the cursor
 * overruns and dst is left as it is). */
static void get_copy(cdch_cursor *c, void *dst, size_t n)
{
    const uint8_t *p = cdch_get_bytes(c, n);
    if (p)
        memcpy(dst, p, n);
}

int ev_decode_fde(const ev_dctx *x, cdch_cursor *c, cdch_fde *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    out->binlog_version = cdch_get_le16(c);
    get_copy(c, out->server_version, 50);
    out->server_version[50] = '\0';
    out->create_timestamp = cdch_get_le32(c);
    out->common_header_len = cdch_get_u8(c);
    if (c->overrun)
        return ev_fail(x, c, err, "FORMAT_DESCRIPTION event is truncated");
    if (out->binlog_version != 4)
        return ev_fail(x, c, err, "binlog version %u is not supported (only v4, MySQL 5.0+)", out->binlog_version);
    if (out->common_header_len != CDCH_HEADER_LEN)
        return ev_fail(x, c, err, "common header length %u is not 19", out->common_header_len);
    out->version_product = cdch_version_product(out->server_version);
    size_t left = cdch_cur_left(c);
    bool has_alg = out->version_product >= 50601;
    if (has_alg) {
        if (left < 1)
            return ev_fail(x, c, err, "FORMAT_DESCRIPTION has no checksum algorithm byte");
        left -= 1;
    }
    if (left > 255)
        return ev_fail(x, c, err, "FORMAT_DESCRIPTION lists %zu post-header lengths (more than 255)", left);
    out->n_post_header = (uint16_t)left;
    const uint8_t *ph = cdch_get_bytes(c, left);
    if (ph)
        memcpy(out->post_header_len, ph, left);
    out->checksum_alg = has_alg ? cdch_get_u8(c) : CDCH_CHECKSUM_OFF;
    if (out->checksum_alg != CDCH_CHECKSUM_OFF && out->checksum_alg != CDCH_CHECKSUM_CRC32 &&
        out->checksum_alg != CDCH_CHECKSUM_UNDEF)
        return ev_fail(x, c, err, "unknown checksum algorithm %u (expected 0 NONE or 1 CRC32)", out->checksum_alg);
    return 0;
}

void ev_encode_fde(const cdch_fde *f, cdch_buf *out)
{
    cdch_put_le16(out, f->binlog_version);
    uint8_t ver[50] = {0};
    size_t n = strnlen(f->server_version, 50);
    memcpy(ver, f->server_version, n);
    cdch_put_bytes(out, ver, 50);
    cdch_put_le32(out, f->create_timestamp);
    cdch_put_u8(out, f->common_header_len);
    cdch_put_bytes(out, f->post_header_len, f->n_post_header);
    if (f->version_product >= 50601 || f->version_product == 0)
        cdch_put_u8(out, f->checksum_alg);
}

/* server_event_header_length[] of MySQL 8.0.27+ (control_events.cpp), index
 * = type - 1. Entry 40 is the enum constant TRANSACTION_PAYLOAD_EVENT (40),
 * not a length: reproduced on purpose. */
static const uint8_t post_header_8027[41] = {
    0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10,
    42, 42, 0, 18, 52, 0, 10, 40, 0,
};

int cdch_fde_for_version(const char *version, uint8_t checksum_alg, cdch_fde *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    int maj = 0, min = 0, pat = 0;
    if (sscanf(version, "%4d.%4d.%4d", &maj, &min, &pat) != 3)
        return cdch_err_set(err, "server version '%s' is not of the form MAJOR.MINOR.PATCH", version);
    uint32_t prod = cdch_version_product(version);
    if (prod < 80020)
        return cdch_err_set(err, "server version %s is older than 8.0.20 (binlog_transaction_compression "
                                 "does not exist there); use 8.0.20 or newer",
                            version);
    if (strlen(version) > 50)
        return cdch_err_set(err, "server version string '%s' is longer than 50 bytes", version);
    snprintf(out->server_version, sizeof out->server_version, "%s", version);
    out->binlog_version = 4;
    out->common_header_len = CDCH_HEADER_LEN;
    out->checksum_alg = checksum_alg;
    out->version_product = prod;
    memcpy(out->post_header_len, post_header_8027, sizeof post_header_8027);
    /* 8.3.0 added GTID_TAGGED_LOG_EVENT (42): a 42nd entry, 0; 8.4.0 removed the v1 rows events
     * (entries 23-25 become 0: "the code for V1 Rows events were removed in 8.4.0",
     * libs/mysql/binlog/event/control_events.cpp server_event_header_length[], mysql-server trunk). */
    if (prod < 80027) {
        out->n_post_header = 40;
    } else if (prod < 80300) {
        out->n_post_header = 41;
    } else {
        out->n_post_header = 42;
        if (prod >= 80400 || maj >= 9)
            out->post_header_len[22] = out->post_header_len[23] = out->post_header_len[24] = 0; /* v1 rows gone */
        out->post_header_len[41] = 0;
    }
    out->post_header_len[CDCH_EV_FORMAT_DESCRIPTION - 1] = (uint8_t)(56 + 1 + out->n_post_header);
    return 0;
}

/* ---- QUERY ---------------------------------------------------------------- */

/* Size of a status variable's value (after its code byte), or -1 when the
 * code is unknown (then the rest is kept verbatim, as MySQL stops there). */
static long status_var_size(uint8_t code, cdch_cursor c /* copy, at value */)
{
    switch (code) {
    case CDCH_Q_FLAGS2: return 4;
    case CDCH_Q_SQL_MODE: return 8;
    case CDCH_Q_CATALOG: { long n = cdch_get_u8(&c); return 1 + n + 1; }
    case CDCH_Q_AUTO_INCREMENT: return 4;
    case CDCH_Q_CHARSET: return 6;
    case CDCH_Q_TIME_ZONE:
    case CDCH_Q_CATALOG_NZ: { long n = cdch_get_u8(&c); return 1 + n; }
    case CDCH_Q_LC_TIME_NAMES: return 2;
    case CDCH_Q_CHARSET_DATABASE: return 2;
    case CDCH_Q_TABLE_MAP_FOR_UPDATE: return 8;
    case CDCH_Q_MASTER_DATA_WRITTEN: return 4;
    case CDCH_Q_INVOKER: {
        long u = cdch_get_u8(&c);
        cdch_skip(&c, (size_t)u);
        long h = cdch_get_u8(&c);
        return 1 + u + 1 + h;
    }
    case CDCH_Q_UPDATED_DB_NAMES: {
        uint8_t count = cdch_get_u8(&c);
        long n = 1;
        if (count == 254) /* OVER_MAX_DBS_IN_EVENT_MTS: no names follow */
            return n;
        for (unsigned i = 0; i < count && !c.overrun; i++) {
            const uint8_t *s = c.p;
            const uint8_t *z = memchr(s, 0, cdch_cur_left(&c));
            if (!z)
                return 1 + (long)cdch_cur_left(&c) + 1; /* forces an overrun below */
            n += (long)(z - s) + 1;
            c.p = z + 1;
        }
        return n;
    }
    case CDCH_Q_MICROSECONDS: return 3;
    case CDCH_Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP: return 1;
    case CDCH_Q_DDL_LOGGED_WITH_XID: return 8;
    case CDCH_Q_DEFAULT_COLLATION_FOR_UTF8MB4: return 2;
    case CDCH_Q_SQL_REQUIRE_PRIMARY_KEY: return 1;
    case CDCH_Q_DEFAULT_TABLE_ENCRYPTION: return 1;
    default: return -1;
    }
}

int ev_decode_query(const ev_dctx *x, cdch_cursor *c, cdch_query *q, cdch_err *err)
{
    unsigned phl = ev_post_header_len(x->fde, CDCH_EV_QUERY);
    if (phl != 13)
        return ev_fail(x, c, err, "QUERY post-header length %u is not the 13 bytes of MySQL 5.0+", phl);
    q->thread_id = cdch_get_le32(c);
    q->exec_time = cdch_get_le32(c);
    uint8_t db_len = cdch_get_u8(c);
    q->error_code = cdch_get_le16(c);
    uint16_t sv_len = cdch_get_le16(c);
    cdch_cursor sv = cdch_get_sub(c, sv_len);
    if (c->overrun)
        return ev_fail(x, c, err, "QUERY event is truncated (status variables say %u bytes)", sv_len);
    /* count first, then fill */
    size_t cap = sv_len; /* at most one var per byte */
    q->status = cap ? cdch_arena_alloc(x->a, cap * sizeof *q->status) : NULL;
    q->n_status = 0;
    while (cdch_cur_left(&sv) > 0) {
        const uint8_t *at = sv.p;
        uint8_t code = cdch_get_u8(&sv);
        long n = status_var_size(code, sv);
        if (n < 0) {
            sv.p = at;
            q->status_tail = ev_bytes(at, cdch_cur_left(&sv));
            sv.p = sv.end;
            break;
        }
        const uint8_t *val = cdch_get_bytes(&sv, (size_t)n);
        if (!val)
            return ev_fail(x, &sv, err, "QUERY status variable %u is truncated", code);
        q->status[q->n_status].code = code;
        q->status[q->n_status].value = ev_bytes(val, (size_t)n);
        q->n_status++;
    }
    q->db = ev_bytes(cdch_get_bytes(c, db_len), db_len);
    uint8_t nul = cdch_get_u8(c);
    if (c->overrun)
        return ev_fail(x, c, err, "QUERY event is truncated in its database name");
    if (nul != 0)
        return ev_fail(x, c, err, "QUERY database name is not NUL-terminated");
    q->query = ev_bytes(c->p, cdch_cur_left(c));
    c->p = c->end;
    return 0;
}

void ev_encode_query(const cdch_query *q, cdch_buf *out)
{
    size_t sv_len = q->status_tail.len;
    for (size_t i = 0; i < q->n_status; i++)
        sv_len += 1 + q->status[i].value.len;
    cdch_put_le32(out, q->thread_id);
    cdch_put_le32(out, q->exec_time);
    cdch_put_u8(out, (uint8_t)q->db.len);
    cdch_put_le16(out, q->error_code);
    cdch_put_le16(out, (uint16_t)sv_len);
    for (size_t i = 0; i < q->n_status; i++) {
        cdch_put_u8(out, q->status[i].code);
        cdch_put_bytes(out, q->status[i].value.ptr, q->status[i].value.len);
    }
    cdch_put_bytes(out, q->status_tail.ptr, q->status_tail.len);
    cdch_put_bytes(out, q->db.ptr, q->db.len);
    cdch_put_u8(out, 0);
    cdch_put_bytes(out, q->query.ptr, q->query.len);
}

/* ---- GTID / ANONYMOUS_GTID ------------------------------------------------ */

#define ENCODED_COMMIT_TS_LEN 7
#define COMMIT_TS_ORIGINAL_BIT (1ULL << 55)
#define SERVER_VERSION_ORIGINAL_BIT (1UL << 31)

int ev_decode_gtid(const ev_dctx *x, cdch_cursor *c, cdch_gtid_ev *g, cdch_err *err)
{
    memset(g, 0, sizeof *g);
    g->gtid_flags = cdch_get_u8(c);
    get_copy(c, g->sid, 16);
    g->gno = (int64_t)cdch_get_le64(c);
    if (c->overrun)
        return ev_fail(x, c, err, "GTID event is truncated before its GNO");
    g->classic_parts = 0;
    if (cdch_cur_left(c) == 0)
        return 0;
    g->lt_type = cdch_get_u8(c);
    if (g->lt_type != 2)
        return ev_fail(x, c, err, "GTID logical timestamp typecode %u is not 2", g->lt_type);
    g->last_committed = (int64_t)cdch_get_le64(c);
    g->sequence_number = (int64_t)cdch_get_le64(c);
    g->classic_parts = 1;
    if (c->overrun || cdch_cur_left(c) == 0)
        return 0;
    uint64_t ts = cdch_get_le(c, ENCODED_COMMIT_TS_LEN);
    if (ts & COMMIT_TS_ORIGINAL_BIT) {
        g->immediate_commit_ts = ts & ~COMMIT_TS_ORIGINAL_BIT;
        g->original_commit_ts = cdch_get_le(c, ENCODED_COMMIT_TS_LEN);
    } else {
        g->immediate_commit_ts = g->original_commit_ts = ts;
    }
    g->classic_parts = 2;
    if (c->overrun || cdch_cur_left(c) == 0)
        return 0;
    bool bad = false;
    g->transaction_length = cdch_get_lenenc(c, &bad);
    if (bad)
        return ev_fail(x, c, err, "GTID transaction_length has an invalid length prefix");
    g->classic_parts = 3;
    if (c->overrun || cdch_cur_left(c) == 0)
        return 0;
    uint32_t v = cdch_get_le32(c);
    if (v & SERVER_VERSION_ORIGINAL_BIT) {
        g->immediate_server_version = v & ~(uint32_t)SERVER_VERSION_ORIGINAL_BIT;
        g->original_server_version = cdch_get_le32(c);
    } else {
        g->immediate_server_version = g->original_server_version = v;
    }
    g->classic_parts = 4;
    if (!c->overrun && cdch_cur_left(c) >= 8)
        g->commit_group_ticket = cdch_get_le64(c);
    return 0;
}

void ev_encode_gtid(const cdch_gtid_ev *g, cdch_buf *out)
{
    cdch_put_u8(out, g->gtid_flags);
    cdch_put_bytes(out, g->sid, 16);
    cdch_put_le64(out, (uint64_t)g->gno);
    if (g->classic_parts < 1)
        return;
    cdch_put_u8(out, g->lt_type ? g->lt_type : 2);
    cdch_put_le64(out, (uint64_t)g->last_committed);
    cdch_put_le64(out, (uint64_t)g->sequence_number);
    if (g->classic_parts < 2)
        return;
    if (g->immediate_commit_ts != g->original_commit_ts) {
        cdch_put_le(out, g->immediate_commit_ts | COMMIT_TS_ORIGINAL_BIT, ENCODED_COMMIT_TS_LEN);
        cdch_put_le(out, g->original_commit_ts, ENCODED_COMMIT_TS_LEN);
    } else {
        cdch_put_le(out, g->immediate_commit_ts, ENCODED_COMMIT_TS_LEN);
    }
    if (g->classic_parts < 3)
        return;
    cdch_put_lenenc(out, g->transaction_length);
    if (g->classic_parts < 4)
        return;
    if (g->immediate_server_version != g->original_server_version) {
        cdch_put_le32(out, g->immediate_server_version | SERVER_VERSION_ORIGINAL_BIT);
        cdch_put_le32(out, g->original_server_version);
    } else {
        cdch_put_le32(out, g->immediate_server_version);
    }
    if (g->commit_group_ticket)
        cdch_put_le64(out, g->commit_group_ticket);
}

/* ---- HEARTBEAT_V2 --------------------------------------------------------- */

enum { HB_END = 0, HB_LOG_FILENAME = 1, HB_LOG_POSITION = 2 };

int ev_decode_heartbeat_v2(const ev_dctx *x, cdch_cursor *c, cdch_heartbeat *h, cdch_err *err)
{
    memset(h, 0, sizeof *h);
    bool bad = false;
    while (!c->overrun && cdch_cur_left(c) > 0) {
        uint8_t type = cdch_get_u8(c);
        if (type == HB_END)
            return 0;
        uint64_t len = cdch_get_lenenc(c, &bad);
        if (bad || len > cdch_cur_left(c))
            return ev_fail(x, c, err, "HEARTBEAT_V2 field %u has a bad length", type);
        cdch_cursor f = cdch_get_sub(c, (size_t)len);
        if (type == HB_LOG_FILENAME) {
            h->log_file = ev_bytes(f.p, (size_t)len);
        } else if (type == HB_LOG_POSITION) {
            h->position = cdch_get_lenenc(&f, &bad);
            if (bad || f.overrun)
                return ev_fail(x, c, err, "HEARTBEAT_V2 position field is malformed");
        }
    }
    return ev_fail(x, c, err, "HEARTBEAT_V2 has no end mark");
}

void ev_encode_heartbeat_v2(const cdch_heartbeat *h, cdch_buf *out)
{
    cdch_put_u8(out, HB_LOG_FILENAME);
    cdch_put_lenenc(out, h->log_file.len);
    cdch_put_bytes(out, h->log_file.ptr, h->log_file.len);
    cdch_put_u8(out, HB_LOG_POSITION);
    cdch_put_lenenc(out, cdch_lenenc_size(h->position));
    cdch_put_lenenc(out, h->position);
    cdch_put_u8(out, HB_END);
}
