/* fuzz_decode.c — libFuzzer target for the binlog decoders.
 *
 * The input is treated as a binlog file (the magic is prepended when
 * absent): the reader frames it, every event is decoded with one fresh
 * decoder per input (so FDEs and table maps seen earlier in the input
 * steer later events, as in a real file) and printed in both output forms;
 * decode errors are expected and skipped. Every JSON line printed must
 * parse back (cdch_json_parse_text), so invalid JSON from any value printer
 * is caught too. The raw input is also fed to the JSON binary decoder, and
 * to the reader as a bare event stream. Any crash, sanitizer report, leak
 * or abort is a bug.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "err.h"
#include "event.h"
#include "json_binary.h"
#include "print.h"
#include "reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The JSON form must always be valid JSON (documents nested deeper than the
 * parser's limit excepted). */
static void check_json_line(const cdch_buf *out, size_t from)
{
    size_t n = out->len - from;
    if (n == 0 || out->data[out->len - 1] != '\n')
        abort();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_json *j = NULL;
    cdch_err err;
    if (cdch_json_parse_text((const char *)out->data + from, n - 1, &a, &j, &err) != 0 &&
        !strstr(err.msg, "nested deeper")) {
        fprintf(stderr, "invalid JSON output (%s at %lld): %.*s\n", err.msg, (long long)err.offset, (int)n,
                (const char *)out->data + from);
        abort();
    }
    cdch_arena_free(&a);
}

static void decode_stream(const uint8_t *data, size_t size, unsigned flags)
{
    cdch_err err;
    cdch_reader *r = cdch_reader_from_memory(data, size, "fuzz", flags, &err);
    if (!r)
        return;
    cdch_decoder *d = cdch_decoder_new();
    cdch_print_opts text_opts = {false, true, "fuzz"};
    cdch_print_opts json_opts = {true, true, "fuzz"};
    cdch_printer *text = cdch_printer_new(&text_opts);
    cdch_printer *json = cdch_printer_new(&json_opts);
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_buf out = CDCH_BUF_INIT;
    cdch_raw_event raw;
    while (cdch_reader_next(r, &raw, &err) == 1) {
        cdch_event ev;
        if (cdch_decode_event(d, raw.data, raw.len, &a, &ev, &err) == 0) {
            cdch_printer_event(text, &ev, raw.offset, &out);
            size_t at = out.len;
            cdch_printer_event(json, &ev, raw.offset, &out);
            check_json_line(&out, at);
            cdch_buf_reset(&out);
        }
        cdch_arena_reset(&a);
    }
    cdch_buf_free(&out);
    cdch_arena_free(&a);
    cdch_printer_free(text);
    cdch_printer_free(json);
    cdch_decoder_free(d);
    cdch_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t magic[4] = {0xfe, 0x62, 0x69, 0x6e};
    if (size >= 4 && memcmp(data, magic, 4) == 0) {
        decode_stream(data, size, 0);
    } else {
        uint8_t *buf = malloc(size + 4);
        if (!buf)
            return 0;
        memcpy(buf, magic, 4);
        if (size)
            memcpy(buf + 4, data, size);
        decode_stream(buf, size + 4, 0);
        free(buf);
    }
    /* a bare event stream, as found inside a TRANSACTION_PAYLOAD */
    decode_stream(data, size, CDCH_READER_NO_MAGIC);

    cdch_arena a = CDCH_ARENA_INIT;
    cdch_err err;
    cdch_json *j = NULL;
    if (cdch_json_decode(data, size, &a, &j, &err) == 0 && j) {
        cdch_buf out = CDCH_BUF_INIT;
        cdch_json_to_text(j, &out);
        cdch_buf_free(&out);
    }
    cdch_arena_free(&a);
    return 0;
}
