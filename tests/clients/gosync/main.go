// gosync: streams a binlog from a (fake) MySQL primary with go-mysql's
// replication.BinlogSyncer, the way raw BinlogSyncer users do, and writes
// every event it receives (RawData as hex, header fields) as JSON Lines, so
// tests/dump_clients.sh can compare them with the generated binlog files.
//
//	gosync -addr 127.0.0.1:PORT [-file F -pos N | -gtid SET] [-flags N]
//	       [-heartbeat 200ms] [-until-file F -until-pos N] [-heartbeats K]
//	       [-timeout 60s] -out events.jsonl
//
// It stops when it has seen the event (or heartbeat) ending at
// until-file:until-pos and then K more heartbeats, or on timeout (exit 1),
// or when the server sends an error (printed as "error: ..." , exit 3).
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

type record struct {
	I      int    `json:"i"`
	Type   int    `json:"type"`
	LogPos uint32 `json:"log_pos"`
	Flags  uint16 `json:"flags"`
	TS     uint32 `json:"ts"`
	Size   uint32 `json:"size"`
	File   string `json:"file"`
	Raw    string `json:"raw"`
	Inner  int    `json:"inner,omitempty"` // events decoded inside a TRANSACTION_PAYLOAD
	HbFile string `json:"hb_file,omitempty"`
	HbPos  uint64 `json:"hb_pos,omitempty"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:3306", "host:port")
	user := flag.String("user", "cdch", "user")
	pass := flag.String("password", "cdch", "password")
	serverID := flag.Uint("server-id", 1001, "replica server id")
	file := flag.String("file", "", "start file (position mode)")
	pos := flag.Uint("pos", 4, "start position (position mode)")
	gtid := flag.String("gtid", "", "GTID set (GTID mode when -gtid-mode)")
	gtidMode := flag.Bool("gtid-mode", false, "use COM_BINLOG_DUMP_GTID with -gtid")
	dflags := flag.Uint("flags", 0, "COM_BINLOG_DUMP flags")
	hb := flag.Duration("heartbeat", 0, "heartbeat period")
	untilFile := flag.String("until-file", "", "stop after the event ending at this file...")
	untilPos := flag.Uint("until-pos", 0, "...and this position")
	heartbeats := flag.Int("heartbeats", 0, "then wait for this many heartbeats")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after")
	out := flag.String("out", "-", "output JSON Lines")
	flag.Parse()

	host, port := *addr, uint16(3306)
	if i := strings.LastIndex(*addr, ":"); i >= 0 {
		host = (*addr)[:i]
		var p int
		fmt.Sscanf((*addr)[i+1:], "%d", &p)
		port = uint16(p)
	}
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		w = f
	}
	enc := json.NewEncoder(w)

	cfg := replication.BinlogSyncerConfig{
		ServerID:             uint32(*serverID),
		Flavor:               "mysql",
		Host:                 host,
		Port:                 port,
		User:                 *user,
		Password:             *pass,
		HeartbeatPeriod:      *hb,
		DumpCommandFlag:      uint16(*dflags),
		MaxReconnectAttempts: 1,
		Logger:               slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	syncer := replication.NewBinlogSyncer(cfg)
	defer syncer.Close()

	var streamer *replication.BinlogStreamer
	var err error
	if *gtidMode {
		set, perr := mysql.ParseMysqlGTIDSet(*gtid)
		if perr != nil {
			fmt.Fprintln(os.Stderr, "bad GTID set:", perr)
			os.Exit(2)
		}
		streamer, err = syncer.StartSyncGTID(set)
	} else {
		streamer, err = syncer.StartSync(mysql.Position{Name: *file, Pos: uint32(*pos)})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "start:", err)
		os.Exit(3)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cur := *file
	reached := *untilFile == ""
	seenHB := 0
	for i := 0; ; i++ {
		ev, err := streamer.GetEvent(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				fmt.Fprintf(os.Stderr, "timeout after %d events (reached=%v, heartbeats=%d)\n", i, reached, seenHB)
				os.Exit(1)
			}
			fmt.Println("error:", err)
			os.Exit(3)
		}
		h := ev.Header
		r := record{I: i, Type: int(h.EventType), LogPos: h.LogPos, Flags: h.Flags, TS: h.Timestamp,
			Size: h.EventSize, Raw: hex.EncodeToString(ev.RawData)}
		isHB := false
		switch e := ev.Event.(type) {
		case *replication.RotateEvent:
			cur = string(e.NextLogName)
		case *replication.TransactionPayloadEvent:
			r.Inner = len(e.Events)
		case *replication.HeartbeatEvent:
			isHB = true
			r.HbFile = e.Filename
			r.HbPos = e.Offset
			if e.Version == 1 {
				r.HbPos = uint64(h.LogPos)
			}
		}
		r.File = cur
		if err := enc.Encode(&r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if !reached && cur == *untilFile && uint(h.LogPos) == *untilPos {
			reached = true
			if *heartbeats == 0 {
				return
			}
			continue
		}
		if reached && isHB {
			seenHB++
			if seenHB >= *heartbeats {
				return
			}
		}
	}
}
