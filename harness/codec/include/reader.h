/* reader.h — streaming binlog file reader: frames a binlog file (or an
 * in-memory image of one) into raw events, one at a time.
 *
 * Owns: the cdch_reader context, its open FILE (when it opened one) and its
 * event buffer. The buffer grows to the largest event read so far (at most
 * CDCH_READER_MAX_EVENT, 1 GiB), never to the size of the file: a 2 GB
 * binlog is read with memory bounded by its largest event. Over a memory
 * buffer nothing is copied; the caller owns that buffer and keeps it alive
 * while the reader is used.
 *
 * The reader checks the 4-byte magic (fe 62 69 6e) and the framing only:
 * each event's 19-byte header is read, its event_size validated (>= 19,
 * <= 1 GiB, not past the end of the input), and the whole event handed
 * out. Decoding the event (checksums included) is event.h's job.
 *
 * Errors carry the input name and the file offset (err->offset = offset of
 * the event, or of the magic) and say what was wrong, e.g.
 *   "truncated event at offset 1234: header says 400 bytes, only 56 left".
 */
#ifndef CDCH_READER_H
#define CDCH_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define CDCH_READER_HEADER_LEN 19
#define CDCH_READER_MAX_EVENT (1024u * 1024u * 1024u) /* max_log_event_size */

typedef struct cdch_reader cdch_reader;

/* One framed event. `data` points at the event's first header byte and
 * stays valid until the next cdch_reader_next / cdch_reader_free. */
typedef struct cdch_raw_event {
    const uint8_t *data;
    size_t len;      /* == the header's event_size */
    uint64_t offset; /* file offset of the event's first byte */
    uint8_t type;    /* header byte 4, for convenience */
} cdch_raw_event;

enum {
    /* The input has no 4-byte magic (a bare event stream, e.g. the
     * decompressed content of a TRANSACTION_PAYLOAD); offsets start at 0. */
    CDCH_READER_NO_MAGIC = 1u << 0,
};

/* Open path for reading ("-" = standard input). Checks the magic unless
 * CDCH_READER_NO_MAGIC. Returns NULL with err set on failure (cannot open,
 * empty, not a binlog file). */
cdch_reader *cdch_reader_open(const char *path, unsigned flags, cdch_err *err);

/* Read from data[0..len) (not copied). `name` is used in messages (NULL:
 * "<memory>"). Checks the magic unless CDCH_READER_NO_MAGIC. */
cdch_reader *cdch_reader_from_memory(const uint8_t *data, size_t len, const char *name, unsigned flags,
                                     cdch_err *err);

void cdch_reader_free(cdch_reader *r); /* accepts NULL; closes a FILE it opened */

/* Frame the next event. Returns 1 (ev filled), 0 at a clean end of input
 * (end exactly at an event boundary), or -1 with err set (err->offset =
 * offset of the bad event). After -1 or 0 every further call returns the
 * same result. */
int cdch_reader_next(cdch_reader *r, cdch_raw_event *ev, cdch_err *err);

/* The name given at creation (path, "<stdin>" for "-", or "<memory>"). */
const char *cdch_reader_name(const cdch_reader *r);

/* Offset of the next event to be read (== file size after the last one). */
uint64_t cdch_reader_offset(const cdch_reader *r);

/* Bytes the reader currently holds for events (its buffer capacity; 0 for a
 * memory reader). For tests of the memory bound. */
size_t cdch_reader_buffer_size(const cdch_reader *r);

#endif
