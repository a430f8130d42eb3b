//go:build gm_gtid_tagged

// go-mysql >= v1.12.0 (setup: replication.GtidTaggedLogEvent exists): a tagged
// GTID (MySQL 8.4's GTID_TAGGED_LOG_EVENT) is a GTID event of its own type.
package main

import "github.com/go-mysql-org/go-mysql/replication"

func isTaggedGTID(t replication.EventType) bool { return t == replication.GTID_TAGGED_LOG_EVENT }

func taggedGTID(ev replication.Event) (*replication.GTIDEvent, bool) {
	if e, ok := ev.(*replication.GtidTaggedLogEvent); ok {
		return &e.GTIDEvent, true
	}
	return nil, false
}
