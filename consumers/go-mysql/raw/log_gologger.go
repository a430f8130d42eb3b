//go:build gm_gologger

// The logger of go-mysql v1.6.0 .. v1.11.0 (setup: BinlogSyncerConfig.Logger is
// not a *slog.Logger): siddontang/go-log's *log.Logger (v1.6.0's field type;
// loggers.Advanced from v1.7.0), writing to the cell's stderr.
package main

import (
	"io"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/siddontang/go-log/log"
)

func setLogger(cfg *replication.BinlogSyncerConfig, w io.Writer) {
	h, _ := log.NewStreamHandler(w)
	cfg.Logger = log.NewDefault(h)
}
