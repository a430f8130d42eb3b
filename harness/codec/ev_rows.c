/* ev_rows.c — WRITE/UPDATE/DELETE_ROWS v2 and PARTIAL_UPDATE_ROWS bodies. */
#include <string.h>

#include "event_internal.h"

static bool has_before(uint8_t type) { return type != CDCH_EV_WRITE_ROWS; }
static bool has_after(uint8_t type) { return type != CDCH_EV_DELETE_ROWS; }

static size_t json_col_count(const cdch_table_map *tm, size_t ncols)
{
    size_t n = 0;
    for (size_t i = 0; i < ncols; i++)
        n += tm->cols[i].type == CDCH_T_JSON;
    return n;
}

/* Index of column i among the table's JSON columns. */
static size_t json_index(const cdch_table_map *tm, size_t i)
{
    size_t k = 0;
    for (size_t j = 0; j < i; j++)
        k += tm->cols[j].type == CDCH_T_JSON;
    return k;
}

static int decode_image(const ev_dctx *x, cdch_cursor *c, const cdch_table_map *tm, size_t ncols,
                        const uint8_t *present, const uint8_t *partial, cdch_value **out, cdch_err *err)
{
    size_t npresent = bitmap_count(present, ncols);
    const uint8_t *nulls = cdch_get_bytes(c, bitmap_bytes(npresent));
    if (!nulls)
        return ev_fail(x, c, err, "row image is truncated in its NULL bitmap");
    cdch_value *vals = cdch_arena_alloc(x->a, (ncols ? ncols : 1) * sizeof *vals);
    size_t k = 0;
    for (size_t i = 0; i < ncols; i++) {
        if (!bit_get(present, i)) {
            vals[i].kind = CDCH_V_ABSENT;
            continue;
        }
        if (bit_get(nulls, k++)) {
            vals[i].kind = CDCH_V_NULL;
            continue;
        }
        const cdch_coldef *col = &tm->cols[i];
        const uint8_t *at = c->p;
        int rc;
        if (partial && col->type == CDCH_T_JSON && bit_get(partial, json_index(tm, i))) {
            vals[i].kind = CDCH_V_JSON_DIFF;
            rc = cdch_json_diff_decode(c, x->a, &vals[i].u.diff, err);
        } else {
            rc = cdch_value_decode(col, c, x->a, &vals[i], err);
        }
        if (rc != 0) {
            cdch_cursor here = *c;
            here.p = at;
            return ev_fail(x, &here, err, "column %zu (%s%s%s): %s", i + 1, col->name ? "`" : "",
                           col->name ? col->name : cdch_field_type_name(col->type), col->name ? "`" : "",
                           err->msg);
        }
        if (c->overrun) {
            cdch_cursor here = *c;
            here.p = at;
            return ev_fail(x, &here, err, "row image is truncated in column %zu (%s)", i + 1,
                           cdch_field_type_name(col->type));
        }
    }
    *out = vals;
    return 0;
}

int ev_decode_rows(const ev_dctx *x, uint8_t type, cdch_cursor *c, cdch_rows *r, cdch_err *err)
{
    memset(r, 0, sizeof *r);
    unsigned phl = ev_post_header_len(x->fde, type);
    r->table_id = phl == 6 ? cdch_get_le32(c) : cdch_get_le48(c);
    r->flags = cdch_get_le16(c);
    if (phl == 10) {
        uint16_t extra_len = cdch_get_le16(c);
        if (!c->overrun && extra_len < 2)
            return ev_fail(x, c, err, "rows event extra-data length %u is below 2", extra_len);
        r->extra = ev_bytes(cdch_get_bytes(c, extra_len - 2u), extra_len - 2u);
    }
    bool bad = false;
    uint64_t ncols = cdch_get_lenenc(c, &bad);
    if (c->overrun || bad)
        return ev_fail(x, c, err, "%s event is truncated before its column count", cdch_event_type_name(type));
    const cdch_table_map *tm = cdch_decoder_table(x->d, r->table_id);
    if (!tm)
        return ev_fail(x, c, err, "%s event for table id %llu has no preceding TABLE_MAP event",
                       cdch_event_type_name(type), (unsigned long long)r->table_id);
    if (ncols > tm->ncols)
        return ev_fail(x, c, err, "%s event has %llu columns but the table map of `%.*s`.`%.*s` has %zu",
                       cdch_event_type_name(type), (unsigned long long)ncols, (int)tm->db.len,
                       (const char *)tm->db.ptr, (int)tm->table.len, (const char *)tm->table.ptr, tm->ncols);
    r->tm = tm;
    r->ncols = (size_t)ncols;
    size_t nb = bitmap_bytes(r->ncols);
    const uint8_t *first = cdch_get_bytes(c, nb);
    const uint8_t *second = (type == CDCH_EV_UPDATE_ROWS || type == CDCH_EV_PARTIAL_UPDATE_ROWS)
                                ? cdch_get_bytes(c, nb)
                                : NULL;
    if (c->overrun)
        return ev_fail(x, c, err, "%s event is truncated in its column bitmaps", cdch_event_type_name(type));
    if (type == CDCH_EV_WRITE_ROWS) {
        r->cols_after = cdch_arena_memdup(x->a, first, nb);
    } else {
        r->cols_before = cdch_arena_memdup(x->a, first, nb);
        if (second)
            r->cols_after = cdch_arena_memdup(x->a, second, nb);
    }
    size_t njson = json_col_count(tm, r->ncols);
    /* rows: grow an array in the arena */
    size_t cap = 4;
    r->rows = cdch_arena_alloc(x->a, cap * sizeof *r->rows);
    while (cdch_cur_left(c) > 0) {
        if (r->nrows == cap) {
            cdch_row *n = cdch_arena_alloc(x->a, cap * 2 * sizeof *n);
            memcpy(n, r->rows, cap * sizeof *n);
            r->rows = n;
            cap *= 2;
        }
        cdch_row *row = &r->rows[r->nrows];
        const uint8_t *row_start = c->p;
        if (has_before(type) && decode_image(x, c, tm, r->ncols, r->cols_before, NULL, &row->before, err) != 0)
            return -1;
        if (type == CDCH_EV_PARTIAL_UPDATE_ROWS) {
            row->value_options = cdch_get_lenenc(c, &bad);
            if (bad || c->overrun)
                return ev_fail(x, c, err, "PARTIAL_UPDATE_ROWS value_options is malformed");
            if (row->value_options & 1) {
                const uint8_t *pb = cdch_get_bytes(c, bitmap_bytes(njson));
                if (!pb)
                    return ev_fail(x, c, err, "PARTIAL_UPDATE_ROWS partial-JSON bitmap is truncated");
                row->partial_bits = cdch_arena_memdup(x->a, pb, bitmap_bytes(njson));
            }
        }
        if (has_after(type) &&
            decode_image(x, c, tm, r->ncols, r->cols_after, row->partial_bits, &row->after, err) != 0)
            return -1;
        if (c->p == row_start)
            return ev_fail(x, c, err, "%s event has %zu bytes left but its row images select no column",
                           cdch_event_type_name(type), cdch_cur_left(c));
        r->nrows++;
    }
    return 0;
}

static int encode_image(const cdch_table_map *tm, size_t ncols, const uint8_t *present, const uint8_t *partial,
                        const cdch_value *vals, cdch_buf *out, cdch_err *err)
{
    size_t npresent = bitmap_count(present, ncols);
    size_t nb = bitmap_bytes(npresent);
    size_t at = out->len;
    cdch_put_zero(out, nb);
    size_t k = 0;
    for (size_t i = 0; i < ncols; i++) {
        if (!bit_get(present, i))
            continue;
        const cdch_value *v = &vals[i];
        if (v->kind == CDCH_V_NULL || v->kind == CDCH_V_ABSENT) {
            if (v->kind == CDCH_V_ABSENT)
                return cdch_err_set(err, "column %zu is in the image bitmap but has no value", i + 1);
            out->data[at + k / 8] |= (uint8_t)(1u << (k % 8));
            k++;
            continue;
        }
        k++;
        const cdch_coldef *col = &tm->cols[i];
        if (v->kind == CDCH_V_JSON_DIFF) {
            if (!partial || col->type != CDCH_T_JSON || !bit_get(partial, json_index(tm, i)))
                return cdch_err_set(err, "column %zu has a JSON diff but is not marked partial", i + 1);
            cdch_json_diff_encode(&v->u.diff, out);
            continue;
        }
        if (cdch_value_encode(col, v, out, err) != 0)
            return cdch_err_wrap(err, "column %zu (%s)", i + 1, col->name ? col->name : cdch_field_type_name(col->type));
    }
    return 0;
}

int cdch_rows_encode_head(uint8_t type, const cdch_rows *r, cdch_buf *out, cdch_err *err)
{
    const cdch_table_map *tm = r->tm;
    if (!tm)
        return cdch_err_set(err, "rows event has no table map to encode its values with");
    if (r->ncols > tm->ncols)
        return cdch_err_set(err, "rows event has %zu columns but its table map has %zu", r->ncols, tm->ncols);
    cdch_put_le48(out, r->table_id);
    cdch_put_le16(out, r->flags);
    cdch_put_le16(out, (uint16_t)(r->extra.len + 2));
    cdch_put_bytes(out, r->extra.ptr, r->extra.len);
    cdch_put_lenenc(out, r->ncols);
    size_t nb = bitmap_bytes(r->ncols);
    if (has_before(type))
        cdch_put_bytes(out, r->cols_before, nb);
    if (has_after(type))
        cdch_put_bytes(out, r->cols_after, nb);
    return 0;
}

int cdch_rows_encode_row(uint8_t type, const cdch_rows *r, const cdch_row *row, cdch_buf *out, cdch_err *err)
{
    const cdch_table_map *tm = r->tm;
    if (has_before(type) && encode_image(tm, r->ncols, r->cols_before, NULL, row->before, out, err) != 0)
        return cdch_err_wrap(err, "before image");
    if (type == CDCH_EV_PARTIAL_UPDATE_ROWS) {
        cdch_put_lenenc(out, row->value_options);
        if (row->value_options & 1)
            cdch_put_bytes(out, row->partial_bits, bitmap_bytes(json_col_count(tm, r->ncols)));
    }
    if (has_after(type) && encode_image(tm, r->ncols, r->cols_after, row->partial_bits, row->after, out, err) != 0)
        return cdch_err_wrap(err, "after image");
    return 0;
}

int ev_encode_rows(uint8_t type, const cdch_rows *r, cdch_buf *out, cdch_err *err)
{
    if (cdch_rows_encode_head(type, r, out, err) != 0)
        return -1;
    for (size_t i = 0; i < r->nrows; i++)
        if (cdch_rows_encode_row(type, r, &r->rows[i], out, err) != 0)
            return cdch_err_wrap(err, "row %zu", i + 1);
    return 0;
}
