#include "reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "sys.h"
#include "xalloc.h"

static const uint8_t k_magic[4] = {0xfe, 0x62, 0x69, 0x6e};

#define READER_MIN_CHUNK (64u * 1024u)

struct cdch_reader {
    char *name;
    /* file input */
    FILE *f;
    bool own_file;
    char *iobuf; /* f's stdio buffer (cdch_io_buffer) */
    uint8_t *buf;
    size_t cap;
    /* memory input */
    const uint8_t *mem;
    size_t mem_len;
    size_t mem_pos;
    /* common */
    uint64_t off;  /* file offset of the next event */
    int state;     /* 1 reading, 0 clean end, -1 failed */
    cdch_err last; /* repeated after a failure */
};

static cdch_reader *reader_new(const char *name)
{
    cdch_reader *r = cdch_xcalloc(1, sizeof *r);
    r->name = cdch_xstrdup(name);
    r->state = 1;
    cdch_err_clear(&r->last);
    return r;
}

void cdch_reader_free(cdch_reader *r)
{
    if (!r)
        return;
    if (r->f && r->own_file)
        fclose(r->f);
    free(r->iobuf);
    free(r->buf);
    free(r->name);
    free(r);
}

const char *cdch_reader_name(const cdch_reader *r) { return r->name; }
uint64_t cdch_reader_offset(const cdch_reader *r) { return r->off; }
size_t cdch_reader_buffer_size(const cdch_reader *r) { return r->cap; }

/* Read up to n bytes from the file into dst; returns bytes read (< n only
 * at end of file or on a read error, which sets *ioerr to errno). */
static size_t read_full(cdch_reader *r, uint8_t *dst, size_t n, int *ioerr)
{
    size_t got = 0;
    while (got < n) {
        size_t k = fread(dst + got, 1, n - got, r->f);
        got += k;
        if (k == 0) {
            if (ferror(r->f))
                *ioerr = errno ? errno : EIO;
            break;
        }
    }
    return got;
}

static int buf_grow(cdch_reader *r, size_t want)
{
    if (want <= r->cap)
        return 0;
    uint8_t *nb = realloc(r->buf, want);
    if (!nb)
        return -1;
    r->buf = nb;
    r->cap = want;
    return 0;
}

static void format_magic(const uint8_t *m, size_t n, char *out, size_t outsz)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && o + 4 < outsz; i++)
        o += (size_t)snprintf(out + o, outsz - o, i ? " %02x" : "%02x", m[i]);
}

static int check_magic(const char *name, const uint8_t *m, size_t n, cdch_err *err)
{
    char got[16];
    if (n == 0) {
        cdch_err_set(err, "%s is empty, not a binlog file (a binlog starts with the magic fe 62 69 6e)", name);
    } else if (n < 4) {
        format_magic(m, n, got, sizeof got);
        cdch_err_set(err, "%s is not a binlog file (only %zu bytes: %s; a binlog starts with fe 62 69 6e)", name,
                     n, got);
    } else if (memcmp(m, k_magic, 4) != 0) {
        format_magic(m, 4, got, sizeof got);
        cdch_err_set(err, "%s is not a binlog file (magic is %s, expected fe 62 69 6e)", name, got);
    } else {
        return 0;
    }
    if (err)
        err->offset = 0;
    return -1;
}

cdch_reader *cdch_reader_open(const char *path, unsigned flags, cdch_err *err)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        cdch_err_set(err, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    cdch_reader *r = reader_new(is_stdin ? "<stdin>" : path);
    r->f = f;
    r->own_file = !is_stdin;
    if (!is_stdin) /* events are read header, then body */
        cdch_io_buffer(f, &r->iobuf);
    if (!(flags & CDCH_READER_NO_MAGIC)) {
        uint8_t m[4];
        int ioerr = 0;
        size_t n = read_full(r, m, 4, &ioerr);
        if (ioerr) {
            cdch_err_set(err, "cannot read %s: %s", r->name, strerror(ioerr));
            cdch_reader_free(r);
            return NULL;
        }
        if (check_magic(r->name, m, n, err) < 0) {
            cdch_reader_free(r);
            return NULL;
        }
        r->off = 4;
    }
    return r;
}

cdch_reader *cdch_reader_from_memory(const uint8_t *data, size_t len, const char *name, unsigned flags,
                                     cdch_err *err)
{
    const char *nm = name ? name : "<memory>";
    if (!data)
        len = 0;
    if (!(flags & CDCH_READER_NO_MAGIC)) {
        if (check_magic(nm, data, len < 4 ? len : 4, err) < 0)
            return NULL;
    }
    cdch_reader *r = reader_new(nm);
    r->mem = data;
    r->mem_len = len;
    if (!(flags & CDCH_READER_NO_MAGIC)) {
        r->mem_pos = 4;
        r->off = 4;
    }
    return r;
}

static int fail(cdch_reader *r, cdch_err *err)
{
    r->state = -1;
    if (err)
        *err = r->last;
    return -1;
}

/* Validate the 19-byte header; returns event_size or 0 (r->last set). */
static uint32_t check_header(cdch_reader *r, const uint8_t *h)
{
    cdch_cursor c = cdch_cur(h, CDCH_READER_HEADER_LEN);
    cdch_skip(&c, 9);
    uint32_t size = cdch_get_le32(&c);
    if (size < CDCH_READER_HEADER_LEN) {
        cdch_err_set(&r->last,
                     "bad event at offset %" PRIu64 ": header says %" PRIu32
                     " bytes, less than the 19-byte event header (type %u)",
                     r->off, size, h[4]);
    } else if (size > CDCH_READER_MAX_EVENT) {
        cdch_err_set(&r->last,
                     "bad event at offset %" PRIu64 ": header says %" PRIu32
                     " bytes, more than the 1 GiB maximum event size (type %u)",
                     r->off, size, h[4]);
    } else {
        return size;
    }
    r->last.offset = (int64_t)r->off;
    return 0;
}

static int set_truncated(cdch_reader *r, uint32_t size, uint64_t left, cdch_err *err)
{
    cdch_err_set(&r->last, "truncated event at offset %" PRIu64 ": header says %" PRIu32 " bytes, only %" PRIu64
                 " left", r->off, size, left);
    r->last.offset = (int64_t)r->off;
    return fail(r, err);
}

static int next_mem(cdch_reader *r, cdch_raw_event *ev, cdch_err *err)
{
    size_t left = r->mem_len - r->mem_pos;
    if (left == 0) {
        r->state = 0;
        return 0;
    }
    const uint8_t *h = r->mem + r->mem_pos;
    if (left < CDCH_READER_HEADER_LEN) {
        cdch_err_set(&r->last, "truncated event at offset %" PRIu64 ": only %zu bytes left, less than the 19-byte event header",
                     r->off, left);
        r->last.offset = (int64_t)r->off;
        return fail(r, err);
    }
    uint32_t size = check_header(r, h);
    if (size == 0)
        return fail(r, err);
    if (size > left)
        return set_truncated(r, size, left, err);
    ev->data = h;
    ev->len = size;
    ev->offset = r->off;
    ev->type = h[4];
    r->mem_pos += size;
    r->off += size;
    return 1;
}

static int next_file(cdch_reader *r, cdch_raw_event *ev, cdch_err *err)
{
    int ioerr = 0;
    if (buf_grow(r, READER_MIN_CHUNK) < 0)
        goto oom;
    size_t n = read_full(r, r->buf, CDCH_READER_HEADER_LEN, &ioerr);
    if (ioerr)
        goto io;
    if (n == 0) {
        r->state = 0;
        return 0;
    }
    if (n < CDCH_READER_HEADER_LEN) {
        cdch_err_set(&r->last, "truncated event at offset %" PRIu64 ": only %zu bytes left, less than the 19-byte event header",
                     r->off, n);
        r->last.offset = (int64_t)r->off;
        return fail(r, err);
    }
    uint32_t size = check_header(r, r->buf);
    if (size == 0)
        return fail(r, err);
    /* Grow in steps (doubling) while the bytes actually arrive, so a
     * corrupt header claiming 1 GiB on a short file costs no more memory
     * than the file has. */
    size_t have = CDCH_READER_HEADER_LEN;
    while (have < size) {
        size_t want = r->cap;
        if (want < size && have >= want)
            want = want * 2 < size ? want * 2 : size;
        if (want > size)
            want = size;
        if (buf_grow(r, want) < 0)
            goto oom;
        size_t k = read_full(r, r->buf + have, want - have, &ioerr);
        have += k;
        if (ioerr)
            goto io;
        if (have < want)
            return set_truncated(r, size, have, err);
    }
    ev->data = r->buf;
    ev->len = size;
    ev->offset = r->off;
    ev->type = r->buf[4];
    r->off += size;
    return 1;
io:
    cdch_err_set(&r->last, "read error in %s at offset %" PRIu64 ": %s", r->name, r->off, strerror(ioerr));
    r->last.offset = (int64_t)r->off;
    return fail(r, err);
oom:
    cdch_err_set(&r->last, "out of memory reading the event at offset %" PRIu64, r->off);
    r->last.offset = (int64_t)r->off;
    return fail(r, err);
}

int cdch_reader_next(cdch_reader *r, cdch_raw_event *ev, cdch_err *err)
{
    if (r->state <= 0) {
        if (r->state < 0 && err)
            *err = r->last;
        return r->state;
    }
    return r->f ? next_file(r, ev, err) : next_mem(r, ev, err);
}
