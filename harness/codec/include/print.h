/* print.h — human and machine-readable printing of decoded binlog events
 * (what `cdcharness decode` prints).
 *
 * Owns: the cdch_printer context: output options and, for the text form,
 * the session state mysqlbinlog tracks between events (current database,
 * session variables already SET), so that only changes are printed. The
 * events printed are the caller's (decoded with cdch_decode_event); all
 * output is appended to a caller-owned cdch_buf.
 *
 * ---- Text form (default) --------------------------------------------------
 * Modelled on `mysqlbinlog --base64-output=decode-rows -vv` (add -H for
 * opts.hexdump), times in UTC:
 *
 *   # at 4
 *   #231226 16:59:51 server id 1  end_log_pos 126 CRC32 0xa9a66c66 	Start: binlog v 4, server v 8.2.0 created 231226 16:59:51 at startup
 *   # at 157
 *   #231226 17:01:04 server id 1  end_log_pos 234 CRC32 0x95e771c2 	Anonymous_GTID	last_committed=0	sequence_number=1	rbr_only=no	...	transaction_length=211
 *   SET @@SESSION.GTID_NEXT= 'ANONYMOUS'/ *!* /;
 *   ### INSERT INTO `test`.`int_table`
 *   ### SET
 *   ###   @1=1 / * TINYINT meta=0 nullable=1 is_null=0 * /      (comment markers spaced here)
 *
 * A TRANSACTION_PAYLOAD prints its header line ending in
 * "Transaction_Payload\tpayload_size=N\tcompression_type=ZSTD\tuncompressed_size=M",
 * then "# Start of compressed events.", each inner event (its "# at" and
 * end_log_pos are the payload's, as mysqlbinlog prints them; no CRC), then
 * "# End of compressed events.". Event types without a model print
 * "<Name>\t(N body bytes, not decoded)"; unknown type numbers print
 * "Unknown event type N, size S". Printing never fails.
 *
 * ---- JSON Lines form (opts.json) ------------------------------------------
 * One object per top-level event, one line each, keys in this order:
 *
 *   {"file":"binlog.000001",          (only when opts.file is set)
 *    "offset":157,                    file offset of the event
 *    "type":34,"type_name":"Anonymous_Gtid",
 *    "header":{"timestamp":1703581264,"server_id":1,"event_size":77,"log_pos":234,"flags":0},
 *    "checksum":"0x95e771c2",         (null when the event has none, e.g. inner events)
 *    "raw_hex":"...",                 (only with opts.hexdump: the whole event)
 *    "body":{...}}
 *
 * Inner events of a payload appear in the payload's body as
 * "events":[{"inner_offset":N,"type":...,"type_name":...,"header":...,
 * "checksum":null,"body":...},...] where inner_offset is the offset in the
 * uncompressed stream. Bodies by type (strings are JSON-escaped UTF-8, bytes
 * that are not valid UTF-8 become U+FFFD; "hex" values are lowercase hex):
 *
 *   FORMAT_DESCRIPTION {"binlog_version","server_version","create_timestamp",
 *                       "common_header_len","post_header_len":[...],"checksum_alg"}
 *   ROTATE             {"position","next_file"}
 *   PREVIOUS_GTIDS     {"gtid_set":"uuid:1-5,..."}
 *   GTID / ANONYMOUS_GTID / GTID_TAGGED
 *                      {"gtid":"uuid:[tag:]gno" | "ANONYMOUS","flags","last_committed",
 *                       "sequence_number","immediate_commit_timestamp",
 *                       "original_commit_timestamp","transaction_length",
 *                       "immediate_server_version","original_server_version"
 *                       [,"commit_group_ticket"]}
 *   QUERY              {"thread_id","exec_time","error_code","db","query",
 *                       "status_vars":[{"code":0,"name":"FLAGS2","hex":"00000000"},...]}
 *   TABLE_MAP          {"table_id","flags","db","table","columns":[{"name"|null,"type",
 *                       "type_name","meta","nullable","unsigned"},...]}
 *   WRITE/UPDATE/DELETE_ROWS, PARTIAL_UPDATE_ROWS
 *                      {"table_id","flags","db","table","rows":[{"before":{..}|null,
 *                       "after":{..}|null[,"value_options":N]},...]}
 *                      images map column name (or "@N", 1-based, when the
 *                      TABLE_MAP has no names) to cdch_value_to_json's
 *                      canonical value; columns absent from an image are omitted
 *   XID                {"xid"}
 *   XA_PREPARE         {"one_phase","format_id","gtrid_hex","bqual_hex"}
 *   ROWS_QUERY         {"query"}
 *   INCIDENT           {"code","message"}
 *   HEARTBEAT(_V2)     {"log_file","position"}
 *   TRANSACTION_PAYLOAD {"compression_type":0,"compression":"ZSTD","payload_size",
 *                       "uncompressed_size"|null,"events":[...]}
 *   STOP               {}
 *   anything else      {"body_len":N,"body_hex":"..."}
 */
#ifndef CDCH_PRINT_H
#define CDCH_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "event.h"

typedef struct cdch_print_opts {
    bool json;        /* JSON Lines instead of text */
    bool hexdump;     /* text: mysqlbinlog -H hex dump; JSON: "raw_hex" */
    const char *file; /* JSON: value of "file" (NULL: key omitted). Not copied. */
} cdch_print_opts;

typedef struct cdch_printer cdch_printer;

cdch_printer *cdch_printer_new(const cdch_print_opts *opts);
void cdch_printer_free(cdch_printer *p); /* accepts NULL */

/* Forget the text session state (call between files). */
void cdch_printer_reset(cdch_printer *p);

/* Append one decoded top-level event read at file offset `offset`
 * (payload inner events are printed with it). */
void cdch_printer_event(cdch_printer *p, const cdch_event *ev, uint64_t offset, cdch_buf *out);

#endif
