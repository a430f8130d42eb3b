/* announce.h — whether a consumer's own error line names the event a
 * missing transaction holds (design.md section 6, verdict `announced-skip`).
 *
 * Owns nothing: a pure predicate on the caller's strings.
 *
 * A line names the event of a missing transaction when, ignoring case and
 * every character that is not a letter or digit, it holds
 *   - for a compressed transaction (a Transaction_payload event, type 40):
 *     "transactionpayload" (Transaction_payload, TRANSACTION_PAYLOAD_EVENT,
 *     TransactionPayload) or "type" then the number 40 ("event type 40",
 *     "Unknown type:40"), 40 not followed by another digit;
 *   - for a transaction holding PARTIAL_UPDATE_ROWS events (type 39):
 *     "partialupdaterows", "updaterowspartial" or "type" then 39.
 * Nothing else names an event: a generic warning ("lost connection",
 * "queue full") announces only the one hole it is matched with (diff.h).
 * Such a line announces every later missing transaction of that event, as
 * libraries say it once ("... are NOT being emitted") and go on.
 */
#ifndef CDCH_ANNOUNCE_H
#define CDCH_ANNOUNCE_H

#include <stdbool.h>

/* compressed: the transaction is a Transaction_payload; partial: it holds
 * PARTIAL_UPDATE_ROWS events. False for a NULL message. */
bool cdch_announce_names_event(const char *message, bool compressed, bool partial);

#endif
