/* dump.c — COM_REGISTER_SLAVE, COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID,
 * behaving as MySQL 8's dump thread (sql/rpl_source.cc, sql/rpl_binlog_sender.cc;
 * see shared/reference/binlog-format.md sections 10 and 11).
 *
 * One dump = one Binlog_sender run: choose the first file (by name, or the
 * first of the index, or from PREVIOUS_GTIDS for the GTID protocol), check
 * the start position, then per file: a fake ROTATE, the file's FDE (flag
 * LOG_EVENT_BINLOG_IN_USE_F cleared; log_pos/created zeroed with the CRC
 * recomputed when starting past the header), then the events as stored
 * (transactions the replica already has skipped under the GTID protocol,
 * with heartbeats to move its position). At the end of the last file a
 * non-blocking dump sends EOF; a blocking one waits, sending heartbeats each
 * @source_heartbeat_period nanoseconds, until the client goes away or the
 * server stops; a dump the harness holds (a fault's cut, the end marker)
 * sends the same heartbeats while it waits. Errors are ERR 1236 with MySQL's messages (and MySQL's
 * "; the first event ..." suffix when a file was open). MySQL ends the
 * session after a dump whatever happened, so the dumps always return 1
 * (or -1 on a write error) and the caller closes the connection.
 *
 * Files are read event by event through a read-ahead window (never whole):
 * like MySQL's File_reader, the sender reads from the requested offset and
 * only checks what MySQL checks (event length >= 19, <= 1 GiB, not past
 * the end of the file), so a position inside an event is refused only when
 * MySQL would refuse it. Each event is sent from the window itself: the
 * packet's 0x00 (and semi-sync 0xEF 0x00) marker is written over the bytes
 * just before the event, which belong to the event already sent.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "cursor.h"
#include "event.h"
#include "server_internal.h"
#include "sys.h"

enum {
    ER_UNKNOWN_ERROR = 1105,
    ER_SOURCE_FATAL_ERROR_READING_BINLOG = 1236,
    ER_MALFORMED_GTID_SET_ENCODING = 1773,
    ER_MALFORMED_PACKET = 1835,
};

#define BIN_LOG_HEADER_SIZE 4
#define BINLOG_DUMP_NON_BLOCK 0x0001
#define USE_HEARTBEAT_EVENT_V2 0x0002
#define MYSQL_ERRMSG_SIZE 512
#define FN_REFLEN 512
#define PKT_PREFIX 3 /* room for 0x00 + semi-sync 0xEF flags */
#define MAX_EVENT_SIZE (1024u * 1024u * 1024u)
#define READ_AHEAD (1u << 20)
#define OUT_FLUSH (64u << 10) /* write the output buffer once it holds this much */
#define OUT_INLINE (16u << 10) /* larger packets go to the socket without a copy */
#define CDCH_EV_UNKNOWN_FAULT 199

static const char k_msg_checksum[] =
    "Replica can not handle replication events with the checksum that source is configured to log";
static const char k_msg_more_gtids[] =
    "Replica has more GTIDs than the source has, using the source's SERVER_UUID. This may indicate that the the "
    "last binary log file was truncated or lost, e.g., after a power failure when sync_binlog != 1. The source "
    "may have rolled back transactions that were already replicated to the replica. Replicate any transactions "
    "that source has rolled back from replica to source, and/or commit empty transactions on source to account "
    "for transactions that have been committed on source but are not included in GTID_EXECUTED.";
static const char k_msg_purged[] =
    "Cannot replicate because the source purged required binary logs. Replicate the missing transactions from "
    "elsewhere, or provision a new replica from backup. Consider increasing the source's binary log expiration "
    "period. %s";

/* Binlog_read_error kinds MySQL's sender reports (log_read_error_msg). */
typedef enum { RD_OK = 0, RD_EOF, RD_BOGUS, RD_TOO_LARGE, RD_TRUNC, RD_IO } rd_status;

static const char *rd_message(rd_status s)
{
    switch (s) {
    case RD_BOGUS: return "bogus data in log event";
    case RD_TOO_LARGE: return "log event entry exceeded max_allowed_packet; Increase max_allowed_packet on source";
    case RD_TRUNC: return "binlog truncated in the middle of event; consider out of disk space on source";
    case RD_IO: return "I/O error reading log event";
    default: return "";
    }
}

/* A binlog file read through a read-ahead window. raw[0..PKT_PREFIX) is
 * scratch so that the first event of the window also has room for its
 * packet marker. */
typedef struct ifile {
    int fd;
    uint64_t length; /* the file's size: nothing is read past it */
    uint8_t *raw;
    size_t cap;      /* bytes after the prefix */
    uint64_t base;   /* file offset of raw[PKT_PREFIX] */
    size_t start;    /* next unread byte (window index) */
    size_t end;      /* valid bytes in the window */
    uint64_t err_pos; /* after a failed read: where MySQL's reader would stand (0 = none) */
} ifile;

static void ifile_close(ifile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    f->base = f->start = f->end = 0;
}

static uint64_t ifile_pos(const ifile *f) { return f->base + f->start; }

static void ifile_seek(ifile *f, uint64_t pos)
{
    f->err_pos = 0;
    f->base = pos;
    f->start = f->end = 0;
}

/* Make n bytes available from the read position; returns how many are (<= n
 * only at the end of the file), or -1 on an I/O error. */
static ssize_t ifile_need(ifile *f, size_t n)
{
    if (f->end - f->start >= n)
        return (ssize_t)n;
    if (f->start) {
        memmove(f->raw + PKT_PREFIX, f->raw + PKT_PREFIX + f->start, f->end - f->start);
        f->base += f->start;
        f->end -= f->start;
        f->start = 0;
    }
    if (n > f->cap) {
        size_t ncap = f->cap ? f->cap : READ_AHEAD;
        while (ncap < n)
            ncap *= 2;
        /* up to ~1 GiB for one event: failing is an I/O error for the dump, not an abort */
        uint8_t *nr = realloc(f->raw, ncap + PKT_PREFIX);
        if (!nr)
            return -1;
        f->raw = nr;
        f->cap = ncap;
    }
    while (f->end < n) {
        uint64_t at = f->base + f->end;
        if (at >= f->length)
            break;
        size_t room = f->cap - f->end;
        if (room > f->length - at)
            room = (size_t)(f->length - at);
        ssize_t r = pread(f->fd, f->raw + PKT_PREFIX + f->end, room, (off_t)at);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        f->end += (size_t)r;
    }
    return (ssize_t)(f->end < n ? f->end : n);
}

/* Binlog_event_data_istream: header (19 bytes), its length checks, body. */
static rd_status ifile_read_event(ifile *f, uint8_t **ev, uint32_t *len)
{
    /* On an error, err_pos is where MySQL's IO_CACHE stands then: past the
     * 19 header bytes for a bad length, at the end of the file for a short read. */
    ssize_t have = ifile_need(f, CDCH_HEADER_LEN);
    if (have < 0)
        return RD_IO;
    if (have == 0)
        return RD_EOF;
    if (have < CDCH_HEADER_LEN) {
        f->err_pos = f->length;
        return RD_TRUNC;
    }
    const uint8_t *h = f->raw + PKT_PREFIX + f->start;
    uint32_t n = cdch_le32(h + 9);
    if (n < CDCH_HEADER_LEN || n > MAX_EVENT_SIZE) {
        f->err_pos = ifile_pos(f) + CDCH_HEADER_LEN;
        return n < CDCH_HEADER_LEN ? RD_BOGUS : RD_TOO_LARGE;
    }
    have = ifile_need(f, n);
    if (have < 0)
        return RD_IO;
    if ((size_t)have < n) {
        f->err_pos = f->length;
        return RD_TRUNC;
    }
    *ev = f->raw + PKT_PREFIX + f->start;
    *len = n;
    f->start += n;
    return RD_OK;
}

/* ------------------------------------------------------------------------ */

typedef enum { SEND_OK = 0, SEND_STOP = 1, SEND_FAIL = -1 } send_rc;

typedef struct dump {
    srv_conn *c;
    struct cdch_server *srv;
    const srv_catalog *cat;
    const cdch_server_faults *faults; /* NULL when none apply to this dump */
    /* the request */
    bool gtid_protocol;
    char start_file[FN_REFLEN + 1];
    uint64_t start_pos;
    uint16_t flags;
    uint32_t replica_id;
    cdch_arena arena;
    cdch_gtid_set exclude;
    /* Binlog_sender state */
    bool wait_new_events;
    bool replica_alg_set; /* @source_binlog_checksum / @master_binlog_checksum set */
    uint8_t replica_alg;  /* CDCH_CHECKSUM_CRC32, _OFF, or 254 for another value */
    uint8_t event_alg;    /* m_event_checksum_alg */
    uint64_t hb_period_ns;
    bool semi_sync;
    bool gtid_clear_fd_created;
    bool check_prev_gtid_event;
    uint64_t last_sent_ns;
    /* current file */
    size_t fi;
    const srv_binlog_file *f;
    ifile in;
    bool open;
    /* errors */
    bool has_error;
    uint16_t err_code;
    char errmsg[2048];
    const char *last_file;
    char last_file_buf[FN_REFLEN + 1];
    uint64_t last_pos;
    bool gone; /* client gone, server stopping or a fault closed: send nothing more */
    bool write_failed;
    /* faults */
    uint64_t nevents;
    uint64_t nbytes;
    cdch_buf scratch;
    cdch_buf out; /* framed packets not yet written (MySQL's NET buffer) */
} dump;

static void set_fatal(dump *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void set_fatal(dump *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->errmsg, sizeof d->errmsg, fmt, ap);
    va_end(ap);
    d->err_code = ER_SOURCE_FATAL_ERROR_READING_BINLOG;
    d->has_error = true;
}

/* get_user_var_from_alternatives: the first name that exists wins. */
static const srv_uservar *uservar_alt(const srv_conn *c, const char *a, const char *b)
{
    const srv_uservar *v = conn_uservar_entry(c, a);
    return v ? v : conn_uservar_entry(c, b);
}

/* user_var_entry::val_int of a string value */
static int64_t uservar_int(const srv_uservar *v)
{
    if (!v || v->is_null)
        return 0;
    const char *s = v->value;
    if (strpbrk(s, ".eE")) {
        double x = strtod(s, NULL);
        return (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
    }
    return strtoll(s, NULL, 10);
}

static bool event_checksum_on(const dump *d) { return d->event_alg == CDCH_CHECKSUM_CRC32; }

static bool faults_apply(const dump *d, uint64_t at) { return d->faults && at && d->nevents == at; }

/* ------------------------------------------------------------------------ */
/* sending                                                                   */

/* Packets are framed into d->out and written when it fills up, before the
 * sender waits, after a heartbeat and at the end, as MySQL's NET buffer is
 * (my_net_write / net_flush): the client sees the same bytes, in far fewer
 * writes. */
static int out_flush(dump *d)
{
    if (d->out.len == 0 || d->write_failed)
        return d->write_failed ? -1 : 0;
    int r = conn_send_raw(d->c, d->out.data, d->out.len);
    cdch_buf_reset(&d->out);
    if (r != 0) {
        d->write_failed = true;
        d->gone = true;
        return -1;
    }
    return 0;
}

/* my_net_write: 0xFFFFFF-byte chunks with consecutive sequence ids (an
 * empty chunk after an exact multiple). */
static int out_packet(dump *d, const uint8_t *p, size_t n)
{
    for (;;) {
        size_t chunk = n < 0xFFFFFF ? n : 0xFFFFFF;
        cdch_put_le24(&d->out, (uint32_t)chunk);
        cdch_put_u8(&d->out, d->c->seq++);
        if (chunk <= OUT_INLINE) {
            cdch_put_bytes(&d->out, p, chunk);
            if (d->out.len >= OUT_FLUSH && out_flush(d) != 0)
                return -1;
        } else {
            if (out_flush(d) != 0)
                return -1;
            if (conn_send_raw(d->c, p, chunk) != 0) {
                d->write_failed = true;
                d->gone = true;
                return -1;
            }
        }
        p += chunk;
        n -= chunk;
        if (chunk < 0xFFFFFF)
            return 0;
    }
}

/* Write the framed packet that carries payload p[0..n) (MySQL framing:
 * 0xFFFFFF-byte chunks, consecutive sequence ids) but only its first `cut`
 * payload bytes: the headers still announce the full length. */
static int send_partial(dump *d, const uint8_t *p, size_t n, size_t cut)
{
    if (out_flush(d) != 0)
        return -1;
    size_t off = 0;
    uint8_t seq = d->c->seq;
    cdch_buf hdr = CDCH_BUF_INIT;
    int rc = 0;
    for (;;) {
        size_t chunk = n - off > 0xFFFFFF ? 0xFFFFFF : n - off;
        cdch_buf_reset(&hdr);
        cdch_put_le24(&hdr, (uint32_t)chunk);
        cdch_put_u8(&hdr, seq++);
        size_t b = cut - off < chunk ? cut - off : chunk;
        if (conn_send_raw(d->c, hdr.data, hdr.len) != 0 || (b && conn_send_raw(d->c, p + off, b) != 0)) {
            rc = -1;
            break;
        }
        off += b;
        if (off >= cut || chunk < 0xFFFFFF)
            break;
    }
    cdch_buf_free(&hdr);
    if (rc == 0)
        d->c->seq = seq;
    return rc;
}

/* Keep the connection open doing nothing until the client goes away or the
 * server stops. */
static void stall(dump *d)
{
    if (out_flush(d) != 0)
        return;
    for (;;) {
        if (srv_stopping(d->srv))
            return;
        int w = conn_wait(d->c, 200);
        if (w == 1)
            return;
        if (w == 2) {
            struct timespec ts = {0, 200 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}

/* Send one event packet: ev[-PKT_PREFIX..-1] must be writable scratch.
 * `counted`: an event of the dump (faults number these); heartbeats are not. */
static send_rc send_event(dump *d, uint8_t *ev, size_t len, bool counted);

static send_rc send_unknown_event(dump *d, uint32_t log_pos)
{
    /* type 199: unknown to MySQL and MariaDB clients alike; log_pos = where
     * the event it precedes starts, body 4 zero bytes (+ CRC as the stream has it).
     * Built in its own buffer: the event it precedes may be in d->scratch. */
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_zero(&b, PKT_PREFIX);
    size_t crc = event_checksum_on(d) ? CDCH_CHECKSUM_LEN : 0;
    uint32_t len = CDCH_HEADER_LEN + 4 + (uint32_t)crc;
    cdch_put_le32(&b, 0);
    cdch_put_u8(&b, CDCH_EV_UNKNOWN_FAULT);
    cdch_put_le32(&b, srv_catalog_server_id(d->cat));
    cdch_put_le32(&b, len);
    cdch_put_le32(&b, log_pos);
    cdch_put_le16(&b, 0);
    cdch_put_zero(&b, 4);
    if (crc)
        cdch_put_le32(&b, cdch_crc32(0, b.data + PKT_PREFIX, len - crc));
    send_rc rc = send_event(d, b.data + PKT_PREFIX, len, false);
    cdch_buf_free(&b);
    if (rc == SEND_OK)
        d->nbytes += len;
    return rc;
}

static send_rc send_heartbeat(dump *d, uint64_t pos);

/* A dump waiting at a hold, for hold_tick. */
typedef struct hold_ctx {
    dump *d;
    uint64_t pos; /* the end of the last event sent */
} hold_ctx;

/* While the harness holds the stream the replica hears what it hears from
 * an idle source: a heartbeat each period it asked for (none when it asked
 * for none). A library that counts a connection lost after its keep-alive
 * interval without an event (BinaryLogClient.java:852-882 in 0.27.2, 60 s
 * by default, in wall time) would otherwise reconnect before the hold ends,
 * and the verdict would depend on how long a loaded machine made it. */
static bool hold_tick(void *arg)
{
    hold_ctx *hc = arg;
    dump *d = hc->d;
    if (d->hb_period_ns == 0 || !d->f || cdch_now_ns() - d->last_sent_ns < d->hb_period_ns)
        return true;
    return send_heartbeat(d, hc->pos) == SEND_OK;
}

static bool hold_at(dump *d, srv_hold *h, uint64_t pos)
{
    hold_ctx hc = {d, pos};
    return srv_hold_at(d->srv, h, d->c, d->f ? d->f->name : "", pos, hold_tick, &hc);
}

/* Everything sent so far goes out, then the dump waits at hold h until the
 * harness releases it (server.h hold_cut, hold_before_*). */
static send_rc hold_here(dump *d, srv_hold *h, uint64_t pos)
{
    if (out_flush(d) != 0)
        return SEND_FAIL;
    if (!hold_at(d, h, pos)) {
        d->gone = true;
        return SEND_STOP;
    }
    return SEND_OK;
}

static send_rc send_event(dump *d, uint8_t *ev, size_t len, bool counted)
{
    if (srv_stopping(d->srv)) {
        d->gone = true;
        return SEND_STOP;
    }
    bool close_after = false;
    size_t cut = 0; /* event bytes to send before closing (0 = all) */
    if (counted) {
        d->nevents++;
        if (d->faults) {
            const cdch_server_faults *fl = d->faults;
            if (faults_apply(d, fl->stall_at)) {
                stall(d);
                d->gone = true;
                return SEND_STOP;
            }
            if (faults_apply(d, fl->unknown_event_at)) {
                uint32_t end = cdch_le32(ev + 13);
                send_rc rc = send_unknown_event(d, end >= len ? end - (uint32_t)len : 0);
                if (rc != SEND_OK)
                    return rc;
            }
            if (faults_apply(d, fl->corrupt_checksum_at) && len >= CDCH_HEADER_LEN + CDCH_CHECKSUM_LEN)
                ev[len - CDCH_CHECKSUM_LEN] ^= 0x01;
            if (faults_apply(d, fl->truncate_event_at)) {
                cut = len / 2;
                close_after = true;
            }
            if (fl->drop_after_bytes) {
                if (d->nbytes >= fl->drop_after_bytes) {
                    d->gone = true;
                    return SEND_STOP;
                }
                uint64_t room = fl->drop_after_bytes - d->nbytes;
                if (len > room) {
                    if (!cut || room < cut)
                        cut = (size_t)room;
                    close_after = true;
                } else if (len == room) {
                    close_after = true;
                }
            }
            if (fl->drop_after_events && d->nevents >= fl->drop_after_events)
                close_after = true;
        }
    }
    size_t pre = d->semi_sync ? 3 : 1;
    uint8_t *p = ev - pre;
    p[0] = 0x00;
    if (d->semi_sync) {
        p[1] = 0xEF;
        p[2] = 0x00; /* no ACK requested */
    }
    uint32_t end_pos = len >= 17 ? cdch_le32(ev + 13) : 0;
    /* the end marker (every dump, until the harness releases it): the harness says when it follows */
    const cdch_server_faults *fl = &d->srv->opts.faults;
    if (counted && fl->hold_before_file && end_pos >= len && end_pos - len == fl->hold_before_pos && d->f &&
        strcmp(d->f->name, fl->hold_before_file) == 0) {
        send_rc rc = hold_here(d, &d->srv->mark_hold, fl->hold_before_pos);
        if (rc != SEND_OK)
            return rc;
    }
    if (cut && d->faults && d->faults->hold_cut) {
        /* the harness decides when: everything before this event is out, the cut waits */
        send_rc rc = hold_here(d, &d->srv->cut_hold, end_pos >= len ? end_pos - len : 0);
        if (rc != SEND_OK)
            return rc;
    }
    if (cut) {
        if (send_partial(d, p, len + pre, pre + cut) != 0) {
            d->write_failed = true;
            return SEND_FAIL;
        }
        /* the last complete event ended where this one starts */
        srv_note_cut(d->srv, d->f ? d->f->name : "", end_pos >= len ? end_pos - len : 0);
        d->gone = true;
        return SEND_STOP;
    }
    if (out_packet(d, p, len + pre) != 0)
        return SEND_FAIL;
    srv_stat_add(d->srv, SRV_STAT_EVENTS_SENT, 1);
    d->last_sent_ns = cdch_now_ns();
    if (counted)
        d->nbytes += len;
    if (close_after) {
        if (out_flush(d) == 0 && d->faults && d->faults->hold_cut &&
            !hold_at(d, &d->srv->cut_hold, end_pos)) {
            d->gone = true;
            return SEND_STOP;
        }
        srv_note_cut(d->srv, d->f ? d->f->name : "", end_pos);
        d->gone = true;
        return SEND_STOP;
    }
    return SEND_OK;
}

/* Encode a synthesized event into d->scratch (after PKT_PREFIX bytes) and send it. */
static send_rc send_synth(dump *d, const cdch_event *ev, bool checksum, bool counted)
{
    cdch_buf *b = &d->scratch;
    cdch_buf_reset(b);
    cdch_put_zero(b, PKT_PREFIX);
    cdch_encode_opts o = {checksum, false, 3, false};
    cdch_err err;
    if (cdch_encode_event(ev, &o, true, b, &err) != 0) {
        snprintf(d->errmsg, sizeof d->errmsg, "%s", err.msg);
        d->err_code = ER_UNKNOWN_ERROR;
        d->has_error = true;
        return SEND_STOP;
    }
    return send_event(d, b->data + PKT_PREFIX, b->len - PKT_PREFIX, counted);
}

/* Binlog_sender::fake_rotate_event */
static send_rc fake_rotate(dump *d, uint64_t pos)
{
    cdch_event ev;
    memset(&ev, 0, sizeof ev);
    ev.h.type = CDCH_EV_ROTATE;
    ev.h.server_id = srv_catalog_server_id(d->cat);
    ev.h.flags = CDCH_LOG_EVENT_ARTIFICIAL_F;
    ev.u.rotate.position = pos;
    ev.u.rotate.next_file.ptr = (const uint8_t *)d->f->name;
    ev.u.rotate.next_file.len = strlen(d->f->name);
    return send_synth(d, &ev, event_checksum_on(d), true);
}

/* send_heartbeat_event_v1 / _v2 */
static send_rc send_heartbeat(dump *d, uint64_t pos)
{
    cdch_event ev;
    memset(&ev, 0, sizeof ev);
    ev.h.type = (d->flags & USE_HEARTBEAT_EVENT_V2) ? CDCH_EV_HEARTBEAT_V2 : CDCH_EV_HEARTBEAT;
    ev.h.server_id = srv_catalog_server_id(d->cat);
    ev.h.log_pos = (uint32_t)pos;
    ev.u.heartbeat.log_file.ptr = (const uint8_t *)d->f->name;
    ev.u.heartbeat.log_file.len = strlen(d->f->name);
    ev.u.heartbeat.position = pos;
    send_rc rc = send_synth(d, &ev, event_checksum_on(d), false);
    if (rc == SEND_OK && out_flush(d) != 0)
        return SEND_FAIL;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* GTID sets                                                                 */

static const cdch_gtid_sid *find_sid(const cdch_gtid_set *s, const uint8_t uuid[16], const char *tag)
{
    for (size_t i = 0; i < s->n_sids; i++)
        if (memcmp(s->sids[i].uuid, uuid, 16) == 0 && strcmp(s->sids[i].tag, tag) == 0)
            return &s->sids[i];
    return NULL;
}

/* [s, e) inside one interval of sid b? */
static bool sid_covers(const cdch_gtid_sid *b, int64_t s, int64_t e)
{
    for (size_t i = 0; b && i < b->n_intervals; i++)
        if (b->intervals[i].start <= s && e <= b->intervals[i].end)
            return true;
    return false;
}

static bool sid_subset(const cdch_gtid_sid *a, const cdch_gtid_sid *b)
{
    for (size_t i = 0; i < a->n_intervals; i++)
        if (!sid_covers(b, a->intervals[i].start, a->intervals[i].end))
            return false;
    return true;
}

static bool set_subset(const cdch_gtid_set *a, const cdch_gtid_set *b)
{
    for (size_t i = 0; i < a->n_sids; i++)
        if (a->sids[i].n_intervals && !sid_subset(&a->sids[i], find_sid(b, a->sids[i].uuid, a->sids[i].tag)))
            return false;
    return true;
}

/* Gtid_set::is_subset_for_sid: a's GTIDs of `uuid` (any tag) are in b. */
static bool set_subset_for_uuid(const cdch_gtid_set *a, const cdch_gtid_set *b, const uint8_t uuid[16])
{
    for (size_t i = 0; i < a->n_sids; i++)
        if (memcmp(a->sids[i].uuid, uuid, 16) == 0 && a->sids[i].n_intervals &&
            !sid_subset(&a->sids[i], find_sid(b, uuid, a->sids[i].tag)))
            return false;
    return true;
}

/* text of a - b as MySQL prints sets (",\n" between UUIDs) */
static void set_minus_text(const cdch_gtid_set *a, const cdch_gtid_set *b, cdch_buf *out)
{
    cdch_arena ar = CDCH_ARENA_INIT;
    cdch_gtid_set r;
    srv_gtid_subtract(a, b, &ar, &r);
    srv_gtid_text(&r, out);
    cdch_arena_free(&ar);
}

/* ------------------------------------------------------------------------ */
/* Binlog_sender                                                             */

/* check_start_file: choose the file, check the position. */
static int check_start_file(dump *d)
{
    const srv_catalog *cat = d->cat;
    ssize_t idx = 0;
    if (d->start_file[0]) {
        idx = srv_catalog_index_of(cat, d->start_file);
    } else if (d->gtid_protocol) {
        if (!set_subset_for_uuid(&d->exclude, srv_catalog_gtid_executed_set(cat),
                                 srv_catalog_server_uuid_bytes(cat))) {
            set_fatal(d, "%s", k_msg_more_gtids);
            return -1;
        }
        const cdch_gtid_set *lost = srv_catalog_gtid_purged_set(cat);
        if (!set_subset(lost, &d->exclude)) {
            /* MYSQL_BIN_LOG::report_missing_purged_gtids */
            cdch_buf sent = CDCH_BUF_INIT, missing = CDCH_BUF_INIT, info = CDCH_BUF_INIT;
            srv_gtid_text(&d->exclude, &sent);
            set_minus_text(lost, &d->exclude, &missing);
            cdch_buf_printf(&info, "The GTID set sent by the replica is '%s', and the missing transactions are '%s'",
                            cdch_buf_cstr(&sent), cdch_buf_cstr(&missing));
            if (strlen(k_msg_purged) - 2 + info.len > MYSQL_ERRMSG_SIZE) {
                cdch_buf_reset(&info);
                cdch_put_str(&info, "The GTID sets and the missing purged transactions are too long to print in "
                                    "this message. For more information, please see the source's error log or the "
                                    "manual for GTID_SUBTRACT");
            }
            set_fatal(d, k_msg_purged, cdch_buf_cstr(&info));
            cdch_buf_free(&sent);
            cdch_buf_free(&missing);
            cdch_buf_free(&info);
            return -1;
        }
        /* find_first_log_not_in_gtid_set: newest file whose PREVIOUS_GTIDS the replica has */
        idx = -1;
        for (size_t i = srv_catalog_nfiles(cat); i-- > 0;) {
            const srv_binlog_file *f = srv_catalog_file(cat, i);
            if (f->has_prev_gtids && set_subset(&f->prev_gtids, &d->exclude)) {
                idx = (ssize_t)i;
                break;
            }
        }
        if (idx < 0) {
            /* report_missing_gtids: what the replica lacks of the oldest file's PREVIOUS_GTIDS */
            const srv_binlog_file *first = srv_catalog_file(cat, 0);
            cdch_buf sent = CDCH_BUF_INIT, missing = CDCH_BUF_INIT, info = CDCH_BUF_INIT;
            srv_gtid_text(&d->exclude, &sent);
            set_minus_text(&first->prev_gtids, &d->exclude, &missing);
            cdch_buf_printf(&info, "The GTID set sent by the replica is '%s', and the missing transactions are '%s'",
                            cdch_buf_cstr(&sent), cdch_buf_cstr(&missing));
            set_fatal(d, k_msg_purged, cdch_buf_cstr(&info));
            cdch_buf_free(&sent);
            cdch_buf_free(&missing);
            cdch_buf_free(&info);
            return -1;
        }
        d->check_prev_gtid_event = false;
        const srv_binlog_file *f = srv_catalog_file(cat, (size_t)idx);
        d->gtid_clear_fd_created = f->has_first_gtid && f->first_gtid.gno >= 1 &&
                                   cdch_gtid_set_contains(&d->exclude, f->first_gtid.sid, f->first_gtid.tag,
                                                          f->first_gtid.gno);
    }
    if (idx < 0) {
        set_fatal(d, "Could not find first log file name in binary log index file");
        return -1;
    }
    d->fi = (size_t)idx;
    d->f = srv_catalog_file(cat, d->fi);
    if (d->start_pos < BIN_LOG_HEADER_SIZE) {
        set_fatal(d, "Client requested source to start replication from position < 4");
        return -1;
    }
    if (d->start_pos > d->f->size) {
        set_fatal(d, "Client requested source to start replication from position > file size");
        return -1;
    }
    return 0;
}

/* init_checksum_alg */
static void init_checksum_alg(dump *d)
{
    const srv_uservar *v = uservar_alt(d->c, "source_binlog_checksum", "master_binlog_checksum");
    d->replica_alg_set = v && !v->is_null;
    if (!d->replica_alg_set)
        d->replica_alg = CDCH_CHECKSUM_UNDEF;
    else if (strcasecmp(v->value, "CRC32") == 0)
        d->replica_alg = CDCH_CHECKSUM_CRC32;
    else if (strcasecmp(v->value, "NONE") == 0)
        d->replica_alg = CDCH_CHECKSUM_OFF;
    else
        d->replica_alg = 254; /* find_type failed: neither UNDEF nor a checksum */
    d->event_alg = d->replica_alg;
}

static int open_file(dump *d)
{
    ifile_close(&d->in);
    d->in.fd = open(d->f->path, O_RDONLY | O_CLOEXEC);
    if (d->in.fd < 0) {
        set_fatal(d, "Could not open log file");
        return -1;
    }
    d->in.length = d->f->size;
    ifile_seek(&d->in, 0);
    /* Binlog_ifile::open checks the magic */
    ssize_t h = ifile_need(&d->in, BIN_LOG_HEADER_SIZE);
    if (h < BIN_LOG_HEADER_SIZE || memcmp(d->in.raw + PKT_PREFIX, CDCH_BINLOG_MAGIC, 4) != 0) {
        set_fatal(d, "Binlog has bad magic number;  It's not a binary log file that can be used by this version of "
                     "MySQL");
        return -1;
    }
    d->in.start = BIN_LOG_HEADER_SIZE;
    d->open = true;
    return 0;
}

/* read_event: an event, NULL at the end of the file, or an error (-1). */
static int read_event(dump *d, uint8_t **ev, uint32_t *len)
{
    rd_status s = ifile_read_event(&d->in, ev, len);
    if (s == RD_EOF) {
        *ev = NULL;
        *len = 0;
        return 0;
    }
    if (s != RD_OK) {
        set_fatal(d, "%s", rd_message(s));
        return -1;
    }
    d->last_file = d->f->index_name;
    d->last_pos = ifile_pos(&d->in);
    return 0;
}

static int send_format_description_event(dump *d, uint64_t start_pos)
{
    uint8_t *ev = NULL;
    uint32_t len = 0;
    if (read_event(d, &ev, &len) != 0)
        return -1;
    if (!ev || ev[4] != CDCH_EV_FORMAT_DESCRIPTION) {
        set_fatal(d, "Could not find format_description_event in binlog file");
        return -1;
    }
    /* Log_event_footer::get_checksum_alg */
    d->event_alg = CDCH_CHECKSUM_UNDEF;
    if (len >= CDCH_HEADER_LEN + 57 + 5) {
        char ver[51];
        memcpy(ver, ev + CDCH_HEADER_LEN + 2, 50);
        ver[50] = '\0';
        if (cdch_version_product(ver) >= 50601)
            d->event_alg = ev[len - 5];
    }
    if (d->replica_alg == CDCH_CHECKSUM_UNDEF && event_checksum_on(d)) {
        set_fatal(d, "%s", k_msg_checksum);
        return -1;
    }
    ev[17] &= (uint8_t)~CDCH_LOG_EVENT_BINLOG_IN_USE_F;
    bool updated = false;
    if (d->gtid_protocol) {
        if (d->gtid_clear_fd_created) {
            memset(ev + CDCH_HEADER_LEN + 2 + 50, 0, 4);
            updated = true;
        }
    } else if (start_pos > BIN_LOG_HEADER_SIZE) {
        memset(ev + 13, 0, 4);
        memset(ev + CDCH_HEADER_LEN + 2 + 50, 0, 4);
        updated = true;
    }
    if (event_checksum_on(d) && updated) {
        cdch_buf view = {ev, len, len}; /* the event in the read window: patched in place, never grown or freed */
        cdch_buf_patch_le(&view, len - CDCH_CHECKSUM_LEN, cdch_crc32(0, ev, len - CDCH_CHECKSUM_LEN), 4);
    }
    send_rc rc = send_event(d, ev, len, true);
    return rc == SEND_OK ? 0 : -1;
}

/* skip_event */
static bool skip_event(dump *d, const uint8_t *ev, uint32_t len, bool in_exclude_group)
{
    uint8_t type = ev[4];
    if (type == CDCH_EV_GTID || type == CDCH_EV_GTID_TAGGED) {
        size_t crc = event_checksum_on(d) ? CDCH_CHECKSUM_LEN : 0;
        if (len < CDCH_HEADER_LEN + crc + 25)
            return false;
        cdch_cursor c = cdch_cur(ev + CDCH_HEADER_LEN, len - CDCH_HEADER_LEN - crc);
        cdch_gtid_ev g;
        memset(&g, 0, sizeof g);
        if (type == CDCH_EV_GTID_TAGGED) {
            cdch_err e;
            if (cdch_gtid_tagged_decode(&c, &g, &e) != 0)
                return false;
        } else {
            cdch_skip(&c, 1);
            const uint8_t *sid = cdch_get_bytes(&c, 16);
            g.gno = (int64_t)cdch_get_le64(&c);
            if (!sid)
                return false;
            memcpy(g.sid, sid, 16);
        }
        return cdch_gtid_set_contains(&d->exclude, g.sid, g.tag, g.gno);
    }
    if (type == CDCH_EV_ROTATE)
        return false;
    return in_exclude_group;
}

/* check_event_type (the part a generated stream can reach) */
static int check_event_type(dump *d, uint8_t type, uint64_t log_pos)
{
    if (type == CDCH_EV_ANONYMOUS_GTID && d->gtid_protocol) {
        set_fatal(d, "Cannot replicate anonymous transaction when AUTO_POSITION = 1, at file %.512s, position %lld.",
                  d->f->index_name, (long long)log_pos);
        return -1;
    }
    if (type == CDCH_EV_ANONYMOUS_GTID && srv_catalog_gtid_mode(d->cat)) {
        set_fatal(d, "Cannot replicate anonymous transaction when @@GLOBAL.GTID_MODE = ON, at file %.512s, position "
                     "%lld.",
                  d->f->index_name, (long long)log_pos);
        return -1;
    }
    if ((type == CDCH_EV_GTID || type == CDCH_EV_GTID_TAGGED) && !srv_catalog_gtid_mode(d->cat)) {
        set_fatal(d, "Cannot replicate GTID-transaction when @@GLOBAL.GTID_MODE = OFF, at file %.512s, position %lld.",
                  d->f->index_name, (long long)log_pos);
        return -1;
    }
    return 0;
}

/* send_events: end_pos 0 = a cold file, read to its end. Returns 0, or 1 to stop. */
static int send_events(dump *d, uint64_t end_pos)
{
    uint64_t log_pos = ifile_pos(&d->in);
    uint64_t exclude_group_end_pos = 0;
    bool in_exclude_group = false;
    while (log_pos < end_pos || end_pos == 0) {
        if (srv_stopping(d->srv)) {
            d->gone = true;
            return 1;
        }
        uint8_t *ev;
        uint32_t len;
        if (read_event(d, &ev, &len) != 0)
            return 1;
        if (!ev) {
            if (end_pos == 0)
                return 0;
            set_fatal(d, "%s", rd_message(RD_IO));
            return 1;
        }
        if (check_event_type(d, ev[4], log_pos) != 0)
            return 1;
        log_pos = ifile_pos(&d->in);
        if (d->gtid_protocol && (in_exclude_group = skip_event(d, ev, len, in_exclude_group))) {
            if (d->hb_period_ns > 0 && cdch_now_ns() - d->last_sent_ns >= d->hb_period_ns) {
                if (send_heartbeat(d, log_pos) != SEND_OK)
                    return 1;
                exclude_group_end_pos = 0;
            } else {
                exclude_group_end_pos = log_pos;
            }
        } else {
            if (exclude_group_end_pos) {
                /* the heartbeat goes through d->scratch: the event stays in the window */
                if (send_heartbeat(d, exclude_group_end_pos) != SEND_OK)
                    return 1;
                exclude_group_end_pos = 0;
            }
            if (send_event(d, ev, len, true) != SEND_OK)
                return 1;
        }
    }
    if (in_exclude_group && send_heartbeat(d, log_pos) != SEND_OK)
        return 1;
    return 0;
}

/* wait_new_events at the end of the active file: heartbeats every period
 * until the client goes away or the server stops (a generated stream never
 * grows). Always returns 1 (stop). */
static int wait_new_events(dump *d, uint64_t log_pos)
{
    if (out_flush(d) != 0) /* flush_net() before waiting */
        return 1;
    uint64_t deadline = d->hb_period_ns ? cdch_now_ns() + d->hb_period_ns : UINT64_MAX;
    for (;;) {
        if (srv_stopping(d->srv)) {
            d->gone = true;
            return 1;
        }
        uint64_t now = cdch_now_ns();
        if (now >= deadline) {
            if (send_heartbeat(d, log_pos) != SEND_OK)
                return 1;
            deadline = cdch_now_ns() + d->hb_period_ns;
            continue;
        }
        uint64_t ms = (deadline - now + 999999) / 1000000;
        if (ms > 200)
            ms = 200;
        int w = conn_wait(d->c, (uint32_t)ms);
        if (w == 1) {
            d->gone = true;
            return 1;
        }
        if (w == 2) { /* bytes from the client (ignored, as MySQL does): sleep instead */
            struct timespec ts = {0, (long)ms * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
}

/* send_binlog: 0 = the file is done (go to the next), 1 = stop. */
static int send_binlog(dump *d, uint64_t start_pos)
{
    if (send_format_description_event(d, start_pos) != 0)
        return 1;
    if (start_pos == BIN_LOG_HEADER_SIZE)
        start_pos = ifile_pos(&d->in);
    if (d->check_prev_gtid_event) {
        uint8_t *ev;
        uint32_t len;
        if (read_event(d, &ev, &len) != 0)
            return 1;
        if (!ev || ev[4] != CDCH_EV_PREVIOUS_GTIDS)
            return 0;
    }
    if (ifile_pos(&d->in) != start_pos)
        ifile_seek(&d->in, start_pos);
    bool active = d->fi + 1 == srv_catalog_nfiles(d->cat);
    for (;;) {
        if (!active)
            return send_events(d, 0) ? 1 : 0;
        uint64_t read_pos = ifile_pos(&d->in);
        if (read_pos >= d->f->size) {
            if (d->wait_new_events)
                return wait_new_events(d, read_pos);
            return 1; /* non-blocking: the end */
        }
        if (send_events(d, d->f->size) != 0)
            return 1;
    }
}

static void run(dump *d)
{
    /* init */
    d->hb_period_ns = (uint64_t)uservar_int(uservar_alt(d->c, "source_heartbeat_period", "master_heartbeat_period"));
    if ((int64_t)d->hb_period_ns < 0)
        d->hb_period_ns = 0;
    d->last_sent_ns = cdch_now_ns();
    const srv_uservar *ss = uservar_alt(d->c, "rpl_semi_sync_replica", "rpl_semi_sync_slave");
    d->semi_sync = uservar_int(ss) != 0;
    if (srv_catalog_server_id(d->cat) == 0) {
        set_fatal(d, "Misconfigured source - source server_id is 0");
        return;
    }
    if (d->gtid_protocol && !srv_catalog_gtid_mode(d->cat)) {
        set_fatal(d, "The replication sender thread cannot start in AUTO_POSITION mode: this server has GTID_MODE = "
                     "OFF instead of ON.");
        return;
    }
    if (check_start_file(d) != 0)
        return;
    init_checksum_alg(d);
    d->wait_new_events = !(d->replica_id == 0 || (d->flags & BINLOG_DUMP_NON_BLOCK));

    uint64_t start_pos = d->start_pos;
    while (!d->has_error && !d->gone) {
        if (fake_rotate(d, start_pos) != SEND_OK)
            break;
        if (open_file(d) != 0)
            break;
        if (send_binlog(d, start_pos) != 0)
            break;
        snprintf(d->last_file_buf, sizeof d->last_file_buf, "%s", d->f->index_name);
        d->last_file = d->last_file_buf;
        if (d->fi + 1 >= srv_catalog_nfiles(d->cat)) {
            set_fatal(d, "could not find next log");
            break;
        }
        d->fi++;
        d->f = srv_catalog_file(d->cat, d->fi);
        start_pos = BIN_LOG_HEADER_SIZE;
        ifile_close(&d->in);
        d->open = false;
    }
    if (d->open && d->has_error && d->err_code == ER_SOURCE_FATAL_ERROR_READING_BINLOG) {
        char text[4096];
        snprintf(text, sizeof text,
                 "%s; the first event '%s' at %lld, the last event read from '%s' at %lld, the last byte read from "
                 "'%s' at %lld.",
                 d->errmsg, d->start_file, (long long)d->start_pos, d->last_file ? d->last_file : "(null)",
                 (long long)d->last_pos, d->f->index_name,
                 (long long)(d->in.err_pos ? d->in.err_pos : ifile_pos(&d->in)));
        snprintf(d->errmsg, sizeof d->errmsg, "%s", text);
    }
}

/* Run a parsed dump request to its end; the session ends after it. */
static int dump_finish(dump *d)
{
    __atomic_store_n(&d->c->dumping, true, __ATOMIC_RELAXED); /* read by other connections (KILL, PROCESSLIST) */
    run(d);
    int rc = 1;
    if (!d->gone && out_flush(d) != 0)
        rc = -1;
    if (!d->gone) {
        if (d->has_error) {
            /* my_message: the text is cut to MYSQL_ERRMSG_SIZE - 1 bytes */
            d->errmsg[MYSQL_ERRMSG_SIZE - 1] = '\0';
            if (conn_err(d->c, d->err_code, "HY000", "%s", d->errmsg) != 0)
                rc = -1;
        } else {
            uint16_t st = d->c->status ? d->c->status : SERVER_STATUS_AUTOCOMMIT;
            if (conn_eof(d->c, st) != 0)
                rc = -1;
        }
    }
    __atomic_store_n(&d->c->dumping, false, __ATOMIC_RELAXED);
    if (d->write_failed)
        rc = -1;
    ifile_close(&d->in);
    free(d->in.raw);
    cdch_buf_free(&d->scratch);
    cdch_buf_free(&d->out);
    cdch_arena_free(&d->arena);
    return rc;
}

static void dump_init(dump *d, srv_conn *c)
{
    memset(d, 0, sizeof *d);
    d->c = c;
    d->srv = c->srv;
    d->cat = c->srv->cat;
    d->in.fd = -1;
    d->check_prev_gtid_event = false;
    const cdch_server_faults *fl = &c->srv->opts.faults;
    bool any = fl->drop_after_events || fl->drop_after_bytes || fl->corrupt_checksum_at || fl->truncate_event_at ||
               fl->unknown_event_at || fl->stall_at;
    if (any && (!fl->once || c->dump_no == 1))
        d->faults = fl;
}

int srv_binlog_dump(srv_conn *c, const uint8_t *p, size_t n)
{
    /* com_binlog_dump: pos u32, flags u16, server_id u32, file name (to the end, or a NUL) */
    if (n < 10)
        return conn_err(c, ER_MALFORMED_PACKET, "HY000", "Malformed communication packet.") != 0 ? -1 : 1;
    dump d;
    dump_init(&d, c);
    cdch_cursor cur = cdch_cur(p, n);
    d.start_pos = cdch_get_le32(&cur);
    d.flags = cdch_get_le16(&cur);
    d.replica_id = cdch_get_le32(&cur);
    size_t nl = cdch_cur_left(&cur);
    const uint8_t *z = memchr(cur.p, 0, nl);
    if (z)
        nl = (size_t)(z - cur.p);
    if (nl > FN_REFLEN)
        nl = FN_REFLEN;
    memcpy(d.start_file, cur.p, nl);
    d.start_file[nl] = '\0';
    return dump_finish(&d);
}

int srv_binlog_dump_gtid(srv_conn *c, const uint8_t *p, size_t n)
{
    /* com_binlog_dump_gtid: flags u16, server_id u32, name_size u32, name,
     * pos u64, data_size u32, GTID set (Gtid_set::add_gtid_encoding) */
    cdch_cursor cur = cdch_cur(p, n);
    uint16_t flags = cdch_get_le16(&cur);
    uint32_t sid = cdch_get_le32(&cur);
    uint32_t name_size = cdch_get_le32(&cur);
    if (!cdch_cur_ok(&cur) || name_size >= FN_REFLEN + 1)
        return conn_err(c, ER_MALFORMED_PACKET, "HY000", "Malformed communication packet.") != 0 ? -1 : 1;
    const uint8_t *name = cdch_get_bytes(&cur, name_size);
    uint64_t pos = cdch_get_le64(&cur);
    uint32_t data_size = cdch_get_le32(&cur);
    if (!cdch_cur_ok(&cur) || cdch_cur_left(&cur) < data_size)
        return conn_err(c, ER_MALFORMED_PACKET, "HY000", "Malformed communication packet.") != 0 ? -1 : 1;
    dump d;
    dump_init(&d, c);
    d.gtid_protocol = true;
    d.check_prev_gtid_event = true; /* m_check_previous_gtid_event: cleared when the file is chosen by GTIDs */
    d.flags = flags;
    d.replica_id = sid;
    d.start_pos = pos;
    if (name_size)
        memcpy(d.start_file, name, name_size);
    d.start_file[name_size] = '\0';
    cdch_cursor gs = cdch_cur(cur.p, data_size);
    cdch_err err;
    if (cdch_gtid_set_decode(&gs, &d.arena, &d.exclude, &err) != 0 || cdch_cur_left(&gs) != 0) {
        cdch_arena_free(&d.arena);
        return conn_err(c, ER_MALFORMED_GTID_SET_ENCODING, "HY000", "Malformed GTID set encoding.") != 0 ? -1 : 1;
    }
    return dump_finish(&d);
}

/* register_replica: server_id u32, host/user/password (lenenc length +
 * bytes), port u16, 4 ignored bytes (rpl_recovery_rank), master_id u32. */
int srv_register_slave(srv_conn *c, const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    static const size_t sizes[3] = {255 + 1, 96 + 1, 32 + 1}; /* HOSTNAME_LENGTH, USERNAME_LENGTH, MAX_PASSWORD_LENGTH */
    static const char *const too_long[3] = {"Failed to register replica: too long 'report-host'",
                                            "Failed to register replica: too long 'report-user'",
                                            "Failed to register replica; too long 'report-password'"};
    if (n < 4)
        return conn_err(c, ER_MALFORMED_PACKET, "HY000", "Malformed communication packet.");
    p += 4;
    for (int i = 0; i < 3; i++) {
        if (p >= end)
            return conn_err(c, ER_MALFORMED_PACKET, "HY000", "Malformed communication packet.");
        cdch_cursor cur = cdch_cur(p, (size_t)(end - p));
        uint64_t len;
        uint8_t b = p[0];
        if (b == 0xFB) { /* NULL_LENGTH: never fits */
            len = UINT32_MAX;
            cdch_skip(&cur, 1);
        } else {
            len = cdch_get_lenenc(&cur, NULL);
        }
        p = cur.p;
        if (!cdch_cur_ok(&cur) || len > (uint64_t)(end - p) || len >= sizes[i])
            return conn_err(c, ER_UNKNOWN_ERROR, "HY000", "%s", too_long[i]);
        p += len;
    }
    if (end - p < 10)
        return conn_err(c, ER_UNKNOWN_ERROR, "HY000", "Wrong parameters when registering replica");
    return conn_ok(c, 0, 0, c->status ? c->status : SERVER_STATUS_AUTOCOMMIT, 0);
}
