/* replay.h — a captured stream as a stream directory: what `run` and
 * `matrix` serve for a scenario that names a capture (scenario.h
 * capture_dir; scenarios/README.md "Captured streams"), in the layout
 * cdch_stream_generate writes (stream.h), so the fake primary, the stream
 * index and the diff take it like a generated stream:
 *
 *   <the capture's file names>, <its index>
 *                    the capture rewritten by the recompress library
 *                    (recompress.h): compressed at the scenario's
 *                    binlog.zstd_level (zstd_content_size too), uncompressed
 *                    (payloads unpacked), or flipped (compression ON from the
 *                    scenario's capture.flip_at, default the middle
 *                    transaction)
 *   expected.jsonl   the reference decode of those files (canon.h, the
 *                    logic of `decode --canonical`) with the scenario as
 *                    schema (column names, ENUM/SET labels from schema.sql):
 *                    one line per row change with "txn" and "compressed"
 *   stream.json      the server identity (the capture's first FORMAT_DESCRIPTION
 *                    and GTID event), gtid_executed (the first file's
 *                    PREVIOUS_GTIDS and every GTID of the stream), files and
 *                    sizes, counts; "capture" names the capture directory
 *
 * No watermark transaction is added: the served stream is the capture's
 * own, and cells stop when the consumer has emitted every expected row or
 * went quiet after the whole stream was sent (harness/run/activity.h).
 *
 * Streaming: the recompress library holds one transaction, the decode one
 * event (and the open transaction's lines); a multi-gigabyte capture is
 * never held whole. The directory is written atomically (stream.h).
 *
 * Owns: nothing across calls; the scenario stays the caller's.
 */
#ifndef CDCH_REPLAY_H
#define CDCH_REPLAY_H

#include "err.h"
#include "scenario.h"
#include "stream.h"

/* The stream of capture scenario s (s->capture_dir set) in `mode` into
 * out_dir (created; must not exist or be empty). stats may be NULL. */
int cdch_replay_generate(const cdch_scenario *s, cdch_stream_mode mode, const char *out_dir,
                         cdch_stream_stats *stats, cdch_err *err);

#endif
