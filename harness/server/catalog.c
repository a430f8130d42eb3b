/* catalog.c — the stream catalogue of the fake primary: what stream.json
 * says (server identity, settings, gtid_executed, file list) checked against
 * the binlog files on disk, plus per-file facts the dump needs (size,
 * checksum algorithm, PREVIOUS_GTIDS, first/last GTID), and the data of
 * SHOW BINARY LOGS / SHOW MASTER STATUS / SHOW BINLOG EVENTS.
 *
 * Loading reads only the head of each file (FDE, PREVIOUS_GTIDS, up to the
 * first GTID event); the GTIDs of a file are the next file's PREVIOUS_GTIDS
 * minus its own (the last file's: gtid_executed minus its PREVIOUS_GTIDS),
 * so no file is read whole. After loading everything is read-only and may
 * be shared by any number of connection threads.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cursor.h"
#include "event.h"
#include "reader.h"
#include "server_internal.h"
#include "sys.h"
#include "xalloc.h"

struct srv_catalog {
    cdch_arena arena;
    char *dir;
    char *mode;
    char *version;
    uint32_t server_id;
    char uuid_text[37];
    uint8_t uuid[16];
    bool gtid_mode;
    char *checksum;
    char *row_image;
    char *row_metadata;
    char *basename;
    cdch_gtid_set executed;
    cdch_gtid_set purged;
    char *executed_text;
    char *purged_text;
    size_t nfiles;
    srv_binlog_file *files;
};

/* ------------------------------------------------------------------------ */
/* A small JSON reader for stream.json (objects, arrays, strings, numbers,   */
/* literals), enough for the manifest the stream writer produces.            */

typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_kind;

typedef struct jv jv;
struct jv {
    jv_kind kind;
    bool b;
    double num;
    char *numtext; /* the number as written (exact for integers) */
    char *str;
    size_t n;      /* array items / object members */
    jv *items;     /* array items, or object values */
    char **keys;   /* object keys */
};

typedef struct jparser {
    const char *p, *end, *start;
    cdch_arena *a;
    char msg[200];
} jparser;

static void jskip(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int jfail(jparser *j, const char *what)
{
    if (!j->msg[0])
        snprintf(j->msg, sizeof j->msg, "%s at offset %zu", what, (size_t)(j->p - j->start));
    return -1;
}

static int jstring(jparser *j, char **out)
{
    if (j->p >= j->end || *j->p != '"')
        return jfail(j, "expected a string");
    j->p++;
    cdch_buf b = CDCH_BUF_INIT;
    while (j->p < j->end && *j->p != '"') {
        char ch = *j->p++;
        if (ch != '\\') {
            cdch_put_u8(&b, (uint8_t)ch);
            continue;
        }
        if (j->p >= j->end)
            break;
        ch = *j->p++;
        switch (ch) {
        case 'n': cdch_put_u8(&b, '\n'); break;
        case 't': cdch_put_u8(&b, '\t'); break;
        case 'r': cdch_put_u8(&b, '\r'); break;
        case 'b': cdch_put_u8(&b, '\b'); break;
        case 'f': cdch_put_u8(&b, '\f'); break;
        case 'u': {
            if (j->end - j->p < 4) {
                cdch_buf_free(&b);
                return jfail(j, "bad \\u escape");
            }
            unsigned v = 0;
            for (int i = 0; i < 4; i++) {
                char h = *j->p++;
                v <<= 4;
                if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
                else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
                else {
                    cdch_buf_free(&b);
                    return jfail(j, "bad \\u escape");
                }
            }
            /* BMP only (surrogates kept as is): enough for a manifest */
            if (v < 0x80) {
                cdch_put_u8(&b, (uint8_t)v);
            } else if (v < 0x800) {
                cdch_put_u8(&b, (uint8_t)(0xC0 | (v >> 6)));
                cdch_put_u8(&b, (uint8_t)(0x80 | (v & 0x3F)));
            } else {
                cdch_put_u8(&b, (uint8_t)(0xE0 | (v >> 12)));
                cdch_put_u8(&b, (uint8_t)(0x80 | ((v >> 6) & 0x3F)));
                cdch_put_u8(&b, (uint8_t)(0x80 | (v & 0x3F)));
            }
            break;
        }
        default: cdch_put_u8(&b, (uint8_t)ch); break;
        }
    }
    if (j->p >= j->end) {
        cdch_buf_free(&b);
        return jfail(j, "unterminated string");
    }
    j->p++;
    *out = cdch_arena_memdup(j->a, b.data ? (const char *)b.data : "", b.len);
    cdch_buf_free(&b);
    return 0;
}

static int jvalue(jparser *j, jv *v, int depth);

static int jcontainer(jparser *j, jv *v, bool obj, int depth)
{
    j->p++; /* [ or { */
    size_t cap = 0;
    v->kind = obj ? JV_OBJ : JV_ARR;
    jskip(j);
    if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
        j->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        jskip(j);
        if (obj) {
            if (jstring(j, &key) != 0)
                return -1;
            jskip(j);
            if (j->p >= j->end || *j->p != ':')
                return jfail(j, "expected ':'");
            j->p++;
        }
        if (v->n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            jv *ni = cdch_arena_alloc(j->a, ncap * sizeof *ni);
            char **nk = cdch_arena_alloc(j->a, ncap * sizeof *nk);
            if (v->n) {
                memcpy(ni, v->items, v->n * sizeof *ni);
                memcpy(nk, v->keys, v->n * sizeof *nk);
            }
            v->items = ni;
            v->keys = nk;
            cap = ncap;
        }
        if (jvalue(j, &v->items[v->n], depth + 1) != 0)
            return -1;
        v->keys[v->n++] = key;
        jskip(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
            j->p++;
            return 0;
        }
        return jfail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int jvalue(jparser *j, jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > 32)
        return jfail(j, "nesting too deep");
    jskip(j);
    if (j->p >= j->end)
        return jfail(j, "unexpected end of input");
    char ch = *j->p;
    if (ch == '{' || ch == '[')
        return jcontainer(j, v, ch == '{', depth);
    if (ch == '"') {
        v->kind = JV_STR;
        return jstring(j, &v->str);
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        const char *s = j->p;
        while (j->p < j->end && (isdigit((unsigned char)*j->p) || strchr("+-.eE", *j->p)))
            j->p++;
        v->kind = JV_NUM;
        v->numtext = cdch_arena_memdup(j->a, s, (size_t)(j->p - s));
        v->num = strtod(v->numtext, NULL);
        return 0;
    }
    static const struct { const char *w; jv_kind k; bool b; } lits[] = {
        {"true", JV_BOOL, true}, {"false", JV_BOOL, false}, {"null", JV_NULL, false}};
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(lits[i].w);
        if ((size_t)(j->end - j->p) >= l && memcmp(j->p, lits[i].w, l) == 0) {
            j->p += l;
            v->kind = lits[i].k;
            v->b = lits[i].b;
            return 0;
        }
    }
    return jfail(j, "unexpected character");
}

static const jv *jget(const jv *obj, const char *key)
{
    if (!obj || obj->kind != JV_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

static const char *jstr(const jv *obj, const char *key)
{
    const jv *v = jget(obj, key);
    return v && v->kind == JV_STR ? v->str : NULL;
}

/* ------------------------------------------------------------------------ */
/* GTID set helpers                                                          */

static bool sid_match(const cdch_gtid_sid *s, const uint8_t uuid[16], const char *tag)
{
    return memcmp(s->uuid, uuid, 16) == 0 && strcmp(s->tag, tag) == 0;
}

static const cdch_gtid_sid *find_sid(const cdch_gtid_set *s, const uint8_t uuid[16], const char *tag)
{
    for (size_t i = 0; i < s->n_sids; i++)
        if (sid_match(&s->sids[i], uuid, tag))
            return &s->sids[i];
    return NULL;
}

/* out = a - b (intervals of a not in b), allocated in the arena. */
void srv_gtid_subtract(const cdch_gtid_set *a, const cdch_gtid_set *b, cdch_arena *ar, cdch_gtid_set *out)
{
    memset(out, 0, sizeof *out);
    if (a->n_sids == 0)
        return;
    out->sids = cdch_arena_alloc(ar, a->n_sids * sizeof *out->sids);
    for (size_t i = 0; i < a->n_sids; i++) {
        const cdch_gtid_sid *sa = &a->sids[i];
        const cdch_gtid_sid *sb = find_sid(b, sa->uuid, sa->tag);
        size_t nb = sb ? sb->n_intervals : 0;
        cdch_gtid_interval *iv = cdch_arena_alloc(ar, (sa->n_intervals + nb + 1) * sizeof *iv);
        size_t n = 0, m = 0;
        for (size_t k = 0; k < sa->n_intervals; k++) {
            int64_t cur = sa->intervals[k].start, e = sa->intervals[k].end;
            while (m < nb && sb->intervals[m].end <= cur)
                m++;
            size_t mm = m;
            while (cur < e) {
                if (mm < nb && sb->intervals[mm].start < e) {
                    if (sb->intervals[mm].start > cur) {
                        iv[n].start = cur;
                        iv[n].end = sb->intervals[mm].start;
                        n++;
                    }
                    if (sb->intervals[mm].end > cur)
                        cur = sb->intervals[mm].end;
                    mm++;
                } else {
                    iv[n].start = cur;
                    iv[n].end = e;
                    n++;
                    cur = e;
                }
            }
        }
        if (n) {
            cdch_gtid_sid *o = &out->sids[out->n_sids++];
            memcpy(o->uuid, sa->uuid, 16);
            memcpy(o->tag, sa->tag, sizeof o->tag);
            o->n_intervals = n;
            o->intervals = iv;
        }
    }
}

/* MySQL's Gtid_set::to_string: ",\n" between UUIDs. */
void srv_gtid_text(const cdch_gtid_set *s, cdch_buf *out)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_gtid_set_to_text(s, &b);
    for (size_t i = 0; i < b.len; i++) {
        cdch_put_u8(out, b.data[i]);
        if (b.data[i] == ',')
            cdch_put_u8(out, '\n');
    }
    cdch_buf_free(&b);
}

static char *gtid_text(const cdch_gtid_set *s, cdch_arena *a)
{
    cdch_buf t = CDCH_BUF_INIT;
    srv_gtid_text(s, &t);
    char *r = cdch_arena_memdup(a, t.data ? (const char *)t.data : "", t.len);
    cdch_buf_free(&t);
    return r;
}

/* ------------------------------------------------------------------------ */
/* reading the head of each file                                             */

static const char *base_of(const char *name)
{
    const char *s = strrchr(name, '/');
    return s ? s + 1 : name;
}

/* Checksum algorithm of a FDE (Log_event_footer::get_checksum_alg): the
 * byte before the 4-byte CRC, present from server version 5.6.1 on. */
static uint8_t fde_checksum_alg(const uint8_t *ev, size_t len)
{
    if (len < CDCH_HEADER_LEN + 2 + 50 + 4 + 1 + 1 + 4)
        return CDCH_CHECKSUM_UNDEF;
    char ver[51];
    memcpy(ver, ev + CDCH_HEADER_LEN + 2, 50);
    ver[50] = '\0';
    if (cdch_version_product(ver) < 50601)
        return CDCH_CHECKSUM_UNDEF;
    return ev[len - 5];
}

static int gtid_of_event(const uint8_t *ev, size_t len, uint8_t alg, cdch_gtid_ev *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    size_t body_len = len - CDCH_HEADER_LEN - (alg == CDCH_CHECKSUM_CRC32 ? CDCH_CHECKSUM_LEN : 0);
    if (len < CDCH_HEADER_LEN || body_len > len)
        return cdch_err_set(err, "GTID event too short");
    cdch_cursor c = cdch_cur(ev + CDCH_HEADER_LEN, body_len);
    if (ev[4] == CDCH_EV_GTID_TAGGED)
        return cdch_gtid_tagged_decode(&c, out, err);
    out->gtid_flags = cdch_get_u8(&c);
    const uint8_t *sid = cdch_get_bytes(&c, 16);
    out->gno = (int64_t)cdch_get_le64(&c);
    if (!cdch_cur_ok(&c) || !sid)
        return cdch_err_set(err, "GTID event too short");
    memcpy(out->sid, sid, 16);
    return 0;
}

static int scan_head(srv_catalog *cat, srv_binlog_file *f, cdch_err *err)
{
    cdch_reader *r = cdch_reader_open(f->path, 0, err);
    if (!r)
        return -1;
    cdch_raw_event ev;
    int rc = cdch_reader_next(r, &ev, err);
    if (rc <= 0 || ev.type != CDCH_EV_FORMAT_DESCRIPTION) {
        cdch_reader_free(r);
        if (rc == 0 || rc > 0)
            return cdch_err_set(err, "%s: the first event is not a FORMAT_DESCRIPTION", f->path);
        return -1;
    }
    f->checksum_alg = fde_checksum_alg(ev.data, ev.len);
    if (f->checksum_alg == CDCH_CHECKSUM_UNDEF)
        f->checksum_alg = CDCH_CHECKSUM_OFF;
    size_t crc = f->checksum_alg == CDCH_CHECKSUM_CRC32 ? CDCH_CHECKSUM_LEN : 0;
    /* PREVIOUS_GTIDS, then up to the first GTID / ANONYMOUS_GTID */
    for (int i = 0; i < 64; i++) {
        rc = cdch_reader_next(r, &ev, err);
        if (rc < 0) {
            cdch_reader_free(r);
            return -1;
        }
        if (rc == 0)
            break;
        if (ev.type == CDCH_EV_PREVIOUS_GTIDS && !f->has_prev_gtids) {
            cdch_cursor c = cdch_cur(ev.data + CDCH_HEADER_LEN, ev.len - CDCH_HEADER_LEN - crc);
            if (cdch_gtid_set_decode(&c, &cat->arena, &f->prev_gtids, err) != 0) {
                cdch_err_wrap(err, "%s: PREVIOUS_GTIDS at %llu: ", f->path, (unsigned long long)ev.offset);
                cdch_reader_free(r);
                return -1;
            }
            f->has_prev_gtids = true;
        } else if (ev.type == CDCH_EV_GTID || ev.type == CDCH_EV_GTID_TAGGED) {
            if (gtid_of_event(ev.data, ev.len, f->checksum_alg, &f->first_gtid, err) != 0) {
                cdch_err_wrap(err, "%s: GTID at %llu: ", f->path, (unsigned long long)ev.offset);
                cdch_reader_free(r);
                return -1;
            }
            f->has_first_gtid = true;
            break;
        } else if (ev.type == CDCH_EV_ANONYMOUS_GTID) {
            break;
        }
    }
    cdch_reader_free(r);
    return 0;
}

/* Scan a whole file for its GTIDs (only used when stream.json has no
 * gtid_executed: the last file's GTIDs are then unknown otherwise). */
static int scan_gtids(srv_catalog *cat, srv_binlog_file *f, cdch_gtid_set *into, cdch_err *err)
{
    cdch_reader *r = cdch_reader_open(f->path, 0, err);
    if (!r)
        return -1;
    cdch_raw_event ev;
    int rc;
    while ((rc = cdch_reader_next(r, &ev, err)) > 0) {
        if (ev.type != CDCH_EV_GTID && ev.type != CDCH_EV_GTID_TAGGED)
            continue;
        cdch_gtid_ev g;
        if (gtid_of_event(ev.data, ev.len, f->checksum_alg, &g, err) != 0) {
            rc = -1;
            break;
        }
        cdch_gtid_set_add(into, &cat->arena, g.sid, g.tag, g.gno);
    }
    cdch_reader_free(r);
    return rc < 0 ? -1 : 0;
}

static char *adup(srv_catalog *cat, const char *s) { return cdch_arena_strdup(&cat->arena, s ? s : ""); }

/* stream.json: the server's identity and settings into cat, its "files" array into *files. */
static int load_manifest(srv_catalog *cat, const char *stream_dir, jv *root, const jv **files, cdch_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/stream.json", stream_dir);
    size_t jlen = 0;
    cdch_err rerr;
    char *json = cdch_read_file(path, 64u << 20, &jlen, &rerr);
    if (!json) /* "PATH: cannot open: reason" and the like */
        return cdch_err_set(err, "%s (is %s a directory written by `cdcharness gen`?)", rerr.msg, stream_dir);
    jparser jp = {json, json + jlen, json, &cat->arena, ""};
    if (jvalue(&jp, root, 0) != 0 || root->kind != JV_OBJ) {
        cdch_err_set(err, "%s: not a stream manifest: %s", path, jp.msg[0] ? jp.msg : "not a JSON object");
        free(json);
        return -1;
    }
    free(json);
    const char *uuid = jstr(root, "server_uuid");
    const char *version = jstr(root, "server_version");
    const jv *sid = jget(root, "server_id");
    *files = jget(root, "files");
    if (!uuid || !version || !sid || sid->kind != JV_NUM || !*files || (*files)->kind != JV_ARR)
        return cdch_err_set(err, "%s: missing server_uuid, server_version, server_id or files", path);
    if (cdch_uuid_parse(uuid, cat->uuid) != 0)
        return cdch_err_set(err, "%s: server_uuid '%s' is not a UUID", path, uuid);
    cdch_uuid_format(cat->uuid, cat->uuid_text);
    cat->version = adup(cat, version);
    cat->server_id = (uint32_t)strtoull(sid->numtext, NULL, 10);
    const jv *gm = jget(root, "gtid_mode");
    cat->gtid_mode = gm && gm->kind == JV_BOOL ? gm->b : true;
    cat->checksum = adup(cat, jstr(root, "checksum") ? jstr(root, "checksum") : "CRC32");
    cat->row_image = adup(cat, jstr(root, "row_image") ? jstr(root, "row_image") : "FULL");
    cat->row_metadata = adup(cat, jstr(root, "row_metadata") ? jstr(root, "row_metadata") : "MINIMAL");
    cat->basename = adup(cat, jstr(root, "basename") ? jstr(root, "basename") : "binlog");
    cat->mode = adup(cat, jstr(root, "mode"));
    if ((*files)->n == 0)
        return cdch_err_set(err, "%s lists no binlog files", path);
    return 0;
}

/* <basename>.index (optional): the names as MySQL's log_file_name carries them. */
static size_t read_index(srv_catalog *cat, const char *stream_dir, char ***lines)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.index", stream_dir, cat->basename);
    size_t ilen = 0, n = 0;
    char *index = cdch_read_file(path, 16u << 20, &ilen, NULL);
    *lines = NULL;
    if (!index)
        return 0;
    *lines = cdch_arena_alloc(&cat->arena, (ilen / 2 + 2) * sizeof **lines);
    char *save = NULL;
    for (char *line = strtok_r(index, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        if (l)
            (*lines)[n++] = adup(cat, line);
    }
    free(index);
    return n;
}

/* Each file stream.json lists: its name in the index, its size, its head. */
static int load_files(srv_catalog *cat, const char *stream_dir, const jv *files, cdch_err *err)
{
    char **index_lines;
    size_t nindex = read_index(cat, stream_dir, &index_lines);
    char path[4096];
    cat->nfiles = files->n;
    cat->files = cdch_arena_alloc(&cat->arena, files->n * sizeof *cat->files);
    for (size_t i = 0; i < files->n; i++) {
        srv_binlog_file *f = &cat->files[i];
        const char *name = jstr(&files->items[i], "name");
        if (!name || !name[0] || strchr(name, '/'))
            return cdch_err_set(err, "%s/stream.json: file %zu has no valid name", stream_dir, i + 1);
        f->name = adup(cat, name);
        snprintf(path, sizeof path, "%s/%s", stream_dir, name);
        f->path = adup(cat, path);
        f->index_name = NULL;
        for (size_t k = 0; k < nindex; k++)
            if (strcmp(base_of(index_lines[k]), name) == 0)
                f->index_name = index_lines[k];
        if (!f->index_name) {
            snprintf(path, sizeof path, "./%s", name);
            f->index_name = adup(cat, path);
        }
        struct stat st;
        if (stat(f->path, &st) != 0)
            return cdch_err_set(err, "cannot open binlog file %s listed in stream.json: %s", f->path,
                                strerror(errno));
        f->size = (uint64_t)st.st_size; /* what MySQL uses: the file's length */
        if (scan_head(cat, f, err) != 0)
            return -1;
    }
    return 0;
}

/* gtid_executed: stream.json's, else the last file's PREVIOUS_GTIDS + its GTIDs. */
static int load_executed(srv_catalog *cat, const jv *root, const char *stream_dir, cdch_err *err)
{
    const char *executed = jstr(root, "gtid_executed");
    if (executed) {
        if (cdch_gtid_set_parse(executed, &cat->arena, &cat->executed, err) != 0)
            return cdch_err_wrap(err, "%s/stream.json gtid_executed: ", stream_dir);
        return 0;
    }
    srv_binlog_file *last = &cat->files[cat->nfiles - 1];
    for (size_t k = 0; k < last->prev_gtids.n_sids; k++) {
        const cdch_gtid_sid *sd = &last->prev_gtids.sids[k];
        for (size_t m = 0; m < sd->n_intervals; m++)
            for (int64_t g = sd->intervals[m].start; g < sd->intervals[m].end; g++)
                cdch_gtid_set_add(&cat->executed, &cat->arena, sd->uuid, sd->tag, g);
    }
    return scan_gtids(cat, last, &cat->executed, err);
}

/* GTIDs per file: the next file's PREVIOUS_GTIDS (or gtid_executed) minus
 * this one's; the last GTID: the highest GNO of the server's own UUID. */
static void file_gtids(srv_catalog *cat)
{
    for (size_t i = 0; i < cat->nfiles; i++) {
        srv_binlog_file *f = &cat->files[i];
        const cdch_gtid_set *next = i + 1 < cat->nfiles ? &cat->files[i + 1].prev_gtids : &cat->executed;
        srv_gtid_subtract(next, &f->prev_gtids, &cat->arena, &f->gtids);
        const cdch_gtid_sid *own = NULL;
        for (size_t k = 0; k < f->gtids.n_sids; k++)
            if (memcmp(f->gtids.sids[k].uuid, cat->uuid, 16) == 0 && f->gtids.sids[k].n_intervals)
                own = &f->gtids.sids[k];
        if (!own && f->gtids.n_sids && f->gtids.sids[f->gtids.n_sids - 1].n_intervals)
            own = &f->gtids.sids[f->gtids.n_sids - 1];
        if (own) {
            f->has_last_gtid = true;
            memcpy(f->last_gtid.sid, own->uuid, 16);
            memcpy(f->last_gtid.tag, own->tag, sizeof own->tag);
            f->last_gtid.gno = own->intervals[own->n_intervals - 1].end - 1;
        }
    }
}

srv_catalog *srv_catalog_load(const cdch_scenario *s, const char *stream_dir, cdch_err *err)
{
    (void)s; /* everything needed is in stream.json and the files */
    srv_catalog *cat = cdch_xcalloc(1, sizeof *cat);
    cat->dir = adup(cat, stream_dir);
    jv root;
    const jv *files = NULL;
    if (load_manifest(cat, stream_dir, &root, &files, err) != 0 || load_files(cat, stream_dir, files, err) != 0 ||
        load_executed(cat, &root, stream_dir, err) != 0) {
        srv_catalog_free(cat);
        return NULL;
    }
    /* gtid_purged: what a server computes at startup from its first binlog */
    if (cat->files[0].has_prev_gtids)
        cat->purged = cat->files[0].prev_gtids;
    cat->executed_text = gtid_text(&cat->executed, &cat->arena);
    cat->purged_text = gtid_text(&cat->purged, &cat->arena);
    file_gtids(cat);
    return cat;
}

void srv_catalog_free(srv_catalog *cat)
{
    if (!cat)
        return;
    cdch_arena_free(&cat->arena);
    free(cat);
}

/* ------------------------------------------------------------------------ */
/* accessors                                                                 */

size_t srv_catalog_nfiles(const srv_catalog *cat) { return cat->nfiles; }

const srv_binlog_file *srv_catalog_file(const srv_catalog *cat, size_t i)
{
    return i < cat->nfiles ? &cat->files[i] : NULL;
}

ssize_t srv_catalog_index_of(const srv_catalog *cat, const char *name)
{
    if (!name)
        return -1;
    const char *b = base_of(name);
    for (size_t i = 0; i < cat->nfiles; i++)
        if (strcmp(cat->files[i].name, b) == 0)
            return (ssize_t)i;
    return -1;
}

const srv_binlog_file *srv_catalog_find(const srv_catalog *cat, const char *name)
{
    ssize_t i = srv_catalog_index_of(cat, name);
    return i < 0 ? NULL : &cat->files[i];
}

const char *srv_catalog_gtid_executed(const srv_catalog *cat) { return cat->executed_text; }
const char *srv_catalog_gtid_purged(const srv_catalog *cat) { return cat->purged_text; }
const cdch_gtid_set *srv_catalog_gtid_executed_set(const srv_catalog *cat) { return &cat->executed; }
const cdch_gtid_set *srv_catalog_gtid_purged_set(const srv_catalog *cat) { return &cat->purged; }
const char *srv_catalog_mode(const srv_catalog *cat) { return cat->mode; }
const char *srv_catalog_server_version(const srv_catalog *cat) { return cat->version; }
uint32_t srv_catalog_server_id(const srv_catalog *cat) { return cat->server_id; }
const char *srv_catalog_server_uuid(const srv_catalog *cat) { return cat->uuid_text; }
const uint8_t *srv_catalog_server_uuid_bytes(const srv_catalog *cat) { return cat->uuid; }
bool srv_catalog_gtid_mode(const srv_catalog *cat) { return cat->gtid_mode; }
const char *srv_catalog_checksum(const srv_catalog *cat) { return cat->checksum; }
const char *srv_catalog_row_image(const srv_catalog *cat) { return cat->row_image; }
const char *srv_catalog_row_metadata(const srv_catalog *cat) { return cat->row_metadata; }
const char *srv_catalog_basename(const srv_catalog *cat) { return cat->basename; }

void srv_catalog_master_status(const srv_catalog *cat, const char **file, uint64_t *position)
{
    const srv_binlog_file *last = &cat->files[cat->nfiles - 1];
    if (file)
        *file = last->name;
    if (position)
        *position = last->size;
}

/* ------------------------------------------------------------------------ */
/* SHOW BINLOG EVENTS                                                        */

typedef struct show_ctx {
    const srv_binlog_file *f;
    uint64_t offset, limit, seen, sent;
    int (*cb)(void *, const srv_binlog_event_row *);
    void *cbctx;
    bool stop;
    cdch_buf info;
    cdch_buf zbuf;
} show_ctx;

static void emit_row(show_ctx *x, uint64_t pos, const uint8_t *ev, uint64_t end_log_pos)
{
    if (x->stop)
        return;
    if (x->seen++ < x->offset)
        return;
    if (x->sent >= x->limit) {
        x->stop = true;
        return;
    }
    x->sent++;
    srv_binlog_event_row row;
    row.log_name = x->f->name;
    row.pos = pos;
    row.event_type = cdch_event_type_name(ev[4]);
    row.server_id = cdch_le32(ev + 5);
    row.end_log_pos = end_log_pos;
    row.info = cdch_buf_cstr(&x->info);
    if (x->cb(x->cbctx, &row) != 0)
        x->stop = true;
}

/* pack_info of a GTID / GTID_TAGGED event: SET @@SESSION.GTID_NEXT= '...' */
static void info_gtid(cdch_buf *o, uint8_t type, cdch_cursor *c)
{
    cdch_gtid_ev g;
    cdch_err e;
    int rc;
    if (type == CDCH_EV_GTID_TAGGED) {
        rc = cdch_gtid_tagged_decode(c, &g, &e);
    } else {
        memset(&g, 0, sizeof g);
        g.gtid_flags = cdch_get_u8(c);
        const uint8_t *sid = cdch_get_bytes(c, 16);
        g.gno = (int64_t)cdch_get_le64(c);
        rc = sid && cdch_cur_ok(c) ? 0 : -1;
        if (sid)
            memcpy(g.sid, sid, 16);
    }
    if (rc != 0)
        return;
    char u[37];
    cdch_uuid_format(g.sid, u);
    if (g.tag[0])
        cdch_buf_printf(o, "SET @@SESSION.GTID_NEXT= '%s:%s:%lld'", u, g.tag, (long long)g.gno);
    else
        cdch_buf_printf(o, "SET @@SESSION.GTID_NEXT= '%s:%lld'", u, (long long)g.gno);
}

/* The status variables of a QUERY event: the xid of Q_DDL_LOGGED_WITH_XID, if any. */
static bool query_ddl_xid(cdch_cursor *sv, uint64_t *xid)
{
    static const int8_t sv_size[] = {4, 8, -1, 2, 6, -2, -1, 2, 2, 8, 4, -3, -4, 3, 7, 8, 1, 8, 2, 1, 1};
    bool has_xid = false;
    while (cdch_cur_left(sv) > 0) {
        uint8_t code = cdch_get_u8(sv);
        if (code == CDCH_Q_DDL_LOGGED_WITH_XID) {
            *xid = cdch_get_le64(sv);
            has_xid = cdch_cur_ok(sv);
            continue;
        }
        if (code >= sizeof sv_size)
            break;
        int8_t sz = sv_size[code];
        if (sz >= 0) {
            cdch_skip(sv, (size_t)sz);
        } else if (sz == -1 || sz == -2) { /* 1-byte length + bytes */
            cdch_skip(sv, cdch_get_u8(sv));
        } else if (sz == -3) { /* invoker: user, host */
            cdch_skip(sv, cdch_get_u8(sv));
            cdch_skip(sv, cdch_get_u8(sv));
        } else { /* updated db names */
            uint8_t k = cdch_get_u8(sv);
            if (k == 254)
                k = 0;
            for (uint8_t q = 0; q < k && cdch_cur_left(sv); q++) {
                const uint8_t *z = memchr(sv->p, 0, cdch_cur_left(sv));
                cdch_skip(sv, z ? (size_t)(z - sv->p) + 1 : cdch_cur_left(sv));
            }
        }
        if (!cdch_cur_ok(sv))
            break;
    }
    return has_xid;
}

/* pack_info of a QUERY event: [use `db`; ]query, then the DDL xid as a comment when there is one */
static void info_query(cdch_buf *o, cdch_cursor *c, uint16_t flags)
{
    cdch_skip(c, 8); /* thread id, exec time */
    uint8_t db_len = cdch_get_u8(c);
    cdch_skip(c, 2); /* error code */
    uint16_t sv_len = cdch_get_le16(c);
    cdch_cursor sv = cdch_get_sub(c, sv_len);
    const uint8_t *db = cdch_get_bytes(c, db_len);
    cdch_skip(c, 1);
    if (!cdch_cur_ok(c))
        return;
    uint64_t ddl_xid = 0;
    bool has_xid = query_ddl_xid(&sv, &ddl_xid);
    if (db_len && db && !(flags & CDCH_LOG_EVENT_SUPPRESS_USE_F))
        cdch_buf_printf(o, "use `%.*s`; ", (int)db_len, (const char *)db);
    cdch_put_bytes(o, c->p, cdch_cur_left(c));
    if (has_xid)
        cdch_buf_printf(o, " /* xid=%llu */", (unsigned long long)ddl_xid);
}

static void info_table_map(cdch_buf *o, cdch_cursor *c)
{
    uint64_t tid = cdch_get_le48(c);
    cdch_skip(c, 2);
    uint8_t dl = cdch_get_u8(c);
    const uint8_t *db = cdch_get_bytes(c, dl);
    cdch_skip(c, 1);
    uint8_t tl = cdch_get_u8(c);
    const uint8_t *tb = cdch_get_bytes(c, tl);
    if (cdch_cur_ok(c))
        cdch_buf_printf(o, "table_id: %llu (%.*s.%.*s)", (unsigned long long)tid, (int)dl, (const char *)db, (int)tl,
                        (const char *)tb);
}

static void info_rows(cdch_buf *o, cdch_cursor *c)
{
    uint64_t tid = cdch_get_le48(c);
    uint16_t fl = cdch_get_le16(c);
    if (!cdch_cur_ok(c))
        return;
    cdch_buf_printf(o, "table_id: %llu", (unsigned long long)tid);
    if (fl & CDCH_ROWS_STMT_END_F)
        cdch_put_str(o, " flags: STMT_END_F");
}

/* MySQL's pack_info for the events a generated stream holds. `body` is the
 * event after the common header, without checksum. One case per event
 * type; the longer ones have their own info_* function. */
static void pack_info(show_ctx *x, uint8_t type, const uint8_t *body, size_t n, uint16_t flags)
{
    cdch_buf *o = &x->info;
    cdch_buf_reset(o);
    cdch_cursor c = cdch_cur(body, n);
    switch (type) {
    case CDCH_EV_FORMAT_DESCRIPTION: {
        uint16_t bv = cdch_get_le16(&c);
        const uint8_t *v = cdch_get_bytes(&c, 50);
        if (v)
            cdch_buf_printf(o, "Server ver: %.*s, Binlog ver: %u", (int)strnlen((const char *)v, 50),
                            (const char *)v, bv);
        break;
    }
    case CDCH_EV_PREVIOUS_GTIDS: {
        cdch_arena a = CDCH_ARENA_INIT;
        cdch_gtid_set s;
        cdch_err e;
        if (cdch_gtid_set_decode(&c, &a, &s, &e) == 0)
            cdch_put_str(o, gtid_text(&s, &a));
        cdch_arena_free(&a);
        break;
    }
    case CDCH_EV_GTID:
    case CDCH_EV_GTID_TAGGED: info_gtid(o, type, &c); break;
    case CDCH_EV_ANONYMOUS_GTID: cdch_put_str(o, "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'"); break;
    case CDCH_EV_QUERY: info_query(o, &c, flags); break;
    case CDCH_EV_TABLE_MAP: info_table_map(o, &c); break;
    case CDCH_EV_WRITE_ROWS:
    case CDCH_EV_UPDATE_ROWS:
    case CDCH_EV_DELETE_ROWS:
    case CDCH_EV_PARTIAL_UPDATE_ROWS:
    case CDCH_EV_WRITE_ROWS_V1:
    case CDCH_EV_UPDATE_ROWS_V1:
    case CDCH_EV_DELETE_ROWS_V1: info_rows(o, &c); break;
    case CDCH_EV_XID: {
        uint64_t xid = cdch_get_le64(&c);
        if (cdch_cur_ok(&c))
            cdch_buf_printf(o, "COMMIT /* xid=%llu */", (unsigned long long)xid);
        break;
    }
    case CDCH_EV_ROTATE: {
        uint64_t pos = cdch_get_le64(&c);
        if (cdch_cur_ok(&c))
            cdch_buf_printf(o, "%.*s;pos=%llu", (int)cdch_cur_left(&c), (const char *)c.p, (unsigned long long)pos);
        break;
    }
    case CDCH_EV_ROWS_QUERY:
        if (n >= 1)
            cdch_buf_printf(o, "# %.*s", (int)(n - 1), (const char *)body + 1);
        break;
    default: break;
    }
}

/* Payload TLV header: the compressed bytes, compression type, uncompressed size. */
static int payload_parts(const uint8_t *body, size_t n, uint64_t *ctype, uint64_t *usize, const uint8_t **data,
                         size_t *dlen)
{
    cdch_cursor c = cdch_cur(body, n);
    uint64_t psize = 0;
    bool have_size = false;
    *ctype = CDCH_COMPRESSION_NONE;
    *usize = 0;
    for (;;) {
        bool bad = false;
        uint64_t t = cdch_get_lenenc(&c, &bad);
        if (!cdch_cur_ok(&c) || bad)
            return -1;
        if (t == 0)
            break;
        uint64_t l = cdch_get_lenenc(&c, &bad);
        cdch_cursor v = cdch_get_sub(&c, (size_t)l);
        if (!cdch_cur_ok(&c) || bad)
            return -1;
        uint64_t val = cdch_get_lenenc(&v, &bad);
        if (t == 1) {
            psize = val;
            have_size = true;
        } else if (t == 2) {
            *ctype = val;
        } else if (t == 3) {
            *usize = val;
        }
    }
    if (!have_size || psize > cdch_cur_left(&c))
        return -1;
    *data = c.p;
    *dlen = (size_t)psize;
    return 0;
}

static void show_event(show_ctx *x, const uint8_t *ev, size_t len, uint64_t pos, uint8_t alg)
{
    size_t crc = alg == CDCH_CHECKSUM_CRC32 || ev[4] == CDCH_EV_FORMAT_DESCRIPTION ? CDCH_CHECKSUM_LEN : 0;
    if (len < CDCH_HEADER_LEN + crc)
        crc = 0;
    const uint8_t *body = ev + CDCH_HEADER_LEN;
    size_t n = len - CDCH_HEADER_LEN - crc;
    uint16_t flags = cdch_le16(ev + 17);
    uint64_t end = cdch_le32(ev + 13);
    if (ev[4] != CDCH_EV_TRANSACTION_PAYLOAD) {
        pack_info(x, ev[4], body, n, flags);
        emit_row(x, pos, ev, end);
        return;
    }
    uint64_t ctype, usize;
    const uint8_t *data;
    size_t dlen;
    cdch_buf_reset(&x->info);
    if (payload_parts(body, n, &ctype, &usize, &data, &dlen) != 0) {
        emit_row(x, pos, ev, end);
        return;
    }
    cdch_buf_reset(&x->zbuf);
    const uint8_t *inner = data;
    size_t ilen = dlen;
    if (ctype == CDCH_COMPRESSION_ZSTD) {
        cdch_err e;
        if (cdch_zstd_decompress(data, dlen, CDCH_MAX_EVENT_SIZE, &x->zbuf, &e) != 0) {
            cdch_buf_printf(&x->info, "compression='ZSTD', decompressed_size=%llu bytes", (unsigned long long)usize);
            emit_row(x, pos, ev, end);
            return;
        }
        inner = x->zbuf.data;
        ilen = x->zbuf.len;
    }
    cdch_buf_printf(&x->info, "compression='%s', decompressed_size=%llu bytes",
                    ctype == CDCH_COMPRESSION_ZSTD ? "ZSTD" : "NONE", (unsigned long long)ilen);
    emit_row(x, pos, ev, end);
    size_t at = 0;
    while (!x->stop && at + CDCH_HEADER_LEN <= ilen) {
        const uint8_t *ie = inner + at;
        uint32_t isz = cdch_le32(ie + 9);
        if (isz < CDCH_HEADER_LEN || isz > ilen - at)
            break;
        pack_info(x, ie[4], ie + CDCH_HEADER_LEN, isz - CDCH_HEADER_LEN, cdch_le16(ie + 17));
        emit_row(x, pos, ie, end);
        at += isz;
    }
}

int srv_catalog_binlog_events(const srv_catalog *cat, const char *log_name, uint64_t from_pos, uint64_t offset,
                              uint64_t limit, int (*cb)(void *ctx, const srv_binlog_event_row *row), void *ctx,
                              uint16_t *code, cdch_err *err)
{
    const srv_binlog_file *f = log_name && log_name[0] ? srv_catalog_find(cat, log_name) : &cat->files[0];
    if (code)
        *code = 1220; /* ER_ERROR_WHEN_EXECUTING_COMMAND */
    if (!f)
        return cdch_err_set(err, "Error when executing command SHOW BINLOG EVENTS: Could not find target log");
    if (from_pos > f->size)
        return cdch_err_set(err,
                            "Error when executing command SHOW BINLOG EVENTS: Invalid pos specified. Requested from "
                            "pos:%llu is greater than actual file size:%llu\n",
                            (unsigned long long)from_pos, (unsigned long long)f->size);
    if (from_pos < 4)
        from_pos = 4;
    cdch_reader *r = cdch_reader_open(f->path, 0, err);
    if (!r)
        return -1;
    show_ctx x = {.f = f, .offset = offset, .limit = limit, .cb = cb, .cbctx = ctx};
    cdch_raw_event ev;
    int rc = 0; /* the first loop test always sets it (x.stop starts false); set here too so every path visibly does */
    bool started = false;
    while (!x.stop && (rc = cdch_reader_next(r, &ev, err)) > 0) {
        if (!started) {
            if (ev.offset < from_pos) {
                if (ev.offset + ev.len > from_pos) {
                    rc = -1;
                    cdch_err_set(err, "Error when executing command SHOW BINLOG EVENTS: Wrong offset or I/O error");
                    break;
                }
                continue;
            }
            started = true;
        }
        show_event(&x, ev.data, ev.len, ev.offset, f->checksum_alg);
    }
    cdch_reader_free(r);
    cdch_buf_free(&x.info);
    cdch_buf_free(&x.zbuf);
    if (rc < 0 && !x.stop) {
        if (!strstr(err->msg, "SHOW BINLOG EVENTS"))
            cdch_err_wrap(err, "Error when executing command SHOW BINLOG EVENTS: ");
        return -1;
    }
    if (code)
        *code = 0;
    return 0;
}
