// raw-payload: the BinlogSyncerConfig as main.go sets it (library defaults,
// TIMESTAMP strings in UTC); raw-payload-v1.15.0/options.go links here.
package main

import "github.com/go-mysql-org/go-mysql/replication"

func configure(*replication.BinlogSyncerConfig) {}
