/* report_internal.h — escaping shared by the report writers.
 *
 * Owns: nothing. Invalid UTF-8 (stderr of adapters may hold anything) is
 * replaced by U+FFFD in JSON and XML, control characters XML cannot hold
 * are dropped.
 */
#ifndef CDCH_REPORT_INTERNAL_H
#define CDCH_REPORT_INTERNAL_H

#include <stdio.h>

void rep_json_str(FILE *f, const char *s);   /* quoted JSON string; NULL -> null */
void rep_xml_text(FILE *f, const char *s);   /* escaped for text and attribute values */
void rep_md_cell(FILE *f, const char *s, size_t max); /* one Markdown table cell ('|' escaped, no newlines) */
const char *rep_consumer(const char *family, const char *version, char *buf, size_t n); /* "family@version" */

#endif
