// go-sql-driver/mysql against `cdcharness serve` (run by tests/clients/go.sh).
//
// usage: go-client SHA2_PORT NATIVE_PORT
//
// Prints "PASS name" / "FAIL name: detail" per check.
package main

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

const uuid = "5f4b2a10-8c3d-11ee-b9d1-0242ac120002"

func report(name string, err error) {
	if err == nil {
		fmt.Println("PASS " + name)
	} else {
		fmt.Println("FAIL " + name + ": " + err.Error())
	}
}

func eq(got, want any) error {
	if reflect.DeepEqual(got, want) {
		return nil
	}
	return fmt.Errorf("got %#v, want %#v", got, want)
}

func open(port string, useTLS bool, password string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User = "cdch"
	cfg.Passwd = password
	cfg.Net = "tcp"
	cfg.Addr = "127.0.0.1:" + port
	cfg.Timeout = 30 * time.Second
	cfg.ParseTime = true
	cfg.Params = map[string]string{"charset": "utf8mb4"}
	if useTLS {
		cfg.TLSConfig = "skip-verify"
	} else {
		cfg.TLSConfig = "false"
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	return db, db.Ping()
}

func queries(label, port string, useTLS bool) {
	ctx := context.Background()
	db, err := open(port, useTLS, "cdch")
	report(label+": connect", err)
	if err != nil {
		return
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		report(label+": conn", err)
		return
	}
	defer conn.Close()

	report(label+": identity", func() error {
		var v, u, g, f string
		var id uint32
		if err := conn.QueryRowContext(ctx, "SELECT @@version, @@server_id, @@server_uuid, @@GLOBAL.gtid_mode, @@binlog_format").Scan(&v, &id, &u, &g, &f); err != nil {
			return err
		}
		return eq([]any{v, id, u, g, f}, []any{"8.0.36", uint32(7), uuid, "ON", "ROW"})
	}())
	report(label+": NOW() as time.Time", func() error {
		var t time.Time
		if err := conn.QueryRowContext(ctx, "SELECT NOW()").Scan(&t); err != nil {
			return err
		}
		if d := time.Since(t); d < -time.Minute || d > time.Minute {
			return fmt.Errorf("NOW() is %v away", d)
		}
		return nil
	}())
	report(label+": go-mysql checksum query", func() error {
		var name, val string
		if err := conn.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'").Scan(&name, &val); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "SET @master_binlog_checksum='NONE', @source_binlog_checksum='NONE'"); err != nil {
			return err
		}
		var set string
		if err := conn.QueryRowContext(ctx, "SELECT @source_binlog_checksum").Scan(&set); err != nil {
			return err
		}
		return eq([]string{name, val, set}, []string{"binlog_checksum", "CRC32", "NONE"})
	}())
	report(label+": SHOW MASTER STATUS", func() error {
		var file, doDB, ignDB, gtids string
		var pos uint64
		if err := conn.QueryRowContext(ctx, "SHOW MASTER STATUS").Scan(&file, &pos, &doDB, &ignDB, &gtids); err != nil {
			return err
		}
		var name, enc string
		var size uint64
		if err := conn.QueryRowContext(ctx, "SHOW BINARY LOGS").Scan(&name, &size, &enc); err != nil {
			return err
		}
		return eq([]any{file, pos, gtids}, []any{name, size, uuid + ":1-7"})
	}())
	report(label+": canal-style catalogue queries", func() error {
		rows, err := conn.QueryContext(ctx, "show full columns from `shop`.`orders`")
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		var table, ddl string
		if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE `shop`.`customers`").Scan(&table, &ddl); err != nil {
			return err
		}
		return eq([]any{n, table, strings.HasPrefix(ddl, "CREATE TABLE `customers`")}, []any{4, "customers", true})
	}())
	report(label+": prepared statement (server-side, args)", func() error {
		rows, err := conn.QueryContext(ctx, "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", "shop", "orders")
		if err != nil {
			return err
		}
		defer rows.Close()
		var names []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			names = append(names, s)
		}
		var sum int64
		if err := conn.QueryRowContext(ctx, "SELECT ? + 1", 41).Scan(&sum); err != nil {
			return err
		}
		return eq([]any{names, sum}, []any{[]string{"id", "total", "note", "placed"}, int64(42)})
	}())
	report(label+": TLS state", func() error {
		var n, v string
		if err := conn.QueryRowContext(ctx, "SHOW STATUS LIKE 'Ssl_cipher'").Scan(&n, &v); err != nil {
			return err
		}
		return eq(v != "", useTLS)
	}())
	report(label+": unknown statement -> 1064", func() error {
		_, err := conn.ExecContext(ctx, "FROBNICATE the server")
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			return fmt.Errorf("not a MySQL error: %v", err)
		}
		return eq([]any{me.Number, strings.Contains(me.Message, "'FROBNICATE the server'")}, []any{uint16(1064), true})
	}())
	report(label+": KILL (go-mysql reconnect)", func() error {
		other, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer other.Close()
		var id int64
		if err := other.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
			return err
		}
		var one int
		if err := other.QueryRowContext(ctx, "SELECT 1").Scan(&one); err == nil {
			return errors.New("the killed connection still answered")
		}
		return nil
	}())
	report(label+": wrong password -> 1045", func() error {
		bad, err := open(port, useTLS, "wrong")
		if bad != nil {
			bad.Close()
		}
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			return fmt.Errorf("not a MySQL error: %v", err)
		}
		return eq([]any{me.Number, me.Message}, []any{uint16(1045), "Access denied for user 'cdch'@'127.0.0.1' (using password: YES)"})
	}())
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-client SHA2_PORT NATIVE_PORT")
		os.Exit(2)
	}
	mysql.RegisterTLSConfig("skip-verify", &tls.Config{InsecureSkipVerify: true})
	sha2, native := os.Args[1], os.Args[2]
	queries("sha2, no TLS", sha2, false) // fresh server: full authentication, RSA public key requested
	if db, err := open(sha2, true, "cdch"); err == nil {
		db.Exec("FLUSH PRIVILEGES")
		db.Close()
	}
	queries("sha2, TLS", sha2, true)           // full authentication over TLS
	queries("sha2, no TLS again", sha2, false) // fast path
	queries("native, no TLS", native, false)
	queries("native, TLS", native, true)
}
