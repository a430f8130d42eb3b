//go:build vt_v16

// The go/mysql API of v0.16 (positions and CellValue in package mysql; no
// PARTIAL_UPDATE_ROWS case; TRANSACTION_PAYLOAD recognised only to be refused).
package main

import (
	"errors"
	goflag "flag"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

type position = mysql.Position

func parseStart(set string) (position, error) {
	s, err := mysql.ParseMysql56GTIDSet(set)
	if err != nil {
		return position{}, err
	}
	return position{GTIDSet: s}, nil
}

func appendGTID(p position, g mysql.GTID) position { return mysql.AppendGTID(p, g) }

func positionString(p position) string {
	if p.GTIDSet == nil {
		return ""
	}
	return p.GTIDSet.String()
}

// BinlogConnection.StartBinlogDumpFromPosition at v0.16.7 (go/vt/binlog/binlog_connection.go:127)
func sendDump(c *mysql.Conn, serverID uint32, start position) error {
	return c.SendBinlogDumpCommand(serverID, "", start)
}

func gtidOf(ev mysql.BinlogEvent, f mysql.BinlogFormat) (mysql.GTID, error) {
	g, _, err := ev.GTID(f)
	return g, err
}

// vstreamer.parseEvent at v0.16.7 has cases for WRITE/UPDATE/DELETE rows only
// (vstreamer.go:611): a PARTIAL_UPDATE_ROWS_EVENT matches no case.
func isPartialUpdateRows(ev mysql.BinlogEvent) bool { return false }

func jsonPartial(r *mysql.Row) mysql.Bitmap { return mysql.Bitmap{} }

func cellValue(data []byte, pos int, typ byte, meta uint16, field *querypb.Field, partialJSON bool) (sqltypes.Value, int, error) {
	return mysql.CellValue(data, pos, typ, meta, field)
}

// vstreamer.go:641-643 at v0.16.7: case ev.IsCompressed(): log.Errorf(...);
// return nil, fmt.Errorf("VReplication does not handle binlog compression").
func payload(ev mysql.BinlogEvent, f mysql.BinlogFormat, each func(mysql.BinlogEvent, mysql.BinlogFormat) error) (bool, error) {
	if !ev.IsCompressed() {
		return false, nil
	}
	return true, errors.New("VReplication does not handle binlog compression")
}

func mysqlToType(typ byte, flags int64) (querypb.Type, error) {
	return sqltypes.MySQLToType(int64(typ), flags)
}

// A Vitess program parses its flags before go/mysql runs: collations.Local()
// (the handshake's charset, go/mysql/client.go:231) panics "called too
// early" otherwise (go/mysql/collations/local.go:34-37 at v0.16.0). No flags
// are given: servenv's defaults (its mysql_server_version).
func init() {
	goflag.CommandLine.Parse(nil)
}
