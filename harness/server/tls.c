/* tls.c — TLS and RSA for the fake primary (OpenSSL).
 *
 * Owns: the server's SSL_CTX, the RSA key pair caching_sha2_password uses
 * for the public-key password exchange (and its PEM), and each
 * connection's SSL object once a client sent an SSLRequest.
 *
 * Without --tls-cert/--tls-key a 2048-bit RSA key and a self-signed X.509
 * certificate (CN "cdcharness_Auto_Generated_Server_Certificate", valid
 * for 10 years) are generated at start, like MySQL's auto-generated
 * certificates. The RSA key doubles as the caching_sha2_password key pair;
 * when the given key is not RSA a separate RSA key is generated for that.
 * The generated key is made once per process and shared by every server in
 * it (a run starts a fake primary per cell: 2048-bit key generation costs
 * 0.1-0.3 s of CPU each time); each server signs its own certificate.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "server_internal.h"
#include "sys.h"
#include "xalloc.h"

static int ssl_fail(cdch_err *err, const char *what)
{
    char buf[256] = "";
    unsigned long e = ERR_get_error();
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return cdch_err_set(err, "TLS setup: %s%s%s", what, buf[0] ? ": " : "", buf);
}

static EVP_PKEY *g_key; /* the process's generated RSA key (never freed: servers share it) */
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

static void gen_key(void) { g_key = EVP_RSA_gen(2048); }

/* A new reference to the process's generated RSA key, or NULL. */
static EVP_PKEY *shared_key(void)
{
    pthread_once(&g_key_once, gen_key);
    if (g_key && EVP_PKEY_up_ref(g_key) != 1)
        return NULL;
    return g_key;
}

static X509 *self_signed(EVP_PKEY *key, const char *version)
{
    X509 *x = X509_new();
    if (!x)
        return NULL;
    X509_set_version(x, 2);
    uint8_t serial[8];
    RAND_bytes(serial, sizeof serial);
    uint64_t sn = 0;
    for (int i = 0; i < 8; i++)
        sn = sn << 8 | serial[i];
    ASN1_INTEGER_set_uint64(X509_get_serialNumber(x), sn >> 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 10L * 365 * 24 * 3600);
    X509_set_pubkey(x, key);
    X509_NAME *name = X509_get_subject_name(x);
    char cn[128];
    snprintf(cn, sizeof cn, "MySQL_Server_%s_Auto_Generated_Server_Certificate", version);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, name);
    if (X509_sign(x, key, EVP_sha256()) == 0) {
        X509_free(x);
        return NULL;
    }
    return x;
}

int srv_tls_init(struct cdch_server *srv, cdch_err *err)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return ssl_fail(err, "cannot create an SSL context");
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
    EVP_PKEY *key = NULL;
    if (srv->opts.tls_cert || srv->opts.tls_key) {
        if (!srv->opts.tls_cert || !srv->opts.tls_key) {
            SSL_CTX_free(ctx);
            return cdch_err_set(err, "TLS setup: give both --tls-cert and --tls-key (or neither for a generated "
                                     "self-signed certificate)");
        }
        if (SSL_CTX_use_certificate_chain_file(ctx, srv->opts.tls_cert) != 1) {
            SSL_CTX_free(ctx);
            char what[600];
            snprintf(what, sizeof what, "cannot load certificate %s (PEM expected)", srv->opts.tls_cert);
            return ssl_fail(err, what);
        }
        if (SSL_CTX_use_PrivateKey_file(ctx, srv->opts.tls_key, SSL_FILETYPE_PEM) != 1 ||
            SSL_CTX_check_private_key(ctx) != 1) {
            SSL_CTX_free(ctx);
            char what[600];
            snprintf(what, sizeof what, "cannot load private key %s or it does not match %s", srv->opts.tls_key,
                     srv->opts.tls_cert);
            return ssl_fail(err, what);
        }
        EVP_PKEY *k = SSL_CTX_get0_privatekey(ctx);
        if (k && EVP_PKEY_is_a(k, "RSA")) {
            EVP_PKEY_up_ref(k);
            key = k;
        }
    }
    if (!key) {
        key = shared_key();
        if (!key) {
            SSL_CTX_free(ctx);
            return ssl_fail(err, "cannot generate an RSA key");
        }
    }
    if (!srv->opts.tls_cert) {
        X509 *x = self_signed(key, srv->version);
        if (!x || SSL_CTX_use_certificate(ctx, x) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1) {
            X509_free(x);
            EVP_PKEY_free(key);
            SSL_CTX_free(ctx);
            return ssl_fail(err, "cannot build the self-signed certificate");
        }
        X509_free(x);
    }
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio || PEM_write_bio_PUBKEY(bio, key) != 1) {
        BIO_free(bio);
        EVP_PKEY_free(key);
        SSL_CTX_free(ctx);
        return ssl_fail(err, "cannot write the RSA public key");
    }
    char *pem = NULL;
    long n = BIO_get_mem_data(bio, &pem);
    srv->rsa_pub_pem = cdch_xcalloc((size_t)n + 1, 1);
    memcpy(srv->rsa_pub_pem, pem, (size_t)n);
    srv->rsa_pub_pem[n] = 0;
    BIO_free(bio);
    srv->ssl_ctx = ctx;
    srv->rsa_key = key;
    return 0;
}

void srv_tls_free(struct cdch_server *srv)
{
    SSL_CTX_free((SSL_CTX *)srv->ssl_ctx);
    EVP_PKEY_free((EVP_PKEY *)srv->rsa_key);
    free(srv->rsa_pub_pem);
    srv->ssl_ctx = NULL;
    srv->rsa_key = NULL;
    srv->rsa_pub_pem = NULL;
}

/* SSL_accept, bounded by connect_timeout as a whole (MySQL's TLS handshake runs under the same
 * connect_timeout as the rest of the login): the socket is non-blocking while it runs, so a client
 * that sends an SSLRequest and then nothing, or stops halfway through the handshake, is dropped
 * instead of holding its thread and descriptor for ever (found by scripts/soak-server.sh). */
int srv_tls_accept(srv_conn *c, cdch_err *err)
{
    SSL *ssl = SSL_new((SSL_CTX *)c->srv->ssl_ctx);
    if (!ssl)
        return ssl_fail(err, "SSL_new failed");
    SSL_set_fd(ssl, c->fd);
    int fl = fcntl(c->fd, F_GETFL);
    if (fl < 0 || fcntl(c->fd, F_SETFL, fl | O_NONBLOCK) != 0) {
        SSL_free(ssl);
        return cdch_err_set(err, "connection %u from %s: cannot make the socket non-blocking for the TLS handshake: %s",
                            c->id, c->peer, strerror(errno));
    }
    int timeout_s = conn_connect_timeout_s(c);
    uint64_t deadline = cdch_now_ns() + (uint64_t)timeout_s * 1000000000u;
    bool timed_out = false;
    int r;
    while ((r = SSL_accept(ssl)) != 1) {
        int e = SSL_get_error(ssl, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
            break;
        uint64_t now = cdch_now_ns();
        struct pollfd pfd = {c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, 0};
        int pr = now >= deadline ? 0 : poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000));
        if (pr == 0) {
            timed_out = true;
            break;
        }
        if (pr < 0 && errno != EINTR)
            break;
    }
    fcntl(c->fd, F_SETFL, fl); /* the session's reads and writes block (conn.c times them with poll) */
    if (r != 1) {
        char buf[256] = "";
        unsigned long e = ERR_get_error();
        if (e)
            ERR_error_string_n(e, buf, sizeof buf);
        ERR_clear_error();
        SSL_free(ssl);
        if (timed_out)
            return cdch_err_set(err, "connection %u from %s: TLS handshake not finished within connect_timeout (%d s); "
                                "closed", c->id, c->peer, timeout_s);
        return cdch_err_set(err, "connection %u from %s: TLS handshake failed%s%s", c->id, c->peer,
                            buf[0] ? ": " : "", buf);
    }
    c->ssl = ssl;
    return 0;
}

void srv_tls_close(srv_conn *c)
{
    if (!c->ssl)
        return;
    SSL_shutdown((SSL *)c->ssl);
    SSL_free((SSL *)c->ssl);
    ERR_clear_error();
    c->ssl = NULL;
}

const char *srv_tls_cipher(const srv_conn *c) { return c->ssl ? SSL_get_cipher((const SSL *)c->ssl) : ""; }
const char *srv_tls_version(const srv_conn *c) { return c->ssl ? SSL_get_version((const SSL *)c->ssl) : ""; }

int srv_rsa_decrypt(struct cdch_server *srv, const uint8_t *in, size_t n, uint8_t *out, size_t *outlen)
{
    static const int paddings[] = {RSA_PKCS1_OAEP_PADDING, RSA_PKCS1_PADDING};
    for (size_t i = 0; i < sizeof paddings / sizeof paddings[0]; i++) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new((EVP_PKEY *)srv->rsa_key, NULL);
        if (!ctx)
            return -1;
        size_t len = *outlen;
        int ok = EVP_PKEY_decrypt_init(ctx) == 1 && EVP_PKEY_CTX_set_rsa_padding(ctx, paddings[i]) == 1 &&
                 EVP_PKEY_decrypt(ctx, out, &len, in, n) == 1;
        EVP_PKEY_CTX_free(ctx);
        ERR_clear_error();
        if (ok) {
            *outlen = len;
            return 0;
        }
    }
    return -1;
}
