//go:build !vt_v16

// The go/mysql API of v0.24 (go/mysql/replication and go/mysql/binlog
// packages, CellValue's partialJSON, TRANSACTION_PAYLOAD decoding).
package main

import (
	"io"
	"reflect"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/binlog"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

type position = replication.Position

func parseStart(set string) (position, error) {
	s, err := replication.ParseMysql56GTIDSet(set)
	if err != nil {
		return position{}, err
	}
	return position{GTIDSet: s}, nil
}

func appendGTID(p position, g replication.GTID) position { return replication.AppendGTID(p, g) }

func positionString(p position) string {
	if p.GTIDSet == nil {
		return ""
	}
	return p.GTIDSet.String()
}

func sendDump(c *mysql.Conn, serverID uint32, start position) error {
	return c.SendBinlogDumpGTIDCommand(serverID, "", 4, start, 0)
}

// gtidOf: BinlogEvent.GTID returns (gtid, hasBegin, err) before v0.23 and
// (gtid, hasBegin, lastCommitted, sequenceNumber, err) since; the first and
// the last results are the same in both.
func gtidOf(ev mysql.BinlogEvent, f mysql.BinlogFormat) (replication.GTID, error) {
	out := reflect.ValueOf(ev).MethodByName("GTID").Call([]reflect.Value{reflect.ValueOf(f)})
	if err, _ := out[len(out)-1].Interface().(error); err != nil {
		return nil, err
	}
	g, _ := out[0].Interface().(replication.GTID)
	return g, nil
}

func isPartialUpdateRows(ev mysql.BinlogEvent) bool { return ev.IsPartialUpdateRows() }

func cellValue(data []byte, pos int, typ byte, meta uint16, field *querypb.Field, partialJSON bool) (sqltypes.Value, int, error) {
	return binlog.CellValue(data, pos, typ, meta, field, partialJSON)
}

// payload: vstreamer.go:834-882 at v0.24.4 (ev.TransactionPayload, Close,
// GetNextEvent until io.EOF, inner events parsed with the checksum off).
func payload(ev mysql.BinlogEvent, f mysql.BinlogFormat, each func(mysql.BinlogEvent, mysql.BinlogFormat) error) (bool, error) {
	if !ev.IsTransactionPayload() {
		return false, nil
	}
	tp, err := ev.TransactionPayload(f)
	if err != nil {
		return true, err
	}
	defer tp.Close()
	f.ChecksumAlgorithm = mysql.BinlogChecksumAlgOff
	for {
		inner, err := tp.GetNextEvent()
		if err != nil {
			if err == io.EOF {
				return true, nil
			}
			return true, err
		}
		if err := each(inner, f); err != nil {
			return true, err
		}
	}
}

func jsonPartial(r *mysql.Row) mysql.Bitmap { return r.JSONPartialValues }

func mysqlToType(typ byte, flags int64) (querypb.Type, error) {
	return sqltypes.MySQLToType(typ, flags)
}
