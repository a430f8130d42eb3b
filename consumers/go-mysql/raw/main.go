// go-mysql used the way old in-house consumers use it: a raw
// replication.BinlogSyncer loop that handles RowsEvent (plus the GTID, XID
// and Rotate events it needs for its checkpoint) and nothing else. For the
// tags whose parser has no TRANSACTION_PAYLOAD_EVENT (v1.1.2 .. v1.7.0; setup
// refuses the others, where the loop that handles payloads is +raw-payload).
// One source for every such tag: setup picks the logger file by build tag
// from what the tag's BinlogSyncerConfig has (log_*.go).
//
// Rows of a transaction are printed when the transaction ends (XID, or a
// QUERY "COMMIT" for non-transactional tables), with the checkpoint such a
// loop keeps: the transaction's GTID and the file:log_pos of its end event.
// Column names come from the TABLE_MAP (binlog_row_metadata=FULL), else
// "@1", "@2", ...; ENUM/SET labels likewise (without them: index / bitmap).
//
// go-mysql <= v1.7.0 does not know TRANSACTION_PAYLOAD_EVENT (type 40): its
// parser hands it over as a *replication.GenericEvent, which this loop, like
// every loop written for it, ignores.
//
// CDCH_CONFIG: a JSON object of BinlogSyncerConfig fields (canon.SyncerConfig).
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cdcharness/consumers/go-common/canon"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

type consumer struct {
	out     *canon.Cell
	tsLoc   *time.Location // TIMESTAMP strings' zone when not UTC (canon.Column.TSLoc)
	file    string
	gtid    string
	pending []canon.Row
}

func (c *consumer) columns(t *replication.TableMapEvent) ([]string, []canon.Column) {
	n := int(t.ColumnCount)
	names := t.ColumnNameString()
	unsigned := t.UnsignedMap()
	colls := t.CollationMap()
	enums := t.EnumStrValueMap()
	sets := t.SetStrValueMap()
	outNames := make([]string, n)
	cols := make([]canon.Column, n)
	for i := 0; i < n; i++ {
		if len(names) == n {
			outNames[i] = names[i]
		} else {
			outNames[i] = "@" + strconv.Itoa(i+1)
		}
		col := &cols[i]
		col.Type = canon.RealType(t.ColumnType[i], t.ColumnMeta[i])
		col.Meta = t.ColumnMeta[i]
		col.Unsigned = unsigned[i]
		if coll, ok := colls[i]; ok {
			col.Charset = canon.CharsetOfCollationID(coll)
		}
		col.Enum = enums[i]
		col.Set = sets[i]
		col.TSLoc = c.tsLoc
	}
	return outNames, cols
}

func (c *consumer) image(t *replication.TableMapEvent, vals []interface{}, skipped []int) ([]canon.KV, error) {
	names, cols := c.columns(t)
	skip := map[int]bool{}
	for _, s := range skipped {
		skip[s] = true
	}
	img := []canon.KV{}
	for i, v := range vals {
		if skip[i] || i >= len(cols) {
			continue
		}
		j, err := canon.ByBinlogType(&cols[i], v)
		if err != nil {
			return nil, fmt.Errorf("%s.%s %s: %v", t.Schema, t.Table, names[i], err)
		}
		img = append(img, canon.KV{Key: names[i], Val: j})
	}
	return img, nil
}

func (c *consumer) rows(h *replication.EventHeader, e *replication.RowsEvent) error {
	var op string
	switch h.EventType {
	case replication.WRITE_ROWS_EVENTv0, replication.WRITE_ROWS_EVENTv1, replication.WRITE_ROWS_EVENTv2:
		op = "insert"
	case replication.UPDATE_ROWS_EVENTv0, replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2:
		op = "update"
	case replication.DELETE_ROWS_EVENTv0, replication.DELETE_ROWS_EVENTv1, replication.DELETE_ROWS_EVENTv2:
		op = "delete"
	default:
		return nil
	}
	skipped := func(k int) []int {
		if k < len(e.SkippedColumns) {
			return e.SkippedColumns[k]
		}
		return nil
	}
	rows, err := canon.PairRows(op, string(e.Table.Schema), string(e.Table.Table), len(e.Rows),
		func(k int) ([]canon.KV, error) { return c.image(e.Table, e.Rows[k], skipped(k)) })
	if err != nil {
		return err
	}
	c.pending = append(c.pending, rows...)
	return nil
}

func (c *consumer) commit(pos uint32) {
	c.out.Emit(c.pending, c.gtid, c.file, uint64(pos))
	c.pending = c.pending[:0]
}

// uuidText is the 16-byte SID of a GTID event as a UUID (8-4-4-4-12 hex).
func uuidText(b []byte) (string, bool) {
	if len(b) != 16 {
		return "", false
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true
}

func (c *consumer) event(ev *replication.BinlogEvent) error {
	h := ev.Header
	switch e := ev.Event.(type) {
	case *replication.RotateEvent:
		c.file = string(e.NextLogName)
	case *replication.GTIDEvent:
		c.gtid = ""
		if h.EventType == replication.GTID_EVENT {
			if u, ok := uuidText(e.SID); ok {
				c.gtid = fmt.Sprintf("%s:%d", u, e.GNO)
			}
		}
	case *replication.RowsEvent:
		return c.rows(h, e)
	case *replication.XIDEvent:
		c.commit(h.LogPos)
	case *replication.QueryEvent:
		if strings.EqualFold(strings.TrimSpace(string(e.Query)), "COMMIT") {
			c.commit(h.LogPos)
		}
	}
	return nil
}

// refuse: settings whose output the loop cannot map.
func refuse(field string, raw json.RawMessage) string {
	if field == "RawModeEnabled" && strings.TrimSpace(string(raw)) == "true" {
		return "the events would not be decoded (RawData only): the loop maps decoded rows events"
	}
	return ""
}

func main() { canon.Main(run) }

// run is one consumer run (canon.Cell): a fresh BinlogSyncer and loop state,
// until the stream fails (status 1) or the cell is stopped (its context).
func run(cell *canon.Cell) int {
	env := cell.Env
	cfg := replication.BinlogSyncerConfig{
		ServerID:                env.ServerID,
		Flavor:                  "mysql",
		Host:                    env.Host,
		Port:                    env.Port,
		User:                    env.User,
		Password:                env.Password,
		TimestampStringLocation: time.UTC,
	}
	if status, ok := cell.SyncerConfig(&cfg, refuse); !ok {
		return status
	}
	canon.SetIfPresent(&cfg, "Dialer", cell.Dialer()) // nil one-shot: the library's default
	setLogger(&cfg, cell.Stderr())
	lib := "go-mysql " + canon.LibVersion("github.com/go-mysql-org/go-mysql")
	syncer := replication.NewBinlogSyncer(cfg)
	defer syncer.Close()

	c := &consumer{out: cell, file: env.StartFile, tsLoc: canon.StringZone(cfg.TimestampStringLocation)}
	var streamer *replication.BinlogStreamer
	var err error
	if env.HaveGTIDSet {
		var set mysql.GTIDSet
		if set, err = mysql.ParseGTIDSet("mysql", env.GTIDSet); err != nil {
			return cell.Fatal("bad CDCH_GTID_SET: " + err.Error())
		}
		streamer, err = syncer.StartSyncGTID(set)
	} else {
		streamer, err = syncer.StartSync(mysql.Position{Name: env.StartFile, Pos: env.StartPos})
	}
	if err != nil {
		return cell.Fatal(lib + " BinlogSyncer: " + err.Error())
	}
	cell.Ready()
	for {
		ev, err := streamer.GetEvent(cell.Context())
		if err != nil {
			if cell.Stopping() {
				return 0
			}
			return cell.Fatal(lib + " BinlogSyncer: " + err.Error())
		}
		if err := c.event(ev); err != nil {
			return cell.Fatal(lib + " adapter: " + err.Error())
		}
	}
}
