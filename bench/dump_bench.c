/* dump_bench.c — serving-throughput client for bench/serve_bench.sh.
 *
 *   dump_bench dump HOST PORT [USER PASSWORD]
 *       connect (mysql_native_password, or caching_sha2_password's fast
 *       path), SET @source_binlog_checksum, COM_REGISTER_SLAVE, then a
 *       non-blocking COM_BINLOG_DUMP from the first file; read and discard
 *       every packet up to the EOF. Prints events, bytes, seconds, MB/s and
 *       events/s of the dump (from the command to the EOF).
 *   dump_bench rawcopy FILE...
 *       the ceiling: a sender thread writes the files' bytes into a loopback
 *       TCP socket, the receiver reads and discards them. Same figures.
 *
 * MB = 10^6 bytes. Bytes counted = binlog bytes on the wire (packet
 * payloads, the 4-byte packet headers excluded).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFSZ (4u << 20)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
    fprintf(stderr, "dump_bench: %s: %s\n", what, errno ? strerror(errno) : "protocol error");
    exit(1);
}

/* ---- buffered socket reader ---- */
typedef struct rd {
    int fd;
    uint8_t *buf;
    size_t start, end;
} rd;

static size_t rd_fill(rd *r, size_t need)
{
    if (r->end - r->start >= need)
        return need;
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
    while (r->end < need) {
        ssize_t n = read(r->fd, r->buf + r->end, BUFSZ - r->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return r->end;
        r->end += (size_t)n;
    }
    return need;
}

/* Read one packet; small packets (<= 64 KiB) are returned in *out (valid
 * until the next call), big ones are skipped (*out = NULL). Returns the
 * payload length, or -1 at EOF. */
static long rd_packet(rd *r, const uint8_t **out, uint8_t *first_byte)
{
    if (rd_fill(r, 4) < 4)
        return -1;
    uint8_t *h = r->buf + r->start;
    size_t n = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16;
    r->start += 4;
    if (n <= 65536) {
        if (rd_fill(r, n) < n)
            return -1;
        *out = r->buf + r->start;
        *first_byte = n ? r->buf[r->start] : 0;
        r->start += n;
        return (long)n;
    }
    *out = NULL;
    size_t left = n;
    bool first = true;
    while (left) {
        size_t have = rd_fill(r, 1);
        if (have == 0)
            return -1;
        size_t take = r->end - r->start < left ? r->end - r->start : left;
        if (first) {
            *first_byte = r->buf[r->start];
            first = false;
        }
        r->start += take;
        left -= take;
    }
    return (long)n;
}

static void wr(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("write");
        p += w;
        n -= (size_t)w;
    }
}

static void send_packet(int fd, uint8_t seq, const uint8_t *p, size_t n)
{
    uint8_t h[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), seq};
    wr(fd, h, 4);
    wr(fd, p, n);
}

static void digest(const char *alg, const void *a, size_t an, const void *b, size_t bn, uint8_t *out)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    EVP_DigestInit_ex(c, EVP_get_digestbyname(alg), NULL);
    EVP_DigestUpdate(c, a, an);
    if (b)
        EVP_DigestUpdate(c, b, bn);
    unsigned len;
    EVP_DigestFinal_ex(c, out, &len);
    EVP_MD_CTX_free(c);
}

/* mysql_native_password: SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw))) */
static size_t scramble(const char *plugin, const uint8_t *nonce, const char *pw, uint8_t *out)
{
    if (!pw[0])
        return 0;
    uint8_t h1[32], h2[32], h3[32];
    if (strcmp(plugin, "caching_sha2_password") == 0) {
        /* SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce) */
        digest("SHA256", pw, strlen(pw), NULL, 0, h1);
        digest("SHA256", h1, 32, NULL, 0, h2);
        digest("SHA256", h2, 32, nonce, 20, h3);
        for (int i = 0; i < 32; i++)
            out[i] = h1[i] ^ h3[i];
        return 32;
    }
    digest("SHA1", pw, strlen(pw), NULL, 0, h1);
    digest("SHA1", h1, 20, NULL, 0, h2);
    digest("SHA1", nonce, 20, h2, 20, h3);
    for (int i = 0; i < 20; i++)
        out[i] = h1[i] ^ h3[i];
    return 20;
}

static int tcp_connect(const char *host, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, host, &a.sin_addr);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void expect_ok(rd *r, const char *what)
{
    const uint8_t *p;
    uint8_t b;
    long n = rd_packet(r, &p, &b);
    if (n < 1 || b != 0x00) {
        fprintf(stderr, "dump_bench: %s: %s\n", what, n > 9 && p ? (const char *)p + 9 : "no OK");
        exit(1);
    }
}

static void query(int fd, rd *r, const char *sql)
{
    size_t n = strlen(sql);
    uint8_t *p = malloc(n + 1);
    p[0] = 0x03;
    memcpy(p + 1, sql, n);
    send_packet(fd, 0, p, n + 1);
    free(p);
    expect_ok(r, sql);
}

static int cmd_dump(const char *host, int port, const char *user, const char *pw)
{
    int fd = tcp_connect(host, port);
    rd r = {fd, malloc(BUFSZ), 0, 0};
    const uint8_t *p;
    uint8_t b;
    long n = rd_packet(&r, &p, &b);
    if (n < 40 || b != 10)
        die("handshake");
    /* HandshakeV10: version NUL, id 4, nonce1 8, 0, caps 2, cs 1, status 2, caps 2, len 1, 10 zero, nonce2, plugin */
    const uint8_t *q = p + 1 + strlen((const char *)p + 1) + 1 + 4;
    uint8_t nonce[20];
    memcpy(nonce, q, 8);
    q += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10;
    memcpy(nonce + 8, q, 12);
    q += 13;
    char plugin[64];
    snprintf(plugin, sizeof plugin, "%s", (const char *)q);
    uint8_t resp[512];
    size_t k = 0;
    uint32_t caps = 0x00000200 | 0x00008000 | 0x00080000 | 0x00000001 | 0x00002000; /* 41, secure, plugin auth */
    memcpy(resp, &caps, 4);
    k = 4;
    uint32_t maxp = 1u << 30;
    memcpy(resp + k, &maxp, 4);
    k += 4;
    resp[k++] = 255;
    memset(resp + k, 0, 23);
    k += 23;
    k += (size_t)snprintf((char *)resp + k, 64, "%s", user) + 1;
    uint8_t sc[32];
    size_t sl = scramble(plugin, nonce, pw, sc);
    resp[k++] = (uint8_t)sl;
    memcpy(resp + k, sc, sl);
    k += sl;
    k += (size_t)snprintf((char *)resp + k, 64, "%s", plugin) + 1;
    send_packet(fd, 1, resp, k);
    uint8_t seq = 3;
    for (;;) {
        n = rd_packet(&r, &p, &b);
        if (n < 1)
            die("auth");
        if (b == 0x00)
            break;
        if (b == 0xFF) {
            fprintf(stderr, "dump_bench: auth: %.*s\n", (int)n - 9, (const char *)p + 9);
            return 1;
        }
        if (b == 0xFE) { /* AuthSwitchRequest */
            snprintf(plugin, sizeof plugin, "%s", (const char *)p + 1);
            memcpy(nonce, p + 2 + strlen(plugin), 20);
            sl = scramble(plugin, nonce, pw, sc);
            send_packet(fd, seq, sc, sl);
            seq += 2;
            continue;
        }
        if (b == 0x01 && n >= 2 && p[1] == 0x03) /* caching_sha2 fast auth OK: an OK follows */
            continue;
        fprintf(stderr, "dump_bench: auth needs TLS or RSA (serve with native auth)\n");
        return 1;
    }
    query(fd, &r, "SET @source_binlog_checksum = 'CRC32', @master_binlog_checksum = 'CRC32'");
    uint8_t reg[64] = {0x15, 0x39, 0x30, 0, 0, 0, 0, 0, 0xEA, 0x0C, 0, 0, 0, 0, 0, 0, 0, 0};
    send_packet(fd, 0, reg, 18);
    expect_ok(&r, "COM_REGISTER_SLAVE");
    uint8_t dump[11] = {0x12, 4, 0, 0, 0, 1, 0, 0x39, 0x30, 0, 0}; /* pos 4, non-block, server id 12345, first file */
    double t0 = now_s();
    send_packet(fd, 0, dump, sizeof dump);
    uint64_t events = 0, bytes = 0;
    for (;;) {
        n = rd_packet(&r, &p, &b);
        if (n < 0)
            die("stream ended without EOF");
        if (b == 0x00) {
            events++;
            bytes += (uint64_t)n - 1;
            /* a payload of exactly 0xFFFFFF continues in the next packet */
            while (n == 0xFFFFFF) {
                n = rd_packet(&r, &p, &b);
                if (n < 0)
                    die("stream ended inside an event");
                bytes += (uint64_t)n;
            }
            continue;
        }
        if (b == 0xFE && n < 9)
            break;
        fprintf(stderr, "dump_bench: server error: %.*s\n", (int)(n > 9 ? n - 9 : 0), p ? (const char *)p + 9 : "");
        return 1;
    }
    double dt = now_s() - t0;
    printf("events %llu bytes %llu seconds %.3f MB/s %.1f events/s %.0f\n", (unsigned long long)events,
           (unsigned long long)bytes, dt, (double)bytes / dt / 1e6, (double)events / dt);
    close(fd);
    free(r.buf);
    return 0;
}

typedef struct sender {
    int fd;
    char **files;
    int nfiles;
} sender;

static void *send_files(void *arg)
{
    sender *s = arg;
    uint8_t *buf = malloc(BUFSZ);
    for (int i = 0; i < s->nfiles; i++) {
        int f = open(s->files[i], O_RDONLY);
        if (f < 0)
            die(s->files[i]);
        ssize_t n;
        while ((n = read(f, buf, BUFSZ)) > 0)
            wr(s->fd, buf, (size_t)n);
        close(f);
    }
    close(s->fd);
    free(buf);
    return NULL;
}

static int cmd_rawcopy(int nfiles, char **files)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr *)&a, &al) != 0)
        die("listen");
    int cfd = tcp_connect("127.0.0.1", ntohs(a.sin_port));
    int sfd = accept(ls, NULL, NULL);
    sender s = {sfd, files, nfiles};
    pthread_t t;
    double t0 = now_s();
    pthread_create(&t, NULL, send_files, &s);
    uint8_t *buf = malloc(BUFSZ);
    uint64_t bytes = 0;
    ssize_t n;
    while ((n = read(cfd, buf, BUFSZ)) > 0)
        bytes += (uint64_t)n;
    double dt = now_s() - t0;
    pthread_join(t, NULL);
    printf("bytes %llu seconds %.3f MB/s %.1f\n", (unsigned long long)bytes, dt, (double)bytes / dt / 1e6);
    free(buf);
    close(cfd);
    close(ls);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "dump") == 0)
        return cmd_dump(argv[2], atoi(argv[3]), argc > 4 ? argv[4] : "cdch", argc > 5 ? argv[5] : "cdch");
    if (argc >= 3 && strcmp(argv[1], "rawcopy") == 0)
        return cmd_rawcopy(argc - 2, argv + 2);
    fprintf(stderr, "usage: dump_bench dump HOST PORT [USER PASSWORD] | dump_bench rawcopy FILE...\n");
    return 2;
}
