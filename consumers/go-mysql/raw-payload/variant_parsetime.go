//go:build cdch_parsetime

// +parsetime, the raw-payload loop built with the tag cdch_parsetime: the
// decode options go-mysql's users set to get Go types back
// (BinlogSyncerConfig.ParseTime: DATETIME/TIMESTAMP as time.Time;
// UseDecimal: DECIMAL as decimal.Decimal; TimestampStringLocation UTC, set by
// main.go, for the TIMESTAMPs still given as strings), in a process whose
// local time zone is not UTC (UTC+05:30, no DST: a host with TZ=Asia/Kolkata;
// set here as TZ would set it, so the variant needs no environment of its
// own). main.go prints each time.Time / decimal.Decimal canonically
// (canon.Time: a TIMESTAMP instant in UTC), as it prints strings.
//
// What it shows: go-mysql <= v1.15.0 parses the events inside a
// TRANSACTION_PAYLOAD with a fresh BinlogParser without the caller's options
// (replication/transaction_payload_event.go decodePayload: NewBinlogParser()),
// so inside a payload ParseTime, UseDecimal and TimestampStringLocation are
// lost: a TIMESTAMP arrives as a string formatted in the local zone. v1.16.0
// passes them on (088eb1f, #1147: cloneForPayloadDecode).
// The user's configuration (CDCH_CONFIG) applies over these two.
package main

import (
	"time"

	"cdcharness/consumers/go-common/canon"

	"github.com/go-mysql-org/go-mysql/replication"
)

func init() { time.Local = time.FixedZone("UTC+05:30", 5*3600+30*60) }

func configure(cfg *replication.BinlogSyncerConfig) {
	cfg.ParseTime = true
	cfg.UseDecimal = true
}

// variantSettings: the process's zone, in the config report (not a library
// setting, but what ParseTime's TIMESTAMPs and nil TimestampStringLocation use).
func variantSettings() []canon.Setting {
	return []canon.Setting{{Key: "TZ", Val: "UTC+05:30 (the process's local zone, time.Local)"}}
}
