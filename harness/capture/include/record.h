/* record.h — `cdcharness record`: capture a binlog stream from a real MySQL
 * 8.0.20+ / 8.4 / 9.x primary (as a replica: COM_REGISTER_SLAVE and
 * COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID through MariaDB Connector/C), or
 * take binlog files from disk, into a capture directory:
 *
 *   <name>.000001 ...  the binlog files as received: each starts with the
 *                      magic and the FDE; events byte for byte as the server
 *                      sent them (rotations, checksums); fake ROTATE events
 *                      and heartbeats are not written (as a relay log or
 *                      `mysqlbinlog --raw`)
 *   <base>.index       the files in order ("./<name>" lines)
 *   capture.json       server, start, end reached, bytes, events, files,
 *                      tables, the command-line options (never the password)
 *   schema.sql         SHOW CREATE DATABASE / TABLE, as of the start, of
 *                      every table the range touches (TABLE_MAP events,
 *                      inside compressed payloads too)
 *
 * The directory is written atomically (a temporary sibling renamed into
 * place). Lives in harness/run/ until the capture module exists.
 *
 * Owns: nothing across calls; every call frees what it allocated.
 */
#ifndef CDCH_RECORD_H
#define CDCH_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* --ssl-mode, as MySQL's clients name them. */
typedef enum {
    CDCH_SSL_PREFERRED = 0, /* TLS when the server offers it (default) */
    CDCH_SSL_DISABLED,
    CDCH_SSL_REQUIRED,        /* TLS, certificate not checked */
    CDCH_SSL_VERIFY_CA,       /* TLS, chain checked against --ssl-ca */
    CDCH_SSL_VERIFY_IDENTITY, /* ... and the host name */
} cdch_ssl_mode;

/* Parse "DISABLED", "preferred", ... (case-insensitive); -1 when unknown. */
int cdch_ssl_mode_parse(const char *s);

typedef struct cdch_record_opts {
    const char *host;       /* default 127.0.0.1 */
    unsigned port;          /* default 3306 */
    const char *user;       /* required */
    const char *password;   /* "" = none; never written anywhere */
    cdch_ssl_mode ssl_mode;
    const char *ssl_ca;     /* PEM file (VERIFY_CA / VERIFY_IDENTITY) */
    uint32_t server_id;     /* the replica id we register with (non-zero) */
    /* start: a file and position, or a GTID set (COM_BINLOG_DUMP_GTID) */
    const char *start_file; /* NULL with gtid_set */
    uint64_t start_pos;
    const char *gtid_set;   /* NULL: position start; "" = the empty set */
    /* bounds (at least one): */
    const char *stop_file;  /* --stop FILE:POS: POS must be the end of an event */
    uint64_t stop_pos;
    uint64_t max_bytes;     /* 0: none; else stop at the first transaction boundary past N bytes */
    double duration_s;      /* 0: none; else ... past S seconds */
    bool until_end;         /* the end of the log when the capture starts (non-blocking dump) */
    int retries;            /* reconnects after a dropped connection (default 3) */
    double net_timeout_s;   /* read timeout: no packet (not even a heartbeat) for this long = dropped */
    const char *out_dir;
    const char *options_json; /* a JSON array of the command-line options (password removed) */
    bool progress;          /* bytes / events / rate on stderr (a terminal) */
    bool tables_touched;    /* schema.sql: only the tables the range maps (every payload decompressed
                             * to find them); false: every table of the start schema */
} cdch_record_opts;

/* What a capture reached (filled on success and on failure). */
typedef struct cdch_record_result {
    uint64_t bytes;         /* event bytes written (magic excluded) */
    uint64_t events;
    uint64_t files;
    unsigned reconnects;
    char end_file[512];     /* the last complete event's file and end position */
    uint64_t end_pos;
    double seconds;
    bool written;           /* the capture directory exists (possibly incomplete: see capture.json) */
} cdch_record_result;

/* Record from a server. 0 when the bound was reached and the capture is
 * in place; -1 with err set otherwise (a capture with "complete": false
 * and the error in capture.json is put in place when any event arrived, so
 * it can be inspected: it is never silently short). */
int cdch_record(const cdch_record_opts *o, cdch_record_result *res, cdch_err *err);

/* Stop a running cdch_record at the next packet (a signal handler may call it):
 * the capture is written with "complete": false. */
void cdch_record_interrupt(void);

/* Validate binlog files from disk (magic, framing, FDE first, checksums)
 * and copy them into a capture directory. schema_sql: a file copied as
 * schema.sql, or NULL (no schema.sql; capture.json says so). tables_touched:
 * list the tables the files map in capture.json (payloads decompressed). */
int cdch_record_files(const char *const *files, size_t nfiles, const char *schema_sql, bool tables_touched,
                      const char *out_dir, const char *options_json, cdch_record_result *res, cdch_err *err);

#endif
