/* yamlfile.c — one YAML file -> a libyaml document; node helpers. */
#include "yamlfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int cdch_yaml_load_file(const char *path, yaml_document_t *doc, cdch_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cdch_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    int rc = 0;
    if (!yaml_parser_load(&parser, doc))
        rc = cdch_err_set(err, "%s:%lu:%lu: %s", path, (unsigned long)parser.problem_mark.line + 1,
                          (unsigned long)parser.problem_mark.column + 1,
                          parser.problem ? parser.problem : "invalid YAML");
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

const char *cdch_yaml_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int cdch_yaml_fail(cdch_err *err, const char *path, const yaml_node_t *n, const char *fmt, const char *arg)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg ? arg : "");
    return cdch_err_set(err, "%s:%lu:%lu: %s", path, n ? (unsigned long)n->start_mark.line + 1 : 1ul,
                        n ? (unsigned long)n->start_mark.column + 1 : 1ul, msg);
}
