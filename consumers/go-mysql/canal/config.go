// The user's canal configuration (CDCH_CONFIG): canal's TOML file, as
// canal.NewConfigWithFile reads it. canal.NewConfigWithFile decodes it onto a
// zero Config; here the same decoder (BurntSushi/toml, canal's own, at the
// version canal requires) decodes it onto the adapter's defaults
// (canal.NewDefaultConfig plus the adapter's settings), so the user's keys win
// and the keys the file lacks keep the defaults. The settings the harness owns
// are set again after it (kept), and the config line lists every setting.
package main

import (
	"reflect"
	"strings"

	"cdcharness/consumers/go-common/canon"

	"github.com/BurntSushi/toml"
	"github.com/go-mysql-org/go-mysql/canal"
)

// owned: canal.Config fields (Go path) the harness keeps, and why.
var owned = []canon.Owned{
	{Key: "Addr", Why: "the harness's fake primary (CDCH_HOST:CDCH_PORT)"},
	{Key: "User", Why: "the fake primary's replication account (CDCH_USER)"},
	{Key: "Password", Why: "the fake primary's replication account (CDCH_PASSWORD)"},
	{Key: "ServerID", Why: "the harness gives each run its own replica server id (CDCH_SERVER_ID)"},
	{Key: "Flavor", Why: "the fake primary is MySQL: the flavor names the server, not a consumer setting"},
	{Key: "Dump.ExecutionPath", Why: "binlog only: no mysqldump here; canal starts at the harness's position (CDCH_START_FILE/POS or CDCH_GTID_SET)"},
	{Key: "Logger", Why: "the adapter's: canal's log goes to the cell's stderr"},
	{Key: "Dialer", Why: "the adapter's: canal's default dialer (in a session, its connections are closed at the cell's stop)"},
}

// tomlName is a field's TOML key as canal's decoder matches it (the toml
// tag's name, else the Go name).
func tomlName(f reflect.StructField) string {
	if tag := f.Tag.Get("toml"); tag != "" {
		if n := strings.Split(tag, ",")[0]; n != "" && n != "-" {
			return n
		}
	}
	return f.Name
}

// resolve maps a TOML key path to the canal.Config field it decodes into, as
// BurntSushi/toml matches (the key exactly, else case-insensitively): the Go
// path ("Dump.ExecutionPath") and the report's key ("dump.mysqldump").
func resolve(key toml.Key) (goPath, name string, ok bool) {
	t := reflect.TypeOf(canal.Config{})
	var gp, nm []string
	for i, seg := range key {
		if t.Kind() != reflect.Struct {
			return "", "", false
		}
		var f reflect.StructField
		found := false
		for pass := 0; pass < 2 && !found; pass++ {
			for j := 0; j < t.NumField(); j++ {
				g := t.Field(j)
				if !g.IsExported() {
					continue
				}
				n := tomlName(g)
				if (pass == 0 && n == seg) || (pass == 1 && strings.EqualFold(n, seg)) {
					f, found = g, true
					break
				}
			}
		}
		if !found {
			return "", "", false
		}
		gp = append(gp, f.Name)
		nm = append(nm, tomlName(f))
		if i < len(key)-1 {
			t = f.Type
		}
	}
	return strings.Join(gp, "."), strings.Join(nm, "."), true
}

func reportName(prefix string, f reflect.StructField) string { return prefix + tomlName(f) }

// userConfig applies the cell's CDCH_CONFIG onto cfg, calls harness (which
// sets the harness's settings again) and prints the config line. ok false:
// the cell has ended with a config-error (status).
func userConfig(cell *canon.Cell, cfg *canal.Config, harness func()) (status int, ok bool) {
	var user []string
	var kept []canon.Setting
	if path := cell.ConfigPath(); path != "" {
		// canal's own reading first: what it refuses, its users cannot run
		if _, err := canal.NewConfigWithFile(path); err != nil {
			return cell.ConfigError("CDCH_CONFIG=" + path + ": canal.NewConfigWithFile: " + err.Error()), false
		}
		md, err := toml.DecodeFile(path, cfg)
		if err != nil {
			return cell.ConfigError("CDCH_CONFIG=" + path + ": " + err.Error()), false
		}
		undecoded := map[string]bool{}
		for _, k := range md.Undecoded() {
			undecoded[k.String()] = true
		}
		for _, k := range md.Keys() {
			if typ := md.Type(k...); typ == "Hash" || typ == "ArrayHash" {
				continue // a table: its keys come one by one
			}
			if undecoded[k.String()] {
				kept = append(kept, canon.Setting{Key: k.String(),
					Val: "not a canal.Config setting of this go-mysql version: canal.NewConfigWithFile ignores it"})
				continue
			}
			goPath, name, found := resolve(k)
			if !found {
				continue
			}
			why := ""
			for _, o := range owned {
				if o.Key == goPath {
					why = o.Why
				}
			}
			if why != "" {
				kept = append(kept, canon.Setting{Key: k.String(), Val: why})
				user = append(user, name) // listed with the value kept, even when empty
				continue
			}
			user = append(user, name)
		}
	}
	harness()
	eff := canon.Effective(cfg, user, reportName, func(k string) bool { return k == "Logger" || k == "Dialer" })
	cell.Config(eff, kept)
	return 0, true
}
