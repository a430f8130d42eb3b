//go:build !cdch_parsetime

// +raw-payload: the BinlogSyncerConfig as main.go sets it (library defaults,
// TIMESTAMP strings in UTC), plus the user's configuration.
package main

import (
	"cdcharness/consumers/go-common/canon"

	"github.com/go-mysql-org/go-mysql/replication"
)

func configure(*replication.BinlogSyncerConfig) {}

func variantSettings() []canon.Setting { return nil }
