// vitess.io/vitess go/mysql as VReplication's source side (the tablet's
// vstreamer) uses it: a replication connection (go/vt/binlog's
// BinlogConnection: mysql.Connect, SET @source_binlog_checksum, a
// COM_BINLOG_DUMP_GTID from a GTID position, ReadBinlogEvent in a loop) and
// the vstreamer's event parsing (vstreamer.parseEvent: FORMAT_DESCRIPTION ->
// BinlogFormat, StripChecksum, GTID -> position, TABLE_MAP -> plan, rows
// events -> Rows + binlog.CellValue per column, XID / COMMIT -> the
// transaction's rows with the position, TRANSACTION_PAYLOAD -> its inner
// events parsed the same way, checksum off). Neither BinlogConnection
// (go/vt/binlog, ~940 packages: dbconfigs, servenv, grpc) nor the vstreamer
// (a tablet's schema engine and keyspace) is linked: the few calls they
// make on go/mysql are made here in the same order (file:line in
// consumers/vitess/manifest.yaml), so the build needs go/mysql only.
//
// The vstreamer gets each table's fields (names, types, unsigned, binary,
// ENUM/SET labels) from its schema engine, i.e. from the database it serves
// (information_schema); this adapter asks the fake primary the same
// question (vstreamer.go getExtColInfos' query, plus data type and
// ordinal) on a second connection, once per table. Rows are printed at the
// transaction's end (XID or COMMIT query, where the vstreamer emits GTID and
// COMMIT) with the checkpoint VReplication stores: the GTID position
// (vs.pos, every GTID seen so far appended), printed as the GTID set; no
// file/position (VReplication keeps none).
//
// Differences between releases (the replication package, CellValue's
// partialJSON argument, GTID()'s results, TRANSACTION_PAYLOAD decoding
// from v17) are in api_*.go, chosen by setup.sh with build tags.
package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cdcharness/consumers/go-common/canon"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

type column struct {
	name  string
	canon canon.Column
	field *querypb.Field
}

type plan struct {
	db, table string
	tm        *mysql.TableMap
	cols      []column
}

type consumer struct {
	out       *canon.Cell
	params    *mysql.ConnParams
	schema    *mysql.Conn // information_schema queries, as the schema engine's
	format    mysql.BinlogFormat
	pos       position // vs.pos: every GTID seen
	committed position // the position at the last COMMIT (what the vplayer stores)
	plans     map[uint64]*plan
	pending   []canon.Row
	lib       string
	ready     bool // {"kind":"ready"} printed (once per cell)
}

func main() { canon.Main(run) }

func run(cell *canon.Cell) int {
	env := cell.Env
	lib := "vitess " + canon.LibVersion("vitess.io/vitess")
	cell.Config([]canon.Setting{
		{Key: "flavor", Val: "MySQL56 (GTID positions; COM_BINLOG_DUMP_GTID)"},
		{Key: "binlog_checksum", Val: "SET @source_binlog_checksum = @@global.binlog_checksum (BinlogConnection)"},
		{Key: "vreplication-retry-delay", Val: "5s (the controller runs the stream again from the stored position after an error)"},
		{Key: "partial row images", Val: "allowed (vreplication_experimental_flags default includes AllowNoBlobBinlogRowImage)"},
	}, nil)
	if p := cell.ConfigPath(); p != "" {
		return cell.ConfigError("CDCH_CONFIG=" + p + ": the vitess adapter takes no configuration (VReplication's settings are a tablet's flags, not the binlog connection's)")
	}
	if !env.HaveGTIDSet {
		env.GTIDSet = ""
	}
	start, err := parseStart(env.GTIDSet)
	if err != nil {
		return cell.Fatal("bad CDCH_GTID_SET: " + err.Error())
	}
	params := &mysql.ConnParams{Host: env.Host, Port: int(env.Port), Uname: env.User, Pass: env.Password}
	c := &consumer{out: cell, params: params, lib: lib}
	defer func() {
		if c.schema != nil {
			c.schema.Close()
		}
	}()
	// The VReplication controller (go/vt/vttablet/tabletmanager/vreplication/
	// controller.go:209-247 at v0.24.4) runs the stream again after any error,
	// vreplication-retry-delay later (5 s, go/vt/vttablet/common/flags.go:41),
	// from the position the vplayer stored at the last COMMIT. It retries for
	// ever; the adapter ends the cell when an attempt fails with the same
	// error at the same position as the one before it (no progress: the
	// workflow would repeat that error every 5 s).
	committed, lastErr := start, ""
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			select {
			case <-cell.Context().Done():
				return 0
			case <-time.After(retryDelay):
			}
		}
		err := c.stream(committed)
		if cell.Stopping() {
			return 0
		}
		msg := lib + " " + err.Error()
		if msg == lastErr && positionString(c.committed) == positionString(committed) {
			return cell.Fatal(msg + " (again, at the same position: the workflow would retry it every " + retryDelay.String() + ")")
		}
		cell.Error(msg + "; will retry after " + retryDelay.String())
		committed, lastErr = c.committed, msg
	}
}

const retryDelay = 5 * time.Second

// stream is one run of the vstreamer (vstreamer.replicate): a new
// BinlogConnection from pos, events parsed until an error.
func (c *consumer) stream(pos position) error {
	ctx := c.out.Context()
	c.pos, c.committed = pos, pos
	c.format = mysql.BinlogFormat{}
	c.plans = map[uint64]*plan{}
	c.pending = c.pending[:0]
	conn, err := mysql.Connect(ctx, c.params)
	if err != nil {
		return fmt.Errorf("mysql.Connect: %v", err)
	}
	c.out.OnStop(conn.Close)
	defer conn.Close()
	// go/vt/binlog/binlog_connection.go connectForReplication
	if _, err := conn.ExecuteFetch("SET @source_binlog_checksum = @@global.binlog_checksum, @master_binlog_checksum=@@global.binlog_checksum", 0, false); err != nil {
		return fmt.Errorf("failed to set @source_binlog_checksum=@@global.binlog_checksum: %v", err)
	}
	// StartBinlogDumpFromPosition: SendBinlogDumpGTIDCommand(serverID, "", 4, startPos, 0)
	if err := sendDump(conn, c.out.Env.ServerID, pos); err != nil {
		return fmt.Errorf("couldn't send binlog dump command: %v", err)
	}
	if !c.ready { // once per cell: the first dump that was sent
		c.out.Ready()
		c.ready = true
	}
	for {
		ev, err := conn.ReadBinlogEvent()
		if err != nil {
			return fmt.Errorf("read error while streaming binlog events: %v", err)
		}
		if err := c.parseEvent(ctx, ev); err != nil {
			return fmt.Errorf("vstreamer: %v", err)
		}
	}
}

// parseEvent follows vstreamer.parseEvent (go/vt/vttablet/tabletserver/
// vstreamer/vstreamer.go:520-901 at v0.24.4).
func (c *consumer) parseEvent(ctx context.Context, ev mysql.BinlogEvent) error {
	if !ev.IsValid() {
		return fmt.Errorf("can't parse binlog event: invalid data: %#v", ev)
	}
	if ev.IsFormatDescription() {
		f, err := ev.Format()
		if err != nil {
			return fmt.Errorf("can't parse FORMAT_DESCRIPTION_EVENT: %v", err)
		}
		c.format = f
		return nil
	}
	if c.format.IsZero() {
		if ev.IsRotate() {
			return nil
		}
		return fmt.Errorf("got a real event before FORMAT_DESCRIPTION_EVENT: %#v", ev)
	}
	ev, _, err := ev.StripChecksum(c.format)
	if err != nil {
		return fmt.Errorf("can't strip checksum from binlog event: %v", err)
	}
	switch {
	case ev.IsRotate(), ev.IsStop(), ev.IsPreviousGTIDs():
	case ev.IsGTID():
		g, err := gtidOf(ev, c.format)
		if err != nil {
			return fmt.Errorf("failed to get GTID from binlog event: %v", err)
		}
		c.pos = appendGTID(c.pos, g)
	case ev.IsXID():
		c.commit()
	case ev.IsQuery():
		q, err := ev.Query(c.format)
		if err != nil {
			return fmt.Errorf("failed to get query from binlog event: %v", err)
		}
		// sqlparser.Preview: COMMIT ends the transaction (StmtCommit); BEGIN,
		// DDL and the rest carry no rows for this consumer.
		if strings.EqualFold(strings.TrimSpace(q.SQL), "COMMIT") {
			c.commit()
		}
	case ev.IsTableMap():
		id := ev.TableID(c.format)
		tm, err := ev.TableMap(c.format)
		if err != nil {
			return fmt.Errorf("failed to parse table map from binlog event: %v", err)
		}
		if p, ok := c.plans[id]; ok && p.table == tm.Name && p.db == tm.Database {
			return nil
		}
		p, err := c.buildPlan(ctx, tm)
		if err != nil {
			return fmt.Errorf("failed to build table replication plan for table %s: %v", tm.Name, err)
		}
		c.plans[id] = p
	case ev.IsWriteRows() || ev.IsDeleteRows() || ev.IsUpdateRows() || isPartialUpdateRows(ev):
		id := ev.TableID(c.format)
		p := c.plans[id]
		if p == nil {
			return nil
		}
		rows, err := ev.Rows(c.format, p.tm)
		if err != nil {
			return err
		}
		return c.rows(ev, p, rows)
	default:
		handled, err := payload(ev, c.format, func(inner mysql.BinlogEvent, f mysql.BinlogFormat) error {
			saved := c.format
			c.format = f
			defer func() { c.format = saved }()
			if err := c.parseEvent(ctx, inner); err != nil {
				return fmt.Errorf("failed to parse transaction payload's internal event: %v", err)
			}
			return nil
		})
		if handled {
			return err
		}
	}
	return nil
}

func (c *consumer) commit() {
	c.out.Emit(c.pending, positionString(c.pos), "", 0)
	c.committed = c.pos
	c.pending = c.pending[:0]
}

func sqlQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// buildPlan: the fields of the table as the vstreamer's schema engine has
// them (information_schema.columns of the served database).
func (c *consumer) buildPlan(ctx context.Context, tm *mysql.TableMap) (*plan, error) {
	if c.schema == nil {
		conn, err := mysql.Connect(ctx, c.params)
		if err != nil {
			return nil, fmt.Errorf("schema connection: %v", err)
		}
		c.schema = conn
		c.out.OnStop(conn.Close)
	}
	q := "select column_name, column_type, collation_name, data_type from information_schema.columns where table_schema=" +
		sqlQuote(tm.Database) + " and table_name=" + sqlQuote(tm.Name) + " order by ordinal_position"
	qr, err := c.schema.ExecuteFetch(q, 10000, false)
	if err != nil {
		c.schema.Close()
		c.schema = nil
		return nil, fmt.Errorf("%s: %v", q, err)
	}
	p := &plan{db: tm.Database, table: tm.Name, tm: tm}
	for i, typ := range tm.Types {
		var name, ctype, coll string
		if i < len(qr.Rows) {
			name = qr.Rows[i][0].ToString()
			ctype = strings.ToLower(qr.Rows[i][1].ToString())
			if !qr.Rows[i][2].IsNull() {
				coll = qr.Rows[i][2].ToString()
			}
		} else {
			name = "@" + strconv.Itoa(i+1)
		}
		col := column{name: name}
		col.canon.Type = canon.RealType(typ, tm.Metadata[i])
		col.canon.Meta = tm.Metadata[i]
		col.canon.Unsigned = strings.Contains(ctype, "unsigned")
		if coll != "" {
			col.canon.Charset = canon.CharsetOfCollationName(coll)
		} else if strings.Contains(ctype, "binary") || strings.Contains(ctype, "blob") {
			col.canon.Charset = canon.CSBinary
		}
		col.canon.Enum, col.canon.Set = labels(ctype)
		var flags int64
		if col.canon.Unsigned {
			flags |= int64(querypb.MySqlFlag_UNSIGNED_FLAG)
		}
		if col.canon.Charset == canon.CSBinary {
			flags |= int64(querypb.MySqlFlag_BINARY_FLAG)
		}
		t, err := mysqlToType(typ, flags)
		if err != nil {
			return nil, fmt.Errorf("unsupported type: %d, position: %d", typ, i)
		}
		col.field = &querypb.Field{Name: name, Type: t, ColumnType: ctype}
		p.cols = append(p.cols, col)
	}
	return p, nil
}

// labels parses enum('a','b') / set('a','b') column types.
func labels(ctype string) (enum, set []string) {
	var kind string
	switch {
	case strings.HasPrefix(ctype, "enum("):
		kind = "enum"
	case strings.HasPrefix(ctype, "set("):
		kind = "set"
	default:
		return nil, nil
	}
	body := strings.TrimSuffix(strings.TrimPrefix(ctype, kind+"("), ")")
	var out []string
	for i := 0; i < len(body); {
		if body[i] != '\'' {
			i++
			continue
		}
		var sb strings.Builder
		j := i + 1
		for ; j < len(body); j++ {
			if body[j] == '\'' {
				if j+1 < len(body) && body[j+1] == '\'' {
					sb.WriteByte('\'')
					j++
					continue
				}
				break
			}
			if body[j] == '\\' && j+1 < len(body) {
				j++
			}
			sb.WriteByte(body[j])
		}
		out = append(out, sb.String())
		i = j + 1
	}
	if kind == "enum" {
		return out, nil
	}
	return nil, out
}

func (c *consumer) rows(ev mysql.BinlogEvent, p *plan, rows mysql.Rows) error {
	op := "update"
	switch {
	case ev.IsWriteRows():
		op = "insert"
	case ev.IsDeleteRows():
		op = "delete"
	}
	for _, row := range rows.Rows {
		r := canon.Row{Op: op, DB: p.db, Table: p.table}
		var err error
		if op != "insert" {
			if r.Before, err = c.values(p, row.Identify, rows.IdentifyColumns, row.NullIdentifyColumns, mysql.Bitmap{}); err != nil {
				return err
			}
		}
		if op != "delete" {
			if r.After, err = c.values(p, row.Data, rows.DataColumns, row.NullColumns, jsonPartial(&row)); err != nil {
				return err
			}
		}
		c.pending = append(c.pending, r)
	}
	return nil
}

// values follows vstreamer.getValues (vstreamer.go:1308-1378 at v0.24.4).
func (c *consumer) values(p *plan, data []byte, dataColumns, nullColumns, jsonPartial mysql.Bitmap) ([]canon.KV, error) {
	img := []canon.KV{}
	valueIndex, jsonIndex, pos := 0, 0, 0
	for colNum := 0; colNum < dataColumns.Count(); colNum++ {
		if !dataColumns.Bit(colNum) {
			continue // partial row image: allowed by default, the column is absent
		}
		col := &p.cols[colNum]
		if nullColumns.Bit(valueIndex) {
			valueIndex++
			if col.field.Type == querypb.Type_JSON {
				jsonIndex++
			}
			img = append(img, canon.KV{Key: col.name, Val: []byte("null")})
			continue
		}
		partialJSON := false
		if jsonPartial.Count() > 0 && col.field.Type == querypb.Type_JSON {
			partialJSON = jsonPartial.Bit(jsonIndex)
			jsonIndex++
		}
		v, l, err := cellValue(data, pos, p.tm.Types[colNum], p.tm.Metadata[colNum], col.field, partialJSON)
		if err != nil {
			return nil, fmt.Errorf("failed to extract row's value for column %s from binlog event: %v", col.name, err)
		}
		pos += l
		valueIndex++
		j, err := mapValue(&col.canon, v, partialJSON)
		if err != nil {
			return nil, fmt.Errorf("%s.%s %s: %v", p.db, p.table, col.name, err)
		}
		img = append(img, canon.KV{Key: col.name, Val: j})
	}
	return img, nil
}

// mapValue: the sqltypes.Value CellValue returns (MySQL's text form, or the
// bytes) as the Go value canon.ByBinlogType maps, by the column's binlog type.
func mapValue(col *canon.Column, v sqltypes.Value, partialJSON bool) ([]byte, error) {
	if v.IsNull() {
		return []byte("null"), nil
	}
	raw := v.Raw()
	s := string(raw)
	var x any
	switch col.Type {
	case canon.TypeTiny, canon.TypeShort, canon.TypeInt24, canon.TypeLong, canon.TypeLongLong:
		if col.Unsigned {
			u, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("integer %q (%v)", s, v.Type())
			}
			x = u
		} else {
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("integer %q (%v)", s, v.Type())
			}
			x = i
		}
	case canon.TypeFloat:
		f, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, fmt.Errorf("float %q", s)
		}
		x = float32(f)
	case canon.TypeDouble:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("double %q", s)
		}
		x = f
	case canon.TypeYear:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("year %q", s)
		}
		x = i
	case canon.TypeBit:
		var u uint64
		for _, b := range raw {
			u = u<<8 | uint64(b)
		}
		return canon.U64(u), nil
	case canon.TypeEnum:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("enum index %q", s)
		}
		x = i
	case canon.TypeSet:
		var u uint64
		if v.Type() == querypb.Type_SET { // MYSQL_TYPE_SET: the bitmap's bytes, little-endian
			for k := len(raw) - 1; k >= 0; k-- {
				u = u<<8 | uint64(raw[k])
			}
		} else if u2, err := strconv.ParseUint(s, 10, 64); err == nil {
			u = u2
		} else {
			return nil, fmt.Errorf("set bitmap %q", s)
		}
		return canon.Set(u, col.Set), nil
	case canon.TypeNewDecimal, canon.TypeDecimal, canon.TypeDate, canon.TypeNewDate, canon.TypeDatetime,
		canon.TypeTimestamp, canon.TypeTime, canon.TypeDatetime2, canon.TypeTimestamp2, canon.TypeTime2:
		x = s // MySQL's text form, TIMESTAMP in UTC (rbr.go printTimestamp)
	case canon.TypeJSON:
		if partialJSON {
			// ParseBinaryJSONDiff: an SQL expression the vplayer runs against
			// its target (JSON_REPLACE(...)), not a document
			return canon.JSONString(s), nil
		}
		x = raw
	default:
		x = raw
	}
	return canon.ByBinlogType(col, x)
}
