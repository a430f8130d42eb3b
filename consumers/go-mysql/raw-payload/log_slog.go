//go:build gm_slog

// The logger of go-mysql >= v1.12.0 (setup: BinlogSyncerConfig.Logger is a
// *slog.Logger): slog's text handler on the cell's stderr.
package main

import (
	"io"
	"log/slog"

	"github.com/go-mysql-org/go-mysql/replication"
)

func setLogger(cfg *replication.BinlogSyncerConfig, w io.Writer) {
	cfg.Logger = slog.New(slog.NewTextHandler(w, nil))
}
