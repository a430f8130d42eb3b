#!/usr/bin/env python3
"""Writes docs/BUG-RECORD.md: every public compression-related bug of the record
(shared/reference/consumers.md, the manifests' known_issues, issue 13), the cells that show it
on the affected version and its fix on the fixing version, with their verdicts taken from a real
run, and for the rest the reason it cannot be shown here.

    scripts/bug_record.py [--verdicts REPORT] [--soak REPORT] [--extra LABEL=REPORT ...] [--out FILE] [--check]

REPORT is the committed digest (reports/default/verdicts.json, the default) or a full report.json
(`cdcharness run/matrix --report-dir D` writes D/report.json); --soak is the soak run's (scripts/soak.sh,
ci/soak.yaml: multi-gigabyte scenarios outside the default matrix; default reports/soak/verdicts.json,
read when it exists), its cells marked [soak]; --extra adds cells from another run, marked with LABEL in
the table (the digest wins where both hold a cell). A bug counts as
"reproduced, fix shown" only when every affected cell it names was run, is not `pass` and cites
the bug's cause id (the manifest's known issue), and every fixing cell was run and is `pass`.
--check: exit 1 if a cause id is not a known issue of its family's manifest or a named cell is
missing from the sources (the record has drifted from the manifests or the matrix).

Owns nothing but its output file. Reads consumers/*/manifest.yaml (PyYAML).
"""
import argparse
import glob
import json
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One entry per public bug (issue / PR / ticket id). affected / fixed: cells as
# "consumer@version scenario mode". cause: the manifest known-issue id the affected cells must
# cite. why: for a bug whose fix (or whole bug) cannot be shown here, the exact reason.
BUGS = [
    dict(bug="shyiko/mysql-binlog-connector-java#332",
         link="https://github.com/shyiko/mysql-binlog-connector-java/issues/332",
         consumer="mysql-binlog-connector-java; Debezium (embeds it)",
         title='"Unknown event type 40": IOException, the stream dies (Debezium fails)',
         affected_versions="shyiko <= 0.21.0, com.zendesk <= 0.23.2; Debezium <= 1.4.0.Final",
         fixed_versions="com.zendesk 0.23.3 (9e2fb39: skip), 0.26.0 (decodes, PR #76); Debezium 2.0.0.Final",
         cause="no-type-40",
         affected=["mysql-binlog-connector-java@0.21.0 crud-basic compressed",
                   "mysql-binlog-connector-java@0.23.2 crud-basic compressed",
                   "debezium@1.2.5.Final crud-basic compressed",
                   "debezium@1.4.0.Final crud-basic compressed"],
         fixed=["mysql-binlog-connector-java@0.27.6+unwrap crud-basic compressed",
                "debezium@2.7.4.Final crud-basic compressed"]),
    dict(bug="osheroff/mysql-binlog-connector-java#19",
         link="https://github.com/osheroff/mysql-binlog-connector-java/issues/19",
         consumer="mysql-binlog-connector-java",
         title="no TRANSACTION_PAYLOAD support: type 40 mapped to EventType.UNKNOWN with null data, rows lost silently",
         affected_versions="com.zendesk 0.23.3 .. 0.25.x",
         fixed_versions="com.zendesk 0.26.0 (PR #76, a7f2de3; a listener must unwrap the payload)",
         cause="type-40-unknown",
         affected=["mysql-binlog-connector-java@0.25.6 crud-basic compressed"],
         fixed=["mysql-binlog-connector-java@0.27.6+unwrap crud-basic compressed"]),
    dict(bug="DBZ-2663 (debezium/debezium#3769)",
         link="https://issues.redhat.com/browse/DBZ-2663",
         consumer="Debezium",
         title="no handler for TRANSACTION_PAYLOAD: the decoded payload is ignored (TRACE log), rows lost silently",
         affected_versions="1.4.1 .. 1.9.8.Final",
         fixed_versions="2.0.0.Final (f41474847d)",
         cause="payload-no-handler",
         affected=["debezium@1.9.8.Final crud-basic compressed"],
         fixed=["debezium@2.7.4.Final crud-basic compressed"]),
    dict(bug="osheroff/mysql-binlog-connector-java#177 / #178 -> #179",
         link="https://github.com/osheroff/mysql-binlog-connector-java/pull/179",
         consumer="mysql-binlog-connector-java",
         title="listeners only ever receive the TRANSACTION_PAYLOAD wrapper (no transparent decompression)",
         affected_versions="com.zendesk 0.26.0 .. 0.30.x; io.debezium 0.31.0 .. 0.41.0",
         fixed_versions="com.zendesk 0.31.0 (PR #179, setTransparentlyDecompressTransactions)",
         cause="payload-wrapper-only",
         affected=["mysql-binlog-connector-java@0.27.6 crud-basic compressed",
                   "mysql-binlog-connector-java@0.31.0 crud-basic compressed",
                   "mysql-binlog-connector-java@0.41.0 crud-basic compressed"],
         fixed=[],
         why="fixing version not served: Maven Central's newest com.zendesk release is 0.30.1 "
             "(no com.zendesk 0.31.0; io.debezium 0.31.0 is a different release without the option)"),
    dict(bug="osheroff/mysql-binlog-connector-java#127 (PRs #165, #177); debezium/dbz#1518",
         link="https://github.com/osheroff/mysql-binlog-connector-java/issues/127",
         consumer="mysql-binlog-connector-java",
         title="inner events ignore the outer decode options (compatibility modes): DATETIME(6) cut to ms, binary strings as U+FFFD text",
         affected_versions="com.zendesk 0.26.0 .. 0.30.x; io.debezium 0.31.0 .. 0.40.4",
         fixed_versions="io.debezium 0.40.5 (da6e7f6, 67e9df5, 98b60f9)",
         cause="payload-default-deserializer",
         affected=["mysql-binlog-connector-java@0.27.6+unwrap bulk-json-staging compressed",
                   "mysql-binlog-connector-java@0.27.6+unwrap bulk-random-keys compressed",
                   "mysql-binlog-connector-java@0.27.6+unwrap multi-statement compressed"],
         fixed=["mysql-binlog-connector-java@0.41.0+unwrap bulk-json-staging compressed",
                "mysql-binlog-connector-java@0.41.0+unwrap bulk-random-keys compressed",
                "mysql-binlog-connector-java@0.41.0+unwrap multi-statement compressed"],
         note="exact bracket run outside the matrix (not pinned): io.debezium 0.40.4+unwrap gives the "
              "same 221/842/8 differences, 0.40.5+unwrap passes all three"),
    dict(bug="DBZ-8340",
         link="https://issues.redhat.com/browse/DBZ-8340",
         consumer="mysql-binlog-connector-java (io.debezium); Debezium",
         title="BinaryLogClient does not commit the GTID of a TRANSACTION_PAYLOAD: a restart from its GTID set replays",
         affected_versions="io.debezium <= 0.40.0, com.zendesk 0.26.0 .. 0.30.x",
         fixed_versions="io.debezium 0.40.1 (836b99e)",
         cause="payload-gtid-not-committed",
         affected=["mysql-binlog-connector-java@0.27.6+unwrap restart-by-gtid-set compressed",
                   "mysql-binlog-connector-java@0.31.0+unwrap restart-by-gtid-set compressed"],
         fixed=["mysql-binlog-connector-java@0.40.1+unwrap restart-by-gtid-set compressed",
                "mysql-binlog-connector-java@0.41.0+unwrap restart-by-gtid-set compressed"],
         note="the client started from a GTID set, the harness cuts the connection after four compressed "
              "transactions, and BinaryLogClient's own keep-alive reconnect asks again from the set it tracked: "
              "the affected versions replay the four (16 rows), the fixed ones neither replay nor skip. io.debezium "
              "0.40.0 is not served by Maven Central (0.31.0 is the newest affected io.debezium release served). "
              "Debezium itself restarts from its own stored offsets, so its cells on this scenario show DBZ-9564, "
              "not this bug (Debezium 2.7.4 embeds com.zendesk 0.29.2, affected; 3.3.2 embeds 0.40.2, fixed)"),
    dict(bug="debezium/dbz#1503",
         link="https://github.com/debezium/mysql-binlog-connector-java/commit/973c8ae",
         consumer="mysql-binlog-connector-java",
         title="uncompressed transaction payloads beyond 2 GB (byte[] / int size) fail",
         affected_versions="com.zendesk <= 0.30.2, io.debezium <= 0.40.3",
         fixed_versions="io.debezium 0.40.4 (973c8ae); com.zendesk 0.30.3",
         cause="payload-uncompressed-size-int",
         affected=["mysql-binlog-connector-java@0.40.3+unwrap payload-over-2gib compressed"],
         fixed=["mysql-binlog-connector-java@0.40.4+unwrap payload-over-2gib compressed"],
         note="soak run (scripts/soak.sh, ci/soak.yaml; not in the default matrix): ci/soak/payload-over-2gib.yaml "
              "is one compressed transaction of 18,400 JSON-staging UPDATEs, 2,251,828,947 bytes uncompressed "
              "(> 2^31-1 = 2,147,483,647; a 62 MB payload event). 0.40.3 reads the payload's uncompressed size with readPackedInteger "
              "(TransactionPayloadEventDataDeserializer.java:65-67, io/ByteArrayInputStream.java:151-160 at v0.40.3) "
              "and stops with IOException 'Stumbled upon long even though int expected'; 0.40.4 reads it as a long "
              "and streams the decompression (973c8ae, :67, :91-105), but still holds every decoded inner event of "
              "the transaction (an ArrayList) before the listener sees one: its JVM peaked at 3.9 GB RSS. 3 min 44 s "
              "wall for both cells, 2.25 GB expected.jsonl and 2.25 GB observed.jsonl. The pins are named_only "
              "(io.debezium 0.40.3 / 0.40.4, +unwrap: the listener replays getUncompressedEvents())"),
    dict(bug="Debezium's own payload reader, int size (no upstream report found)",
         link="https://github.com/debezium/debezium/blob/v3.6.1.Final/debezium-connector-binlog/src/main/java/io/debezium/connector/binlog/event/TransactionPayloadDeserializer.java#L69",
         consumer="Debezium",
         title="a transaction over 2 GiB uncompressed stops the connector: Debezium's TransactionPayloadDeserializer still reads the size as an int",
         affected_versions="2.4.0.Final .. 3.6.1.Final (every release with DBZ-6786's reader)",
         fixed_versions="none released",
         cause="payload-uncompressed-size-int",
         affected=["debezium@3.6.1.Final payload-over-2gib compressed"],
         fixed=[],
         note="soak run (ci/soak.yaml): the embedded client io.debezium 0.41.0 has dbz#1503's fix (row 7), but "
              "Debezium registers its own deserializer for TRANSACTION_PAYLOAD (BinlogStreamingChangeEventSource.java:545-546 "
              "at v3.6.1.Final), whose :69 reads the uncompressed size with readPackedInteger: IOException 'Stumbled upon "
              "long even though int expected' (stack trace in the cell's stderr.log names TransactionPayloadDeserializer.java:69), "
              "'Engine has failed'; and :86-90 would refuse any size over Integer.MAX_VALUE anyway (one byte[] per "
              "transaction). 50-81 s wall (81 s beside other work), 4 CPU-seconds, nothing emitted"),
    dict(bug="DBZ-6786",
         link="https://issues.redhat.com/browse/DBZ-6786",
         consumer="Debezium",
         title="custom converters / row deserializers not applied to events inside a payload",
         affected_versions="2.0 .. 2.3",
         fixed_versions="2.4.0.Final (5e2f115959)",
         cause="payload-default-row-deserializer",
         affected=["debezium@2.3.4.Final bulk-random-keys compressed",
                   "debezium@2.3.4.Final bulk-json-staging compressed",
                   "debezium@2.3.4.Final multi-statement compressed"],
         fixed=["debezium@2.4.0.Final bulk-random-keys compressed",
                "debezium@2.4.0.Final bulk-json-staging compressed",
                "debezium@2.4.0.Final multi-statement compressed",
                "debezium@2.7.4.Final bulk-random-keys compressed"],
         note="2.3.4.Final is the newest 2.3.x Maven Central serves (2.3.5-2.3.7 are not). Rows inside a payload are "
              "decoded by the binlog client's stock EventDeserializer (com.zendesk 0.27.2 "
              "TransactionPayloadEventDataDeserializer.java:89), not Debezium's RowDeserializers "
              "(MySqlStreamingChangeEventSource.java:292-309 at v2.3.4.Final registers them for plain row events "
              "only): BINARY bytes >= 0x80 become U+FFFD (the upstream UUID case, debezium/debezium#4759), "
              "DATETIME/TIMESTAMP(4-6) are cut to ms, TIME is null, latin1 is decoded as UTF-8; the same scenarios "
              "pass uncompressed on 2.3.4. A user CustomConverter receives the same wrong raw values. Three runs, "
              "one beside stress-ng, gave the same verdicts"),
    dict(bug="DBZ-9564 (debezium/debezium#6836)",
         link="https://issues.redhat.com/browse/DBZ-9564",
         consumer="Debezium",
         title="events inside a payload bypass handleEvent's offset bookkeeping: a restart inside a payload replays rows",
         affected_versions="2.0.0 .. 3.3.1",
         fixed_versions="3.3.2.Final (67c5a52273), 3.4.0.Final (dfd992f495)",
         cause="payload-events-bypass-handler",
         affected=["debezium@2.3.4.Final restart-mid-payload compressed",
                   "debezium@2.4.0.Final restart-mid-payload compressed",
                   "debezium@2.7.4.Final restart-mid-payload compressed",
                   "debezium@2.7.4.Final+retry restart-mid-payload compressed"],
         fixed=["debezium@3.3.2.Final+retry restart-mid-payload compressed",
                "debezium@3.6.1.Final+retry restart-mid-payload compressed"],
         note="the base 3.3.2 / 3.6.1 never restart: MySqlErrorHandler.isRetriable returns false for every "
              "throwable (mysql-errorhandler-not-retriable, DBZ-8786 regression since 3.1.0.CR1), so they stop "
              "at the cut (no-resume) and the fix is not exercised; the +retry versions set Debezium's documented "
              "workaround internal.custom.retriable.exception=(?s).*, under which 2.7.4 still replays the payload "
              "rows (duplicate) and 3.3.2 / 3.6.1 pass"),
    dict(bug="Maxwell <= 1.29 on type 40 (shyiko#332 through Maxwell's handler)",
         link="shared/reference/consumers.md section 3 (zendesk/maxwell@v1.29.0 BinlogConnectorReplicator.java)",
         consumer="Maxwell",
         title='WARN "Event deserialization failure." and reading on: a desynchronised stream',
         affected_versions="<= 1.29.0",
         fixed_versions="1.45.0 (9498d1c4c)",
         cause="no-type-40-warn-desync",
         affected=["maxwell@1.22.6 crud-basic compressed", "maxwell@1.22.6 many-tables compressed",
                   "maxwell@1.22.6 compression-flip flip"],
         fixed=[],
         why="fixing version not served: Maven Central has com.zendesk:maxwell 1.17.0 and 1.22.6 only",
         note="run attached to the existing schema (manifest start: attach; without it every 1.22.6 cell is the "
              "CREATE DATABASE parse failure create-database-encryption): every compressed and flip cell of the "
              "library is silent-skip; the shyiko 0.20.0 it embeds throws after 5 header bytes "
              "(EventHeaderV4Deserializer.java:43-47), BinaryLogClient.java:952-971 continues desynchronised, and "
              "Maxwell's BinlogConnectorLifecycleListener.java:26-30 only WARNs"),
    dict(bug="zendesk/maxwell#2254",
         link="https://github.com/zendesk/maxwell/pull/2254",
         consumer="Maxwell",
         title="compressed transactions silently skipped (the listener ignores the payload wrapper)",
         affected_versions="1.30.0 .. 1.44.1",
         fixed_versions="1.45.0 (9498d1c4c)",
         cause=None, affected=[], fixed=[],
         why="neither affected nor fixing versions are served: Maven Central has com.zendesk:maxwell 1.17.0 and 1.22.6 only"),
    dict(bug="alibaba/canal#3198 / #4388",
         link="https://github.com/alibaba/canal/issues/4388",
         consumer="Canal",
         title='"Skipping unrecognized binlog event": compressed transactions lost',
         affected_versions="<= 1.1.5",
         fixed_versions="1.1.7 (252ca027)",
         cause="type-40-skipped",
         affected=["canal@1.1.5 crud-basic compressed"],
         fixed=["canal@1.1.7 crud-basic compressed"]),
    dict(bug="alibaba/canal#4663",
         link="https://github.com/alibaba/canal/issues/4663",
         consumer="Canal",
         title="TRANSACTION_PAYLOAD recognised but never decompressed: rows lost silently",
         affected_versions="1.1.6",
         fixed_versions="1.1.7 (252ca027)",
         cause="type-40-skipped",
         affected=["canal@1.1.6 crud-basic compressed"],
         fixed=["canal@1.1.7 crud-basic compressed"]),
    dict(bug="go-mysql-org/go-mysql#533",
         link="https://github.com/go-mysql-org/go-mysql/issues/533",
         consumer="go-mysql",
         title="type 40 parsed as GenericEvent: compressed transactions skipped silently",
         affected_versions="<= v1.7.0",
         fixed_versions="v1.8.0 (PR #773, 29ab7e7)",
         cause="no-type-40",
         affected=["go-mysql@v1.7.0+raw crud-basic compressed"],
         fixed=["go-mysql@v1.16.0+canal crud-basic compressed",
                "go-mysql@v1.16.0+raw-payload crud-basic compressed"],
         note="v1.8.0 itself is not pinned; v1.16.0 contains the fix"),
    dict(bug="go-mysql-org/go-mysql#1153",
         link="https://github.com/go-mysql-org/go-mysql/pull/1153",
         consumer="go-mysql",
         title="canal reports Pos=0 inside payloads and does not advance the GTID set",
         affected_versions="v1.8.0 .. v1.15.0",
         fixed_versions="v1.16.0 (ace1fb4)",
         cause="payload-pos-zero",
         affected=["go-mysql@v1.15.0+canal crud-basic compressed",
                   "go-mysql@v1.15.0+raw-payload crud-basic compressed"],
         fixed=["go-mysql@v1.16.0+canal crud-basic compressed",
                "go-mysql@v1.16.0+raw-payload crud-basic compressed"],
         note="start-by-gtid-set compressed shows the GTID half: v1.15.0 canal's GTID set stays at :1-8 over "
              "7 compressed transactions (the report names the Pos=0 check, which runs first); v1.8.0-v1.14.0 "
              "share the code path (canal/sync.go handleEvent), not pinned (v1.8.0's BinlogSyncer was refused "
              "at login by the fake primary: not investigated)"),
    dict(bug="go-mysql-org/go-mysql#1147",
         link="https://github.com/go-mysql-org/go-mysql/pull/1147",
         consumer="go-mysql",
         title="events inside a payload are parsed by a fresh BinlogParser without the caller's decode options",
         affected_versions="v1.8.0 .. v1.15.0",
         fixed_versions="v1.16.0 (088eb1f, cloneForPayloadDecode)",
         cause="payload-parser-drops-options",
         affected=["go-mysql@v1.15.0+parsetime all-types compressed",
                   "go-mysql@v1.15.0+parsetime server-8.0.20 compressed",
                   "go-mysql@v1.15.0+parsetime server-8.0.27 compressed"],
         fixed=["go-mysql@v1.16.0+parsetime all-types compressed",
                "go-mysql@v1.16.0+parsetime server-8.0.20 compressed",
                "go-mysql@v1.16.0+parsetime server-8.0.27 compressed"],
         note="+parsetime = ParseTime and UseDecimal set, in a UTC+05:30 process: only TIMESTAMP shows the lost "
              "option as a value (a local-time string inside payloads); uncompressed passes on both versions"),
    dict(bug="go-mysql-org/go-mysql#875",
         link="https://github.com/go-mysql-org/go-mysql/pull/875",
         consumer="go-mysql (canal)",
         title="canal panics on the sub-events of a TransactionPayloadEvent (interface conversion)",
         affected_versions="none released (commits between 29ab7e7 and e35272c)",
         fixed_versions="e35272c (2024-05-09), before v1.8.0 (2024-05-10)",
         cause=None, affected=[], fixed=[],
         why="no released version has the bug: the Go proxy serves tags, and v1.8.0 already holds the fix"),
    dict(bug="@vlasky/zongji CHANGELOG 0.7.0",
         link="@vlasky/zongji 0.7.0 CHANGELOG.md (npm tarball)",
         consumer="zongji family",
         title="no zongji decodes type 40; 0.7.0 adds one error event, rows still lost",
         affected_versions="zongji 0.5.1, @rodrigogs 0.4.14, @powersync 0.1.0-0.6.2, @vlasky all",
         fixed_versions="none (0.7.0 reports it once, still does not decode)",
         cause="no-type-40",
         affected=["vlasky-zongji@0.6.1 crud-basic compressed", "zongji@0.5.1 crud-basic compressed"],
         fixed=[],
         why="no version decodes compressed transactions: there is no fix to show"),
    dict(bug="Altinity/clickhouse-sink-connector#1198",
         link="https://github.com/Altinity/clickhouse-sink-connector/issues/1198",
         consumer="clickhouse-sink-connector (embeds Debezium)",
         title="errors with compressed binlogs through Debezium",
         affected_versions="not stated", fixed_versions="none",
         cause=None, affected=[], fixed=[],
         why="not a consumer of this harness, and the report names no version or cause to reproduce"),
    dict(bug="dbtrail/dbtrail#414, block/spirit#1064",
         link="https://github.com/block/spirit/pull/1064",
         consumer="applications on go-mysql's raw BinlogSyncer",
         title="TransactionPayloadEvent not iterated: compressed transactions dropped silently",
         affected_versions="the applications before their fixes (go-mysql v1.13)",
         fixed_versions="the applications' own fixes",
         cause=None, affected=[], fixed=[],
         why="application code, not a consumer library; the go-mysql raw adapters show the library side"),
    dict(bug="vitessio/vitess#7567 (#7670, #12950)",
         link="https://github.com/vitessio/vitess/issues/7567",
         consumer="Vitess VReplication (go/mysql + vstreamer)",
         title="no TRANSACTION_PAYLOAD support: rows dropped silently, then (#7670) the vstreamer stops "
               "with 'VReplication does not handle binlog compression'",
         affected_versions="<= v0.9.x silent; v0.10.0 .. v0.16.x error",
         fixed_versions="v0.17.0 (#12950)",
         cause="no-payload-decoding",
         affected=["vitess@v0.16.0 crud-basic compressed"],
         fixed=["vitess@v0.24.4 crud-basic compressed"],
         note="the adapter (consumers/vitess) runs go/mysql's binlog connection and the vstreamer's event "
              "parsing; the VReplication controller retries the refused transaction from the same position "
              "every 5 s. v0.16.1-v0.16.7 do not build from the Go proxy (an ajson fork it does not serve), "
              "v0.17.0 is not pinned (v0.24.4 holds the fix). TiDB DM (pingcap/dm#1950) is a whole server, "
              "not run here"),
    dict(bug="apache/flink-cdc PR #2134 (closed unmerged)",
         link="https://github.com/apache/flink-cdc/pull/2134",
         consumer="Flink CDC (MySQL source; embeds Debezium 1.9.7 with its own copy of the streaming source)",
         title="no handler for TRANSACTION_PAYLOAD in Flink CDC's copy of MySqlStreamingChangeEventSource: "
               "ignored with a TRACE log only ('Ignoring event due to missing handler'), the offset and the "
               "checkpoint move past it, rows lost silently",
         affected_versions="every release through 3.6.0 (its own copy from 2.3.0 on; 2.0-2.2 run Debezium 1.x's, no handler either)",
         fixed_versions="none (the fix, PR #2134, was closed unmerged)",
         cause="payload-no-handler",
         affected=["flink-cdc@2.4.2 crud-basic compressed", "flink-cdc@3.0.1 crud-basic compressed"],
         fixed=[],
         why="no release has the fix (PR #2134 closed unmerged; no tag from release-2.3.0 to release-3.6.0 has a "
             "TRANSACTION_PAYLOAD handler in its copy of the streaming source)"),
]


def load_cells(path, label):
    """({(consumer, scenario, mode): (verdict, [cause ids], label)}, generated time) from a digest
    or a report.json."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = {}
    for c in doc.get("cells", []):
        causes = [x["id"] if isinstance(x, dict) else x for x in c.get("cause") or []]
        out[(c["consumer"], c["scenario"], c["mode"])] = (c["verdict"], causes, label)
    return out, doc.get("generated", "?")


def known_ids():
    """{family: set of known-issue ids} from consumers/*/manifest.yaml."""
    ids = {}
    for m in glob.glob(os.path.join(ROOT, "consumers", "*", "manifest.yaml")):
        with open(m, encoding="utf-8") as f:
            doc = yaml.safe_load(f) or {}
        ids[doc.get("family", os.path.basename(os.path.dirname(m)))] = {
            k["id"] for k in doc.get("known_issues") or []}
    return ids


def look(cells, spec, problems):
    """(cell text, verdict, causes) for 'consumer@version scenario mode'; a missing cell is a problem."""
    consumer, scenario, mode = spec.split()
    got = cells.get((consumer, scenario, mode))
    if got is None:
        problems.append(f"cell not in the sources: {spec}")
        return f"{spec} → (not run)", None, []
    verdict, causes, label = got
    cited = f" {' '.join(causes)}" if causes else ""
    src = f" [{label}]" if label != "digest" else ""
    return f"{spec} → **{verdict}**{cited}{src}", verdict, causes


def judge(bug, cells, ids, problems):
    """(status, affected cell lines, fixed cell lines) for one bug."""
    cause = bug["cause"]
    if cause:
        fams = {c.split("@")[0] for c in bug["affected"]}
        for fam in fams:
            if cause not in ids.get(fam, set()):
                problems.append(f"{bug['bug']}: cause {cause} is not a known issue of {fam}")
    aff, aff_ok = [], bool(bug["affected"])
    for spec in bug["affected"]:
        text, verdict, causes = look(cells, spec, problems)
        aff.append(text)
        aff_ok = aff_ok and verdict not in (None, "pass") and (not cause or cause in causes)
    fix, fix_ok = [], bool(bug["fixed"])
    for spec in bug["fixed"]:
        text, verdict, _ = look(cells, spec, problems)
        fix.append(text)
        fix_ok = fix_ok and verdict == "pass"
    if aff_ok and fix_ok:
        status = "reproduced, fix shown"
    elif aff_ok:
        status = "reproduced, fix not shown"
    else:
        status = "not reproduced here"
    return status, aff, fix


def cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def render(results, sources):
    """The markdown document."""
    counts = {}
    for _, status, _, _ in results:
        counts[status] = counts.get(status, 0) + 1
    lines = [
        "# Bug record: public compression bugs, reproduced",
        "",
        "Generated by `scripts/bug_record.py` (do not edit by hand) from " + sources + ".",
        "Each row is one public bug of the record (shared/reference/consumers.md, the manifests'",
        "`known_issues`, issue 13). Cells are `consumer@version scenario mode → verdict cause`; a",
        "bug is *reproduced, fix shown* only when every affected cell is not `pass` and cites the",
        "bug's cause (its known issue in the consumer's manifest, with source evidence) and every",
        "fixing cell is `pass`.",
        "",
        f"**{len(results)} bugs: "
        + ", ".join(f"{counts.get(k, 0)} {k}" for k in
                    ("reproduced, fix shown", "reproduced, fix not shown", "not reproduced here"))
        + ".**",
        "",
        "| # | bug | consumer | what | affected | fixed in | cells on the affected version |"
        " cells on the fixing version | status | why not / note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, (bug, status, aff, fix) in enumerate(results, 1):
        why = bug.get("why", "")
        if bug.get("note"):
            why = (why + "; " if why else "") + bug["note"]
        lines.append("| " + " | ".join(cell(x) for x in [
            str(i), f"[{bug['bug']}]({bug['link']})" if bug["link"].startswith("http") else
            f"{bug['bug']} ({bug['link']})", bug["consumer"], bug["title"],
            bug["affected_versions"], bug["fixed_versions"], "<br>".join(aff) or "-",
            "<br>".join(fix) or "-", status, why or "-"]) + " |")
    lines += ["", "Compression defects the matrix shows that have no public bug id (so no row above):",
              "Canal 1.1.7 `payload-ack-position` (restart-mid-payload compressed: duplicate),",
              "python-mysql-replication `no-type-40` (every version skips; no issue found upstream),",
              "mariadb-binlog / MariaDB Connector/C `no-type-40` (MariaDB has no TRANSACTION_PAYLOAD),",
              "the zongji forks other than @vlasky. Their causes and evidence are in the manifests.", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verdicts", default=os.path.join(ROOT, "reports", "default", "verdicts.json"))
    ap.add_argument("--soak", default=os.path.join(ROOT, "reports", "soak", "verdicts.json"),
                    help="the soak run's digest or report.json (scripts/soak.sh); read when it exists")
    ap.add_argument("--extra", action="append", default=[], metavar="LABEL=REPORT")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "BUG-RECORD.md"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    cells = {}
    names = [f"`{os.path.relpath(a.verdicts, ROOT)}`"]
    extras = list(a.extra)
    if a.soak and os.path.exists(a.soak):
        extras.insert(0, f"soak={a.soak}")
    for spec in extras:
        label, _, path = spec.partition("=")
        if not path:
            ap.error(f"--extra wants LABEL=REPORT, got {spec!r}")
        got, when = load_cells(path, label)
        cells.update(got)
        shown = os.path.relpath(path, ROOT) if label == "soak" else os.path.basename(path)
        names.append(f"`{label}` ({shown}, run {when})")
    got, when = load_cells(a.verdicts, "digest")
    cells.update(got)
    names[0] += f" (matrix run {when})"
    ids, problems = known_ids(), []
    results = [(b, *judge(b, cells, ids, problems)) for b in BUGS]
    text = render(results, " and ".join(names))
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    for p in problems:
        print(f"bug_record: {p}", file=sys.stderr)
    return 1 if a.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
