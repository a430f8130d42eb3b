/* record_files.c — `cdcharness record --from-files`: binlog files from disk
 * (a copy of a primary's binlog directory, or `mysqlbinlog --raw` output)
 * validated (magic, framing, an FDE first, CRC32 checksums when the FDE
 * announces them) and copied into the capture layout of record.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "jsonstr.h"
#include "reader.h"
#include "record_internal.h"
#include "sys.h"

/* Copy one file into the capture, checking it on the way. */
static int copy_file(rec_capture *cap, const char *path, cdch_err *err)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    for (size_t i = 0; i < cap->nfiles; i++)
        if (strcmp(cap->names[i], name) == 0)
            return cdch_err_set(err, "%s: a file named %s is already in the capture (two inputs with one name)",
                                path, name);
    cdch_reader *rd = cdch_reader_open(path, 0, err);
    if (!rd)
        return -1;
    int rc = rec_cap_file(cap, name, err);
    uint8_t alg = CDCH_CHECKSUM_UNDEF;
    cdch_raw_event ev;
    int got = 0;
    while (rc == 0 && (got = cdch_reader_next(rd, &ev, err)) == 1) {
        if (cap->cur_size == CDCH_BINLOG_MAGIC_LEN && ev.type != CDCH_EV_FORMAT_DESCRIPTION) {
            rc = cdch_err_set(err, "%s: the first event (type %u) is not a FORMAT_DESCRIPTION: not a binlog file as "
                                   "MySQL or `mysqlbinlog --raw` writes it",
                              path, ev.type);
            break;
        }
        if (ev.type == CDCH_EV_FORMAT_DESCRIPTION)
            alg = rec_fde_checksum_alg(ev.data, ev.len);
        if (alg == CDCH_CHECKSUM_CRC32 && !rec_crc_ok(ev.data, ev.len)) {
            rc = cdch_err_set(err, "%s: the event at offset %" PRIu64 " (type %u) has a bad CRC32 checksum", path,
                              ev.offset, ev.type);
            break;
        }
        if (rec_cap_event(cap, ev.data, ev.len, err) != 0)
            rc = cdch_err_wrap(err, "%s", path);
    }
    if (rc == 0 && got < 0)
        rc = cdch_err_wrap(err, "%s (a binlog copied while the server wrote it may end in a partial event: copy "
                                "it again, or use `cdcharness record` against the server)",
                           path);
    if (rc == 0 && cap->cur_size == CDCH_BINLOG_MAGIC_LEN)
        rc = cdch_err_set(err, "%s: no events after the magic number", path);
    cdch_reader_free(rd);
    return rc;
}

int cdch_record_files(const char *const *files, size_t nfiles, const char *schema_sql, bool tables_touched,
                      const char *out_dir, const char *options_json, cdch_record_result *res, cdch_err *err)
{
    memset(res, 0, sizeof *res);
    uint64_t t0 = cdch_now_ns();
    char *schema = NULL;
    if (schema_sql && !(schema = cdch_read_file(schema_sql, 0, NULL, err)))
        return cdch_err_wrap(err, "--schema");
    rec_capture cap;
    if (rec_cap_begin(&cap, out_dir, err) != 0) {
        free(schema);
        return -1;
    }
    cap.scan_tables = tables_touched;
    for (size_t i = 0; i < nfiles; i++)
        if (copy_file(&cap, files[i], err) != 0) {
            rec_cap_abort(&cap);
            free(schema);
            return -1;
        }
    res->bytes = cap.bytes;
    res->events = cap.events;
    res->files = cap.nfiles;
    snprintf(res->end_file, sizeof res->end_file, "%s", cap.names[cap.nfiles - 1]);
    res->end_pos = cap.cur_size;
    cdch_buf f = CDCH_BUF_INIT;
    cdch_put_str(&f, "\"format\":1,\"source\":\"files\",\"complete\":true,\"error\":null,\"inputs\":[");
    for (size_t i = 0; i < nfiles; i++) {
        if (i)
            cdch_put_u8(&f, ',');
        cdch_put_json_str(&f, files[i], strlen(files[i]), 0);
    }
    cdch_put_str(&f, "],\"end\":{\"file\":");
    cdch_put_json_str(&f, res->end_file, strlen(res->end_file), 0);
    cdch_buf_printf(&f, ",\"pos\":%" PRIu64 "}", res->end_pos);
    if (schema)
        cdch_put_str(&f, ",\"schema\":\"schema.sql\",\"schema_as_of\":\"given (--schema)\"");
    else
        cdch_put_str(&f, ",\"schema\":null,\"schema_note\":\"no --schema given: no schema.sql; consumers that "
                         "read the catalogue get no table definitions from a replay of this capture\"");
    cdch_put_str(&f, ",\"options\":");
    cdch_put_str(&f, options_json ? options_json : "[]");
    int rc = rec_cap_finish(&cap, cdch_buf_cstr(&f), schema, NULL, NULL, err);
    cdch_buf_free(&f);
    free(schema);
    res->written = rc == 0;
    res->seconds = (double)(cdch_now_ns() - t0) / 1e9;
    return rc;
}
