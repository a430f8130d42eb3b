//go:build gm_slog

// The canal logger as go-mysql >= v1.12.0 takes it (setup: canal.Config.Logger
// is a *slog.Logger), writing to the cell's stderr.
package main

import (
	"io"
	"log/slog"

	"github.com/go-mysql-org/go-mysql/canal"
)

func setLogger(cfg *canal.Config, w io.Writer) { cfg.Logger = slog.New(slog.NewTextHandler(w, nil)) }
