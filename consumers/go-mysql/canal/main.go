// go-mysql's canal package as its users run it, one source for every tag
// (v1.1.2 ..; setup picks, as build tags, what differs between tags: the
// logger type, log_*.go; OnPosSynced's signature, onpos_*.go):
// canal.NewCanal with a RowsEventHandler, binlog only (no mysqldump:
// Dump.ExecutionPath ""), tables filtered to the scenario's databases,
// started at the given file:pos or GTID set. canal learns each table's schema
// from the server (SHOW FULL COLUMNS / SHOW INDEX ...), and decodes
// TRANSACTION_PAYLOAD_EVENT itself (canal/sync.go iterates
// TransactionPayloadEvent.Events since v1.8.0).
//
// Rows are printed when canal reports the position synced (OnPosSynced,
// after XID / COMMIT), with the checkpoint canal hands a user there: the
// position and GTID set a user persists to resume from (the set is what
// canal.SyncedGTIDSet() returns; nil, so no gtid, when canal was started
// by position: its BinlogSyncer tracks no GTID set then). Nothing of the
// checkpoint is the adapter's own. Values are mapped from what canal hands
// OnRow, using the schema.Table canal built from SHOW FULL COLUMNS (column
// names, ENUM/SET labels, collation, type).
//
// CDCH_CONFIG: canal's TOML configuration, read by canal.NewConfigWithFile
// (its errors are the config-error) and applied over the adapter's
// defaults (config.go).
package main

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"cdcharness/consumers/go-common/canon"

	"github.com/go-mysql-org/go-mysql/canal"
	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/schema"
)

type handler struct {
	canal.DummyEventHandler
	out     *canon.Cell
	tsLoc   *time.Location // TIMESTAMP strings' zone when not UTC (canon.StringZone)
	pending []canon.Row
}

var fspRE = regexp.MustCompile(`^(datetime|timestamp|time)\((\d)\)`)

func fspOf(raw string) int {
	if m := fspRE.FindStringSubmatch(raw); m != nil {
		n, _ := strconv.Atoi(m[2])
		return n
	}
	return 0
}

func isGeometry(raw string) bool {
	switch strings.Fields(raw + " ")[0] {
	case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
		"multipolygon", "geometrycollection", "geomcollection":
		return true
	}
	return false
}

// value maps one value canal handed OnRow, by the column canal knows
// (tsLoc: the zone of TIMESTAMP strings, nil = UTC). Under parse_time canal
// hands DATETIME / TIMESTAMP as time.Time (a TIMESTAMP in the local zone),
// under use_decimal DECIMAL as decimal.Decimal (a fmt.Stringer).
func value(col *schema.TableColumn, v any, tsLoc *time.Location) ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	switch col.Type {
	case schema.TYPE_NUMBER, schema.TYPE_MEDIUM_INT:
		if b, ok := canon.Int(v, false, 8); ok {
			return b, nil
		}
	case schema.TYPE_FLOAT:
		switch x := v.(type) {
		case float32:
			return canon.Float(float64(x), 32), nil
		case float64:
			return canon.Float(x, 64), nil
		}
	case schema.TYPE_DECIMAL:
		switch x := v.(type) {
		case string:
			return canon.JSONString(x), nil
		case fmt.Stringer:
			return canon.JSONString(x.String()), nil
		}
	case schema.TYPE_ENUM:
		if idx, ok := v.(int64); ok {
			return canon.Enum(idx, col.EnumValues), nil
		}
	case schema.TYPE_SET:
		if bm, ok := v.(int64); ok {
			return canon.Set(uint64(bm), col.SetValues), nil
		}
	case schema.TYPE_DATETIME, schema.TYPE_TIMESTAMP, schema.TYPE_TIME:
		if s, ok := v.(string); ok {
			if col.Type == schema.TYPE_TIMESTAMP {
				return canon.JSONString(canon.TimestampString(s, tsLoc, fspOf(col.RawType))), nil
			}
			return canon.JSONString(canon.FixFSP(s, fspOf(col.RawType))), nil
		}
		if t, ok := v.(time.Time); ok && col.Type != schema.TYPE_TIME {
			return canon.Time(t, col.Type == schema.TYPE_TIMESTAMP, fspOf(col.RawType)), nil
		}
	case schema.TYPE_DATE:
		if s, ok := v.(string); ok {
			return canon.JSONString(s), nil
		}
	case schema.TYPE_BIT:
		if b, ok := v.(int64); ok {
			return canon.U64(uint64(b)), nil
		}
	case schema.TYPE_JSON:
		return canon.JSONDoc(v)
	case schema.TYPE_BINARY:
		if p, ok := canon.Bytes(v); ok {
			return canon.Base64(p), nil
		}
	case schema.TYPE_POINT, schema.TYPE_STRING:
		p, ok := canon.Bytes(v)
		if !ok {
			break
		}
		if isGeometry(col.RawType) {
			return canon.Geometry(p)
		}
		if strings.HasPrefix(col.RawType, "vector") {
			return canon.ByBinlogType(&canon.Column{Type: canon.TypeVector}, p)
		}
		cs := canon.CharsetOfCollationName(col.Collation)
		if cs == canon.CSUnknown { // no collation: BLOB types
			cs = canon.CSBinary
		}
		return canon.Text(p, cs), nil
	}
	return nil, fmt.Errorf("unexpected canal value %T %v for column type %q", v, v, col.RawType)
}

func (h *handler) image(t *schema.Table, vals []any) ([]canon.KV, error) {
	img := []canon.KV{}
	for i, v := range vals {
		name := "@" + strconv.Itoa(i+1)
		var j []byte
		var err error
		if i < len(t.Columns) {
			name = t.Columns[i].Name
			j, err = value(&t.Columns[i], v, h.tsLoc)
		} else {
			err = fmt.Errorf("canal's schema has %d columns, the row %d", len(t.Columns), len(vals))
		}
		if err != nil {
			return nil, fmt.Errorf("%s.%s %s: %v", t.Schema, t.Name, name, err)
		}
		img = append(img, canon.KV{Key: name, Val: j})
	}
	return img, nil
}

func (h *handler) OnRow(e *canal.RowsEvent) error {
	step := 1
	if e.Action == canal.UpdateAction {
		step = 2
	}
	for k := 0; k+step-1 < len(e.Rows); k += step {
		r := canon.Row{Op: e.Action, DB: e.Table.Schema, Table: e.Table.Name}
		var err error
		switch e.Action {
		case canal.InsertAction:
			r.After, err = h.image(e.Table, e.Rows[k])
		case canal.DeleteAction:
			r.Before, err = h.image(e.Table, e.Rows[k])
		default:
			if r.Before, err = h.image(e.Table, e.Rows[k]); err == nil {
				r.After, err = h.image(e.Table, e.Rows[k+1])
			}
		}
		if err != nil {
			return err
		}
		h.pending = append(h.pending, r)
	}
	return nil
}

// synced is OnPosSynced (onpos_*.go: its signature differs between tags).
func (h *handler) synced(pos mysql.Position, set mysql.GTIDSet) error {
	if len(h.pending) > 0 {
		gtid := ""
		if set != nil {
			gtid = set.String()
		}
		h.out.Emit(h.pending, gtid, pos.Name, uint64(pos.Pos))
		h.pending = h.pending[:0]
	}
	return nil
}

func (h *handler) String() string { return "cdcharness" }

func main() { canon.Main(run) }

// run is one consumer run (canon.Cell): a fresh canal.Canal and handler,
// until canal's Run returns (status 1: canal stopped on an error) or the
// cell is stopped (canal.Close, as canal's users stop it).
func run(cell *canon.Cell) int {
	env := cell.Env
	lib := "go-mysql " + canon.LibVersion("github.com/go-mysql-org/go-mysql") + " canal: "
	cfg := canal.NewDefaultConfig()
	cfg.Dump.ExecutionPath = "" // binlog only, no mysqldump
	cfg.TimestampStringLocation = time.UTC
	for _, db := range env.Databases {
		cfg.IncludeTableRegex = append(cfg.IncludeTableRegex, "^"+regexp.QuoteMeta(db)+`\..*$`)
	}
	harness := func() { // the settings the harness keeps (config.go owned)
		cfg.Addr = net.JoinHostPort(env.Host, strconv.Itoa(int(env.Port)))
		cfg.User = env.User
		cfg.Password = env.Password
		cfg.ServerID = env.ServerID
		cfg.Flavor = "mysql"
		cfg.Dump.ExecutionPath = ""
	}
	harness()
	if status, ok := userConfig(cell, cfg, harness); !ok {
		return status
	}
	if d := cell.Dialer(); d != nil { // session: the default dialer, its connections closed at stop
		canon.SetIfPresent(cfg, "Dialer", d)
	}
	setLogger(cfg, cell.Stderr())

	c, err := canal.NewCanal(cfg)
	if err != nil {
		return cell.Fatal(lib + err.Error())
	}
	var once sync.Once
	closeCanal := func() { once.Do(c.Close) }
	defer closeCanal()
	cell.OnStop(closeCanal)
	c.SetEventHandler(&handler{out: cell, tsLoc: canon.StringZone(cfg.TimestampStringLocation)})

	cell.Ready()
	if env.HaveGTIDSet {
		set, perr := mysql.ParseGTIDSet("mysql", env.GTIDSet)
		if perr != nil {
			return cell.Fatal("bad CDCH_GTID_SET: " + perr.Error())
		}
		err = c.StartFromGTID(set)
	} else {
		err = c.RunFrom(mysql.Position{Name: env.StartFile, Pos: env.StartPos})
	}
	if cell.Stopping() {
		return 0
	}
	if err != nil {
		return cell.Fatal(lib + err.Error())
	}
	return cell.Fatal(lib + "Run returned without an error")
}
