//go:build gm_gologger

// The canal logger of go-mysql v1.6.0 .. v1.11.0 (setup: canal.Config.Logger is
// siddontang/go-log's *log.Logger, loggers.Advanced from v1.7.0), writing to
// the cell's stderr.
package main

import (
	"io"

	"github.com/go-mysql-org/go-mysql/canal"
	"github.com/siddontang/go-log/log"
)

func setLogger(cfg *canal.Config, w io.Writer) {
	h, _ := log.NewStreamHandler(w)
	cfg.Logger = log.NewDefault(h)
}
