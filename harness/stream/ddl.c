#include "ddl.h"

#include <string.h>

void cdch_ddl_quote(const char *name, cdch_buf *out)
{
    cdch_put_u8(out, '`');
    for (const char *p = name; *p; p++) {
        if (*p == '`')
            cdch_put_u8(out, '`');
        cdch_put_u8(out, (uint8_t)*p);
    }
    cdch_put_u8(out, '`');
}

void cdch_ddl_create_database(const cdch_sc_database *db, cdch_buf *out)
{
    cdch_put_str(out, "CREATE DATABASE ");
    cdch_ddl_quote(db->name, out);
    cdch_buf_printf(out, " /*!40100 DEFAULT CHARACTER SET %s COLLATE %s */ /*!80016 DEFAULT ENCRYPTION='N' */",
                    db->charset ? db->charset : "utf8mb4", db->collation ? db->collation : "utf8mb4_0900_ai_ci");
}

static bool is_text_type(const cdch_sc_column *c)
{
    return c->charset != NULL && strcmp(c->charset, "binary") != 0;
}

void cdch_ddl_create_table(const cdch_sc_table *t, cdch_buf *out)
{
    cdch_put_str(out, "CREATE TABLE ");
    cdch_ddl_quote(t->name, out);
    cdch_put_str(out, " (\n");
    size_t npk = 0;
    for (size_t i = 0; i < t->ncols; i++) {
        const cdch_sc_column *c = &t->cols[i];
        cdch_put_str(out, "  ");
        cdch_ddl_quote(c->name, out);
        cdch_put_u8(out, ' ');
        cdch_put_str(out, c->sql_type);
        if (is_text_type(c) && c->def.real_type != CDCH_T_ENUM && c->def.real_type != CDCH_T_SET &&
            c->def.type != CDCH_T_JSON) {
            if (c->collation && strcmp(c->collation, "utf8mb4_0900_ai_ci") != 0)
                cdch_buf_printf(out, " CHARACTER SET %s COLLATE %s", c->charset, c->collation);
        }
        if (!c->def.nullable)
            cdch_put_str(out, " NOT NULL");
        else if (!c->default_sql && c->def.type != CDCH_T_BLOB && c->def.type != CDCH_T_JSON &&
                 c->def.type != CDCH_T_GEOMETRY)
            cdch_put_str(out, " DEFAULT NULL");
        if (c->default_sql)
            cdch_buf_printf(out, " DEFAULT %s", c->default_sql);
        if (c->auto_increment)
            cdch_put_str(out, " AUTO_INCREMENT");
        if (c->invisible)
            cdch_put_str(out, " /*!80023 INVISIBLE */");
        npk += c->primary_key;
        cdch_put_str(out, i + 1 < t->ncols ? ",\n" : "");
    }
    if (npk) {
        cdch_put_str(out, ",\n  PRIMARY KEY (");
        size_t k = 0;
        for (size_t i = 0; i < t->ncols; i++) {
            if (!t->cols[i].primary_key)
                continue;
            if (k++)
                cdch_put_u8(out, ',');
            cdch_ddl_quote(t->cols[i].name, out);
        }
        cdch_put_u8(out, ')');
    }
    cdch_buf_printf(out, "\n) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci",
                    t->engine ? t->engine : "InnoDB");
}
