package canon

// The session protocol (session.go) without a library or a server: run
// functions that behave like well-behaved, dying, stuck and leaking
// consumers. Exact stdout lines are asserted. The cases that make the
// adapter exit run in a child process (this test binary re-executed).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fake is a run function keyed by the cell's CDCH_TEST_KIND.
func fake(c *Cell) int {
	kind, _ := c.lookup("CDCH_TEST_KIND")
	row := []Row{{Op: "insert", DB: "d", Table: "t", After: []KV{{"a", []byte(c.id)}}}}
	switch kind {
	case "good": // prints, then runs until stopped
		c.Ready()
		c.Emit(row, "", "f", 4)
		<-c.Context().Done()
		c.Emit(row, "", "f", 5) // after the stop: must be dropped
		return 0
	case "dies": // the consumer ends by itself
		c.Ready()
		return c.Fatal("boom " + c.id)
	case "late": // a goroutine of the library prints after the stop
		c.Ready()
		started := make(chan struct{})
		go func() {
			close(started)
			<-c.Context().Done()
			time.Sleep(20 * time.Millisecond)
			c.Emit(row, "", "late", 1)
			c.Error("late error")
		}()
		<-started
		<-c.Context().Done()
		return 0
	case "stuck": // ignores its stop until its connection is closed
		c.Ready()
		d := c.Dialer()
		if d == nil {
			return c.Fatal("no session dialer")
		}
		block := make(chan struct{})
		c.mu.Lock()
		c.conns = append(c.conns, closeConn{ch: block})
		c.mu.Unlock()
		<-block
		return 0
	case "hang": // never returns
		c.Ready()
		select {}
	case "leak": // ends, leaving a goroutine behind
		c.Ready()
		go func() { select {} }()
		return c.Fatal("leaking")
	}
	return c.Fatal("unknown kind " + kind)
}

// closeConn is a net.Conn whose Close releases a blocked consumer.
type closeConn struct {
	net.Conn
	ch chan struct{}
}

func (c closeConn) Close() error { close(c.ch); return nil }

// runSession serves the given stdin lines, one after the other, each sent
// when the previous line's answer (if wait says one is due) has arrived.
func runSession(t *testing.T, steps []step) []string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out = bufio.NewWriter(outW)
	defer func() { out = bufio.NewWriterSize(os.Stdout, 1<<16) }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	done := make(chan int)
	go func() { done <- serve(inR, fake); outW.Close() }()
	var got []string
	for _, st := range steps {
		fmt.Fprintln(inW, st.send)
		for st.until != "" {
			select {
			case l := <-lines:
				got = append(got, l)
				if l == st.until {
					st.until = ""
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s after %s; got %q", st.until, st.send, got)
			}
		}
	}
	inW.Close()
	if status := <-done; status != 0 {
		t.Fatalf("serve returned %d", status)
	}
	for l := range lines {
		got = append(got, l)
	}
	return got
}

type step struct{ send, until string }

func start(id, kind string) string {
	return `{"kind":"start","cell":"` + id + `","env":{"CDCH_PORT":"1","CDCH_TEST_KIND":"` + kind + `"}}`
}

func stop(id string) string { return `{"kind":"stop","cell":"` + id + `"}` }

func row(id string, pos int) string {
	return `{"op":"insert","db":"d","table":"t","before":null,"after":{"a":` + id + `},"gtid":null,"pos":{"file":"f","pos":` + fmt.Sprint(pos) + `}}`
}

func TestSessionCells(t *testing.T) {
	forceAfter, stopWait = 200*time.Millisecond, 2*time.Second
	got := runSession(t, []step{
		{start("1", "good"), row("1", 4)},
		{stop("1"), `{"kind":"stopped","cell":"1"}`},
		{start("2", "dies"), `{"kind":"ended","cell":"2","status":1}`},
		{start("3", "late"), `{"kind":"ready"}`},
		{stop("3"), `{"kind":"stopped","cell":"3"}`},
		{start("4", "stuck"), `{"kind":"ready"}`},
		{stop("4"), `{"kind":"stopped","cell":"4"}`},
		{start("5", "good"), row("5", 4)},
		{stop("5"), `{"kind":"stopped","cell":"5"}`},
		{stop("6"), `{"kind":"stopped","cell":"6"}`}, // a stop for no running cell is answered
		{"not json", ""},
		{start("7", "good"), row("7", 4)}, // end of stdin stops it silently
	})
	want := []string{
		`{"kind":"ready"}`, row("1", 4), `{"kind":"stopped","cell":"1"}`,
		`{"kind":"ready"}`, `{"kind":"error","message":"boom 2"}`, `{"kind":"ended","cell":"2","status":1}`,
		`{"kind":"ready"}`, `{"kind":"stopped","cell":"3"}`,
		`{"kind":"ready"}`, `{"kind":"stopped","cell":"4"}`,
		`{"kind":"ready"}`, row("5", 4), `{"kind":"stopped","cell":"5"}`,
		`{"kind":"stopped","cell":"6"}`,
		`{"kind":"ready"}`, row("7", 4),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSessionExits: a cell that does not end in time, or leaves goroutines
// behind, ends the process (the harness launches a fresh one) instead of
// answering; a cell that ended by itself exits with its one-shot status.
func TestSessionExits(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		stop   bool // send stop once the cell is ready
		status int
		stdout string
	}{
		{"hang", true, 0, `{"kind":"ready"}`},
		{"leak", false, 1, `{"kind":"ready"}` + "\n" + `{"kind":"error","message":"leaking"}`},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			// generous budgets (a loaded machine, the race detector): a hang still fails them
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=TestHelperSession")
			cmd.Env = append(os.Environ(), "CDCH_TEST_HELPER=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdin, err := cmd.StdinPipe() // stays open, as the harness keeps it
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			io.WriteString(stdin, start("1", tc.kind)+"\n")
			var got []string
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				got = append(got, sc.Text())
				if tc.stop && sc.Text() == `{"kind":"ready"}` {
					io.WriteString(stdin, stop("1")+"\n")
				}
			}
			status := 0
			if err := cmd.Wait(); err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				status = ee.ExitCode()
			}
			if status != tc.status || strings.Join(got, "\n") != tc.stdout {
				t.Fatalf("status %d stdout %q (stderr %q), want status %d stdout %q",
					status, got, stderr.String(), tc.status, tc.stdout)
			}
			if time.Since(t0) > 30*time.Second {
				t.Fatalf("took %s", time.Since(t0))
			}
		})
	}
}

func TestHelperSession(t *testing.T) {
	if os.Getenv("CDCH_TEST_HELPER") != "1" {
		t.Skip("helper process of TestSessionExits")
	}
	forceAfter, stopWait, goroutineWait = 100*time.Millisecond, 500*time.Millisecond, 200*time.Millisecond
	os.Exit(serve(os.Stdin, fake))
}

// One-shot runs keep the process environment and exit on Fatal.
func TestParseEnv(t *testing.T) {
	env := map[string]string{"CDCH_PORT": "3306", "CDCH_DATABASES": "a, b,", "CDCH_GTID_SET": ""}
	e, err := parseEnv(cellLookup(env))
	if err != nil || e.Port != 3306 || e.Host != "127.0.0.1" || e.User != "root" || e.ServerID != 1001 ||
		e.StartPos != 4 || !e.HaveGTIDSet || len(e.Databases) != 2 || e.Databases[1] != "b" {
		t.Fatalf("%+v %v", e, err)
	}
	if _, err := parseEnv(cellLookup(map[string]string{})); err == nil {
		t.Fatal("no CDCH_PORT accepted")
	}
}
