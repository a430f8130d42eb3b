package canon

// One consumer run (a Cell) and the session protocol of consumers/README.md
// ("Session mode"), shared by every go-mysql adapter variant.
//
// An adapter writes one function, run(cell) -> exit status, that builds a
// fresh go-mysql client from cell.Env, prints through the cell (Ready, Emit,
// Fatal) and returns when the consumer ends by itself (the status a one-shot
// run exits with) or when the cell is stopped (cell.Context() is cancelled
// and the closers given to OnStop are called: the library's own Close).
// Main runs it once with the process environment (one-shot), or, with
// CDCH_SESSION=1, once per "start" line on stdin, one cell at a time.
//
// Isolation between the cells of a session:
//   - every cell has its own client, handler state, logger and output gate;
//     the adapters keep no package-level mutable state;
//   - a cell's stdout and stderr are sealed the moment it is stopped or dies
//     (Fatal): a line its library still produces afterwards (canal.Close
//     flushes pending rows through OnPosSynced, a goroutine that has not yet
//     noticed the close) is dropped, never printed into the next cell;
//   - "stopped" / "ended" is printed only once the cell's run function has
//     returned (its deferred Close done) and the goroutines it started have
//     ended; if they do not end within stopWait / goroutineWait the adapter
//     exits instead of answering (with the cell's status when it ended by
//     itself), and the harness launches a fresh process for the next cell.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"time"
)

// How long a stopped cell's run function may take to return (the harness
// waits 10 s for "stopped"), when its connections are closed for it, and how
// long the goroutines of a finished cell may take to exit after it (vars:
// the tests shorten them).
var (
	stopWait      = 5 * time.Second
	forceAfter    = time.Second
	goroutineWait = time.Second
)

// outMu serialises every stdout line of the process (cells and protocol).
var (
	outMu sync.Mutex
	out   = bufio.NewWriterSize(os.Stdout, 1<<16)
)

func writeLine(b []byte) {
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

// Cell is one consumer run. Its methods may be called from any goroutine.
type Cell struct {
	// Env is the run's environment (consumers/README.md), set before run.
	Env Env

	id      string
	session bool // run by the session protocol (else one-shot)
	lookup  func(string) (string, bool)
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex // guards sealed, closers, stopping
	sealed  bool       // no more stdout/stderr from this cell
	stop    bool       // the harness stopped it
	closers []func()
	conns   []net.Conn    // session: every connection the library dialled
	done    chan struct{} // closed when run has returned
	status  int
}

func newCell(id string, session bool, lookup func(string) (string, bool)) *Cell {
	c := &Cell{id: id, session: session, lookup: lookup, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// Context is cancelled when the cell is stopped (never in a one-shot run).
func (c *Cell) Context() context.Context { return c.ctx }

// Stopping says the harness stopped the cell: errors the library reports
// from now on are the stop's, not the consumer's.
func (c *Cell) Stopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stop
}

// OnStop registers f (the library's Close) to be called when the cell is
// stopped; if it already is, f is called at once.
func (c *Cell) OnStop(f func()) {
	c.mu.Lock()
	if !c.stop {
		c.closers = append(c.closers, f)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	f()
}

// Dialer is what the adapter puts in the library's Dialer option. One-shot:
// nil, the library's default. In a session: the library's default
// ((&net.Dialer{}).DialContext) that also remembers the connections, so that
// a stopped cell whose client is stuck where its Close cannot reach (a
// handshake with a server that never answers) has them closed after
// forceAfter, as the end of a one-shot process closes them.
func (c *Cell) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if !c.session {
		return nil
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			c.mu.Lock()
			c.conns = append(c.conns, conn)
			c.mu.Unlock()
		}
		return conn, err
	}
}

// closeConns closes every connection the cell's library dialled.
func (c *Cell) closeConns() {
	c.mu.Lock()
	conns := c.conns
	c.conns = nil
	c.mu.Unlock()
	for _, conn := range conns {
		conn.Close()
	}
}

// line prints one stdout line unless the cell is sealed.
func (c *Cell) line(b []byte) {
	outMu.Lock()
	defer outMu.Unlock()
	c.mu.Lock()
	sealed := c.sealed
	c.mu.Unlock()
	if !sealed {
		writeLine(b)
	}
}

// seal stops the cell's output; true when it was open.
func (c *Cell) seal() bool {
	outMu.Lock()
	defer outMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	was := !c.sealed
	c.sealed = true
	return was
}

// Stderr is the cell's log destination (the library's logger): os.Stderr
// until the cell is sealed, then nowhere.
func (c *Cell) Stderr() io.Writer { return cellStderr{c} }

type cellStderr struct{ c *Cell }

func (w cellStderr) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	sealed := w.c.sealed
	w.c.mu.Unlock()
	if sealed {
		return len(p), nil
	}
	return os.Stderr.Write(p)
}

// Ready prints {"kind":"ready"}.
func (c *Cell) Ready() { c.line([]byte(`{"kind":"ready"}`)) }

// Error prints {"kind":"error","message":...}.
func (c *Cell) Error(msg string) {
	c.line([]byte(`{"kind":"error","message":` + string(JSONString(msg)) + `}`))
}

// Emit prints rows as change events with the checkpoint gtid ("" = none)
// and file:pos (file "" = none).
func (c *Cell) Emit(rows []Row, gtid, file string, pos uint64) {
	for _, r := range rows {
		c.line(eventLine(r, gtid, file, pos))
	}
}

// Fatal reports that the consumer died: an error line on stdout and the
// message on stderr, then the cell's output is sealed. One-shot, the
// process exits 1 at once (as it always has: nothing after the error, no
// deferred Close); in a session it returns 1 for run to return.
func (c *Cell) Fatal(msg string) int {
	c.Error(msg)
	fmt.Fprintln(c.Stderr(), msg)
	if !c.session {
		os.Exit(1)
	}
	c.seal()
	return 1
}

// exec parses the environment and runs the consumer; returns its status.
func (c *Cell) exec(run func(*Cell) int) int {
	env, err := parseEnv(c.lookup)
	if err != nil {
		return c.Fatal(err.Error())
	}
	c.Env = env
	return run(c)
}

// stopCell seals the cell, cancels it, calls its closers (the library's
// Close) and waits for run to return: after forceAfter it closes the cell's
// connections, after stopWait it gives up (false).
func stopCell(c *Cell) bool {
	c.seal()
	c.mu.Lock()
	c.stop = true
	closers := c.closers
	c.closers = nil
	c.mu.Unlock()
	c.cancel()
	go func() { // a Close that hangs must not hang the session loop
		for _, f := range closers {
			f()
		}
	}()
	select {
	case <-c.done:
		return true
	case <-time.After(forceAfter):
	}
	fmt.Fprintf(os.Stderr, "adapter: cell %s still running %s after its stop: closing its connections\n", c.id, forceAfter)
	c.closeConns()
	select {
	case <-c.done:
		return true
	case <-time.After(stopWait - forceAfter):
		return false
	}
}

// Main runs the adapter: one-shot with the process environment, or the
// session protocol with CDCH_SESSION=1. It does not return.
func Main(run func(*Cell) int) {
	if os.Getenv("CDCH_SESSION") == "1" {
		os.Exit(serve(os.Stdin, run))
	}
	os.Exit(newCell("", false, os.LookupEnv).exec(run))
}

// sessionCmd is one line the harness writes on stdin.
type sessionCmd struct {
	Kind string            `json:"kind"`
	Cell string            `json:"cell"`
	Env  map[string]string `json:"env"`
}

// inherited: variables of the session's own environment a cell's env may lack.
var inherited = []string{"CDCH_CACHE", "CDCH_VERSION", "CDCH_BIN", "CDCH_CONFIG"}

func cellLookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if v, ok := env[k]; ok {
			return v, true
		}
		for _, i := range inherited {
			if i == k {
				return os.LookupEnv(k)
			}
		}
		return "", false
	}
}

func protocolLine(kind, cell string, status int, withStatus bool) {
	b := []byte(`{"kind":"` + kind + `","cell":` + string(JSONString(cell)))
	if withStatus {
		b = append(b, fmt.Sprintf(`,"status":%d`, status)...)
	}
	b = append(b, '}')
	outMu.Lock()
	writeLine(b)
	outMu.Unlock()
}

// readLines sends stdin's lines on ch and closes it at end of input.
func readLines(r io.Reader, ch chan<- []byte) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		l, err := br.ReadBytes('\n')
		if len(l) > 0 {
			ch <- l
		}
		if err != nil {
			close(ch)
			return
		}
	}
}

// session is the protocol loop's state: at most one cell runs.
type session struct {
	run      func(*Cell) int
	cur      *Cell
	baseline int // goroutines of the process with no cell running
}

// settle waits for the goroutines of the cell that just finished to end;
// false when some are still running after goroutineWait.
func (s *session) settle() bool {
	until := time.Now().Add(goroutineWait)
	for runtime.NumGoroutine() > s.baseline {
		if time.Now().After(until) {
			fmt.Fprintf(os.Stderr, "adapter: %d goroutine(s) of the last cell still running after it ended: "+
				"exiting so that the next cell gets a fresh process\n", runtime.NumGoroutine()-s.baseline)
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

// stopCurrent stops the running cell (if any). answer: print "stopped" for
// id. Exits the process when the cell does not end in time.
func (s *session) stopCurrent(id string, answer bool) {
	if c := s.cur; c != nil {
		s.cur = nil
		// a cell that ended by itself meanwhile is stopped all the same: its
		// "ended" is not printed, the harness asked first
		if !stopCell(c) {
			fmt.Fprintf(os.Stderr, "adapter: cell %s did not end within %s of its stop: exiting\n", c.id, stopWait)
			os.Exit(0)
		}
		c.closeConns()
		if !s.settle() {
			os.Exit(0)
		}
	}
	if answer {
		protocolLine("stopped", id, 0, false)
	}
}

// finish handles a cell whose run returned by itself: "ended" with the
// status a one-shot run would exit with.
func (s *session) finish(c *Cell) {
	s.cur = nil
	c.seal()
	c.closeConns()
	if !s.settle() {
		os.Exit(c.status) // the harness reads the status as the cell's, as one-shot
	}
	protocolLine("ended", c.id, c.status, true)
}

func (s *session) start(cmd *sessionCmd) {
	s.stopCurrent("", false)
	c := newCell(cmd.Cell, true, cellLookup(cmd.Env))
	s.cur = c
	go func() {
		c.status = c.exec(s.run)
		close(c.done)
	}()
}

// serve runs the session protocol on r until it ends; returns the exit status.
func serve(r io.Reader, run func(*Cell) int) int {
	lines := make(chan []byte)
	go readLines(r, lines)
	s := &session{run: run, baseline: runtime.NumGoroutine()}
	for {
		var curDone <-chan struct{} // nil (never ready) without a cell
		if s.cur != nil {
			curDone = s.cur.done
		}
		select {
		case <-curDone:
			s.finish(s.cur)
		case l, ok := <-lines:
			if !ok {
				s.stopCurrent("", false)
				return 0
			}
			var cmd sessionCmd
			if err := json.Unmarshal(l, &cmd); err != nil {
				if len(bytesTrim(l)) > 0 {
					fmt.Fprintf(os.Stderr, "adapter: bad session line: %s", l)
				}
				continue
			}
			switch cmd.Kind {
			case "start":
				s.start(&cmd)
			case "stop":
				s.stopCurrent(cmd.Cell, true)
			default:
				fmt.Fprintf(os.Stderr, "adapter: unknown session line: %s", l)
			}
		}
	}
}

func bytesTrim(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
