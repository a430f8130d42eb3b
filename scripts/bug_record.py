#!/usr/bin/env python3
"""Writes docs/BUG-RECORD.md: every public compression-related bug of the record
(shared/reference/consumers.md, the manifests' known_issues, issue 13), the cells that show it
on the affected version and its fix on the fixing version, with their verdicts taken from a real
run, and for the rest the reason it cannot be shown here.

    scripts/bug_record.py [--verdicts REPORT] [--soak REPORT] [--edges REPORT] [--extra LABEL=REPORT ...]
                          [--out FILE] [--check]
    scripts/bug_record.py --matrix ci/edges-record.yaml [--family F ...]

REPORT is the committed digest (reports/default/verdicts.json, the default) or a full report.json
(`cdcharness run/matrix --report-dir D` writes D/report.json); --soak is the soak run's (scripts/soak.sh,
ci/soak.yaml: multi-gigabyte scenarios outside the default matrix; default reports/soak/verdicts.json,
read when it exists), its cells marked [soak]; --extra adds cells from another run, marked with LABEL in
the table (the digest wins where both hold a cell); --edges is the run of ci/edges-record.yaml (default
reports/edges/verdicts.json, read when it exists: each go-mysql and Debezium known issue with a fix on
its last affected and first fixed served release), its cells marked [edges]. A bug counts as
"reproduced, fix shown" only when every affected cell it names was run, is not `pass` and cites
the bug's cause id (the manifest's known issue), and every fixing cell was run and is `pass`; a fixing
cell written "~SPEC" is a first fixed release where another known issue decides the verdict: it shows
the fix when it does not cite the bug's cause and its verdict differs from the affected cells' on the
same scenario and mode (or when a plain fixing cell passes besides it).
--matrix OUT writes the matrix of the cells the record names for the families --family gives
(default go-mysql and debezium) that the committed digests do not hold: ci/edges-record.yaml.
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
                "debezium@2.7.4.Final crud-basic compressed",
                "~debezium@1.4.1.Final crud-basic compressed"],
         note="Debezium's first release past the bug, 1.4.1.Final (client 0.23.3 maps type 40 to UNKNOWN, "
              "DBZ-2499 9e2fb39), no longer dies on type 40 but drops the payload silently: DBZ-2663, row 3"),
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
         fixed=["debezium@2.0.0.Final crud-basic compressed", "debezium@2.7.4.Final crud-basic compressed"],
         note="1.9.8.Final is the last affected release Maven Central serves, 2.0.0.Final the first fixed one"),
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
                   "debezium@2.7.4.Final+retry restart-mid-payload compressed",
                   "debezium@3.3.1.Final+retry restart-mid-payload compressed"],
         fixed=["debezium@3.3.2.Final+retry restart-mid-payload compressed",
                "debezium@3.4.0.Final+retry restart-mid-payload compressed",
                "debezium@3.6.1.Final+retry restart-mid-payload compressed"],
         note="the base 3.3.2 / 3.6.1 never restart: MySqlErrorHandler.isRetriable returns false for every "
              "throwable (mysql-errorhandler-not-retriable, DBZ-8786 regression since 3.1.0.CR1), so they stop "
              "at the cut (no-resume) and the fix is not exercised; the +retry versions set Debezium's documented "
              "workaround internal.custom.retriable.exception=(?s).*, under which 2.7.4 still replays the payload "
              "rows (duplicate) and 3.3.2 / 3.6.1 pass. Edges: 3.3.1.Final+retry is the last affected release, "
              "3.3.2.Final (the backport 67c5a52273) and 3.4.0.Final (dfd992f495) the first fixed of each line"),
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
    # ---- issue 29 item 4: the go-mysql and Debezium known issues with a fix, on their last affected
    # and first fixed served release (ci/edges-record.yaml, reports/edges)
    dict(bug="go-mysql-org/go-mysql#652",
         link="https://github.com/go-mysql-org/go-mysql/pull/652",
         consumer="go-mysql",
         title="after caching_sha2_password full authentication the OK packet is never read: the replication "
               "connection fails ('invalid sequence')",
         affected_versions="< v1.4.0", fixed_versions="v1.4.0 (c14c892)",
         cause="caching-sha2-full-auth-ok-unread",
         affected=["go-mysql@v1.3.0+raw crud-basic uncompressed"],
         fixed=["go-mysql@v1.4.0+raw crud-basic uncompressed"],
         note="not a compression bug: the edges of the family's known issue (v1.3.0 last affected, v1.4.0 first fixed)"),
    dict(bug="go-mysql-org/go-mysql 3d2be20 (PARTIAL_UPDATE_ROWS_EVENT)",
         link="https://github.com/go-mysql-org/go-mysql/commit/3d2be20",
         consumer="go-mysql",
         title="PARTIAL_UPDATE_ROWS_EVENT (39) parsed as a GenericEvent: partial JSON updates vanish silently",
         affected_versions="< v1.8.0", fixed_versions="v1.8.0 (3d2be20)",
         cause="no-partial-update-rows",
         affected=["go-mysql@v1.7.0+raw partial-json-full uncompressed",
                   "go-mysql@v1.7.0+raw partial-json-minimal uncompressed"],
         fixed=["~go-mysql@v1.8.0+canal partial-json-full uncompressed",
                "~go-mysql@v1.8.0+canal partial-json-minimal uncompressed"],
         note="not a compression bug. From v1.8.0 the module is canal (the family's +raw ends at v1.7.0): the "
              "parser now decodes type 39 and canal stops on it (canal-no-partial-update: parse-failure, where "
              "v1.7.0 skipped the updates silently)"),
    dict(bug="go-mysql-org/go-mysql#900",
         link="https://github.com/go-mysql-org/go-mysql/pull/900",
         consumer="go-mysql (canal)",
         title="canal syncs a position only on XID, ROTATE or DDL: a transaction ending in a COMMIT query "
               "never reaches OnPosSynced",
         affected_versions="< v1.9.0", fixed_versions="v1.9.0 (24fbb5b: the Go proxy's v1.9.0 is ccf204b, which holds it)",
         cause="canal-no-sync-on-query",
         affected=["go-mysql@v1.8.0+canal crud-basic uncompressed", "go-mysql@v1.8.0+canal crud-basic compressed"],
         fixed=["go-mysql@v1.9.0+canal crud-basic uncompressed", "~go-mysql@v1.9.0+canal crud-basic compressed"],
         note="not a compression bug. git tag --contains 24fbb5b lists v1.9.1 first, but the repository's v1.9.0 tag "
              "was moved: the Go proxy's v1.9.0 (v1.9.0.info Origin.Hash ccf204b, 2024-08-05) holds 24fbb5b "
              "(canal/sync.go:150 savePos for a parsed query, :181 OnPosSynced), as the run shows"),
    dict(bug="go-mysql-org/go-mysql#990, #1125 (#947 added the constant only)",
         link="https://github.com/go-mysql-org/go-mysql/pull/1125",
         consumer="go-mysql",
         title="a tagged GTID (GTID_TAGGED_LOG_EVENT, type 42) is never reported as uuid:tag:N: not parsed up to "
               "v1.11.x, parsed but formatted without its tag v1.12.0-v1.14.x",
         affected_versions="< v1.15.0", fixed_versions="v1.15.0 (f9137e3, #1125; #990 f53dd22 parses the event from v1.12.0)",
         cause="no-gtid-tagged-event",
         affected=["go-mysql@v1.10.0+raw-payload tagged-gtid uncompressed",
                   "go-mysql@v1.11.0+raw-payload tagged-gtid uncompressed",
                   "go-mysql@v1.12.0+raw-payload tagged-gtid uncompressed",
                   "go-mysql@v1.14.0+raw-payload tagged-gtid uncompressed"],
         fixed=["go-mysql@v1.15.0+raw-payload tagged-gtid uncompressed"],
         note="not a compression bug. The manifest's range ended at v1.10.0 (#947, c7b7533) until these runs: "
              "v1.10.0 / v1.11.0 report txn 4 at the previous untagged GTID (:3), v1.12.0 as uuid:1 (the tagged GNO "
              "without 'orders': GTIDNext, replication/event.go:532-538 at v1.12.0), and v1.15.0 as uuid:orders:1 "
              "(f9137e3). +raw-payload: +raw builds only tags <= v1.7.0, and the canal module started by "
              "file:position reports no GTID at all (consumers/go-mysql/canal/main.go:13-15: v1.9.1+canal passes "
              "tagged-gtid), so the issue's variants leave canal out"),
    dict(bug="go-mysql-org/go-mysql#1125",
         link="https://github.com/go-mysql-org/go-mysql/pull/1125",
         consumer="go-mysql",
         title="mysql.ParseMysqlGTIDSet cannot parse a tagged GTID set (uuid:tag:N): a start by such a set is refused",
         affected_versions="< v1.15.0", fixed_versions="v1.15.0 (f9137e3)",
         cause="tagged-gtid-set-unparsed",
         affected=["go-mysql@v1.14.0+canal tagged-gtid-by-set uncompressed"],
         fixed=["go-mysql@v1.15.0+canal tagged-gtid-by-set uncompressed"],
         note="not a compression bug; v1.14.0 is the newest v1.14 tag the Go proxy serves (v1.14.1 refused)"),
    dict(bug="go-mysql-org/go-mysql#1004",
         link="https://github.com/go-mysql-org/go-mysql/pull/1004",
         consumer="go-mysql",
         title="no VECTOR column type (MySQL 9.0): the rows event fails to decode, the BinlogSyncer stops",
         affected_versions="< v1.12.0", fixed_versions="v1.12.0 (042dd6c)",
         cause="no-vector-type",
         affected=["go-mysql@v1.11.0+canal server-9.0-vector uncompressed"],
         fixed=["go-mysql@v1.12.0+canal server-9.0-vector uncompressed"],
         note="not a compression bug"),
    dict(bug="DBZ-2499 (client 0.23.3, 9e2fb39): type 39",
         link="https://issues.redhat.com/browse/DBZ-2499",
         consumer="Debezium",
         title="binlog client without event type 39 (PARTIAL_UPDATE_ROWS): 'Unknown event type 39', the connector fails",
         affected_versions="< 1.4.1.Final", fixed_versions="1.4.1.Final (embeds client 0.23.3)",
         cause="unknown-event-39",
         affected=["debezium@1.4.0.Final partial-json-full uncompressed"],
         fixed=["~debezium@1.4.1.Final partial-json-full uncompressed"],
         note="not a compression bug. 1.4.1.Final no longer fails on type 39 but ignores it: "
              "partial-update-rows-no-handler (the row below) decides its verdict"),
    dict(bug="Debezium: PARTIAL_UPDATE_ROWS ignored, undocumented (b51cc84cbe documents it)",
         link="https://github.com/debezium/debezium/commit/b51cc84cbe",
         consumer="Debezium",
         title="no handler for PARTIAL_UPDATE_ROWS (binlog_row_value_options=PARTIAL_JSON): those updates "
               "are ignored silently and no documentation excludes the setting",
         affected_versions="1.4.1.Final .. 2.0.0.CR1 (excl.)", fixed_versions="2.0.0.CR1 (documented as unsupported)",
         cause="partial-update-rows-no-handler",
         affected=["debezium@1.4.1.Final partial-json-full uncompressed", "debezium@1.9.8.Final partial-json-full uncompressed"],
         fixed=["~debezium@2.0.0.Final partial-json-full uncompressed"],
         why="the fix is documentation, which no run shows: from 2.0.0.CR1 the setting is documented unsupported "
             "(partial-json-documented-unsupported, not-applicable, decides 2.0.0.Final's silent-skip); no release "
             "handles type 39",
         note="not a compression bug"),
    dict(bug="DBZ-1865 (legacy BinlogReader: no reconnect)",
         link="https://issues.redhat.com/browse/DBZ-1865",
         consumer="Debezium",
         title="a lost binlog connection fails the connector: the legacy reader disconnects and calls failed(ex)",
         affected_versions="< 1.5.0.Alpha1", fixed_versions="1.5.0.Alpha1 (2374b6b045: the new reader is the default)",
         cause="legacy-reader-no-retry",
         affected=["debezium@1.4.2.Final restart-mid-payload uncompressed"],
         fixed=["~debezium@1.5.0.Final restart-mid-payload uncompressed",
                "debezium@2.0.0.Final restart-mid-payload uncompressed"],
         note="not a compression bug. The new reader's error handler does not retry an EOF inside an event "
              "until 2.0.0.Beta2 (eof-in-event-not-retriable, DBZ-5244, below): 1.5.0.Final still stops at the "
              "cut (the same no-resume), 2.0.0.Final resumes"),
    dict(bug="DBZ-5244",
         link="https://issues.redhat.com/browse/DBZ-5244",
         consumer="Debezium",
         title="a connection lost inside an event (EventDataDeserializationException(EOFException)) is not "
               "retried: the connector stops",
         affected_versions="1.5.0.Alpha1 .. 2.0.0.Beta2 (excl.)", fixed_versions="2.0.0.Beta2 (de53591dba)",
         cause="eof-in-event-not-retriable",
         affected=["debezium@1.5.0.Final restart-mid-payload uncompressed",
                   "debezium@1.9.8.Final restart-mid-payload uncompressed"],
         fixed=["debezium@2.0.0.Final restart-mid-payload uncompressed"],
         note="not a compression bug"),
    dict(bug="osheroff/mysql-binlog-connector-java ae3c591 (VISIBILITY metadata)",
         link="https://github.com/osheroff/mysql-binlog-connector-java/commit/ae3c591",
         consumer="Debezium (embeds the client)",
         title="TABLE_MAP metadata field VISIBILITY (MySQL 8.0.23+) unknown to the client: NullPointerException, "
               "the connector fails",
         affected_versions="0.9.2.Final .. 1.6.2.Final, 1.7.0.Alpha1 .. Beta1",
         fixed_versions="1.6.3.Final, 1.7.0.CR1 (embed client 0.25.3)",
         cause="table-map-visibility-npe",
         affected=["debezium@1.6.2.Final row-metadata-full uncompressed"],
         fixed=["~debezium@1.6.4.Final row-metadata-full uncompressed",
                "~debezium@1.7.0.Final row-metadata-full uncompressed",
                "debezium@3.4.0.Final row-metadata-full uncompressed"],
         note="not a compression bug. The client that knows VISIBILITY (0.25.3) brought the missing break "
              "after ENUM_AND_SET_COLUMN_CHARSET (enum-set-charset-fallthrough, the row below): 1.6.4 and 1.7.0 "
              "fail on the same TABLE_MAP with an EOFException instead of the NPE (the same verdict); the first "
              "release passing row-metadata-full is 3.4.0.Final"),
    dict(bug="debezium/mysql-binlog-connector-java 8f26be9 (ENUM_AND_SET_COLUMN_CHARSET fall-through)",
         link="https://github.com/debezium/mysql-binlog-connector-java/commit/8f26be9",
         consumer="Debezium (embeds the client)",
         title="missing break after ENUM_AND_SET_COLUMN_CHARSET: EOFException decoding TABLE_MAP with "
               "binlog_row_metadata=FULL, the connector fails",
         affected_versions="1.6.3.Final .. 3.3.x (not 1.7.0.Alpha1-Beta1)",
         fixed_versions="3.4.0.Alpha1 (embeds io.debezium 0.40.3)",
         cause="enum-set-charset-fallthrough",
         affected=["debezium@3.3.2.Final row-metadata-full uncompressed"],
         fixed=["debezium@3.4.0.Final row-metadata-full uncompressed"],
         note="not a compression bug (compressed, it strikes the TABLE_MAPs inside payloads too)"),
    dict(bug="DBZ-4646",
         link="https://issues.redhat.com/browse/DBZ-4646",
         consumer="Debezium",
         title="resuming without a schema history: the empty history file is created and counts as existing, "
               "so no recovery snapshot; the first row event fails",
         affected_versions="0.9.5.Final .. 1.9.0.Alpha2 (excl.)", fixed_versions="1.9.0.Alpha2 (d5dcde8f7a)",
         cause="file-history-exists-on-start",
         affected=["debezium@1.8.1.Final start-by-gtid-set uncompressed"],
         fixed=["debezium@1.9.0.Final start-by-gtid-set uncompressed"],
         note="not a compression bug"),
    dict(bug="client without TRANSACTION_PAYLOAD (0.23.3-0.25.6, a7f2de3 adds it)",
         link="https://github.com/osheroff/mysql-binlog-connector-java/commit/a7f2de3",
         consumer="Debezium (embeds the client)",
         title="a payload arrives as EventType.UNKNOWN, its bytes never decoded: no decoder defect strikes "
               "inside it, its rows are lost as DBZ-2663 (row 3) says",
         affected_versions="1.4.1.Final .. 1.9.5.Final", fixed_versions="1.9.6.Final (embeds client 0.27.2)",
         cause="payload-undecoded",
         affected=["debezium@1.9.5.Final row-metadata-full compressed"],
         fixed=["~debezium@1.9.6.Final row-metadata-full compressed"],
         note="a masking, not a loss of its own: from 1.9.6.Final the payload's TABLE_MAPs are decoded and "
              "enum-set-charset-fallthrough stops the connector on them (parse-failure, against 1.9.5's silent-skip)"),
    dict(bug="DBZ-7594",
         link="https://issues.redhat.com/browse/DBZ-7594",
         consumer="Debezium",
         title="negative TIME(fsp>0) with a zero fraction: -838:59:59.000 becomes -839:00:00.147483",
         affected_versions="0.7.0 .. 2.5.2.Final, 2.6.0.Alpha1 .. Beta1",
         fixed_versions="2.5.3.Final (f58ba384fb), 2.6.0.CR1 (a71368cf62)",
         cause="negative-time-zero-fraction",
         affected=["debezium@2.5.2.Final all-types uncompressed"],
         fixed=["~debezium@2.5.3.Final all-types uncompressed", "~debezium@2.6.0.Final all-types uncompressed",
                "debezium@3.6.1.Final all-types uncompressed"],
         why="no served release passes all-types (zero-date-null and year-zero-1900 hold for every version), so the "
             "verdict stays mismatch; the fix shows in the values: the edge run's observed.jsonl gives temporal.t3 "
             "(TIME(3) -838:59:59.000) as -839:00:00.147483 on 2.5.2.Final (after image of txn 18's row, before image "
             "of txn 19's) and -838:59:59 on 2.5.3.Final: 28 differences against 26; 2.6.0.Final is back at 28, its "
             "two others the JSON document's long number (adapter-json-number-length)",
         note="not a compression bug"),
    dict(bug="DBZ-1912",
         link="https://issues.redhat.com/browse/DBZ-1912",
         consumer="Debezium",
         title="a zero TIMESTAMP is emitted as 1970-01-01T00:00:00Z, not null as documented for zero values",
         affected_versions="< 3.6.0.Beta2", fixed_versions="3.6.0.Beta2 (3d15268429)",
         cause="zero-timestamp-epoch",
         affected=["debezium@3.5.0.Final all-types uncompressed"],
         fixed=["~debezium@3.6.1.Final all-types uncompressed"],
         why="no served release passes all-types (zero-date-null and year-zero-1900 hold for every version): "
             "3.5.0.Final gives the zero TIMESTAMPs (ts0, ts3, ts6) as 1970-01-01 00:00:00, 3.6.1.Final's "
             "verdict no longer cites it",
         note="not a compression bug. 3.6.0.Final is not served whole by Maven Central (its "
              "debezium-connector-binlog / debezium-ddl-parser 3.6.0.Final are absent: setup 'not served'), "
              "so 3.6.1.Final is the first fixed release here"),
    dict(bug="DBZ-7838",
         link="https://issues.redhat.com/browse/DBZ-7838",
         consumer="Debezium",
         title="asks SHOW MASTER STATUS, which MySQL 8.4 removed: the connector fails at start against 8.4 / 9.x",
         affected_versions="< 3.0.0.CR1", fixed_versions="3.0.0.CR1 (8ca8f451f8)",
         cause="show-master-status-removed",
         affected=["debezium@2.7.4.Final server-9.0-vector uncompressed"],
         fixed=["debezium@3.0.0.Final server-9.0-vector uncompressed"],
         note="not a compression bug (a server-version one)"),
    dict(bug="debezium/dbz#1200",
         link="https://github.com/debezium/dbz/issues/1200",
         consumer="Debezium",
         title="a tagged GTID (uuid:tag:N) stops the connector: MySqlGtidSet reads the tag as the transaction number",
         affected_versions="3.0.0.CR1 .. 3.6.0.Beta2 (excl.)", fixed_versions="3.6.0.Beta2 (fcf7b1ecb8)",
         cause="tagged-gtid-unsupported",
         affected=["debezium@3.5.0.Final tagged-gtid uncompressed"],
         fixed=["debezium@3.6.1.Final tagged-gtid uncompressed"],
         note="not a compression bug. 3.6.0.Final is not served whole by Maven Central: 3.6.1.Final is the "
              "first fixed release here"),
    dict(bug="DBZ-6870",
         link="https://issues.redhat.com/browse/DBZ-6870",
         consumer="Debezium",
         title="after a producer failure, records enqueued meanwhile are delivered or not by timing (ChangeEventQueue.poll)",
         affected_versions="1.5.0.Alpha1 .. 2.4.0.Final (excl.)", fixed_versions="2.4.0.Final (b08acc6043)",
         cause=None, affected=[], fixed=[],
         why="a race: the harness holds the watermark until the consumer is quiet (the manifest's hold_end_marker), "
             "so no cell shows it on purpose; observed unheld on 1.9.8.Final and 1.9.6.Final row-metadata-full compressed"),
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
    aff, aff_ok, aff_verdicts = [], bool(bug["affected"]), {}
    for spec in bug["affected"]:
        text, verdict, causes = look(cells, spec, problems)
        aff.append(text)
        aff_ok = aff_ok and verdict not in (None, "pass") and (not cause or cause in causes)
        _, scenario, mode = spec.split()
        aff_verdicts.setdefault((scenario, mode), set()).add(verdict)
    fix, fix_ok = [], bool(bug["fixed"])
    plain_pass = any(not s.startswith("~") for s in bug["fixed"])
    for spec in bug["fixed"]:
        masked = spec.startswith("~")
        text, verdict, causes = look(cells, spec.lstrip("~"), problems)
        if not masked:
            fix.append(text)
            fix_ok = fix_ok and verdict == "pass"
            continue
        # a first fixed release where another known issue decides the verdict
        _, scenario, mode = spec.lstrip("~").split()
        differs = verdict not in aff_verdicts.get((scenario, mode), {verdict})
        fix.append(text + (" (first fixed; another known issue decides"
                           + (": the verdict differs from the affected release's)" if differs else ")")))
        fix_ok = fix_ok and verdict is not None and cause not in causes and (differs or plain_pass)
    if aff_ok and fix_ok:
        status = "reproduced, fix shown"
    elif aff_ok:
        status = "reproduced, fix not shown"
    else:
        status = "not reproduced here"
    return status, aff, fix


def edge_matrix(out, families, covered):
    """Writes the matrix of the record's cells of these families that no committed digest holds."""
    want = []
    for b in BUGS:
        for spec in b["affected"] + b["fixed"]:
            consumer, scenario, mode = spec.lstrip("~").split()
            if consumer.split("@")[0] in families and (consumer, scenario, mode) not in covered \
                    and (consumer, scenario, mode) not in want:
                want.append((consumer, scenario, mode))
    consumers, scenarios = [], []
    for c, s, _ in want:
        if c not in consumers:
            consumers.append(c)
        if s not in scenarios:
            scenarios.append(s)
    lines = ["# The record's edge cells: for %s, each known issue with a fix on its last affected and first"
             % " and ".join(sorted(families)),
             "# fixed served release (scripts/edges.py's edges, ci/edges.yaml), on the scenario and mode where it",
             "# shows, as docs/BUG-RECORD.md's rows name them. Written by scripts/bug_record.py --matrix (do not",
             "# edit by hand). Run: cdcharness matrix ci/edges-record.yaml -j 2 --report-dir R, then",
             "# cdcharness report digest --out reports/edges R and scripts/bug_record.py",
             "name: edges-record",
             "description: the bug record's known issues on their last affected and first fixed releases",
             "consumers_dirs: [../consumers]", "consumers:"]
    lines += ["  - " + c for c in consumers]
    lines += ["scenarios:"] + ["  - ../scenarios/%s.yaml" % s for s in sorted(scenarios)]
    lines += ["modes: both", "expect: manifest", "timeout: 120", "grace: 1", "exclude:"]
    for c in consumers:
        for s in sorted(scenarios):
            for m in ("uncompressed", "compressed", "flip"):
                if (c, s, m) not in want:
                    lines.append('  - {consumer: %s, scenario: %s, mode: %s, reason: "not a cell of the record"}'
                                 % (c, s, m))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"bug_record: {len(want)} cell(s) of {len(consumers)} consumer(s) -> {out}")


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
        "fixing cell is `pass`; a cell marked *first fixed; another known issue decides* is the first fixed",
        "release where another known issue decides the verdict: it counts when it does not cite the bug's",
        "cause and its verdict differs from the affected release's (or when a later release passes beside",
        "it). Cells marked [edges] come from `reports/edges/` (ci/edges-record.yaml: the go-mysql and",
        "Debezium known issues on their last affected and first fixed served releases).",
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
    ap.add_argument("--edges", default=os.path.join(ROOT, "reports", "edges", "verdicts.json"),
                    help="the run of ci/edges-record.yaml (digest or report.json); read when it exists")
    ap.add_argument("--extra", action="append", default=[], metavar="LABEL=REPORT")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "BUG-RECORD.md"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--matrix", metavar="OUT", help="write the edge cells' matrix (ci/edges-record.yaml) and exit")
    ap.add_argument("--family", action="append", help="with --matrix (default: go-mysql, debezium)")
    a = ap.parse_args()
    if a.matrix:
        covered = set(load_cells(a.verdicts, "digest")[0])
        if a.soak and os.path.exists(a.soak):
            covered |= set(load_cells(a.soak, "soak")[0])
        edge_matrix(a.matrix, set(a.family or ["go-mysql", "debezium"]), covered)
        return 0
    cells = {}
    names = [f"`{os.path.relpath(a.verdicts, ROOT)}`"]
    extras = list(a.extra)
    if a.edges and os.path.exists(a.edges):
        extras.insert(0, f"edges={a.edges}")
    if a.soak and os.path.exists(a.soak):
        extras.insert(0, f"soak={a.soak}")
    for spec in extras:
        label, _, path = spec.partition("=")
        if not path:
            ap.error(f"--extra wants LABEL=REPORT, got {spec!r}")
        got, when = load_cells(path, label)
        cells.update(got)
        shown = os.path.relpath(path, ROOT) if label in ("soak", "edges") else os.path.basename(path)
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
