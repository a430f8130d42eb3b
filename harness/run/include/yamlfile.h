/* yamlfile.h — load one YAML file into a libyaml document, for the runner's
 * small configuration files (manifests, matrix files, the watermark copy),
 * and the two node helpers their readers share.
 *
 * Owns: nothing; the caller owns the document (yaml_document_delete).
 * Errors: "PATH: cannot open: ..." or "PATH:LINE:COL: <libyaml's problem>".
 */
#ifndef CDCH_YAMLFILE_H
#define CDCH_YAMLFILE_H

#include <yaml.h>

#include "err.h"

int cdch_yaml_load_file(const char *path, yaml_document_t *doc, cdch_err *err);

/* A scalar node's text; NULL for any other node or none. */
const char *cdch_yaml_scalar(const yaml_node_t *n);

/* Set "PATH:LINE:COL: MSG" (the position of n, 1:1 when n is NULL), MSG
 * being fmt with arg ("" when NULL) for its one %s; returns -1. */
int cdch_yaml_fail(cdch_err *err, const char *path, const yaml_node_t *n, const char *fmt, const char *arg);

#endif
