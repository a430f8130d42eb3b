//go:build !gm_gtid_tagged

// go-mysql < v1.12.0: no GtidTaggedLogEvent (a tagged GTID event is whatever the
// tag's parser makes of it; the loop keeps no GTID for it).
package main

import "github.com/go-mysql-org/go-mysql/replication"

func isTaggedGTID(replication.EventType) bool { return false }

func taggedGTID(replication.Event) (*replication.GTIDEvent, bool) { return nil, false }
