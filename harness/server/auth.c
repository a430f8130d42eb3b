/* auth.c — connection phase of the fake primary.
 *
 * Owns: the handshake of one connection: HandshakeV10 (laid out like MySQL
 * 8.0.33's, see shared/fixtures/mysql-binlog/boxercrab__handshake_v10_mysql-8.0.33.bin),
 * the optional SSLRequest + TLS handshake, HandshakeResponse41 parsing
 * (lenenc or 1-byte auth data, database, plugin name, connect attributes),
 * AuthSwitchRequest when the client answers with another plugin, and the
 * two password plugins:
 *
 *  mysql_native_password   SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw)))
 *  caching_sha2_password   fast path: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble),
 *                          accepted when the account is in the server's
 *                          cache and the 32 bytes match (0x01 0x03 then
 *                          OK); otherwise — not cached, or cached but the
 *                          scramble does not match — full authentication
 *                          (0x01 0x04), never a refusal: MySQL's
 *                          caching_sha2_password_authenticate
 *                          (sql/auth/sha2_password.cc: "We either failed to
 *                          authenticate or did not find entry in the cache.
 *                          In either case, move to full authentication").
 *                          go-mysql v1.8.0 scrambles with the greeting's 21
 *                          bytes (20 + the NUL) and logs in this way. A
 *                          non-empty answer that is not 32 bytes is refused
 *                          (MySQL: pkt_len != CACHING_SHA2_DIGEST_LENGTH ->
 *                          CR_ERROR). Full authentication: over TLS the client
 *                          sends the password in clear, without TLS it asks
 *                          for the RSA public key (0x02), gets it as PEM
 *                          (0x01 + PEM) and sends RSA-OAEP(password XOR
 *                          scramble). A successful full authentication puts
 *                          the account in the cache; FLUSH PRIVILEGES
 *                          empties it — exactly MySQL's behaviour, so the
 *                          first connection after start takes the full path.
 *
 * A wrong user or password gets ER_ACCESS_DENIED_ERROR (1045, 28000).
 *
 * mysql_native_password exists only where the server version loads it
 * (srv_native_password_loaded): asked for on a default 8.4 or any 9.x
 * server, the account is a caching_sha2_password one (server.c), and a
 * client that speaks only the old plugin fails as it does against MySQL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "cursor.h"
#include "event.h"
#include "server_internal.h"

#define SCRAMBLE_LEN 20

/* What the server announces: 8.0.33's 0xdfffffff without what this server
 * does not implement (compression, query attributes, session tracking,
 * optional metadata, multi-factor authentication) and without SSL when
 * there is no TLS context. */
static uint32_t server_caps(const struct cdch_server *srv)
{
    uint32_t caps = 0xdfffffffu;
    caps &= ~(uint32_t)(CLIENT_COMPRESS | CLIENT_ZSTD_COMPRESSION_ALGORITHM | CLIENT_QUERY_ATTRIBUTES |
                        CLIENT_SESSION_TRACK | CLIENT_OPTIONAL_RESULTSET_METADATA | (1u << 28));
    if (!srv->ssl_ctx)
        caps &= ~(uint32_t)CLIENT_SSL;
    return caps;
}

/* mysql_native_password by version: "Beginning with MySQL 8.4.0, the deprecated
 * mysql_native_password authentication plugin is no longer enabled by default. To enable it, start
 * the server with --mysql-native-password=ON" (MySQL 8.4 manual, section 1.4 "What Is New in MySQL
 * 8.4 since MySQL 8.0"); "The deprecated mysql_native_password authentication plugin has been
 * removed" (Changes in MySQL 9.0.0, https://dev.mysql.com/doc/relnotes/mysql/9.0/en/news-9-0-0.html).
 * The scenario loader sets server.native_password from the version (and refuses it ON on 9.x). */
bool srv_native_password_loaded(const struct cdch_server *srv)
{
    uint32_t v = cdch_version_product(srv->version);
    if (v >= 90000)
        return false;
    if (v < 80400)
        return true;
    return srv->s->server.native_password;
}

static const char *plugin_name(cdch_auth_plugin p)
{
    return p == CDCH_AUTH_NATIVE ? "mysql_native_password" : "caching_sha2_password";
}

static void digest(const EVP_MD *md, const void *a, size_t an, const void *b, size_t bn, uint8_t *out)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned len = 0;
    if (!ctx || EVP_DigestInit_ex(ctx, md, NULL) != 1 || EVP_DigestUpdate(ctx, a, an) != 1 ||
        (bn && EVP_DigestUpdate(ctx, b, bn) != 1) || EVP_DigestFinal_ex(ctx, out, &len) != 1) {
        fprintf(stderr, "cdcharness serve: OpenSSL digest failed\n");
        abort();
    }
    EVP_MD_CTX_free(ctx);
}

static bool check_native(const char *pw, const uint8_t *scramble, const uint8_t *data, size_t n)
{
    if (!pw[0])
        return n == 0;
    if (n != 20)
        return false;
    uint8_t s1[20], s2[20], s3[20];
    digest(EVP_sha1(), pw, strlen(pw), NULL, 0, s1);
    digest(EVP_sha1(), s1, 20, NULL, 0, s2);
    digest(EVP_sha1(), scramble, SCRAMBLE_LEN, s2, 20, s3);
    uint8_t diff = 0;
    for (int i = 0; i < 20; i++)
        diff |= (uint8_t)((s1[i] ^ s3[i]) ^ data[i]);
    return diff == 0;
}

static bool check_sha2_scramble(const char *pw, const uint8_t *scramble, const uint8_t *data, size_t n)
{
    if (n != 32)
        return false;
    uint8_t m1[32], m2[32], m3[32];
    digest(EVP_sha256(), pw, strlen(pw), NULL, 0, m1);
    digest(EVP_sha256(), m1, 32, NULL, 0, m2);
    digest(EVP_sha256(), m2, 32, scramble, SCRAMBLE_LEN, m3);
    uint8_t diff = 0;
    for (int i = 0; i < 32; i++)
        diff |= (uint8_t)((m1[i] ^ m3[i]) ^ data[i]);
    return diff == 0;
}

static bool check_clear(const char *pw, const uint8_t *data, size_t n)
{
    while (n > 0 && data[n - 1] == 0)
        n--;
    return n == strlen(pw) && memcmp(pw, data, n) == 0;
}

/* The user name as the server's log prints it: control bytes, DEL, bytes >= 0x80 and the backslash
 * as \xNN, so a client's garbage cannot split the log line or write terminal escapes (the ERR
 * packet keeps the name as sent, as MySQL's does). out holds 4 * strlen(user) + 1 bytes. */
static void log_user(char *out, const char *user)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)user; *p; p++)
        if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
            *out++ = '\\', *out++ = 'x', *out++ = hex[*p >> 4], *out++ = hex[*p & 15];
        } else {
            *out++ = (char)*p;
        }
    *out = 0;
}

static int deny(srv_conn *c, const char *user, bool used_password)
{
    char shown[4 * (4 * SRV_USER_CHARS) + 1];
    log_user(shown, user);
    fprintf(stderr, "cdcharness serve: connection %u from %s: access denied for user '%s'\n", c->id, c->peer, shown);
    conn_err(c, 1045, "28000", "Access denied for user '%s'@'%s' (using password: %s)", user, c->peer,
             used_password ? "YES" : "NO");
    return -1;
}

static int read_packet(srv_conn *c, cdch_buf *b)
{
    cdch_err err;
    int r = conn_read(c, b, &err);
    if (r < 0 && c->srv->opts.log_queries)
        fprintf(stderr, "cdcharness serve: %s\n", err.msg);
    return r == 0 ? 0 : -1;
}

/* caching_sha2_password after the client's scramble: fast path or full authentication. */
static int auth_sha2(srv_conn *c, const char *user, const uint8_t *scramble, const uint8_t *data, size_t n,
                     cdch_buf *pkt)
{
    struct cdch_server *srv = c->srv;
    const char *pw = srv->opts.password;
    if (n == 0 || (n == 1 && data[0] == 0))
        return pw[0] ? deny(c, user, false) : 0;
    if (n != 32) { /* MySQL: pkt_len != CACHING_SHA2_DIGEST_LENGTH -> CR_ERROR, before the cache */
        fprintf(stderr,
                "cdcharness serve: connection %u from %s: caching_sha2_password answer of %zu bytes, not a 32-byte "
                "scramble\n",
                c->id, c->peer, n);
        return deny(c, user, true);
    }
    /* MySQL never caches an account without a password (authenticate() returns before the cache) */
    pthread_mutex_lock(&srv->mu);
    bool cached = srv->sha2_cached && pw[0];
    pthread_mutex_unlock(&srv->mu);
    if (cached && check_sha2_scramble(pw, scramble, data, n)) {
        if (srv->opts.log_queries)
            fprintf(stderr, "cdcharness serve: connection %u: caching_sha2_password fast path\n", c->id);
        static const uint8_t fast_ok[] = {0x01, 0x03};
        return conn_write(c, fast_ok, 2);
    }
    /* Not cached, or cached and the scramble does not match (a wrong password, or a client that
     * scrambled with other bytes, e.g. go-mysql v1.8.0 with the greeting's trailing NUL): MySQL
     * asks for full authentication in both cases, the password decides there. */
    if (cached && srv->opts.log_queries)
        fprintf(stderr,
                "cdcharness serve: connection %u: caching_sha2_password fast path scramble does not match the "
                "cached account: full authentication\n",
                c->id);
    static const uint8_t full[] = {0x01, 0x04};
    if (conn_write(c, full, 2) != 0 || read_packet(c, pkt) != 0)
        return -1;
    bool ok;
    const char *how;
    if (c->ssl) {
        ok = check_clear(pw, pkt->data, pkt->len);
        how = "full authentication over TLS (clear password)";
    } else {
        how = "full authentication with the RSA key pair (client had the public key)";
        if (pkt->len == 1 && pkt->data[0] == 0x02) {
            how = "full authentication with the RSA key pair (public key requested)";
            cdch_buf more = CDCH_BUF_INIT;
            cdch_put_u8(&more, 0x01);
            cdch_put_str(&more, srv->rsa_pub_pem);
            int r = conn_write(c, more.data, more.len);
            cdch_buf_free(&more);
            if (r != 0 || read_packet(c, pkt) != 0)
                return -1;
        }
        uint8_t plain[1024];
        size_t plen = sizeof plain;
        if (pkt->len < 64 || srv_rsa_decrypt(srv, pkt->data, pkt->len, plain, &plen) != 0) {
            fprintf(stderr,
                    "cdcharness serve: connection %u from %s: caching_sha2_password full authentication without "
                    "TLS needs the RSA exchange; the client sent %zu bytes that are not an RSA-encrypted password\n",
                    c->id, c->peer, pkt->len);
            return deny(c, user, true);
        }
        for (size_t i = 0; i < plen; i++)
            plain[i] ^= scramble[i % SCRAMBLE_LEN];
        ok = check_clear(pw, plain, plen);
    }
    if (!ok)
        return deny(c, user, true);
    if (srv->opts.log_queries)
        fprintf(stderr, "cdcharness serve: connection %u: caching_sha2_password %s\n", c->id, how);
    pthread_mutex_lock(&srv->mu);
    srv->sha2_cached = true;
    pthread_mutex_unlock(&srv->mu);
    return 0;
}

/* 20 bytes, printable-ish, never NUL or '$' (like generate_user_salt). */
static void make_scramble(uint8_t scramble[SCRAMBLE_LEN])
{
    if (RAND_bytes(scramble, SCRAMBLE_LEN) != 1) {
        fprintf(stderr, "cdcharness serve: OpenSSL RAND_bytes failed (no entropy for the scramble)\n");
        abort();
    }
    for (size_t i = 0; i < SCRAMBLE_LEN; i++) {
        scramble[i] = (uint8_t)(scramble[i] & 0x7f);
        if (scramble[i] == 0 || scramble[i] == '$')
            scramble[i] = (uint8_t)(scramble[i] + 1);
    }
}

/* HandshakeV10, laid out like MySQL 8.0.33's; b is scratch. */
static int send_handshake(srv_conn *c, cdch_buf *b, const uint8_t *scramble, uint32_t scaps, const char *want)
{
    cdch_put_u8(b, 10);
    cdch_put_str(b, c->srv->version);
    cdch_put_u8(b, 0);
    cdch_put_le32(b, c->id);
    cdch_put_bytes(b, scramble, 8);
    cdch_put_u8(b, 0);
    cdch_put_le16(b, (uint16_t)scaps);
    cdch_put_u8(b, 255); /* utf8mb4_0900_ai_ci */
    cdch_put_le16(b, SERVER_STATUS_AUTOCOMMIT);
    cdch_put_le16(b, (uint16_t)(scaps >> 16));
    cdch_put_u8(b, SCRAMBLE_LEN + 1);
    cdch_put_zero(b, 10);
    cdch_put_bytes(b, scramble + 8, SCRAMBLE_LEN - 8);
    cdch_put_u8(b, 0);
    cdch_put_str(b, want);
    cdch_put_u8(b, 0);
    c->seq = 0;
    return conn_write(c, b->data, b->len);
}

/* An SSLRequest (the first 32 bytes of a response, with CLIENT_SSL) in
 * pkt: the TLS handshake, then the real response into pkt. */
static int accept_tls(srv_conn *c, cdch_buf *pkt)
{
    if (!(pkt->len >= 4 && pkt->len <= 32 && (cdch_le16(pkt->data) & CLIENT_SSL)))
        return 0;
    if (!c->srv->ssl_ctx)
        return conn_err(c, 1043, "08S01", "Bad handshake: TLS requested but this server has no TLS context"), -1;
    cdch_err err;
    if (srv_tls_accept(c, &err) != 0) {
        fprintf(stderr, "cdcharness serve: %s\n", err.msg);
        return -1;
    }
    return read_packet(c, pkt);
}

/* A HandshakeResponse41 as parse_response reads it. */
typedef struct hs_response {
    uint32_t caps;      /* the client's capabilities */
    char user[4 * SRV_USER_CHARS + 1]; /* clipped to SRV_USER_CHARS characters, as MySQL does */
    uint8_t auth[512];  /* auth data (cut to 512 bytes) */
    size_t alen;
    char db[4 * SRV_NAME_CHARS + 1]; /* "" = none; its first bytes when db_too_long */
    bool db_too_long;   /* more than SRV_NAME_CHARS characters: ER_TOO_LONG_IDENT after the password */
    char plugin[64];    /* the client's plugin, or what its capabilities imply */
    char attrs[512];    /* connect attributes as "k=v k=v" (for the log) */
} hs_response;

/* A NUL-terminated string at the cursor (the rest of the input when it
 * has no NUL): its bytes, its length in *n; the NUL is skipped. */
static const uint8_t *get_nulstr(cdch_cursor *cur, size_t *n)
{
    const uint8_t *p = cur->p;
    size_t k = 0;
    while (p + k < cur->end && p[k])
        k++;
    cdch_skip(cur, k < cdch_cur_left(cur) ? k + 1 : k);
    *n = k;
    return p;
}

/* A NUL-terminated string into dst[cap]: at most max_chars UTF-8
 * characters of it (0: no limit but cap). Returns its length in
 * characters before any clipping. */
static size_t copy_nulstr(cdch_cursor *cur, char *dst, size_t cap, size_t max_chars)
{
    size_t n;
    const char *p = (const char *)get_nulstr(cur, &n);
    size_t chars = srv_utf8_chars(p, n);
    size_t keep = max_chars ? srv_utf8_prefix(p, n, max_chars) : n;
    snprintf(dst, cap, "%.*s", (int)keep, p);
    return chars;
}

/* Connect attributes: lenenc total, then lenenc key / value pairs, all
 * inside the total. -1 when the lengths do not fit (MySQL's
 * read_client_connect_attrs fails the handshake: ER_HANDSHAKE_ERROR). */
static int read_attrs(cdch_cursor *cur, char *attrs, size_t cap)
{
    bool bad = false;
    uint64_t total = cdch_get_lenenc(cur, &bad);
    if (bad || total > cdch_cur_left(cur))
        return -1;
    cdch_cursor ac = cdch_get_sub(cur, (size_t)total);
    size_t used = 0;
    while (cdch_cur_ok(&ac) && cdch_cur_left(&ac) > 0) {
        uint64_t kl = cdch_get_lenenc(&ac, &bad);
        const uint8_t *k = bad ? NULL : cdch_get_bytes(&ac, (size_t)kl);
        uint64_t vl = bad ? 0 : cdch_get_lenenc(&ac, &bad);
        const uint8_t *v = bad ? NULL : cdch_get_bytes(&ac, (size_t)vl);
        if (bad || (kl && !k) || (vl && !v) || !cdch_cur_ok(&ac))
            return -1;
        if (used < cap - 1)
            used += (size_t)snprintf(attrs + used, cap - used, "%s%.*s=%.*s", used ? " " : "", (int)kl,
                                     (const char *)k, (int)vl, v ? (const char *)v : "");
        if (used >= cap)
            used = cap - 1;
    }
    return 0;
}

/* HandshakeResponse41: capabilities, charset, user, auth data (lenenc,
 * 1-byte length or NUL-terminated), database, plugin, attributes. Sets
 * c->charset and c->caps. -1 after an ERR for what cannot be parsed. */
static int parse_response(srv_conn *c, const cdch_buf *pkt, uint32_t scaps, hs_response *r)
{
    cdch_cursor cur = cdch_cur(pkt->data, pkt->len);
    r->caps = cdch_get_le32(&cur);
    if (!(r->caps & CLIENT_PROTOCOL_41))
        return conn_err(c, 1043, "08S01", "Bad handshake: client does not speak protocol 4.1 (HandshakeResponse320)"),
               -1;
    (void)cdch_get_le32(&cur); /* max packet */
    c->charset = cdch_get_u8(&cur);
    cdch_skip(&cur, 23);
    c->caps = r->caps & scaps;
    copy_nulstr(&cur, r->user, sizeof r->user, SRV_USER_CHARS);
    const uint8_t *adata = NULL;
    size_t alen = 0;
    if (r->caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
        bool bad = false;
        uint64_t len = cdch_get_lenenc(&cur, &bad);
        if (bad || len > cdch_cur_left(&cur)) /* a malformed length (0xFB, 0xFF) or past the packet */
            return conn_err(c, 1043, "08S01", "Bad handshake"), -1;
        alen = (size_t)len;
        adata = cdch_get_bytes(&cur, alen);
    } else if (r->caps & CLIENT_SECURE_CONNECTION) {
        alen = cdch_get_u8(&cur);
        adata = cdch_get_bytes(&cur, alen);
    } else {
        adata = get_nulstr(&cur, &alen);
    }
    if (!cdch_cur_ok(&cur) || (alen && !adata))
        return conn_err(c, 1043, "08S01", "Bad handshake: HandshakeResponse41 is truncated"), -1;
    r->alen = alen > sizeof r->auth ? sizeof r->auth : alen;
    if (r->alen)
        memcpy(r->auth, adata, r->alen);
    if ((r->caps & CLIENT_CONNECT_WITH_DB) && cdch_cur_left(&cur) > 0)
        r->db_too_long = copy_nulstr(&cur, r->db, sizeof r->db, 0) > SRV_NAME_CHARS;
    if ((r->caps & CLIENT_PLUGIN_AUTH) && cdch_cur_left(&cur) > 0)
        copy_nulstr(&cur, r->plugin, sizeof r->plugin, 0);
    if ((r->caps & CLIENT_CONNECT_ATTRS) && cdch_cur_left(&cur) > 0 &&
        read_attrs(&cur, r->attrs, sizeof r->attrs) != 0)
        return conn_err(c, 1043, "08S01", "Bad handshake"), -1;
    if (!r->plugin[0])
        snprintf(r->plugin, sizeof r->plugin, "%s",
                 (r->caps & CLIENT_SECURE_CONNECTION) ? "mysql_native_password" : "mysql_old_password");
    return 0;
}

/* AuthSwitchRequest to the server's plugin; the client's answer replaces r->auth. */
static int switch_plugin(srv_conn *c, hs_response *r, const uint8_t *scramble, const char *want, cdch_buf *b,
                         cdch_buf *pkt)
{
    if (!(r->caps & CLIENT_PLUGIN_AUTH))
        return conn_err(c, 1251, "08004",
                        "Client does not support authentication protocol requested by server; consider upgrading "
                        "MySQL client (account uses %s)",
                        want),
               -1;
    cdch_buf_reset(b);
    cdch_put_u8(b, 0xFE);
    cdch_put_str(b, want);
    cdch_put_u8(b, 0);
    cdch_put_bytes(b, scramble, SCRAMBLE_LEN);
    cdch_put_u8(b, 0);
    if (c->srv->opts.log_queries)
        fprintf(stderr, "cdcharness serve: connection %u: AuthSwitchRequest %s -> %s\n", c->id, r->plugin, want);
    if (conn_write(c, b->data, b->len) != 0 || read_packet(c, pkt) != 0)
        return -1;
    r->alen = pkt->len < sizeof r->auth ? pkt->len : sizeof r->auth;
    if (r->alen)
        memcpy(r->auth, pkt->data, r->alen);
    return 0;
}

/* The account, the plugin exchange and the password; then the database. */
static int authenticate(srv_conn *c, hs_response *r, const uint8_t *scramble, const char *want, cdch_buf *b,
                        cdch_buf *pkt)
{
    struct cdch_server *srv = c->srv;
    if (strcmp(r->user, srv->opts.user) != 0)
        return deny(c, r->user, r->alen > 0);
    if (strcmp(r->plugin, want) != 0 && switch_plugin(c, r, scramble, want, b, pkt) != 0)
        return -1;
    if (srv->opts.auth == CDCH_AUTH_NATIVE) {
        if (!check_native(srv->opts.password, scramble, r->auth, r->alen))
            return deny(c, r->user, r->alen > 0);
    } else if (auth_sha2(c, r->user, scramble, r->auth, r->alen, pkt) != 0) {
        return -1;
    }
    snprintf(c->user, sizeof c->user, "%s", r->user);
    if (r->db_too_long) /* MySQL's mysql_change_db after the authentication */
        return conn_err(c, 1059, "42000", SRV_ER_TOO_LONG_IDENT, 100, r->db), -1;
    if (r->db[0]) {
        if (!srv_db_exists(srv, r->db))
            return conn_err(c, 1049, "42000", "Unknown database '%s'", r->db), -1;
        snprintf(c->db, sizeof c->db, "%s", r->db);
    }
    return 0;
}

int srv_auth(srv_conn *c)
{
    struct cdch_server *srv = c->srv;
    uint8_t scramble[SCRAMBLE_LEN];
    make_scramble(scramble);
    uint32_t scaps = server_caps(srv);
    const char *want = plugin_name(srv->opts.auth);
    cdch_buf b = CDCH_BUF_INIT, pkt = CDCH_BUF_INIT;
    hs_response r;
    memset(&r, 0, sizeof r);
    int rc = -1;
    c->handshaking = true;
    if (send_handshake(c, &b, scramble, scaps, want) == 0 && read_packet(c, &pkt) == 0 && accept_tls(c, &pkt) == 0 &&
        parse_response(c, &pkt, scaps, &r) == 0) {
        if (srv->opts.log_queries)
            fprintf(stderr, "cdcharness serve: connection %u from %s: user '%s', plugin %s, %s%s%s%s\n", c->id,
                    c->peer, r.user, r.plugin, c->ssl ? "TLS " : "no TLS", c->ssl ? srv_tls_version(c) : "",
                    r.attrs[0] ? ", attributes: " : "", r.attrs);
        if (authenticate(c, &r, scramble, want, &b, &pkt) == 0) {
            c->status = SERVER_STATUS_AUTOCOMMIT;
            rc = conn_ok(c, 0, 0, c->status, 0);
        }
    }
    c->handshaking = false;
    cdch_buf_free(&b);
    cdch_buf_free(&pkt);
    return rc;
}
