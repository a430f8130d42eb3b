/* watermark.c — append the watermark table and insert to a scenario (libyaml document API). */
#include "watermark.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "yamlfile.h"

static int scalar(yaml_document_t *d, const char *s)
{
    return yaml_document_add_scalar(d, NULL, (yaml_char_t *)s, (int)strlen(s), YAML_PLAIN_SCALAR_STYLE);
}

static int pair(yaml_document_t *d, int map, const char *k, int v)
{
    return yaml_document_append_mapping_pair(d, map, scalar(d, k), v) ? 0 : -1;
}

static int find_key(yaml_document_t *d, yaml_node_t *root, const char *key)
{
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
            return p->value;
    }
    return 0;
}

static int write_handler(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, (FILE *)data) == size;
}

int cdch_watermark_write(const char *path, const char *db, const char *out_path, cdch_err *err)
{
    yaml_document_t doc;
    if (cdch_yaml_load_file(path, &doc, err) != 0)
        return -1;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        yaml_document_delete(&doc);
        return cdch_err_set(err, "%s: not a scenario mapping", path);
    }
    int rootid = 1; /* libyaml numbers nodes from 1; the root is the first */
    int tables = find_key(&doc, root, "tables");
    int txns = find_key(&doc, root, "transactions");
    yaml_node_t *tn = tables ? yaml_document_get_node(&doc, tables) : NULL;
    if (!tn || tn->type != YAML_SEQUENCE_NODE) {
        yaml_document_delete(&doc);
        return cdch_err_set(err, "%s: no 'tables' list to add the watermark table to", path);
    }
    char full[512];
    snprintf(full, sizeof full, "%s.%s", db, CDCH_WATERMARK_TABLE);
    /* {name: db.cdch_watermark, engine: MyISAM, columns: [{name: id, type: int, primary_key: true}]} */
    int col = yaml_document_add_mapping(&doc, NULL, YAML_FLOW_MAPPING_STYLE);
    int rc = pair(&doc, col, "name", scalar(&doc, "id")) | pair(&doc, col, "type", scalar(&doc, "int")) |
             pair(&doc, col, "primary_key", scalar(&doc, "true"));
    /* a column with TABLE_MAP metadata: libmariadb's mariadb_rpl_extract_rows refuses rows of a
     * table whose map has none ("Missing table map metadata"), which an INT-only table has */
    int col2 = yaml_document_add_mapping(&doc, NULL, YAML_FLOW_MAPPING_STYLE);
    rc |= pair(&doc, col2, "name", scalar(&doc, "mark")) | pair(&doc, col2, "type", scalar(&doc, "varchar(16)"));
    int cols = yaml_document_add_sequence(&doc, NULL, YAML_BLOCK_SEQUENCE_STYLE);
    yaml_document_append_sequence_item(&doc, cols, col);
    yaml_document_append_sequence_item(&doc, cols, col2);
    int tab = yaml_document_add_mapping(&doc, NULL, YAML_BLOCK_MAPPING_STYLE);
    rc |= pair(&doc, tab, "name", scalar(&doc, full)) | pair(&doc, tab, "engine", scalar(&doc, "MyISAM")) |
          pair(&doc, tab, "columns", cols);
    yaml_document_append_sequence_item(&doc, tables, tab);
    /* - insert: {table: db.cdch_watermark, rows: [{id: 1}]} */
    int row = yaml_document_add_mapping(&doc, NULL, YAML_FLOW_MAPPING_STYLE);
    rc |= pair(&doc, row, "id", scalar(&doc, "1")) | pair(&doc, row, "mark", scalar(&doc, "end"));
    int rows = yaml_document_add_sequence(&doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
    yaml_document_append_sequence_item(&doc, rows, row);
    int ins = yaml_document_add_mapping(&doc, NULL, YAML_FLOW_MAPPING_STYLE);
    rc |= pair(&doc, ins, "table", scalar(&doc, full)) | pair(&doc, ins, "rows", rows);
    int item = yaml_document_add_mapping(&doc, NULL, YAML_BLOCK_MAPPING_STYLE);
    rc |= pair(&doc, item, "insert", ins);
    if (!txns) {
        txns = yaml_document_add_sequence(&doc, NULL, YAML_BLOCK_SEQUENCE_STYLE);
        rc |= pair(&doc, rootid, "transactions", txns);
    }
    yaml_node_t *xn = yaml_document_get_node(&doc, txns);
    if (!xn || xn->type != YAML_SEQUENCE_NODE || rc != 0) {
        yaml_document_delete(&doc);
        return cdch_err_set(err, "%s: 'transactions' is not a list", path);
    }
    yaml_document_append_sequence_item(&doc, txns, item);
    FILE *out = fopen(out_path, "wb");
    if (!out) {
        yaml_document_delete(&doc);
        return cdch_err_set(err, "cannot write %s: %s", out_path, strerror(errno));
    }
    int ok;
    yaml_emitter_t em;
    yaml_emitter_initialize(&em);
    yaml_emitter_set_output(&em, write_handler, out);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    if (!yaml_emitter_open(&em)) {
        yaml_document_delete(&doc);
        ok = 0;
    } else {
        ok = yaml_emitter_dump(&em, &doc) && yaml_emitter_close(&em); /* dump frees doc, even on failure */
    }
    yaml_emitter_delete(&em);
    if (fclose(out) != 0)
        ok = 0;
    if (!ok)
        return cdch_err_set(err, "cannot write the watermarked copy of %s to %s", path, out_path);
    return 0;
}
