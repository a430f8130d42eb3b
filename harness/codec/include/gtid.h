/* gtid.h — GTIDs and GTID sets: binary encodings (PREVIOUS_GTIDS body,
 * COM_BINLOG_DUMP_GTID payload; untagged 8.0 and tagged 8.3+/9.x formats),
 * the text form ("uuid:1-5:7,uuid:tag:1-3"), set operations the fake
 * primary needs, and the body of the 8.3+/9.x GTID_TAGGED event (type 42).
 *
 * Owns: nothing beyond what it allocates in the caller's arena (sets built
 * by the decoders/parsers live there).
 */
#ifndef CDCH_GTID_H
#define CDCH_GTID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "cursor.h"
#include "err.h"

#define CDCH_GTID_TAG_MAX 32

typedef struct cdch_gtid_interval {
    int64_t start; /* first GNO in the interval */
    int64_t end;   /* one past the last GNO (exclusive, as in the binary form) */
} cdch_gtid_interval;

typedef struct cdch_gtid_sid {
    uint8_t uuid[16];
    char tag[CDCH_GTID_TAG_MAX + 1]; /* "" when untagged */
    size_t n_intervals;
    cdch_gtid_interval *intervals; /* sorted, non-overlapping, non-adjacent */
    size_t cap_intervals; /* slots allocated in intervals; 0 = exactly n_intervals
                           * (only cdch_gtid_set_add/parse grow it geometrically) */
} cdch_gtid_sid;

typedef struct cdch_gtid_set {
    size_t n_sids;
    cdch_gtid_sid *sids;
    bool tagged_format; /* decoded from / to be encoded in the 8.3+ tagged format */
    size_t cap_sids;    /* slots allocated in sids; 0 = exactly n_sids */
} cdch_gtid_set;

/* Binary (Gtid_set::encode): untagged = n_sids u64, per sid uuid[16],
 * n_intervals u64, (start u64, end u64)*. The tagged format is selected by
 * a marker in the first 8 bytes (see gtid.c for the exact layout). The
 * decoder reads from c and advances past the set. */
int cdch_gtid_set_decode(cdch_cursor *c, cdch_arena *a, cdch_gtid_set *out, cdch_err *err);
void cdch_gtid_set_encode(const cdch_gtid_set *s, cdch_buf *out);
size_t cdch_gtid_set_encoded_size(const cdch_gtid_set *s);

/* Text form as MySQL prints gtid_executed: "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,..."
 * (tagged: "uuid:tag:1-5"); empty set = "". Parsing accepts whitespace
 * after commas and merges/sorts intervals; errors name the offending part. */
void cdch_gtid_set_to_text(const cdch_gtid_set *s, cdch_buf *out);
int cdch_gtid_set_parse(const char *text, cdch_arena *a, cdch_gtid_set *out, cdch_err *err);

/* Membership and insertion (used to skip already-executed transactions
 * and to maintain gtid_executed while generating). */
bool cdch_gtid_set_contains(const cdch_gtid_set *s, const uint8_t uuid[16], const char *tag, int64_t gno);
void cdch_gtid_set_add(cdch_gtid_set *s, cdch_arena *a, const uint8_t uuid[16], const char *tag, int64_t gno);

/* UUID text <-> bytes ("3e11fa47-71ca-11e1-9e33-c80aa9429562"). */
int cdch_uuid_parse(const char *text, uint8_t out[16]);
void cdch_uuid_format(const uint8_t uuid[16], char out[37]);

/* ---- GTID_TAGGED_LOG_EVENT (type 42) body ----
 * 8.3+ writes GTID events with a tag in the mysql::serialization format
 * (variable-length integers, field ids). cdch_gtid_ev is shared with the
 * classic GTID/ANONYMOUS_GTID events (event.h). */
typedef struct cdch_gtid_ev {
    uint8_t gtid_flags;         /* bit0 FLAG_MAY_HAVE_SBR */
    uint8_t sid[16];
    int64_t gno;
    char tag[CDCH_GTID_TAG_MAX + 1];
    uint8_t lt_type;            /* logical timestamp typecode (2) */
    int64_t last_committed;
    int64_t sequence_number;
    uint64_t immediate_commit_ts;
    uint64_t original_commit_ts;
    uint64_t transaction_length;
    uint32_t immediate_server_version;
    uint32_t original_server_version;
    uint64_t commit_group_ticket; /* 0 = absent */
    /* Classic (33/34) layout details needed to re-encode old/short events
     * byte for byte: how many optional trailing parts were present. */
    uint8_t classic_parts; /* 0: up to GNO only (5.6); 1: +logical ts; 2: +commit ts;
                            * 3: +transaction_length; 4: +server versions (8.0 full) */
} cdch_gtid_ev;

int cdch_gtid_tagged_decode(cdch_cursor *body, cdch_gtid_ev *out, cdch_err *err);
void cdch_gtid_tagged_encode(const cdch_gtid_ev *g, cdch_buf *out);

#endif
