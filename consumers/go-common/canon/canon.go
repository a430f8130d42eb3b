// Package canon turns what go-mysql hands its users into cdcharness's
// canonical change events (design.md section 4, consumers/README.md).
//
// It has no dependency on go-mysql itself, so that every adapter variant
// (each a Go module pinned to its own go-mysql version) can share it through
// a `replace` directive: the variants pass plain Go values plus what they
// know about the column (binlog type and metadata from the TABLE_MAP for a
// raw BinlogSyncer loop; the SHOW FULL COLUMNS view for canal).
package canon

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// MySQL binlog column types (include/field_types.h).
const (
	TypeDecimal    = 0
	TypeTiny       = 1
	TypeShort      = 2
	TypeLong       = 3
	TypeFloat      = 4
	TypeDouble     = 5
	TypeNull       = 6
	TypeTimestamp  = 7
	TypeLongLong   = 8
	TypeInt24      = 9
	TypeDate       = 10
	TypeTime       = 11
	TypeDatetime   = 12
	TypeYear       = 13
	TypeNewDate    = 14
	TypeVarchar    = 15
	TypeBit        = 16
	TypeTimestamp2 = 17
	TypeDatetime2  = 18
	TypeTime2      = 19
	TypeVector     = 242
	TypeJSON       = 245
	TypeNewDecimal = 246
	TypeEnum       = 247
	TypeSet        = 248
	TypeTinyBlob   = 249
	TypeMediumBlob = 250
	TypeLongBlob   = 251
	TypeBlob       = 252
	TypeVarString  = 253
	TypeString     = 254
	TypeGeometry   = 255
)

// ---------------------------------------------------------------- output

// KV is one column of an image: its name and its canonical JSON value.
type KV struct {
	Key string
	Val []byte
}

// Row is one canonical change event.
type Row struct {
	Op, DB, Table string
	Before, After []KV // nil = image absent
}

// PairRows turns the n rows of one rows event into canonical rows: one image
// per row for insert (after) and delete (before), before/after pairs for
// update. img(k) builds the image of the event's row k.
func PairRows(op, db, table string, n int, img func(k int) ([]KV, error)) ([]Row, error) {
	step := 1
	if op == "update" {
		step = 2
	}
	var out []Row
	for k := 0; k+step-1 < n; k += step {
		r := Row{Op: op, DB: db, Table: table}
		var err error
		switch op {
		case "insert":
			r.After, err = img(k)
		case "delete":
			r.Before, err = img(k)
		default:
			if r.Before, err = img(k); err == nil {
				r.After, err = img(k + 1)
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// eventLine is the change event line of r with the checkpoint gtid ("" =
// none) and file:pos (file "" = none).
func eventLine(r Row, gtid, file string, pos uint64) []byte {
	var b bytes.Buffer
	b.WriteString(`{"op":`)
	b.Write(JSONString(r.Op))
	b.WriteString(`,"db":`)
	b.Write(JSONString(r.DB))
	b.WriteString(`,"table":`)
	b.Write(JSONString(r.Table))
	b.WriteString(`,"before":`)
	writeImage(&b, r.Before)
	b.WriteString(`,"after":`)
	writeImage(&b, r.After)
	b.WriteString(`,"gtid":`)
	if gtid == "" {
		b.WriteString("null")
	} else {
		b.Write(JSONString(gtid))
	}
	b.WriteString(`,"pos":`)
	if file == "" {
		b.WriteString("null")
	} else {
		fmt.Fprintf(&b, `{"file":%s,"pos":%d}`, JSONString(file), pos)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeImage(b *bytes.Buffer, img []KV) {
	if img == nil {
		b.WriteString("null")
		return
	}
	b.WriteByte('{')
	for i, x := range img {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(JSONString(x.Key))
		b.WriteByte(':')
		b.Write(x.Val)
	}
	b.WriteByte('}')
}

// ---------------------------------------------------------------- environment

// Env is the run environment of consumers/README.md.
type Env struct {
	Host, User, Password string
	Port                 uint16
	ServerID             uint32
	StartFile            string
	StartPos             uint32
	GTIDSet              string
	HaveGTIDSet          bool
	Databases            []string
}

// parseEnv reads the CDCH_* variables through lookup (the process
// environment, or a session cell's env); a missing port is an error.
func parseEnv(lookup func(string) (string, bool)) (Env, error) {
	get := func(k string) string { v, _ := lookup(k); return v }
	var e Env
	e.Host = get("CDCH_HOST")
	if e.Host == "" {
		e.Host = "127.0.0.1"
	}
	p, err := strconv.ParseUint(get("CDCH_PORT"), 10, 16)
	if err != nil || p == 0 {
		return e, fmt.Errorf("CDCH_PORT is not set to a port number")
	}
	e.Port = uint16(p)
	e.User = get("CDCH_USER")
	if e.User == "" {
		e.User = "root"
	}
	e.Password = get("CDCH_PASSWORD")
	sid, err := strconv.ParseUint(get("CDCH_SERVER_ID"), 10, 32)
	if err != nil || sid == 0 {
		sid = 1001
	}
	e.ServerID = uint32(sid)
	e.StartFile = get("CDCH_START_FILE")
	e.StartPos = 4
	if s := get("CDCH_START_POS"); s != "" {
		if v, err := strconv.ParseUint(s, 10, 32); err == nil {
			e.StartPos = uint32(v)
		}
	}
	e.GTIDSet, e.HaveGTIDSet = lookup("CDCH_GTID_SET")
	for _, d := range strings.Split(get("CDCH_DATABASES"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			e.Databases = append(e.Databases, d)
		}
	}
	return e, nil
}

// ---------------------------------------------------------------- values

// JSONString encodes s as a JSON string without HTML escaping.
func JSONString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Base64 is {"base64":"..."}.
func Base64(p []byte) []byte {
	return []byte(`{"base64":"` + base64.StdEncoding.EncodeToString(p) + `"}`)
}

// U64 prints an unsigned integer, as a decimal string beyond 2^63-1.
func U64(u uint64) []byte {
	if u > math.MaxInt64 {
		return []byte(`"` + strconv.FormatUint(u, 10) + `"`)
	}
	return []byte(strconv.FormatUint(u, 10))
}

// Float prints the shortest text that reads back as the same float of
// the given size (NaN/Inf, which MySQL cannot store, as strings).
func Float(f float64, bits int) []byte {
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

// Geometry maps MySQL's internal geometry (4-byte LE SRID + WKB).
func Geometry(p []byte) ([]byte, error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("geometry value of %d bytes has no SRID", len(p))
	}
	return []byte(fmt.Sprintf(`{"srid":%d,"wkb":"%s"}`, binary.LittleEndian.Uint32(p), hex.EncodeToString(p[4:]))), nil
}

// FixFSP gives a temporal string exactly fsp fraction digits when the
// consumer printed fewer (go-mysql omits a zero TIME fraction) or more
// zero digits; a value that would lose non-zero digits is left as is.
func FixFSP(s string, fsp int) string {
	if fsp < 0 {
		return s
	}
	if fsp > 6 {
		fsp = 6
	}
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 || strings.ContainsAny(s[dot:], " :-") {
		if fsp == 0 {
			return s
		}
		return s + "." + strings.Repeat("0", fsp)
	}
	frac := s[dot+1:]
	switch {
	case len(frac) == fsp:
		return s
	case len(frac) < fsp:
		return s + strings.Repeat("0", fsp-len(frac))
	default:
		if strings.Trim(frac[fsp:], "0") != "" {
			return s
		}
		if fsp == 0 {
			return s[:dot]
		}
		return s[:dot+1+fsp]
	}
}

// Charset classes that decide how character bytes become canonical text.
const (
	CSUnknown = ""
	CSBinary  = "binary"
	CSLatin1  = "latin1"
	CSUTF8    = "utf8"
	CSUCS2    = "ucs2"
	CSUTF16   = "utf16"
	CSUTF16LE = "utf16le"
	CSUTF32   = "utf32"
)

// CharsetOfCollationID classifies a MySQL 8 collation id.
func CharsetOfCollationID(c uint64) string {
	switch {
	case c == 63:
		return CSBinary
	case c == 5 || c == 8 || c == 15 || c == 31 || c == 47 || c == 48 || c == 49 || c == 94:
		return CSLatin1
	case c == 35 || c == 90 || (c >= 128 && c <= 159):
		return CSUCS2
	case c == 54 || c == 55 || (c >= 101 && c <= 124):
		return CSUTF16
	case c == 56 || c == 62:
		return CSUTF16LE
	case c == 60 || c == 61 || (c >= 160 && c <= 183):
		return CSUTF32
	}
	return CSUTF8
}

// CharsetOfCollationName classifies a collation name as SHOW FULL COLUMNS
// prints it ("" / NULL for non-character columns).
func CharsetOfCollationName(name string) string {
	if name == "" {
		return CSUnknown
	}
	cs := name
	if i := strings.IndexByte(name, '_'); i >= 0 {
		cs = name[:i]
	}
	switch cs {
	case "binary":
		return CSBinary
	case "latin1":
		return CSLatin1
	case "ucs2", "utf16", "utf16le", "utf32":
		return cs
	}
	return CSUTF8
}

// cp1252 code points of bytes 0x80..0x9F as MySQL's latin1 maps them.
var cp1252 = [32]rune{0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178}

// Text maps character/binary column bytes: binary -> {"base64"}, latin1 ->
// transcoded, wide Unicode charsets decoded, otherwise a string when the
// bytes are valid UTF-8, else {"base64"}.
func Text(p []byte, cs string) []byte {
	switch cs {
	case CSBinary:
		return Base64(p)
	case CSLatin1:
		var sb strings.Builder
		for _, c := range p {
			if c >= 0x80 && c < 0xA0 {
				sb.WriteRune(cp1252[c-0x80])
			} else {
				sb.WriteRune(rune(c))
			}
		}
		return JSONString(sb.String())
	case CSUCS2, CSUTF16, CSUTF16LE, CSUTF32:
		if s, ok := wideToUTF8(cs, p); ok {
			return JSONString(s)
		}
		return Base64(p)
	}
	if utf8.Valid(p) {
		return JSONString(string(p))
	}
	return Base64(p)
}

func wideToUTF8(cs string, p []byte) (string, bool) {
	var sb strings.Builder
	if cs == CSUTF32 {
		if len(p)%4 != 0 {
			return "", false
		}
		for i := 0; i < len(p); i += 4 {
			r := rune(binary.BigEndian.Uint32(p[i:]))
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
		if cs == CSUTF16LE {
			units = append(units, binary.LittleEndian.Uint16(p[i:]))
		} else {
			units = append(units, binary.BigEndian.Uint16(p[i:]))
		}
	}
	for i := 0; i < len(units); i++ {
		u := units[i]
		if u >= 0xD800 && u <= 0xDFFF {
			if cs == CSUCS2 || u > 0xDBFF || i+1 >= len(units) || units[i+1] < 0xDC00 || units[i+1] > 0xDFFF {
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

// Int maps any Go integer; unsigned reinterprets a signed value of the
// given byte width as unsigned (go-mysql decodes signed unless told).
func Int(v any, unsigned bool, width int) ([]byte, bool) {
	var s int64
	switch x := v.(type) {
	case int8:
		s = int64(x)
	case int16:
		s = int64(x)
	case int32:
		s = int64(x)
	case int64:
		s = x
	case int:
		s = int64(x)
	case uint8:
		return U64(uint64(x)), true
	case uint16:
		return U64(uint64(x)), true
	case uint32:
		return U64(uint64(x)), true
	case uint64:
		return U64(x), true
	case uint:
		return U64(uint64(x)), true
	default:
		return nil, false
	}
	if unsigned && s < 0 {
		if width >= 8 || width <= 0 {
			return U64(uint64(s)), true
		}
		return U64(uint64(s) & (1<<(8*uint(width)) - 1)), true
	}
	return []byte(strconv.FormatInt(s, 10)), true
}

// Bytes returns the bytes of a string or []byte value.
func Bytes(v any) ([]byte, bool) {
	switch x := v.(type) {
	case []byte:
		return x, true
	case string:
		return []byte(x), true
	}
	return nil, false
}

// Enum maps a 1-based ENUM index to its label (0 = MySQL's "" error value);
// without labels the index itself (the consumer had no labels).
func Enum(idx int64, labels []string) []byte {
	if idx == 0 {
		return []byte(`""`)
	}
	if idx >= 1 && int(idx) <= len(labels) {
		return JSONString(labels[idx-1])
	}
	return []byte(strconv.FormatInt(idx, 10))
}

// Set maps a SET bitmap to the array of its labels; without labels (or a
// bit beyond them) the bitmap as an unsigned integer.
func Set(bm uint64, labels []string) []byte {
	if labels == nil || (len(labels) < 64 && bm>>uint(len(labels)) != 0) {
		return U64(bm)
	}
	parts := []string{}
	for k := 0; k < 64 && k < len(labels); k++ {
		if bm>>uint(k)&1 == 1 {
			parts = append(parts, string(JSONString(labels[k])))
		}
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

// Time prints a time.Time that go-mysql hands out under ParseTime with fsp
// fraction digits: a DATETIME as its wall clock (go-mysql builds it in UTC),
// a TIMESTAMP (instant) in UTC (go-mysql builds it in the local zone).
func Time(t time.Time, instant bool, fsp int) []byte {
	if instant {
		t = t.UTC()
	}
	return JSONString(FixFSP(t.Format("2006-01-02 15:04:05.000000"), fsp))
}

// StringZone is the zone go-mysql formats TIMESTAMP strings in under the
// TimestampStringLocation setting loc (nil there: the value of time.Unix, the
// process's Local), as canon.Column.TSLoc takes it: nil for UTC.
func StringZone(loc *time.Location) *time.Location {
	switch {
	case loc == time.UTC:
		return nil
	case loc == nil:
		return time.Local
	}
	return loc
}

// TimestampString maps a TIMESTAMP the library formatted as a string in the
// zone loc (nil: UTC, the string as it is) to the canonical UTC form with fsp
// fraction digits. MySQL's zero value and a string that does not parse are
// left as they are (with FixFSP).
func TimestampString(s string, loc *time.Location, fsp int) string {
	if loc != nil && loc != time.UTC && !strings.HasPrefix(s, "0000-00-00") {
		if t, err := time.ParseInLocation("2006-01-02 15:04:05.999999", s, loc); err == nil {
			return FixFSP(t.UTC().Format("2006-01-02 15:04:05.000000"), fsp)
		}
	}
	return FixFSP(s, fsp)
}

// LibVersion is the version of the module at path that the running adapter
// was built with ("" when unknown): the adapters name it in their messages.
// A module replaced by a directory (a local build) is named by the directory.
func LibVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				if m.Replace != nil {
					if m.Replace.Version == "" && m.Replace.Path != "" {
						return "file:" + m.Replace.Path
					}
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return ""
}

// JSONDoc embeds a JSON column rendered as text by go-mysql.
func JSONDoc(v any) ([]byte, error) {
	p, ok := Bytes(v)
	if !ok {
		return nil, fmt.Errorf("JSON value of Go type %T", v)
	}
	if len(p) == 0 {
		return []byte("null"), nil
	}
	if !json.Valid(p) {
		return nil, fmt.Errorf("go-mysql rendered invalid JSON text %q", p)
	}
	return append([]byte(nil), p...), nil
}

// ---------------------------------------------------------------- binlog-typed

// Column is what a raw BinlogSyncer loop knows about a column from the
// TABLE_MAP event.
type Column struct {
	Type      byte   // real type (MYSQL_TYPE_STRING resolved to CHAR/ENUM/SET)
	Meta      uint16 // TABLE_MAP metadata
	Unsigned  bool   // SIGNEDNESS optional metadata
	Charset   string // from the collation (DEFAULT_CHARSET/COLUMN_CHARSET metadata), "" unknown
	Enum, Set []string
	// TSLoc: the zone the library formats TIMESTAMP strings in when it is
	// not UTC (BinlogSyncerConfig.TimestampStringLocation, nil there meaning
	// the process's Local); nil = UTC, the strings are printed as they are.
	TSLoc *time.Location
}

// RealType resolves MYSQL_TYPE_STRING into CHAR/ENUM/SET (meta byte 0).
func RealType(tp byte, meta uint16) byte {
	if tp == TypeString && meta >= 256 {
		b0 := byte(meta >> 8)
		if b0&0x30 != 0x30 {
			return b0 | 0x30
		}
		return b0
	}
	return tp
}

func intWidth(tp byte) int {
	switch tp {
	case TypeTiny:
		return 1
	case TypeShort:
		return 2
	case TypeInt24:
		return 3
	case TypeLong:
		return 4
	}
	return 8
}

// ByBinlogType maps one go-mysql row value using the column's binlog type.
func ByBinlogType(c *Column, v any) ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	switch c.Type {
	case TypeTiny, TypeShort, TypeInt24, TypeLong, TypeLongLong:
		if b, ok := Int(v, c.Unsigned, intWidth(c.Type)); ok {
			return b, nil
		}
	case TypeNewDecimal, TypeDecimal:
		switch x := v.(type) {
		case string:
			return JSONString(x), nil
		case fmt.Stringer:
			return JSONString(x.String()), nil
		}
	case TypeFloat:
		if f, ok := v.(float32); ok {
			return Float(float64(f), 32), nil
		}
	case TypeDouble:
		if f, ok := v.(float64); ok {
			return Float(f, 64), nil
		}
	case TypeDate, TypeNewDate, TypeDatetime, TypeTimestamp, TypeTime:
		if s, ok := v.(string); ok {
			if c.Type == TypeTimestamp {
				return JSONString(TimestampString(s, c.TSLoc, 0)), nil
			}
			return JSONString(s), nil
		}
		if t, ok := v.(time.Time); ok && (c.Type == TypeDatetime || c.Type == TypeTimestamp) {
			return Time(t, c.Type == TypeTimestamp, 0), nil
		}
	case TypeDatetime2, TypeTimestamp2, TypeTime2:
		if s, ok := v.(string); ok {
			if c.Type == TypeTimestamp2 {
				return JSONString(TimestampString(s, c.TSLoc, int(c.Meta))), nil
			}
			return JSONString(FixFSP(s, int(c.Meta))), nil
		}
		if t, ok := v.(time.Time); ok && c.Type != TypeTime2 {
			return Time(t, c.Type == TypeTimestamp2, int(c.Meta)), nil
		}
	case TypeYear:
		if b, ok := Int(v, false, 8); ok {
			return b, nil
		}
	case TypeBit:
		if b, ok := v.(int64); ok {
			return U64(uint64(b)), nil
		}
	case TypeEnum:
		if idx, ok := v.(int64); ok {
			return Enum(idx, c.Enum), nil
		}
	case TypeSet:
		if b, ok := v.(int64); ok {
			return Set(uint64(b), c.Set), nil
		}
	case TypeVarchar, TypeVarString, TypeString, TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob:
		if p, ok := Bytes(v); ok {
			return Text(p, c.Charset), nil
		}
	case TypeJSON:
		return JSONDoc(v)
	case TypeGeometry:
		if p, ok := Bytes(v); ok {
			return Geometry(p)
		}
	case TypeVector:
		if p, ok := Bytes(v); ok {
			if len(p)%4 != 0 {
				return Base64(p), nil
			}
			parts := make([]string, 0, len(p)/4)
			for k := 0; k < len(p); k += 4 {
				f := math.Float32frombits(binary.LittleEndian.Uint32(p[k:]))
				parts = append(parts, string(Float(float64(f), 32)))
			}
			return []byte("[" + strings.Join(parts, ",") + "]"), nil
		}
	}
	return nil, fmt.Errorf("unexpected go-mysql value %T %v for binlog type %d (meta %d)", v, v, c.Type, c.Meta)
}
