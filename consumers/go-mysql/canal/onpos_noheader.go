//go:build gm_onpos_noheader

// OnPosSynced as go-mysql <= v1.6.0 declares it (setup: no header argument).
package main

import "github.com/go-mysql-org/go-mysql/mysql"

func (h *handler) OnPosSynced(pos mysql.Position, set mysql.GTIDSet, force bool) error {
	return h.synced(pos, set)
}
