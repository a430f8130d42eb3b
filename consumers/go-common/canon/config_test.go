package canon

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"
)

// syncerLike stands for replication.BinlogSyncerConfig: the kinds of fields it has.
type syncerLike struct {
	ServerID        uint32
	Host            string
	Password        string
	ParseTime       bool
	UseDecimal      bool
	HeartbeatPeriod time.Duration
	ReadTimeout     time.Duration
	TSLoc           *time.Location
	EventCacheCount int
	Dialer          func(ctx context.Context, network, addr string) (net.Conn, error)
	Option          func() error
	hidden          int
}

func TestApplyJSON(t *testing.T) {
	cfg := syncerLike{ServerID: 1001, Host: "127.0.0.1", TSLoc: time.UTC}
	user, kept, err := ApplyJSON(&cfg, []byte(`{"parsetime": true, "ServerID": 7, "HeartbeatPeriod": "30s",
		"ReadTimeout": 1000000000, "TSLoc": "Asia/Kolkata", "EventCacheCount": 5, "UseDecimal": false}`),
		[]Owned{{"ServerID", "harness"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ParseTime || cfg.ServerID != 1001 || cfg.HeartbeatPeriod != 30*time.Second ||
		cfg.ReadTimeout != time.Second || cfg.TSLoc.String() != "Asia/Kolkata" || cfg.EventCacheCount != 5 {
		t.Fatalf("applied: %+v", cfg)
	}
	if strings.Join(user, ",") != "ParseTime,HeartbeatPeriod,ReadTimeout,TSLoc,EventCacheCount,UseDecimal" {
		t.Fatalf("user keys %v", user)
	}
	if len(kept) != 1 || kept[0] != (Setting{"ServerID", "harness"}) {
		t.Fatalf("kept %v", kept)
	}
	eff := Effective(&cfg, user, GoName, func(k string) bool { return k == "Dialer" })
	var got []string
	for _, s := range eff {
		got = append(got, s.Key+"="+s.Val)
	}
	want := "ServerID=1001 Host=127.0.0.1 ParseTime=true UseDecimal=false HeartbeatPeriod=30s ReadTimeout=1s " +
		"TSLoc=Asia/Kolkata EventCacheCount=5"
	if strings.Join(got, " ") != want {
		t.Fatalf("effective\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	for _, bad := range []struct{ json, msg string }{
		{`{"Bogus": 1}`, "Bogus=1: canon.syncerLike has no such field"},
		{`{"hidden": 1}`, "hidden=1: canon.syncerLike has no such field"},
		{`{"Option": "x"}`, `Option="x": a field of Go type func() error cannot be given in JSON`},
		{`{"ParseTime": "yes"}`, `ParseTime="yes": not a bool`},
		{`{"HeartbeatPeriod": "soon"}`, `HeartbeatPeriod="soon": time: invalid duration`},
		{`{"TSLoc": "Mars/Base"}`, `TSLoc="Mars/Base": unknown time zone`},
		{`[1]`, "not a JSON object"},
		{`{"ParseTime": true, "parsetime": false}`, "given twice"},
	} {
		c := syncerLike{}
		_, _, err := ApplyJSON(&c, []byte(bad.json), nil, nil)
		if err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%s: error %v, want %q", bad.json, err, bad.msg)
		}
	}
	c := syncerLike{}
	_, _, err = ApplyJSON(&c, []byte(`{"UseDecimal": true}`), nil, func(f string, _ json.RawMessage) string {
		if f == "UseDecimal" {
			return "refused"
		}
		return ""
	})
	if err == nil || err.Error() != "UseDecimal=true: refused" {
		t.Errorf("refuse: %v", err)
	}
}

func TestSetIfPresent(t *testing.T) {
	type dialer func(ctx context.Context, network, addr string) (net.Conn, error)
	c := syncerLike{}
	var d dialer = (&net.Dialer{}).DialContext
	if !SetIfPresent(&c, "Dialer", (func(context.Context, string, string) (net.Conn, error))(d)) || c.Dialer == nil {
		t.Fatal("Dialer not set")
	}
	if SetIfPresent(&c, "NoSuchField", 1) {
		t.Fatal("set a field that is not there")
	}
}

func TestTimestampString(t *testing.T) {
	kol, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Skip("no zoneinfo:", err)
	}
	for _, c := range []struct {
		in   string
		loc  *time.Location
		fsp  int
		want string
	}{
		{"2020-01-01 05:30:00", kol, 0, "2020-01-01 00:00:00"},
		{"2020-01-01 05:30:00.25", kol, 3, "2020-01-01 00:00:00.250"},
		{"1970-01-01 05:30:01", kol, 0, "1970-01-01 00:00:01"},
		{"0000-00-00 00:00:00", kol, 2, "0000-00-00 00:00:00.00"},
		{"2020-01-01 05:30:00", nil, 0, "2020-01-01 05:30:00"},
		{"2020-01-01 05:30:00.5", nil, 2, "2020-01-01 05:30:00.50"},
	} {
		if got := TimestampString(c.in, c.loc, c.fsp); got != c.want {
			t.Errorf("TimestampString(%q, %v, %d) = %q, want %q", c.in, c.loc, c.fsp, got, c.want)
		}
	}
	if StringZone(time.UTC) != nil || StringZone(nil) != time.Local || StringZone(kol) != kol {
		t.Error("StringZone")
	}
}
