//go:build !gm_onpos_noheader

// OnPosSynced as go-mysql >= v1.7.0 declares it (with the event header).
package main

import (
	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

func (h *handler) OnPosSynced(header *replication.EventHeader, pos mysql.Position, set mysql.GTIDSet, force bool) error {
	return h.synced(pos, set)
}
