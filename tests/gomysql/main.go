// gomysql-decode — an independent reader of binlog files, built on
// go-mysql's replication.BinlogParser (github.com/go-mysql-org/go-mysql,
// pinned in go.mod). It prints one canonical change event per row change
// (design.md section 4), in the form of cdcharness's expected.jsonl, so
// tests/gomysql_crosscheck.sh can compare what cdcharness generates (and
// decodes) with what a third-party parser reads from the same bytes.
//
// Usage:
//
//	gomysql-decode DIR          reads the files listed in DIR/<basename>.index
//	                            (basename from DIR/stream.json, else the only
//	                            *.index in DIR), in order
//	gomysql-decode FILE...      reads the given binlog files in order
//	gomysql-decode -ddl ...     also takes column names and ENUM/SET labels
//	                            that the TABLE_MAP lacks from the stream's
//	                            CREATE TABLE statements (see ddl.go)
//
// Output, one JSON object per line, keys in this order:
//
//	{"op":"insert"|"update"|"delete","db":..,"table":..,"before":{..}|null,
//	 "after":{..}|null,["gtid":"uuid:[tag:]gno",]"pos":{"file":..,"pos":N},
//	 "compressed":true|false[,"hints":{..}]}
//
// where:
//
//   - "gtid" is present only when the transaction began with a GTID (or
//     tagged GTID) event; an ANONYMOUS_GTID transaction has no "gtid".
//   - "pos" is the file and end position (log_pos) of the event that ended
//     the transaction (XID, or QUERY COMMIT for non-transactional tables):
//     the position a consumer checkpoints after the transaction. Inside a
//     TRANSACTION_PAYLOAD, go-mysql stamps the last inner event with the
//     payload's log_pos, so it is the payload's end. XA_PREPARE also ends
//     (the first phase of) a transaction. Rows of a transaction that never
//     ends are printed at the last event's position, not dropped.
//   - "compressed": the row was read from inside a TRANSACTION_PAYLOAD.
//   - Images map column name -> value, only for the columns present in the
//     image (go-mysql's SkippedColumns are left out), in column order.
//     Names come from the TABLE_MAP's COLUMN_NAME metadata
//     (binlog_row_metadata=FULL), else with -ddl from the CREATE TABLE;
//     without either the keys are "@1", "@2", ... (1-based column index),
//     as design.md says for consumers without names.
//   - "hints" (only when non-empty) tells the comparator how to compare a
//     column that cannot be printed exactly like the canonical form:
//     "float" (a FLOAT column: compare at single precision), "enum_index"
//     / "set_bitmap" (an ENUM/SET printed as its index/bitmap because the
//     TABLE_MAP carries no ENUM_STR_VALUE/SET_STR_VALUE, i.e. MINIMAL
//     metadata), "json_diff" (a partial JSON update, see below).
//
// Value normalisation (go-mysql value -> canonical form), per column type:
//
//   - TINY/SHORT/INT24/LONG/LONGLONG: go-mysql decodes signed unless the
//     TABLE_MAP's SIGNEDNESS metadata marks the column unsigned
//     (TableMapEvent.UnsignedMap()); MySQL 8 writes SIGNEDNESS even with
//     MINIMAL metadata. Printed as JSON numbers; an unsigned value above
//     2^63-1 as a decimal string (design.md s.4).
//   - NEWDECIMAL: go-mysql's exact string (UseDecimal off: shopspring's
//     decimal would drop trailing zeros of the scale), printed as is.
//   - FLOAT (float32) / DOUBLE (float64): shortest text that reads back as
//     the same float32 / float64 (strconv 'g', -1). NaN and infinities
//     (which MySQL cannot store) would print as "NaN"/"Infinity"/"-Infinity".
//   - DATE: go-mysql's "YYYY-MM-DD" as is.
//   - DATETIME2: ParseTime off, so go-mysql formats the stored fields
//     itself, with exactly fsp fraction digits: as is.
//   - TIMESTAMP2: go-mysql formats the epoch in the location given with
//     SetTimestampStringLocation: set to UTC. Exactly fsp digits: as is.
//     The zero timestamp is "0000-00-00 00:00:00[.000..]" as in MySQL.
//   - TIME2: go-mysql prints the fraction only when it is non-zero; the
//     canonical form always has fsp digits, so ".000..." (fsp zeros) is
//     appended when missing.
//   - YEAR: int (0 or 1901..2155) as is.
//   - BIT: go-mysql returns int64; reinterpreted as uint64 (BIT(64) with the
//     top bit set), above 2^63-1 as a decimal string.
//   - ENUM: go-mysql returns the 1-based index; mapped to its label with
//     EnumStrValueMap() (FULL metadata; with -ddl, else the CREATE TABLE).
//     Index 0 (MySQL's empty error value) is "". Without labels: the index,
//     hint "enum_index".
//   - SET: go-mysql returns the member bitmap as int64; mapped to the array
//     of labels in bit order with SetStrValueMap() (or -ddl). Without labels, or with
//     a bit beyond the labels: the bitmap (as for BIT), hint "set_bitmap".
//   - CHAR/VARCHAR/BINARY/VARBINARY/TEXT/BLOB: go-mysql returns the raw
//     bytes (string or []byte). The column collation from CollationMap()
//     (DEFAULT_CHARSET / COLUMN_CHARSET metadata) decides: 63 (binary) ->
//     {"base64":...}; a latin1 collation (MySQL's latin1 is cp1252 with
//     the five undefined bytes as C1 controls) -> transcoded to UTF-8;
//     otherwise (utf8mb4, utf8mb3, ascii, or unknown collation) a string
//     when the bytes are valid UTF-8, else {"base64":...}; ucs2, utf16,
//     utf16le and utf32 collations are decoded to UTF-8 (invalid sequences
//     -> {"base64":...}). This is the rule cdcharness's canonical form
//     (cdch_value_to_json) uses.
//   - JSON: rendered by go-mysql with RenderJSONAsMySQLText on (MySQL's own
//     text form: DECIMAL opaques as numbers, temporal opaques as strings,
//     other opaques as "base64:typeNN:..."), then embedded as the JSON
//     value itself. An empty document (length 0, which MySQL reads as the
//     JSON null literal) is null.
//   - Partial JSON (PARTIAL_UPDATE_ROWS with PARTIAL_JSON): go-mysql returns
//     a *JsonDiff; printed as {"json_diff":[{"op","path"[,"value"]}]},
//     op "replace"/"insert"/"remove", hint "json_diff". go-mysql decodes
//     only the first operation of a column's diff vector.
//   - GEOMETRY: go-mysql returns the blob bytes = 4-byte LE SRID + WKB;
//     printed as {"srid":N,"wkb":"<lowercase hex>"}.
//   - VECTOR: go-mysql returns the bytes; printed as an array of float32
//     (little-endian) numbers, {"base64":...} if the length is not a
//     multiple of 4.
//   - NULL: null.
//
// Checksums: go-mysql's own CRC check is left off because it does not mask
// the LOG_EVENT_BINLOG_IN_USE_F flag of an open file's FORMAT_DESCRIPTION
// event (MySQL computes that event's checksum with the flag clear). This
// program checks every top-level event's CRC32 itself when the FDE says
// CRC32 (masking that flag for the FDE); a mismatch is an error.
//
// Exit status: 0 on success, 1 on any parse error (message on stderr).
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/google/uuid"
)

const inUseFlag = 0x0001 // LOG_EVENT_BINLOG_IN_USE_F

type kv struct {
	key string
	val []byte // encoded JSON
}

type row struct {
	op         string
	db, table  string
	before     []kv // nil = null image
	after      []kv
	hasBefore  bool
	hasAfter   bool
	compressed bool
	hints      []kv
}

type decoder struct {
	out       *bufio.Writer
	gtid      string // "" when the current transaction has no GTID
	pending   []row  // rows of the current transaction, printed at its end
	file      string // base name of the file being read
	lastPos   uint32
	checksum  bool
	schema    ddlSchema // nil unless -ddl
	rowsTotal int
}

func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

func base64Obj(p []byte) []byte {
	return []byte(`{"base64":"` + base64.StdEncoding.EncodeToString(p) + `"}`)
}

// u64 prints an unsigned integer, as a string beyond the signed 64-bit range.
func u64(u uint64) []byte {
	if u > math.MaxInt64 {
		return []byte(`"` + strconv.FormatUint(u, 10) + `"`)
	}
	return []byte(strconv.FormatUint(u, 10))
}

func floatText(f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`)
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`)
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`)
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, bits))
}

// cp1252 code points for bytes 0x80..0x9F as MySQL's latin1 maps them
// (strings/ctype-latin1.cc); the other bytes are their own code points.
var cp1252 = [32]rune{0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178}

func isLatin1Collation(c uint64) bool {
	switch c {
	case 5, 8, 15, 31, 47, 48, 49, 94:
		return true
	}
	return false
}

func textValue(p []byte, collation uint64, known bool) []byte {
	if known && collation == 63 {
		return base64Obj(p)
	}
	if known && isLatin1Collation(collation) {
		var sb strings.Builder
		for _, c := range p {
			if c >= 0x80 && c < 0xA0 {
				sb.WriteRune(cp1252[c-0x80])
			} else {
				sb.WriteRune(rune(c))
			}
		}
		return jsonString(sb.String())
	}
	if known {
		if w := wideCharset(collation); w != "" {
			if text, ok := wideToUTF8(w, p); ok {
				return jsonString(text)
			}
			return base64Obj(p)
		}
	}
	if utf8.Valid(p) {
		return jsonString(string(p))
	}
	return base64Obj(p)
}

// wideCharset names the wide Unicode charset of a MySQL 8 collation id.
func wideCharset(c uint64) string {
	switch {
	case c == 35 || c == 90 || (c >= 128 && c <= 159):
		return "ucs2"
	case c == 54 || c == 55 || (c >= 101 && c <= 124):
		return "utf16"
	case c == 56 || c == 62:
		return "utf16le"
	case c == 60 || c == 61 || (c >= 160 && c <= 183):
		return "utf32"
	}
	return ""
}

func wideToUTF8(cs string, p []byte) (string, bool) {
	var sb strings.Builder
	if cs == "utf32" {
		if len(p)%4 != 0 {
			return "", false
		}
		for i := 0; i < len(p); i += 4 {
			r := rune(uint32(p[i])<<24 | uint32(p[i+1])<<16 | uint32(p[i+2])<<8 | uint32(p[i+3]))
			if !utf8.ValidRune(r) {
				return "", false
			}
			sb.WriteRune(r)
		}
		return sb.String(), true
	}
	if len(p)%2 != 0 {
		return "", false
	}
	units := make([]uint16, 0, len(p)/2)
	for i := 0; i < len(p); i += 2 {
		if cs == "utf16le" {
			units = append(units, uint16(p[i])|uint16(p[i+1])<<8)
		} else {
			units = append(units, uint16(p[i])<<8|uint16(p[i+1]))
		}
	}
	for i := 0; i < len(units); i++ {
		u := units[i]
		if u >= 0xD800 && u <= 0xDFFF {
			if cs == "ucs2" || u > 0xDBFF || i+1 >= len(units) || units[i+1] < 0xDC00 || units[i+1] > 0xDFFF {
				return "", false
			}
			sb.WriteRune(utf16.DecodeRune(rune(u), rune(units[i+1])))
			i++
			continue
		}
		sb.WriteRune(rune(u))
	}
	return sb.String(), true
}

// tableInfo caches what the per-value conversion needs from a TABLE_MAP.
type tableInfo struct {
	names      []string
	unsigned   map[int]bool
	collations map[int]uint64
	enums      map[int][]string
	sets       map[int][]string
}

func newTableInfo(t *replication.TableMapEvent, schema ddlSchema) *tableInfo {
	ti := &tableInfo{
		unsigned:   t.UnsignedMap(),
		collations: t.CollationMap(),
		enums:      t.EnumStrValueMap(),
		sets:       t.SetStrValueMap(),
	}
	// DDL-derived names and labels (-ddl), only for what the TABLE_MAP lacks
	// and only when the CREATE TABLE has as many columns as the TABLE_MAP.
	ddl := schema[string(t.Schema)+"."+string(t.Table)]
	if len(ddl) != int(t.ColumnCount) {
		ddl = nil
	}
	names := t.ColumnNameString()
	ti.names = make([]string, t.ColumnCount)
	for i := range ti.names {
		switch {
		case len(names) == int(t.ColumnCount):
			ti.names[i] = names[i]
		case ddl != nil:
			ti.names[i] = ddl[i].name
		default:
			ti.names[i] = "@" + strconv.Itoa(i+1)
		}
	}
	for i, c := range ddl {
		switch {
		case c.kind == "enum" && t.IsEnumColumn(i) && ti.enums[i] == nil:
			if ti.enums == nil {
				ti.enums = map[int][]string{}
			}
			ti.enums[i] = c.labels
		case c.kind == "set" && t.IsSetColumn(i) && ti.sets[i] == nil:
			if ti.sets == nil {
				ti.sets = map[int][]string{}
			}
			ti.sets[i] = c.labels
		}
	}
	return ti
}

// realType resolves MYSQL_TYPE_STRING into CHAR/ENUM/SET the way go-mysql's
// decodeValue does (meta byte 0 holds the real type).
func realType(tp byte, meta uint16) byte {
	if tp == mysql.MYSQL_TYPE_STRING && meta >= 256 {
		b0 := byte(meta >> 8)
		if b0&0x30 != 0x30 {
			return b0 | 0x30
		}
		return b0
	}
	return tp
}

func bytesOf(v any) ([]byte, bool) {
	switch x := v.(type) {
	case []byte:
		return x, true
	case string:
		return []byte(x), true
	}
	return nil, false
}

// value converts one go-mysql value of column i to its canonical JSON;
// hint is "" or a comparison hint (see the file comment).
func value(t *replication.TableMapEvent, ti *tableInfo, i int, v any) (out []byte, hint string, err error) {
	if v == nil {
		return []byte("null"), "", nil
	}
	tp := realType(t.ColumnType[i], t.ColumnMeta[i])
	meta := t.ColumnMeta[i]
	switch tp {
	case mysql.MYSQL_TYPE_TINY, mysql.MYSQL_TYPE_SHORT, mysql.MYSQL_TYPE_INT24,
		mysql.MYSQL_TYPE_LONG, mysql.MYSQL_TYPE_LONGLONG:
		switch x := v.(type) {
		case int8, int16, int32, int64:
			return []byte(fmt.Sprint(x)), "", nil
		case uint8:
			return u64(uint64(x)), "", nil
		case uint16:
			return u64(uint64(x)), "", nil
		case uint32:
			return u64(uint64(x)), "", nil
		case uint64:
			return u64(x), "", nil
		}
	case mysql.MYSQL_TYPE_NEWDECIMAL:
		if s, ok := v.(string); ok {
			return jsonString(s), "", nil
		}
	case mysql.MYSQL_TYPE_FLOAT:
		if f, ok := v.(float32); ok {
			return floatText(float64(f), 32), "float", nil
		}
	case mysql.MYSQL_TYPE_DOUBLE:
		if f, ok := v.(float64); ok {
			return floatText(f, 64), "", nil
		}
	case mysql.MYSQL_TYPE_DATE, mysql.MYSQL_TYPE_NEWDATE, mysql.MYSQL_TYPE_DATETIME,
		mysql.MYSQL_TYPE_DATETIME2, mysql.MYSQL_TYPE_TIMESTAMP, mysql.MYSQL_TYPE_TIMESTAMP2,
		mysql.MYSQL_TYPE_TIME:
		if s, ok := v.(string); ok {
			return jsonString(s), "", nil
		}
	case mysql.MYSQL_TYPE_TIME2:
		if s, ok := v.(string); ok {
			fsp := int(meta)
			if fsp > 6 {
				fsp = 6
			}
			if fsp > 0 && !strings.Contains(s, ".") {
				s += "." + strings.Repeat("0", fsp)
			}
			return jsonString(s), "", nil
		}
	case mysql.MYSQL_TYPE_YEAR:
		if y, ok := v.(int); ok {
			return []byte(strconv.Itoa(y)), "", nil
		}
	case mysql.MYSQL_TYPE_BIT:
		if b, ok := v.(int64); ok {
			return u64(uint64(b)), "", nil
		}
	case mysql.MYSQL_TYPE_ENUM:
		if idx, ok := v.(int64); ok {
			if idx == 0 {
				return []byte(`""`), "", nil
			}
			if labels, ok := ti.enums[i]; ok {
				if idx >= 1 && int(idx) <= len(labels) {
					return jsonString(labels[idx-1]), "", nil
				}
			}
			return []byte(strconv.FormatInt(idx, 10)), "enum_index", nil
		}
	case mysql.MYSQL_TYPE_SET:
		if b, ok := v.(int64); ok {
			bm := uint64(b)
			labels, ok := ti.sets[i]
			if ok && (len(labels) >= 64 || bm>>uint(len(labels)) == 0) {
				var parts []string
				for k := 0; k < 64; k++ {
					if bm>>uint(k)&1 == 1 {
						parts = append(parts, string(jsonString(labels[k])))
					}
				}
				return []byte("[" + strings.Join(parts, ",") + "]"), "", nil
			}
			return u64(bm), "set_bitmap", nil
		}
	case mysql.MYSQL_TYPE_VARCHAR, mysql.MYSQL_TYPE_VAR_STRING, mysql.MYSQL_TYPE_STRING,
		mysql.MYSQL_TYPE_BLOB, mysql.MYSQL_TYPE_TINY_BLOB, mysql.MYSQL_TYPE_MEDIUM_BLOB,
		mysql.MYSQL_TYPE_LONG_BLOB:
		if p, ok := bytesOf(v); ok {
			coll, known := ti.collations[i]
			return textValue(p, coll, known), "", nil
		}
	case mysql.MYSQL_TYPE_JSON:
		switch x := v.(type) {
		case []byte:
			if len(x) == 0 {
				return []byte("null"), "", nil
			}
		case string:
			if !json.Valid([]byte(x)) {
				return nil, "", fmt.Errorf("go-mysql rendered invalid JSON text %q", x)
			}
			return []byte(x), "", nil
		case *replication.JsonDiff:
			ops := [...]string{"replace", "insert", "remove"}
			var b bytes.Buffer
			b.WriteString(`{"json_diff":[{"op":`)
			if int(x.Op) < len(ops) {
				b.Write(jsonString(ops[x.Op]))
			} else {
				b.WriteString(strconv.Itoa(int(x.Op)))
			}
			b.WriteString(`,"path":`)
			b.Write(jsonString(x.Path))
			if x.Op != replication.JsonDiffOperationRemove {
				if !json.Valid([]byte(x.Value)) {
					return nil, "", fmt.Errorf("go-mysql rendered invalid JSON diff value %q", x.Value)
				}
				b.WriteString(`,"value":`)
				b.WriteString(x.Value)
			}
			b.WriteString(`}]}`)
			return b.Bytes(), "json_diff", nil
		}
	case mysql.MYSQL_TYPE_GEOMETRY:
		if p, ok := bytesOf(v); ok {
			if len(p) < 4 {
				return nil, "", fmt.Errorf("geometry value of %d bytes has no SRID", len(p))
			}
			return []byte(fmt.Sprintf(`{"srid":%d,"wkb":"%s"}`, binary.LittleEndian.Uint32(p), hex.EncodeToString(p[4:]))), "", nil
		}
	case mysql.MYSQL_TYPE_VECTOR:
		if p, ok := bytesOf(v); ok {
			if len(p)%4 != 0 {
				return base64Obj(p), "", nil
			}
			parts := make([]string, 0, len(p)/4)
			for k := 0; k < len(p); k += 4 {
				f := math.Float32frombits(binary.LittleEndian.Uint32(p[k:]))
				parts = append(parts, string(floatText(float64(f), 32)))
			}
			return []byte("[" + strings.Join(parts, ",") + "]"), "float", nil
		}
	}
	return nil, "", fmt.Errorf("column %d (type %d meta %d): unexpected go-mysql value %T %v", i+1, tp, meta, v, v)
}

func (d *decoder) image(t *replication.TableMapEvent, ti *tableInfo, vals []any, skipped []int, r *row) ([]kv, error) {
	skip := make(map[int]bool, len(skipped))
	for _, s := range skipped {
		skip[s] = true
	}
	img := make([]kv, 0, len(vals))
	for i, v := range vals {
		if skip[i] {
			continue
		}
		j, hint, err := value(t, ti, i, v)
		if err != nil {
			return nil, fmt.Errorf("%s.%s %s: %w", t.Schema, t.Table, ti.names[i], err)
		}
		img = append(img, kv{ti.names[i], j})
		if hint != "" {
			r.hints = append(r.hints, kv{ti.names[i], jsonString(hint)})
		}
	}
	return img, nil
}

func dedupHints(h []kv) []kv {
	seen := map[string]bool{}
	var out []kv
	for _, x := range h {
		if !seen[x.key] {
			seen[x.key] = true
			out = append(out, x)
		}
	}
	return out
}

func (d *decoder) rows(h *replication.EventHeader, e *replication.RowsEvent, compressed bool) error {
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
		return fmt.Errorf("unexpected rows event type %v", h.EventType)
	}
	t := e.Table
	ti := newTableInfo(t, d.schema)
	step := 1
	if op == "update" {
		step = 2
	}
	if len(e.Rows)%step != 0 {
		return fmt.Errorf("%s.%s: update event with %d images", t.Schema, t.Table, len(e.Rows))
	}
	for k := 0; k < len(e.Rows); k += step {
		r := row{op: op, db: string(t.Schema), table: string(t.Table), compressed: compressed}
		var err error
		switch op {
		case "insert":
			r.hasAfter = true
			r.after, err = d.image(t, ti, e.Rows[k], e.SkippedColumns[k], &r)
		case "delete":
			r.hasBefore = true
			r.before, err = d.image(t, ti, e.Rows[k], e.SkippedColumns[k], &r)
		default:
			r.hasBefore, r.hasAfter = true, true
			r.before, err = d.image(t, ti, e.Rows[k], e.SkippedColumns[k], &r)
			if err == nil {
				r.after, err = d.image(t, ti, e.Rows[k+1], e.SkippedColumns[k+1], &r)
			}
		}
		if err != nil {
			return err
		}
		r.hints = dedupHints(r.hints)
		d.pending = append(d.pending, r)
	}
	return nil
}

func writeImage(b *bytes.Buffer, present bool, img []kv) {
	if !present {
		b.WriteString("null")
		return
	}
	b.WriteByte('{')
	for i, x := range img {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(x.key))
		b.WriteByte(':')
		b.Write(x.val)
	}
	b.WriteByte('}')
}

// flush prints the pending rows of the transaction that ended at log_pos pos.
func (d *decoder) flush(pos uint32) {
	for _, r := range d.pending {
		var b bytes.Buffer
		b.WriteString(`{"op":`)
		b.Write(jsonString(r.op))
		b.WriteString(`,"db":`)
		b.Write(jsonString(r.db))
		b.WriteString(`,"table":`)
		b.Write(jsonString(r.table))
		b.WriteString(`,"before":`)
		writeImage(&b, r.hasBefore, r.before)
		b.WriteString(`,"after":`)
		writeImage(&b, r.hasAfter, r.after)
		if d.gtid != "" {
			b.WriteString(`,"gtid":`)
			b.Write(jsonString(d.gtid))
		}
		fmt.Fprintf(&b, `,"pos":{"file":%s,"pos":%d}`, jsonString(d.file), pos)
		fmt.Fprintf(&b, `,"compressed":%t`, r.compressed)
		if len(r.hints) > 0 {
			b.WriteString(`,"hints":`)
			writeImage(&b, true, r.hints)
		}
		b.WriteString("}\n")
		d.out.Write(b.Bytes())
		d.rowsTotal++
	}
	d.pending = d.pending[:0]
}

// flushOrphans prints rows of a transaction that never saw its end event
// (none in a well-formed stream) at the last position, so that no row read
// from the file is silently dropped.
func (d *decoder) flushOrphans() {
	if len(d.pending) > 0 {
		d.flush(d.lastPos)
	}
}

func gtidText(g *replication.GTIDEvent) (string, error) {
	u, err := uuid.FromBytes(g.SID)
	if err != nil {
		return "", err
	}
	if tag := g.Tag.String(); tag != "" {
		return fmt.Sprintf("%s:%s:%d", u, tag, g.GNO), nil
	}
	return fmt.Sprintf("%s:%d", u, g.GNO), nil
}

// event handles one top-level or inner event.
func (d *decoder) event(ev *replication.BinlogEvent, compressed bool) error {
	h := ev.Header
	switch e := ev.Event.(type) {
	case *replication.GtidTaggedLogEvent:
		d.flushOrphans()
		g, err := gtidText(&e.GTIDEvent)
		if err != nil {
			return err
		}
		d.gtid = g
	case *replication.GTIDEvent:
		d.flushOrphans()
		d.gtid = ""
		if h.EventType == replication.GTID_EVENT {
			g, err := gtidText(e)
			if err != nil {
				return err
			}
			d.gtid = g
		}
	case *replication.RowsEvent:
		return d.rows(h, e, compressed)
	case *replication.XIDEvent:
		d.flush(h.LogPos)
	case *replication.QueryEvent:
		q := strings.TrimSpace(string(e.Query))
		if strings.EqualFold(q, "COMMIT") {
			d.flush(h.LogPos)
		} else if d.schema != nil {
			d.schema.learn(string(e.Schema), q)
		}
	case *replication.GenericEvent:
		// XA_PREPARE ends the first phase of an XA transaction: its rows
		// are logged (and seen by consumers) at this point.
		if h.EventType == replication.XA_PREPARE_LOG_EVENT {
			d.flush(h.LogPos)
		}
	case *replication.TransactionPayloadEvent:
		for _, inner := range e.Events {
			if err := d.event(inner, true); err != nil {
				return fmt.Errorf("inside TRANSACTION_PAYLOAD: %w", err)
			}
		}
	}
	return nil
}

// checkCRC verifies a top-level event's CRC32 (see the file comment).
func checkCRC(raw []byte, isFDE bool) error {
	if len(raw) < 19+4 {
		return fmt.Errorf("event of %d bytes is too short for a checksum", len(raw))
	}
	body := raw[:len(raw)-4]
	if isFDE {
		body = append([]byte(nil), body...)
		flags := binary.LittleEndian.Uint16(body[17:19]) &^ inUseFlag
		binary.LittleEndian.PutUint16(body[17:19], flags)
	}
	want := binary.LittleEndian.Uint32(raw[len(raw)-4:])
	if got := crc32.ChecksumIEEE(body); got != want {
		return fmt.Errorf("checksum mismatch: stored 0x%08x, computed 0x%08x", want, got)
	}
	return nil
}

func (d *decoder) parseFile(p *replication.BinlogParser, path string) error {
	d.file = filepath.Base(path)
	var offset int64 = 4
	err := p.ParseFile(path, 4, func(ev *replication.BinlogEvent) error {
		at := offset
		offset += int64(ev.Header.EventSize)
		if fde, ok := ev.Event.(*replication.FormatDescriptionEvent); ok {
			d.checksum = fde.ChecksumAlgorithm == replication.BINLOG_CHECKSUM_ALG_CRC32
		}
		if d.checksum {
			_, isFDE := ev.Event.(*replication.FormatDescriptionEvent)
			if err := checkCRC(ev.RawData, isFDE); err != nil {
				return fmt.Errorf("event at offset %d (%v): %w", at, ev.Header.EventType, err)
			}
		}
		if err := d.event(ev, false); err != nil {
			return fmt.Errorf("event at offset %d (%v): %w", at, ev.Header.EventType, err)
		}
		d.lastPos = ev.Header.LogPos
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// indexFiles lists the binlog files of a generated stream directory.
func indexFiles(dir string) ([]string, error) {
	index := ""
	if b, err := os.ReadFile(filepath.Join(dir, "stream.json")); err == nil {
		var m struct {
			Basename string `json:"basename"`
		}
		if json.Unmarshal(b, &m) == nil && m.Basename != "" {
			index = filepath.Join(dir, m.Basename+".index")
		}
	}
	if index == "" {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.index"))
		if len(matches) != 1 {
			return nil, fmt.Errorf("%s: expected one *.index file, found %d", dir, len(matches))
		}
		index = matches[0]
	}
	b, err := os.ReadFile(index)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(dir, line)
		}
		files = append(files, line)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s lists no files", index)
	}
	return files, nil
}

func main() {
	args := os.Args[1:]
	var schema ddlSchema
	if len(args) > 0 && (args[0] == "-ddl" || args[0] == "--ddl") {
		schema = ddlSchema{}
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: gomysql-decode [-ddl] DIR | FILE...")
		os.Exit(2)
	}
	var files []string
	if st, err := os.Stat(args[0]); err == nil && st.IsDir() && len(args) == 1 {
		files, err = indexFiles(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, "gomysql-decode:", err)
			os.Exit(1)
		}
	} else {
		files = args
	}

	p := replication.NewBinlogParser()
	p.SetFlavor("mysql")
	p.SetUseDecimal(false)
	p.SetParseTime(false)
	p.SetTimestampStringLocation(time.UTC)
	p.SetRenderJSONAsMySQLText(true)
	p.SetVerifyChecksum(false) // checked by checkCRC instead

	d := &decoder{out: bufio.NewWriterSize(os.Stdout, 1<<16), schema: schema}
	status := 0
	for _, f := range files {
		if err := d.parseFile(p, f); err != nil {
			fmt.Fprintln(os.Stderr, "gomysql-decode:", err)
			status = 1
			break
		}
	}
	// A file that ends inside a transaction (no XID yet) still reports its
	// rows, at the last event's position.
	if status == 0 && len(d.pending) > 0 {
		d.flush(d.lastPos)
	}
	if err := d.out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gomysql-decode:", err)
		status = 1
	}
	os.Exit(status)
}
