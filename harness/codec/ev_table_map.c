/* ev_table_map.c — TABLE_MAP body: column types, per-type metadata, NULL
 * bitmap and the optional metadata TLVs (binlog_row_metadata). */
#include <string.h>

#include "event_internal.h"
#include "cursor.h"

unsigned cdch_meta_size(uint8_t type)
{
    switch (type) {
    case CDCH_T_FLOAT:
    case CDCH_T_DOUBLE:
    case CDCH_T_BLOB:
    case CDCH_T_TINY_BLOB:
    case CDCH_T_MEDIUM_BLOB:
    case CDCH_T_LONG_BLOB:
    case CDCH_T_JSON:
    case CDCH_T_GEOMETRY:
    case CDCH_T_VECTOR:
    case CDCH_T_TIMESTAMP2:
    case CDCH_T_DATETIME2:
    case CDCH_T_TIME2:
        return 1;
    case CDCH_T_VARCHAR:
    case CDCH_T_VAR_STRING:
    case CDCH_T_BIT:
    case CDCH_T_NEWDECIMAL:
    case CDCH_T_STRING:
    case CDCH_T_ENUM:
    case CDCH_T_SET:
        return 2;
    default:
        return 0;
    }
}

static uint16_t meta_read(uint8_t type, const uint8_t *m)
{
    switch (cdch_meta_size(type)) {
    case 1: return m[0];
    case 2:
        if (type == CDCH_T_VARCHAR || type == CDCH_T_VAR_STRING || type == CDCH_T_BIT)
            return cdch_le16(m);
        return (uint16_t)(m[0] << 8 | m[1]);
    default: return 0;
    }
}

static void meta_write(uint8_t type, uint16_t meta, cdch_buf *out)
{
    switch (cdch_meta_size(type)) {
    case 1: cdch_put_u8(out, (uint8_t)meta); break;
    case 2:
        if (type == CDCH_T_VARCHAR || type == CDCH_T_VAR_STRING || type == CDCH_T_BIT) {
            cdch_put_le16(out, meta);
        } else {
            cdch_put_u8(out, (uint8_t)(meta >> 8));
            cdch_put_u8(out, (uint8_t)meta);
        }
        break;
    default: break;
    }
}

static bool is_numeric(const cdch_coldef *col)
{
    switch (col->type) {
    case CDCH_T_TINY: case CDCH_T_SHORT: case CDCH_T_INT24: case CDCH_T_LONG: case CDCH_T_LONGLONG:
    case CDCH_T_YEAR: case CDCH_T_FLOAT: case CDCH_T_DOUBLE: case CDCH_T_DECIMAL: case CDCH_T_NEWDECIMAL:
        return true;
    default:
        return false;
    }
}

/* MySQL's is_character_type on the real type (rows_event.cpp). */
static bool is_character(const cdch_coldef *col)
{
    switch (col->real_type) {
    case CDCH_T_STRING: case CDCH_T_VAR_STRING: case CDCH_T_VARCHAR: case CDCH_T_BLOB:
    case CDCH_T_TINY_BLOB: case CDCH_T_MEDIUM_BLOB: case CDCH_T_LONG_BLOB:
        return true;
    default:
        return false;
    }
}

static bool is_enum_set(const cdch_coldef *col)
{
    return col->real_type == CDCH_T_ENUM || col->real_type == CDCH_T_SET;
}

/* DEFAULT_CHARSET / ENUM_AND_SET_DEFAULT_CHARSET: a default collation for
 * the character (or ENUM/SET) columns, then (index, collation) exceptions. */
static void opt_default_charset(cdch_table_map *tm, bool es, cdch_cursor *v, bool *bad)
{
    size_t n = tm->ncols;
    uint64_t def = cdch_get_lenenc(v, bad);
    for (size_t i = 0; i < n; i++)
        if (es ? is_enum_set(&tm->cols[i]) : is_character(&tm->cols[i]))
            tm->cols[i].collation = (uint32_t)def;
    while (!v->overrun && !*bad && cdch_cur_left(v) > 0) {
        uint64_t idx = cdch_get_lenenc(v, bad);
        uint64_t coll = cdch_get_lenenc(v, bad);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (!(es ? is_enum_set(&tm->cols[i]) : is_character(&tm->cols[i])))
                continue;
            if (k++ == idx)
                tm->cols[i].collation = (uint32_t)coll;
        }
    }
}

/* SET_STR_VALUE / ENUM_STR_VALUE: the member labels of every column of real
 * type `want` (copied into the arena). */
static int opt_labels(const ev_dctx *x, cdch_table_map *tm, uint8_t want, cdch_cursor *v, bool *bad, cdch_err *err)
{
    for (size_t i = 0; i < tm->ncols && !v->overrun && !*bad; i++) {
        if (tm->cols[i].real_type != want)
            continue;
        uint64_t count = cdch_get_lenenc(v, bad);
        if (count > cdch_cur_left(v))
            return ev_fail(x, v, err, "TABLE_MAP %s metadata lists %llu members in %zu bytes",
                           want == CDCH_T_SET ? "SET" : "ENUM", (unsigned long long)count, cdch_cur_left(v));
        const char **labels = cdch_arena_alloc(x->a, (size_t)(count ? count : 1) * sizeof *labels);
        for (uint64_t k = 0; k < count && !v->overrun && !*bad; k++) {
            uint64_t len = cdch_get_lenenc(v, bad);
            const uint8_t *s = cdch_get_bytes(v, (size_t)len);
            labels[k] = s ? cdch_arena_memdup(x->a, s, (size_t)len) : "";
        }
        tm->cols[i].labels = labels;
        tm->cols[i].nlabels = (size_t)count;
    }
    return 0;
}

/* Apply one optional-metadata TLV to the column definitions. */
static int apply_opt(const ev_dctx *x, cdch_table_map *tm, uint8_t type, cdch_cursor v, cdch_err *err)
{
    bool bad = false;
    size_t n = tm->ncols;
    switch (type) {
    case CDCH_OPT_SIGNEDNESS: {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (!is_numeric(&tm->cols[i]))
                continue;
            if (k / 8 >= cdch_cur_left(&v))
                return ev_fail(x, &v, err, "TABLE_MAP SIGNEDNESS metadata is shorter than the numeric columns");
            tm->cols[i].is_unsigned = (v.p[k / 8] >> (7 - k % 8)) & 1;
            k++;
        }
        break;
    }
    case CDCH_OPT_DEFAULT_CHARSET:
    case CDCH_OPT_ENUM_AND_SET_DEFAULT_CHARSET:
        opt_default_charset(tm, type == CDCH_OPT_ENUM_AND_SET_DEFAULT_CHARSET, &v, &bad);
        break;
    case CDCH_OPT_COLUMN_CHARSET:
    case CDCH_OPT_ENUM_AND_SET_COLUMN_CHARSET: {
        bool es = type == CDCH_OPT_ENUM_AND_SET_COLUMN_CHARSET;
        for (size_t i = 0; i < n && !v.overrun && !bad; i++)
            if (es ? is_enum_set(&tm->cols[i]) : is_character(&tm->cols[i]))
                tm->cols[i].collation = (uint32_t)cdch_get_lenenc(&v, &bad);
        break;
    }
    case CDCH_OPT_COLUMN_NAME:
        for (size_t i = 0; i < n && !v.overrun && !bad; i++) {
            uint64_t len = cdch_get_lenenc(&v, &bad);
            const uint8_t *s = cdch_get_bytes(&v, (size_t)len);
            if (s)
                tm->cols[i].name = cdch_arena_memdup(x->a, s, (size_t)len);
        }
        break;
    case CDCH_OPT_SET_STR_VALUE:
    case CDCH_OPT_ENUM_STR_VALUE:
        if (opt_labels(x, tm, type == CDCH_OPT_SET_STR_VALUE ? CDCH_T_SET : CDCH_T_ENUM, &v, &bad, err) < 0)
            return -1;
        break;
    case CDCH_OPT_GEOMETRY_TYPE:
        for (size_t i = 0; i < n && !v.overrun && !bad; i++)
            if (tm->cols[i].type == CDCH_T_GEOMETRY)
                tm->cols[i].geometry_type = (uint32_t)cdch_get_lenenc(&v, &bad);
        break;
    case CDCH_OPT_SIMPLE_PRIMARY_KEY:
    case CDCH_OPT_PRIMARY_KEY_WITH_PREFIX: {
        size_t cap = cdch_cur_left(&v);
        tm->pk_cols = cdch_arena_alloc(x->a, (cap ? cap : 1) * sizeof *tm->pk_cols);
        tm->pk_prefix = cdch_arena_alloc(x->a, (cap ? cap : 1) * sizeof *tm->pk_prefix);
        tm->n_pk = 0;
        while (!v.overrun && !bad && cdch_cur_left(&v) > 0) {
            tm->pk_cols[tm->n_pk] = (uint32_t)cdch_get_lenenc(&v, &bad);
            if (type == CDCH_OPT_PRIMARY_KEY_WITH_PREFIX)
                tm->pk_prefix[tm->n_pk] = (uint32_t)cdch_get_lenenc(&v, &bad);
            tm->n_pk++;
        }
        break;
    }
    case CDCH_OPT_COLUMN_VISIBILITY:
        if (cdch_cur_left(&v) < bitmap_bytes(n))
            return ev_fail(x, &v, err, "TABLE_MAP COLUMN_VISIBILITY metadata is shorter than the columns");
        tm->visible = cdch_arena_alloc(x->a, (n ? n : 1) * sizeof *tm->visible);
        for (size_t i = 0; i < n; i++)
            tm->visible[i] = (v.p[i / 8] >> (7 - i % 8)) & 1;
        break;
    default: /* unknown or not interpreted (vector dimensionality): kept raw */
        break;
    }
    if (bad || v.overrun)
        return ev_fail(x, &v, err, "TABLE_MAP optional metadata field %u is malformed", type);
    return 0;
}

int ev_decode_table_map(const ev_dctx *x, cdch_cursor *c, cdch_table_map *tm, cdch_err *err)
{
    memset(tm, 0, sizeof *tm);
    unsigned phl = ev_post_header_len(x->fde, CDCH_EV_TABLE_MAP);
    tm->table_id = phl == 6 ? cdch_get_le32(c) : cdch_get_le48(c);
    tm->flags = cdch_get_le16(c);
    uint8_t dblen = cdch_get_u8(c);
    tm->db = ev_bytes(cdch_get_bytes(c, dblen), dblen);
    if (cdch_get_u8(c) != 0 && !c->overrun)
        return ev_fail(x, c, err, "TABLE_MAP database name is not NUL-terminated");
    uint8_t tlen = cdch_get_u8(c);
    tm->table = ev_bytes(cdch_get_bytes(c, tlen), tlen);
    if (cdch_get_u8(c) != 0 && !c->overrun)
        return ev_fail(x, c, err, "TABLE_MAP table name is not NUL-terminated");
    bool bad = false;
    uint64_t ncols = cdch_get_lenenc(c, &bad);
    if (c->overrun || bad)
        return ev_fail(x, c, err, "TABLE_MAP event is truncated before its column count");
    if (ncols > 4096 || ncols > cdch_cur_left(c))
        return ev_fail(x, c, err, "TABLE_MAP says %llu columns (MySQL allows 4096, %zu bytes left)",
                       (unsigned long long)ncols, cdch_cur_left(c));
    tm->ncols = (size_t)ncols;
    tm->cols = cdch_arena_alloc(x->a, (tm->ncols ? tm->ncols : 1) * sizeof *tm->cols);
    const uint8_t *types = cdch_get_bytes(c, tm->ncols);
    uint64_t meta_len = cdch_get_lenenc(c, &bad);
    if (c->overrun || bad || meta_len > cdch_cur_left(c))
        return ev_fail(x, c, err, "TABLE_MAP metadata block is truncated");
    cdch_cursor meta = cdch_get_sub(c, (size_t)meta_len);
    for (size_t i = 0; i < tm->ncols; i++) {
        cdch_coldef *col = &tm->cols[i];
        col->type = types[i];
        unsigned ms = cdch_meta_size(col->type);
        const uint8_t *m = cdch_get_bytes(&meta, ms);
        if (!m)
            return ev_fail(x, &meta, err, "TABLE_MAP metadata ends before column %zu (%s)", i + 1,
                           cdch_field_type_name(col->type));
        col->meta = meta_read(col->type, m);
        cdch_coldef_finish(col);
    }
    if (cdch_cur_left(&meta) != 0)
        return ev_fail(x, &meta, err, "TABLE_MAP metadata block has %zu bytes more than its columns use",
                       cdch_cur_left(&meta));
    size_t nb = bitmap_bytes(tm->ncols);
    const uint8_t *nulls = cdch_get_bytes(c, nb);
    if (!nulls)
        return ev_fail(x, c, err, "TABLE_MAP event is truncated in its NULL bitmap");
    tm->null_bitmap = cdch_arena_memdup(x->a, nulls, nb);
    for (size_t i = 0; i < tm->ncols; i++)
        tm->cols[i].nullable = bit_get(nulls, i);

    /* optional metadata: count, then decode */
    size_t cap = cdch_cur_left(c) / 2 + 1;
    tm->opt = cdch_arena_alloc(x->a, cap * sizeof *tm->opt);
    while (cdch_cur_left(c) > 0) {
        uint8_t type = cdch_get_u8(c);
        uint64_t len = cdch_get_lenenc(c, &bad);
        if (bad || c->overrun || len > cdch_cur_left(c))
            return ev_fail(x, c, err, "TABLE_MAP optional metadata field %u overruns the event", type);
        cdch_cursor v = cdch_get_sub(c, (size_t)len);
        tm->opt[tm->n_opt].type = type;
        tm->opt[tm->n_opt].value = ev_bytes(v.p, (size_t)len);
        tm->n_opt++;
        if (apply_opt(x, tm, type, v, err) != 0)
            return -1;
    }
    return 0;
}

void ev_encode_table_map(const cdch_table_map *tm, cdch_buf *out)
{
    cdch_put_le48(out, tm->table_id);
    cdch_put_le16(out, tm->flags);
    cdch_put_u8(out, (uint8_t)tm->db.len);
    cdch_put_bytes(out, tm->db.ptr, tm->db.len);
    cdch_put_u8(out, 0);
    cdch_put_u8(out, (uint8_t)tm->table.len);
    cdch_put_bytes(out, tm->table.ptr, tm->table.len);
    cdch_put_u8(out, 0);
    cdch_put_lenenc(out, tm->ncols);
    size_t meta_len = 0;
    for (size_t i = 0; i < tm->ncols; i++) {
        cdch_put_u8(out, tm->cols[i].type);
        meta_len += cdch_meta_size(tm->cols[i].type);
    }
    cdch_put_lenenc(out, meta_len);
    for (size_t i = 0; i < tm->ncols; i++)
        meta_write(tm->cols[i].type, tm->cols[i].meta, out);
    size_t nb = bitmap_bytes(tm->ncols);
    if (tm->null_bitmap) {
        cdch_put_bytes(out, tm->null_bitmap, nb);
    } else {
        uint8_t *bm = cdch_buf_extend(out, nb);
        memset(bm, 0, nb);
        for (size_t i = 0; i < tm->ncols; i++)
            if (tm->cols[i].nullable)
                bm[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    for (size_t i = 0; i < tm->n_opt; i++) {
        cdch_put_u8(out, tm->opt[i].type);
        cdch_put_lenenc(out, tm->opt[i].value.len);
        cdch_put_bytes(out, tm->opt[i].value.ptr, tm->opt[i].value.len);
    }
}

/* ---- building optional metadata the way MySQL 8.0 writes it --------------- */

static void add_opt(cdch_table_map *tm, cdch_arena *a, uint8_t type, const cdch_buf *v, size_t *cap)
{
    if (tm->n_opt == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        cdch_opt_meta *n = cdch_arena_alloc(a, ncap * sizeof *n);
        if (tm->n_opt)
            memcpy(n, tm->opt, tm->n_opt * sizeof *n);
        tm->opt = n;
        *cap = ncap;
    }
    tm->opt[tm->n_opt].type = type;
    tm->opt[tm->n_opt].value = ev_bytes(cdch_arena_memdup(a, v->data, v->len), v->len);
    tm->n_opt++;
}

static void put_msb_bits(cdch_buf *b, const bool *bits, size_t n)
{
    uint8_t *p = cdch_buf_extend(b, bitmap_bytes(n));
    memset(p, 0, bitmap_bytes(n));
    for (size_t i = 0; i < n; i++)
        if (bits[i])
            p[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

/* DEFAULT_CHARSET vs COLUMN_CHARSET choice of Table_map_log_event::
 * init_charset_field: the most used collation becomes the default, and the
 * per-column form is used when it is shorter. */
static void add_charset_opt(cdch_table_map *tm, cdch_arena *a, bool enum_set, size_t *cap)
{
    size_t nchar = 0;
    uint32_t colls[4096];
    for (size_t i = 0; i < tm->ncols; i++) {
        const cdch_coldef *col = &tm->cols[i];
        if (enum_set ? is_enum_set(col) : is_character(col))
            colls[nchar++] = col->collation;
    }
    if (nchar == 0)
        return;
    uint32_t best = colls[0];
    size_t best_n = 0;
    for (size_t i = 0; i < nchar; i++) {
        size_t k = 0;
        for (size_t j = 0; j < nchar; j++)
            k += colls[j] == colls[i];
        if (k > best_n) {
            best_n = k;
            best = colls[i];
        }
    }
    cdch_buf v = CDCH_BUF_INIT;
    if (nchar < 1 + (nchar - best_n) * 2) {
        for (size_t i = 0; i < nchar; i++)
            cdch_put_lenenc(&v, colls[i]);
        add_opt(tm, a, enum_set ? CDCH_OPT_ENUM_AND_SET_COLUMN_CHARSET : CDCH_OPT_COLUMN_CHARSET, &v, cap);
    } else {
        cdch_put_lenenc(&v, best);
        for (size_t i = 0; i < nchar; i++) {
            if (colls[i] != best) {
                cdch_put_lenenc(&v, i);
                cdch_put_lenenc(&v, colls[i]);
            }
        }
        add_opt(tm, a, enum_set ? CDCH_OPT_ENUM_AND_SET_DEFAULT_CHARSET : CDCH_OPT_DEFAULT_CHARSET, &v, cap);
    }
    cdch_buf_free(&v);
}

static void add_labels_opt(cdch_table_map *tm, cdch_arena *a, uint8_t real_type, uint8_t opt, size_t *cap)
{
    cdch_buf v = CDCH_BUF_INIT;
    bool any = false;
    for (size_t i = 0; i < tm->ncols; i++) {
        const cdch_coldef *col = &tm->cols[i];
        if (col->real_type != real_type)
            continue;
        any = true;
        cdch_put_lenenc(&v, col->nlabels);
        for (size_t k = 0; k < col->nlabels; k++) {
            size_t len = strlen(col->labels[k]);
            cdch_put_lenenc(&v, len);
            cdch_put_bytes(&v, col->labels[k], len);
        }
    }
    if (any)
        add_opt(tm, a, opt, &v, cap);
    cdch_buf_free(&v);
}

void cdch_table_map_build_opt(cdch_table_map *tm, bool full, cdch_arena *a)
{
    size_t cap = 0;
    tm->n_opt = 0;
    tm->opt = NULL;
    cdch_buf v = CDCH_BUF_INIT;
    /* 1 SIGNEDNESS */
    bool bits[4096];
    size_t nnum = 0;
    for (size_t i = 0; i < tm->ncols; i++)
        if (is_numeric(&tm->cols[i]))
            bits[nnum++] = tm->cols[i].is_unsigned;
    if (nnum) {
        put_msb_bits(&v, bits, nnum);
        add_opt(tm, a, CDCH_OPT_SIGNEDNESS, &v, &cap);
    }
    /* 2|3 charset */
    add_charset_opt(tm, a, false, &cap);
    /* 7 GEOMETRY_TYPE (written even for MINIMAL by 8.0.39) */
    cdch_buf_reset(&v);
    bool geo = false;
    for (size_t i = 0; i < tm->ncols; i++)
        if (tm->cols[i].type == CDCH_T_GEOMETRY) {
            cdch_put_lenenc(&v, tm->cols[i].geometry_type);
            geo = true;
        }
    if (geo)
        add_opt(tm, a, CDCH_OPT_GEOMETRY_TYPE, &v, &cap);
    if (full) {
        /* 4 COLUMN_NAME */
        cdch_buf_reset(&v);
        for (size_t i = 0; i < tm->ncols; i++) {
            const char *nm = tm->cols[i].name ? tm->cols[i].name : "";
            cdch_put_lenenc(&v, strlen(nm));
            cdch_put_str(&v, nm);
        }
        add_opt(tm, a, CDCH_OPT_COLUMN_NAME, &v, &cap);
        /* 10|11 ENUM/SET charset, 5 SET strings, 6 ENUM strings */
        add_charset_opt(tm, a, true, &cap);
        add_labels_opt(tm, a, CDCH_T_SET, CDCH_OPT_SET_STR_VALUE, &cap);
        add_labels_opt(tm, a, CDCH_T_ENUM, CDCH_OPT_ENUM_STR_VALUE, &cap);
        /* 8|9 primary key */
        if (tm->n_pk) {
            bool prefix = false;
            for (size_t k = 0; k < tm->n_pk; k++)
                prefix |= tm->pk_prefix && tm->pk_prefix[k] != 0;
            cdch_buf_reset(&v);
            for (size_t k = 0; k < tm->n_pk; k++) {
                cdch_put_lenenc(&v, tm->pk_cols[k]);
                if (prefix)
                    cdch_put_lenenc(&v, tm->pk_prefix[k]);
            }
            add_opt(tm, a, prefix ? CDCH_OPT_PRIMARY_KEY_WITH_PREFIX : CDCH_OPT_SIMPLE_PRIMARY_KEY, &v, &cap);
        }
        /* 12 COLUMN_VISIBILITY */
        if (tm->visible) {
            cdch_buf_reset(&v);
            put_msb_bits(&v, tm->visible, tm->ncols);
            add_opt(tm, a, CDCH_OPT_COLUMN_VISIBILITY, &v, &cap);
        }
    }
    cdch_buf_free(&v);
}
