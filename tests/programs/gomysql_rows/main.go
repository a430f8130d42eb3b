// A team's own go-mysql v1.16.0 program, not an adapter: it prints each row
// in its own format, and handles compressed transactions the way go-mysql's
// README loop does since v1.8.0 (a TransactionPayloadEvent's inner Events).
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

func printRows(e *replication.RowsEvent, kind replication.EventType) {
	name := map[replication.EventType]string{
		replication.WRITE_ROWS_EVENTv2: "WriteRowsEvent", replication.UPDATE_ROWS_EVENTv2: "UpdateRowsEvent",
		replication.DELETE_ROWS_EVENTv2: "DeleteRowsEvent"}[kind]
	step := 1
	if kind == replication.UPDATE_ROWS_EVENTv2 {
		step = 2 // before and after images: print the after image
	}
	for i := step - 1; i < len(e.Rows); i += step {
		fmt.Printf("%s %s.%s %v\n", name, e.Table.Schema, e.Table.Table, e.Rows[i])
	}
}

func main() {
	port, _ := strconv.Atoi(os.Getenv("CDCH_PORT"))
	id, _ := strconv.Atoi(os.Getenv("CDCH_SERVER_ID"))
	pos, _ := strconv.Atoi(os.Getenv("CDCH_START_POS"))
	syncer := replication.NewBinlogSyncer(replication.BinlogSyncerConfig{
		ServerID: uint32(id), Flavor: "mysql", Host: os.Getenv("CDCH_HOST"), Port: uint16(port),
		User: os.Getenv("CDCH_USER"), Password: os.Getenv("CDCH_PASSWORD")})
	streamer, err := syncer.StartSync(mysql.Position{Name: os.Getenv("CDCH_START_FILE"), Pos: uint32(pos)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		ev, err := streamer.GetEvent(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		switch e := ev.Event.(type) {
		case *replication.RowsEvent:
			printRows(e, ev.Header.EventType)
		case *replication.TransactionPayloadEvent:
			for _, inner := range e.Events {
				if rows, ok := inner.Event.(*replication.RowsEvent); ok {
					printRows(rows, inner.Header.EventType)
				}
			}
		}
	}
}
