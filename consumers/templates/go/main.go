// cdcharness adapter template for a Go CDC library (here: go-mysql's replication.BinlogSyncer,
// a raw loop that also iterates TransactionPayloadEvent, v1.12.0 on: slog logger, tagged GTIDs).
// Output, value mapping, the config line and the run (one-shot, SIGTERM, session mode with a
// fresh client per cell) come from the foundation, consumers/go-common/canon; this file holds
// what is the library's. Places to change for your library: "// CHANGE:".
package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"cdcharness/consumers/go-common/canon"

	// CHANGE: your library.
	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

// CHANGE: the BinlogSyncerConfig fields a user may give in CDCH_CONFIG (a JSON object); any
// other is refused (config-error, exit 2). The harness's own (host, server id...): canon.SyncerOwned.
var allowed = map[string]bool{"HeartbeatPeriod": true, "ReadTimeout": true, "MaxReconnectAttempts": true,
	"UseDecimal": true, "ParseTime": true}

func refuse(field string, _ json.RawMessage) string {
	if allowed[field] {
		return ""
	}
	return "not a setting this adapter passes (HeartbeatPeriod, ReadTimeout, MaxReconnectAttempts, UseDecimal, ParseTime)"
}

type consumer struct {
	out        *canon.Cell
	tsLoc      *time.Location
	file, gtid string
	pending    []canon.Row // a transaction's rows, printed at its end with its checkpoint
}

// CHANGE: the library's row image -> canonical columns (names from the TABLE_MAP when it has
// them, binlog_row_metadata=FULL, else "@1", "@2", ...; values by canon.ByBinlogType).
func (c *consumer) image(t *replication.TableMapEvent, vals []any) ([]canon.KV, error) {
	names, unsigned, colls := t.ColumnNameString(), t.UnsignedMap(), t.CollationMap()
	enums, sets := t.EnumStrValueMap(), t.SetStrValueMap()
	img := []canon.KV{}
	for i, v := range vals {
		if i >= int(t.ColumnCount) {
			break
		}
		col := canon.Column{Type: canon.RealType(t.ColumnType[i], t.ColumnMeta[i]), Meta: t.ColumnMeta[i],
			Unsigned: unsigned[i], Enum: enums[i], Set: sets[i], TSLoc: c.tsLoc}
		if coll, ok := colls[i]; ok {
			col.Charset = canon.CharsetOfCollationID(coll)
		}
		name := "@" + strconv.Itoa(i+1)
		if len(names) == int(t.ColumnCount) {
			name = names[i]
		}
		j, err := canon.ByBinlogType(&col, v)
		if err != nil {
			return nil, fmt.Errorf("%s.%s %s: %v", t.Schema, t.Table, name, err)
		}
		img = append(img, canon.KV{Key: name, Val: j})
	}
	return img, nil
}

func (c *consumer) event(ev *replication.BinlogEvent) error {
	h := ev.Header
	switch e := ev.Event.(type) {
	case *replication.RotateEvent:
		c.file = string(e.NextLogName)
	case *replication.GTIDEvent:
		if set, err := e.GTIDNext(); err == nil {
			c.gtid = set.String()
		}
	case *replication.GtidTaggedLogEvent:
		if set, err := e.GTIDNext(); err == nil {
			c.gtid = set.String()
		}
	case *replication.RowsEvent:
		op := map[replication.EventType]string{
			replication.WRITE_ROWS_EVENTv1: "insert", replication.WRITE_ROWS_EVENTv2: "insert",
			replication.UPDATE_ROWS_EVENTv1: "update", replication.UPDATE_ROWS_EVENTv2: "update",
			replication.PARTIAL_UPDATE_ROWS_EVENT: "update",
			replication.DELETE_ROWS_EVENTv1:       "delete", replication.DELETE_ROWS_EVENTv2: "delete"}[h.EventType]
		if op == "" {
			return nil
		}
		rows, err := canon.PairRows(op, string(e.Table.Schema), string(e.Table.Table), len(e.Rows),
			func(k int) ([]canon.KV, error) { return c.image(e.Table, e.Rows[k]) })
		if err != nil {
			return err
		}
		c.pending = append(c.pending, rows...)
	case *replication.XIDEvent:
		c.commit(h.LogPos)
	case *replication.QueryEvent: // COMMIT of a non-transactional table (the watermark's MyISAM)
		if strings.EqualFold(strings.TrimSpace(string(e.Query)), "COMMIT") {
			c.commit(h.LogPos)
		}
	case *replication.TransactionPayloadEvent: // a compressed transaction: its inner events
		for _, inner := range e.Events {
			if err := c.event(inner); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *consumer) commit(pos uint32) {
	c.out.Emit(c.pending, c.gtid, c.file, uint64(pos))
	c.pending = c.pending[:0]
}

func main() { canon.Main(run) }

// run is one cell: a fresh client until the stream fails (status 1) or the cell is stopped.
func run(cell *canon.Cell) int {
	env := cell.Env
	cfg := replication.BinlogSyncerConfig{ServerID: env.ServerID, Flavor: "mysql", Host: env.Host,
		Port: env.Port, User: env.User, Password: env.Password, TimestampStringLocation: time.UTC}
	if status, ok := cell.SyncerConfig(&cfg, refuse); !ok { // merges CDCH_CONFIG, prints the config line
		return status
	}
	cfg.Dialer = cell.Dialer()
	cfg.Logger = slog.New(slog.NewTextHandler(cell.Stderr(), nil))
	syncer := replication.NewBinlogSyncer(cfg) // CHANGE: start your library
	defer syncer.Close()
	c := &consumer{out: cell, file: env.StartFile, tsLoc: canon.StringZone(cfg.TimestampStringLocation)}
	var streamer *replication.BinlogStreamer
	var err error
	if env.HaveGTIDSet {
		var set mysql.GTIDSet
		if set, err = mysql.ParseGTIDSet("mysql", env.GTIDSet); err == nil {
			streamer, err = syncer.StartSyncGTID(set)
		}
	} else {
		streamer, err = syncer.StartSync(mysql.Position{Name: env.StartFile, Pos: env.StartPos})
	}
	if err != nil {
		return cell.Fatal("BinlogSyncer: " + err.Error())
	}
	cell.Ready()
	for {
		ev, err := streamer.GetEvent(cell.Context())
		if err != nil {
			if cell.Stopping() {
				return 0
			}
			return cell.Fatal("BinlogSyncer: " + err.Error()) // the consumer died
		}
		if err := c.event(ev); err != nil {
			return cell.Fatal("adapter: " + err.Error())
		}
	}
}
