//go:build !gm_slog

// The logger of go-mysql v1.8.0 .. v1.11.0 (setup: BinlogSyncerConfig.Logger is
// siddontang/go-log's loggers.Advanced): its *log.Logger on the cell's stderr.
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
