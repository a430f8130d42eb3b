/* fuzz_events.c — libFuzzer target for the adapter JSON-lines parser.
 *
 * The input is an adapter's stdout: split at '\n', each line goes through
 * cdch_changes_add_line twice (strict, as expected.jsonl is read, and
 * lenient, as adapter output is read), which parses it with cdch_jv_parse
 * and interprets change events and control lines. The whole input is also
 * given to cdch_jv_parse as one value. Errors are expected; a crash,
 * sanitizer report, leak or abort is a bug, and so is a lenient parse that
 * fails (it must count the line as invalid instead). Each change the
 * lenient list accepted has its images parsed again on demand
 * (cdch_change_images_get, as the diff reads them).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "err.h"
#include "events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    cdch_change_list *strict = cdch_changes_new();
    cdch_change_list *lenient = cdch_changes_new();
    cdch_err err;
    size_t at = 0;
    while (at < size) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (text + at)) : size - at;
        (void)cdch_changes_add_line(strict, text + at, len, true, &err);
        if (cdch_changes_add_line(lenient, text + at, len, false, &err) != 0) {
            fprintf(stderr, "lenient cdch_changes_add_line failed: %s\n", err.msg);
            abort();
        }
        at += len + 1;
    }
    (void)cdch_changes_error_after(lenient, 0);
    /* every accepted change's images, parsed again on demand as the diff does */
    cdch_arena ia = CDCH_ARENA_INIT;
    cdch_change_window w = CDCH_CHANGE_WINDOW_INIT;
    for (size_t i = 0; i < lenient->n; i++) {
        cdch_change_images im;
        cdch_change_images_get(lenient, &lenient->items[i], &w, &ia, &im);
        (void)cdch_jv_get(im.before ? im.before : im.after, "id");
        cdch_arena_reset(&ia);
    }
    cdch_change_window_free(&w);
    cdch_arena_free(&ia);
    cdch_changes_free(strict);
    cdch_changes_free(lenient);

    cdch_arena a = CDCH_ARENA_INIT;
    cdch_jv *v = NULL;
    if (cdch_jv_parse(text, size, &a, &v, &err) == 0 && v)
        (void)cdch_jv_get(v, "kind");
    cdch_arena_free(&a);
    return 0;
}
