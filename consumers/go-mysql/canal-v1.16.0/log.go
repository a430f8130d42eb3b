// The canal logger as go-mysql >= v1.12.0 takes it (a *slog.Logger), writing
// to the cell's stderr; canal-v1.15.0/log.go links here.
package main

import (
	"io"
	"log/slog"
)

func newLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
