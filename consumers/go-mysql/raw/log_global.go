//go:build !gm_gologger

// go-mysql <= v1.5.0 has no BinlogSyncerConfig.Logger: it logs through
// siddontang/go-log's global logger, which writes to stdout; pointed at stderr
// once per process (stdout is the adapter's JSON lines). Not per cell: a line
// the library logs after a cell's stop lands in the session's stderr as is.
package main

import (
	"io"
	"os"
	"sync"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/siddontang/go-log/log"
)

var globalLog sync.Once

func setLogger(_ *replication.BinlogSyncerConfig, _ io.Writer) {
	globalLog.Do(func() {
		h, _ := log.NewStreamHandler(os.Stderr)
		log.SetDefaultLogger(log.NewDefault(h))
	})
}
