package canon

// The user's configuration of a cell (CDCH_CONFIG; /tmp/cdch/INTERFACE.md section 3,
// consumers/README.md), shared by every go-mysql variant:
//
//   - the raw loops (raw, raw-payload, parsetime) take a JSON object of
//     replication.BinlogSyncerConfig field names -> values, applied by ApplyJSON
//     onto the adapter's defaults by reflection (the fields the tag has, with
//     their Go types: no list of names to keep up to date per version);
//   - canal takes canal's own TOML file (canal.NewConfigWithFile), decoded by the
//     canal adapter; it uses Effective and the report here.
//
// Once per cell, before "ready", the adapter prints
// {"kind":"config","effective":{...},"kept":{...}} (Cell.Config); a setting it
// cannot honour ends the cell with {"kind":"config-error",...} and status 2
// (Cell.ConfigError).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ExitConfigError is the status of a cell whose configuration cannot be honoured.
const ExitConfigError = 2

// Setting is one entry of the config report, in order.
type Setting struct{ Key, Val string }

// ConfigPath is the cell's CDCH_CONFIG ("" = no user configuration).
func (c *Cell) ConfigPath() string {
	v, _ := c.lookup("CDCH_CONFIG")
	return v
}

// Config prints {"kind":"config","effective":{...},"kept":{...}} (keys in the
// order given; values of keys naming a password as "***").
func (c *Cell) Config(effective, kept []Setting) {
	var b bytes.Buffer
	b.WriteString(`{"kind":"config","effective":{`)
	for i, s := range effective {
		if i > 0 {
			b.WriteByte(',')
		}
		v := s.Val
		if isPassword(s.Key) && v != "" {
			v = "***"
		}
		b.Write(JSONString(s.Key))
		b.WriteByte(':')
		b.Write(JSONString(v))
	}
	b.WriteString(`},"kept":{`)
	for i, s := range kept {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(JSONString(s.Key))
		b.WriteByte(':')
		b.Write(JSONString(s.Val))
	}
	b.WriteString(`}}`)
	c.line(b.Bytes())
}

func isPassword(key string) bool {
	k := strings.ToLower(key)
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		k = k[i+1:]
	}
	return k == "password" || k == "passwd"
}

// ConfigError reports a setting the adapter cannot honour: a
// {"kind":"config-error","message":...} line and the message on stderr. One-shot
// the process exits 2; in a session the cell's output is sealed and run
// returns the status.
func (c *Cell) ConfigError(msg string) int {
	c.line([]byte(`{"kind":"config-error","message":` + string(JSONString(msg)) + `}`))
	fmt.Fprintln(c.Stderr(), "config-error: "+msg)
	if !c.session {
		os.Exit(ExitConfigError)
	}
	c.seal()
	return ExitConfigError
}

// ConfigErr is a setting that cannot be honoured; its message is the
// config-error line's ("KEY=VALUE: why").
type ConfigErr struct{ Msg string }

func (e *ConfigErr) Error() string { return e.Msg }

// Owned is a setting the harness keeps, with the reason.
type Owned struct{ Key, Why string }

// ApplyJSON sets the fields of the struct *cfg named by the keys of the JSON
// object in data (the raw loops' CDCH_CONFIG), in the file's order. A key is a
// field name (exact, else case-insensitive, as encoding/json matches). Values:
// what encoding/json takes for the field's type, and also a duration string
// ("10s") for a time.Duration and a zone name ("UTC", "Asia/Kolkata", "Local")
// or null for a *time.Location. Keys of owned are not applied: they come back
// in kept with their reason. refuse(field, raw) may refuse a value the adapter
// cannot map (its message without the "KEY=VALUE: " prefix). Returns the
// fields the user set (Go names, file order).
func ApplyJSON(cfg any, data []byte, owned []Owned, refuse func(field string, raw json.RawMessage) string) (user []string, kept []Setting, err error) {
	rv := reflect.ValueOf(cfg).Elem()
	rt := rv.Type()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, terr := dec.Token()
	if d, ok := tok.(json.Delim); terr != nil || !ok || d != '{' {
		return nil, nil, &ConfigErr{"the configuration is not a JSON object of " + rt.String() + " fields"}
	}
	seen := map[string]bool{}
	for dec.More() {
		kt, kerr := dec.Token()
		if kerr != nil {
			return nil, nil, &ConfigErr{"bad JSON: " + kerr.Error()}
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if verr := dec.Decode(&raw); verr != nil {
			return nil, nil, &ConfigErr{"bad JSON at key " + strconv.Quote(key) + ": " + verr.Error()}
		}
		kv := key + "=" + shortJSON(raw)
		f, ok := rt.FieldByName(key)
		if !ok || !f.IsExported() {
			ok = false
			for i := 0; i < rt.NumField(); i++ {
				if g := rt.Field(i); g.IsExported() && strings.EqualFold(g.Name, key) {
					f, ok = g, true
					break
				}
			}
		}
		if !ok {
			return nil, nil, &ConfigErr{kv + ": " + rt.String() + " has no such field in this version"}
		}
		if seen[f.Name] {
			return nil, nil, &ConfigErr{kv + ": " + f.Name + " is given twice"}
		}
		seen[f.Name] = true
		if why := ownedWhy(owned, f.Name); why != "" {
			kept = append(kept, Setting{key, why})
			continue
		}
		if refuse != nil {
			if why := refuse(f.Name, raw); why != "" {
				return nil, nil, &ConfigErr{kv + ": " + why}
			}
		}
		if serr := setField(rv.FieldByIndex(f.Index), raw); serr != "" {
			return nil, nil, &ConfigErr{kv + ": " + serr}
		}
		user = append(user, f.Name)
	}
	if _, terr = dec.Token(); terr != nil {
		return nil, nil, &ConfigErr{"bad JSON: " + terr.Error()}
	}
	if dec.More() {
		return nil, nil, &ConfigErr{"bad JSON: more than one value"}
	}
	return user, kept, nil
}

func ownedWhy(owned []Owned, key string) string {
	for _, o := range owned {
		if o.Key == key {
			return o.Why
		}
	}
	return ""
}

func shortJSON(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	locationType = reflect.TypeOf((*time.Location)(nil))
)

// setField decodes raw into the field v; returns why it cannot ("" = done).
func setField(v reflect.Value, raw json.RawMessage) string {
	t := v.Type()
	switch t {
	case durationType:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			d, err := time.ParseDuration(s)
			if err != nil {
				return err.Error()
			}
			v.SetInt(int64(d))
			return ""
		}
	case locationType:
		if string(bytes.TrimSpace(raw)) == "null" {
			v.Set(reflect.Zero(t))
			return ""
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "a *time.Location is given as a zone name (\"UTC\", \"Asia/Kolkata\", \"Local\")"
		}
		loc, err := time.LoadLocation(s)
		if err != nil {
			return err.Error()
		}
		v.Set(reflect.ValueOf(loc))
		return ""
	}
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return "a field of Go type " + t.String() + " cannot be given in JSON (code sets it)"
	}
	p := reflect.New(t)
	if err := json.Unmarshal(raw, p.Interface()); err != nil {
		return "not a " + t.String() + ": " + err.Error()
	}
	v.Set(p.Elem())
	return ""
}

// Effective lists the settings of the struct *cfg the library is given: every
// field that is not its zero value, and every field named in keys (the user's,
// even when zero), in the struct's field order; nested structs (canal's Dump)
// are walked with their key as a prefix. name gives a field's key (prefix: the
// enclosing structs' keys and "."); skip leaves out the adapter's plumbing
// (its logger, its dialer).
func Effective(cfg any, keys []string, name func(prefix string, f reflect.StructField) string, skip func(key string) bool) []Setting {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var out []Setting
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			key := name(prefix, f)
			fv := v.Field(i)
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() != "time" {
				walk(fv, key+".")
				continue
			}
			if (fv.IsZero() && !want[key]) || (skip != nil && skip(key)) {
				continue
			}
			out = append(out, Setting{key, formatValue(fv)})
		}
	}
	walk(reflect.ValueOf(cfg).Elem(), "")
	return out
}

// SyncerOwned: the replication.BinlogSyncerConfig fields the harness (or the
// adapter's plumbing) keeps, with the reason printed in "kept".
var SyncerOwned = []Owned{
	{"ServerID", "the harness gives each run its own replica server id (CDCH_SERVER_ID)"},
	{"Host", "the harness's fake primary (CDCH_HOST)"},
	{"Port", "the harness's fake primary (CDCH_PORT)"},
	{"User", "the fake primary's replication account (CDCH_USER)"},
	{"Password", "the fake primary's replication account (CDCH_PASSWORD)"},
	{"Flavor", "the fake primary is MySQL: the flavor names the server, not a consumer setting"},
	{"Logger", "the adapter's: the library's log goes to the cell's stderr"},
	{"Dialer", "the adapter's: the library's default dialer (in a session, its connections are closed at the cell's stop)"},
}

// SyncerConfig applies the cell's CDCH_CONFIG (a JSON object of
// BinlogSyncerConfig fields) onto *cfg, which holds the adapter's settings,
// keeping SyncerOwned, and prints the config line (effective: the fields
// given, Logger and Dialer left out; extra after them). refuse: see
// ApplyJSON. ok false: the cell has ended (config-error), with status.
func (c *Cell) SyncerConfig(cfg any, refuse func(field string, raw json.RawMessage) string, extra ...Setting) (status int, ok bool) {
	var user []string
	var kept []Setting
	if path := c.ConfigPath(); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return c.ConfigError("CDCH_CONFIG=" + path + ": " + err.Error()), false
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if user, kept, err = ApplyJSON(cfg, data, SyncerOwned, refuse); err != nil {
				return c.ConfigError(err.Error()), false
			}
		}
	}
	eff := Effective(cfg, user, GoName, func(k string) bool { return k == "Logger" || k == "Dialer" })
	c.Config(append(eff, extra...), kept)
	return 0, true
}

// GoName is Effective's name for a struct of Go field names.
func GoName(prefix string, f reflect.StructField) string { return prefix + f.Name }

func formatValue(v reflect.Value) string {
	t := v.Type()
	switch {
	case t == durationType:
		return time.Duration(v.Int()).String()
	case t == locationType:
		if v.IsNil() {
			return "nil (Local)"
		}
		return v.Interface().(*time.Location).String()
	}
	switch t.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice, reflect.Array, reflect.Map:
		if b, err := json.Marshal(v.Interface()); err == nil {
			return string(b)
		}
	}
	if v.Kind() == reflect.Ptr || v.Kind() == reflect.Func || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "nil"
		}
	}
	return "(" + t.String() + ")"
}

// SetIfPresent sets the field name of the struct *cfg to val when the struct
// has it (converting val to the field's type, e.g. a dial function to
// client.Dialer): features that some go-mysql tags lack. Reports whether it did.
func SetIfPresent(cfg any, name string, val any) bool {
	rv := reflect.ValueOf(cfg).Elem()
	f := rv.FieldByName(name)
	if !f.IsValid() || !f.CanSet() {
		return false
	}
	v := reflect.ValueOf(val)
	if !v.IsValid() {
		f.Set(reflect.Zero(f.Type()))
		return true
	}
	if !v.Type().ConvertibleTo(f.Type()) {
		return false
	}
	f.Set(v.Convert(f.Type()))
	return true
}

// FieldOf reads the field name of the struct *cfg (invalid Value when absent).
func FieldOf(cfg any, name string) reflect.Value {
	return reflect.ValueOf(cfg).Elem().FieldByName(name)
}

// SortedKeys is a helper for reports built from maps.
func SortedKeys(m map[string]string) []Setting {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]Setting, 0, len(ks))
	for _, k := range ks {
		out = append(out, Setting{k, m[k]})
	}
	return out
}
