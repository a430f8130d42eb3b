/* conn.c — packet I/O for one client connection of the fake primary.
 *
 * Owns: the wire side of a srv_conn: MySQL packet framing (3-byte length +
 * sequence id; payloads of 16 MiB - 1 or more split into 0xFFFFFF chunks
 * with a final shorter, possibly empty one, and joined again on reading),
 * optional TLS (the SSL object is set up by tls.c), link shaping of what the
 * server sends, OK/ERR/EOF builders and the connection's user variables.
 *
 * Link shaping (opts.link_rate_bps, opts.link_delay_ms) applies to every
 * byte the server writes:
 *  - rate: a token bucket of about 50 ms worth of bytes; writes are cut in
 *    chunks no larger than the bucket and each waits for its tokens;
 *  - delay: the first write after a client request (or after the link was
 *    idle for longer than the delay) is held back by link_delay_ms; writes
 *    that follow back to back are not delayed again, so a binlog dump is
 *    shifted by the delay as a whole instead of paying it per event.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "cursor.h"
#include "server_internal.h"
#include "sys.h"
#include "xalloc.h"

#define MAX_CHUNK 0xFFFFFFu

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- raw byte I/O (TLS or plain) ---------------------------------------------------- */

static int raw_send(srv_conn *c, const uint8_t *p, size_t n)
{
    size_t total = n;
    while (n > 0) {
        if (c->ssl) {
            int chunk = n > (1u << 30) ? (1 << 30) : (int)n;
            int r = SSL_write((SSL *)c->ssl, p, chunk);
            if (r <= 0)
                return -1;
            p += r;
            n -= (size_t)r;
        } else {
            ssize_t r = send(c->fd, p, n, MSG_NOSIGNAL);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return -1;
            p += r;
            n -= (size_t)r;
        }
    }
    c->bytes_sent += total;
    if (c->dumping)
        srv_stat_add(c->srv, SRV_STAT_BYTES_SENT, total);
    return 0;
}

/* @@connect_timeout: how long the server waits for each packet of the
 * handshake (the vio timeout before login); MySQL's default is 10 s. */
int conn_connect_timeout_s(const srv_conn *c)
{
    return c->srv->opts.connect_timeout_s ? (int)c->srv->opts.connect_timeout_s : 10;
}

/* @@net_read_timeout of the session (SET net_read_timeout = N), else MySQL's default 30 s;
 * during the handshake, connect_timeout. */
static int read_timeout_ms(const srv_conn *c)
{
    if (c->handshaking)
        return conn_connect_timeout_s(c) * 1000;
    size_t i = srv_var_index(c->sysvars, c->nsysvars, "net_read_timeout");
    long s = i < c->nsysvars && c->sysvars[i].value ? strtol(c->sysvars[i].value, NULL, 10) : 30;
    return (int)(s < 1 ? 1 : s > 31536000 ? 31536000 : s) * 1000;
}

/* Wait until fd is readable (or TLS holds bytes): 0, or -2 after net_read_timeout. */
static int wait_readable(srv_conn *c)
{
    if (c->ssl && SSL_pending((SSL *)c->ssl) > 0)
        return 0;
    struct pollfd pfd = {c->fd, POLLIN, 0};
    int r;
    while ((r = poll(&pfd, 1, read_timeout_ms(c))) < 0 && errno == EINTR) {
    }
    return r == 0 ? -2 : 0; /* poll errors and hang-ups surface in the read */
}

/* Read exactly n bytes. Returns 0, 1 on EOF before the first byte, -1 on
 * error, -2 when a byte took longer than net_read_timeout to come: only
 * waits inside a packet are timed (timed: this read continues one; and
 * always after its first byte), an idle connection waits for ever; during
 * the handshake every wait is timed (connect_timeout). */
static int raw_recv(srv_conn *c, uint8_t *p, size_t n, bool timed)
{
    size_t got = 0;
    while (got < n) {
        if ((timed || got > 0 || c->handshaking) && wait_readable(c) != 0)
            return -2;
        if (c->ssl) {
            size_t want = n - got;
            int r = SSL_read((SSL *)c->ssl, p + got, want > (1u << 30) ? (1 << 30) : (int)want);
            if (r <= 0) {
                int e = SSL_get_error((SSL *)c->ssl, r);
                if (e == SSL_ERROR_ZERO_RETURN && got == 0)
                    return 1;
                if (e == SSL_ERROR_SYSCALL && got == 0 && ERR_peek_error() == 0)
                    return 1; /* peer closed without close_notify */
                ERR_clear_error();
                return -1;
            }
            got += (size_t)r;
        } else {
            ssize_t r = recv(c->fd, p + got, n - got, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0)
                return got == 0 ? 1 : -1;
            if (r < 0)
                return -1;
            got += (size_t)r;
        }
    }
    return 0;
}

/* Send with link shaping. */
static int shaped_send(srv_conn *c, const uint8_t *p, size_t n)
{
    const cdch_server_opts *o = &c->srv->opts;
    if (!o->link_rate_bps && !o->link_delay_ms)
        return raw_send(c, p, n);
    if (o->link_delay_ms) {
        uint64_t d = (uint64_t)o->link_delay_ms * 1000000u;
        uint64_t now = cdch_now_ns();
        if (c->last_write_ns && now > c->last_write_ns) {
            uint64_t idle = now - c->last_write_ns;
            c->lag_ns = c->lag_ns > idle ? c->lag_ns - idle : 0;
        }
        if (c->lag_ns < d) {
            sleep_ns(d - c->lag_ns);
            c->lag_ns = d;
        }
    }
    if (!o->link_rate_bps) {
        int r = raw_send(c, p, n);
        c->last_write_ns = cdch_now_ns();
        return r;
    }
    double bps = (double)o->link_rate_bps / 8.0; /* bytes per second */
    double cap = bps / 20.0;                      /* 50 ms of traffic */
    if (cap < 512)
        cap = 512;
    while (n > 0) {
        size_t chunk = n < (size_t)cap ? n : (size_t)cap;
        uint64_t now = cdch_now_ns();
        if (c->last_ns == 0) {
            c->tokens = cap;
        } else if (now > c->last_ns) {
            c->tokens += (double)(now - c->last_ns) / 1e9 * bps;
            if (c->tokens > cap)
                c->tokens = cap;
        }
        c->last_ns = now;
        if (c->tokens < (double)chunk) {
            double wait_s = ((double)chunk - c->tokens) / bps;
            sleep_ns((uint64_t)(wait_s * 1e9));
            c->last_ns = cdch_now_ns();
            c->tokens = (double)chunk;
        }
        c->tokens -= (double)chunk;
        if (raw_send(c, p, chunk) != 0)
            return -1;
        p += chunk;
        n -= chunk;
        if (srv_stopping(c->srv))
            return -1;
    }
    c->last_write_ns = cdch_now_ns();
    return 0;
}

int conn_send_raw(srv_conn *c, const uint8_t *p, size_t n) { return shaped_send(c, p, n); }

/* ---- packets ------------------------------------------------------------------------ */

/* What MySQL's my_net_read does with a packet it cannot take: an ERR
 * answering it (the sequence id after the offending one), then the
 * connection ends (the caller sees -1). */
static int refuse_packet(srv_conn *c, uint8_t got_seq, uint16_t code, const char *msg, cdch_err *err,
                         const char *why)
{
    c->seq = (uint8_t)(got_seq + 1);
    conn_err(c, code, "08S01", "%s", msg);
    fprintf(stderr, "cdcharness serve: connection %u from %s: %s; answered with ERR %u and closed\n", c->id, c->peer,
            why, code);
    return cdch_err_set(err, "connection %u: %s", c->id, why);
}

/* MySQL's ER_NET_READ_INTERRUPTED when a packet stalls longer than net_read_timeout, then the end. */
static int read_timed_out(srv_conn *c, cdch_err *err)
{
    if (c->handshaking) { /* MySQL: ER_HANDSHAKE_ERROR, "Aborted connection ... reading authorization packet" */
        conn_err(c, 1043, "08S01", "Bad handshake");
        fprintf(stderr, "cdcharness serve: connection %u from %s: no handshake packet within connect_timeout (%d s); "
                "answered with ERR 1043 and closed\n", c->id, c->peer, conn_connect_timeout_s(c));
        return cdch_err_set(err, "connection %u: timeout reading the handshake", c->id);
    }
    c->seq = 0;
    conn_err(c, 1159, "08S01", "Got timeout reading communication packets");
    fprintf(stderr, "cdcharness serve: connection %u from %s: a packet stalled longer than net_read_timeout (%d s); "
            "answered with ERR 1159 and closed\n", c->id, c->peer, read_timeout_ms(c) / 1000);
    return cdch_err_set(err, "connection %u: timeout reading a packet", c->id);
}

int conn_read(srv_conn *c, cdch_buf *payload, cdch_err *err)
{
    cdch_buf_reset(payload);
    for (bool more = false;; more = true) {
        uint8_t h[4];
        int r = raw_recv(c, h, 4, more);
        if (r == 1 && payload->len == 0)
            return 1;
        if (r == -2)
            return read_timed_out(c, err);
        if (r != 0)
            return cdch_err_set(err, "connection %u: read error or connection closed mid-packet", c->id);
        size_t len = cdch_le24(h);
        if (h[3] != c->seq) {
            char why[96];
            snprintf(why, sizeof why, "packet with sequence id %u where %u was due", h[3], c->seq);
            return refuse_packet(c, h[3], 1156, "Got packets out of order", err, why);
        }
        c->seq = (uint8_t)(h[3] + 1);
        if (payload->len + len > SRV_MAX_ALLOWED_PACKET) /* checked on the header: the body is not read */
            return refuse_packet(c, h[3], 1153, "Got a packet bigger than 'max_allowed_packet' bytes", err,
                                 "packet larger than max_allowed_packet (64 MiB)");
        uint8_t *dst = cdch_buf_extend(payload, len);
        if (len && (r = raw_recv(c, dst, len, true)) != 0)
            return r == -2 ? read_timed_out(c, err)
                           : cdch_err_set(err, "connection %u: connection closed mid-packet", c->id);
        if (len < MAX_CHUNK)
            break;
    }
    c->lag_ns = 0; /* a request: the next response pays the link delay again */
    return 0;
}

int conn_write(srv_conn *c, const uint8_t *p, size_t n)
{
    for (;;) {
        size_t chunk = n < MAX_CHUNK ? n : MAX_CHUNK;
        cdch_buf_reset(&c->wbuf);
        cdch_put_le24(&c->wbuf, (uint32_t)chunk);
        cdch_put_u8(&c->wbuf, c->seq++);
        if (chunk <= 65536) { /* header and payload in one write */
            if (chunk)
                cdch_put_bytes(&c->wbuf, p, chunk);
            if (shaped_send(c, c->wbuf.data, c->wbuf.len) != 0)
                return -1;
        } else {
            if (shaped_send(c, c->wbuf.data, 4) != 0 || shaped_send(c, p, chunk) != 0)
                return -1;
        }
        p += chunk;
        n -= chunk;
        if (chunk < MAX_CHUNK)
            return 0;
    }
}

int conn_ok(srv_conn *c, uint64_t affected, uint64_t insert_id, uint16_t status, uint16_t warnings)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_u8(&b, 0x00);
    cdch_put_lenenc(&b, affected);
    cdch_put_lenenc(&b, insert_id);
    cdch_put_le16(&b, status);
    cdch_put_le16(&b, warnings);
    int r = conn_write(c, b.data, b.len);
    cdch_buf_free(&b);
    return r;
}

int conn_err(srv_conn *c, uint16_t code, const char *sqlstate, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_u8(&b, 0xFF);
    cdch_put_le16(&b, code);
    cdch_put_u8(&b, '#');
    cdch_put_bytes(&b, sqlstate && strlen(sqlstate) == 5 ? sqlstate : "HY000", 5);
    cdch_put_str(&b, msg);
    int r = conn_write(c, b.data, b.len);
    cdch_buf_free(&b);
    return r;
}

int conn_eof(srv_conn *c, uint16_t status)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_u8(&b, 0xFE);
    if (c->caps & CLIENT_DEPRECATE_EOF) {
        cdch_put_lenenc(&b, 0); /* affected rows */
        cdch_put_lenenc(&b, 0); /* last insert id */
        cdch_put_le16(&b, status);
        cdch_put_le16(&b, 0); /* warnings */
    } else {
        cdch_put_le16(&b, 0); /* warnings */
        cdch_put_le16(&b, status);
    }
    int r = conn_write(c, b.data, b.len);
    cdch_buf_free(&b);
    return r;
}

int conn_wait(srv_conn *c, uint32_t ms)
{
    uint64_t end = cdch_now_ns() + (uint64_t)ms * 1000000u;
    for (;;) {
        if (srv_stopping(c->srv))
            return 1;
        if (c->ssl && SSL_pending((SSL *)c->ssl) > 0)
            return 2;
        uint64_t now = cdch_now_ns();
        if (now >= end)
            return 0;
        uint64_t left_ms = (end - now + 999999u) / 1000000u;
        struct pollfd pfd = {c->fd, POLLIN, 0};
        int r = poll(&pfd, 1, (int)(left_ms > 100 ? 100 : left_ms));
        if (r < 0 && errno != EINTR)
            return 1;
        if (r > 0) {
            if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
                return 1;
            uint8_t b;
            ssize_t k = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
            if (k == 0)
                return 1;
            if (k > 0)
                return 2;
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return 1;
        }
    }
}

/* ---- names and user variables ------------------------------------------------------ */

size_t srv_utf8_chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

size_t srv_utf8_prefix(const char *s, size_t n, size_t max)
{
    size_t k = 0, i = 0;
    for (; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && k++ == max)
            break;
    }
    return i;
}

static void lower_copy(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++)
        dst[i] = (char)((src[i] >= 'A' && src[i] <= 'Z') ? src[i] + 32 : src[i]);
    dst[i] = 0;
}

size_t srv_var_index(const srv_uservar *vars, size_t n, const char *name)
{
    size_t i = 0;
    while (i < n && strcasecmp(vars[i].name, name) != 0)
        i++;
    return i;
}

void srv_var_set_value(srv_uservar *v, const char *value)
{
    char *old = v->value;
    v->value = cdch_xstrdup(value ? value : "");
    free(old);
}

void srv_var_clear(srv_uservar *vars, size_t *n)
{
    for (size_t i = 0; i < *n; i++) {
        free(vars[i].value);
        vars[i].value = NULL;
    }
    *n = 0;
}

/* The lower-cased key of a user variable; names longer than MySQL allows
 * never get here (the lexer answers ER_ILLEGAL_USER_VAR), and the key
 * buffer holds SRV_NAME_CHARS characters of any UTF-8 width. */
const srv_uservar *conn_uservar_entry(const srv_conn *c, const char *name)
{
    char key[sizeof c->vars[0].name];
    lower_copy(key, sizeof key, name);
    size_t i = srv_var_index(c->vars, c->nvars, key);
    return i < c->nvars ? &c->vars[i] : NULL;
}

const char *conn_uservar(const srv_conn *c, const char *name)
{
    const srv_uservar *v = conn_uservar_entry(c, name);
    return v && !v->is_null ? v->value : NULL;
}

void conn_set_uservar(srv_conn *c, const char *name, const char *value, bool is_null)
{
    char key[sizeof c->vars[0].name];
    lower_copy(key, sizeof key, name);
    size_t i = srv_var_index(c->vars, c->nvars, key);
    srv_uservar *v = i < c->nvars ? &c->vars[i] : NULL;
    if (!v) {
        size_t cap = sizeof c->vars / sizeof c->vars[0];
        if (c->nvars == cap) {
            fprintf(stderr, "cdcharness serve: connection %u: more than %zu user variables, @%s replaces @%s\n",
                    c->id, cap, key, c->vars[cap - 1].name);
            v = &c->vars[cap - 1];
        } else {
            v = &c->vars[c->nvars++];
        }
        snprintf(v->name, sizeof v->name, "%s", key);
    }
    v->is_null = is_null || !value;
    srv_var_set_value(v, value);
}
