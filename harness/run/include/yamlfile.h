/* yamlfile.h — load one YAML file into a libyaml document, for the runner's
 * small configuration files (manifests, matrix files, the watermark copy).
 *
 * Owns: nothing; the caller owns the document (yaml_document_delete).
 * Errors: "PATH: cannot open: ..." or "PATH:LINE:COL: <libyaml's problem>".
 */
#ifndef CDCH_YAMLFILE_H
#define CDCH_YAMLFILE_H

#include <yaml.h>

#include "err.h"

int cdch_yaml_load_file(const char *path, yaml_document_t *doc, cdch_err *err);

#endif
