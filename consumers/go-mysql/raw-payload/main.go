// go-mysql >= v1.8.0 used as a raw replication.BinlogSyncer loop that,
// unlike loops written for <= v1.7.0, also handles
// *replication.TransactionPayloadEvent by iterating its inner Events (what
// go-mysql's own canal package does; code written for v1.8.0+ has to do it
// itself, see dbtrail/dbtrail#414 and block/spirit#1064). One source for
// every tag from v1.8.0 and for two variants: +raw-payload, and +parsetime
// (built with the tag cdch_parsetime: variant_parsetime.go). What differs
// between tags is chosen by setup as build tags from what the tag has
// (log_*.go: the logger type; gtid_*.go: GTID_TAGGED_LOG_EVENT, v1.12.0+).
//
// Rows of a transaction are printed when the transaction ends (XID, or a
// QUERY "COMMIT" for non-transactional tables), with the checkpoint such a
// loop keeps: the transaction's GTID and the file:log_pos of its end event
// as go-mysql hands it over (inside a payload: the inner event's header,
// which go-mysql stamps since v1.16.0, ace1fb4). Column names come from the
// TABLE_MAP (binlog_row_metadata=FULL), else "@1", "@2", ...; ENUM/SET
// labels likewise (without them: index / bitmap). Library defaults
// otherwise (RenderJSONAsMySQLText off, TIMESTAMP strings in UTC), unless
// the variant or the user's configuration (CDCH_CONFIG: a JSON object of
// BinlogSyncerConfig fields, canon.SyncerConfig) says more; what those
// settings change in the values (time.Time, decimal.Decimal, TIMESTAMP
// strings in another zone) is mapped by canon.ByBinlogType.
package main

import (
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

// jsonDiff prints a partial JSON update (binlog_row_value_options=
// PARTIAL_JSON) as go-mysql gives it: one operation, not the document.
func jsonDiff(d *replication.JsonDiff) []byte {
	ops := [...]string{"replace", "insert", "remove"}
	op := strconv.Itoa(int(d.Op))
	if int(d.Op) < len(ops) {
		op = ops[d.Op]
	}
	s := `{"json_diff":[{"op":` + string(canon.JSONString(op)) + `,"path":` + string(canon.JSONString(d.Path))
	if d.Op != replication.JsonDiffOperationRemove {
		s += `,"value":` + d.Value
	}
	return []byte(s + `}]}`)
}

func (c *consumer) image(t *replication.TableMapEvent, vals []any, skipped []int) ([]canon.KV, error) {
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
		var j []byte
		var err error
		if d, ok := v.(*replication.JsonDiff); ok {
			j = jsonDiff(d)
		} else {
			j, err = canon.ByBinlogType(&cols[i], v)
		}
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
	case replication.UPDATE_ROWS_EVENTv0, replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2,
		replication.PARTIAL_UPDATE_ROWS_EVENT:
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

func (c *consumer) gtidOf(h *replication.EventHeader, e *replication.GTIDEvent) {
	c.gtid = ""
	if h.EventType == replication.GTID_EVENT || isTaggedGTID(h.EventType) {
		if set, err := e.GTIDNext(); err == nil {
			c.gtid = set.String()
		}
	}
}

func (c *consumer) event(ev *replication.BinlogEvent) error {
	h := ev.Header
	switch e := ev.Event.(type) {
	case *replication.RotateEvent:
		c.file = string(e.NextLogName)
	case *replication.GTIDEvent:
		c.gtidOf(h, e)
	case *replication.RowsEvent:
		return c.rows(h, e)
	case *replication.XIDEvent:
		c.commit(h.LogPos)
	case *replication.QueryEvent:
		if strings.EqualFold(strings.TrimSpace(string(e.Query)), "COMMIT") {
			c.commit(h.LogPos)
		}
	case *replication.TransactionPayloadEvent:
		for _, inner := range e.Events {
			if err := c.event(inner); err != nil {
				return err
			}
		}
	default:
		if g, ok := taggedGTID(ev.Event); ok {
			c.gtidOf(h, g)
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
	configure(&cfg) // the variant's settings
	if status, ok := cell.SyncerConfig(&cfg, refuse, variantSettings()...); !ok {
		return status
	}
	cfg.Dialer = cell.Dialer() // nil one-shot: the library's default
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
