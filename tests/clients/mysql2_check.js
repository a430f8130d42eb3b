// mysql2 against `cdcharness serve` (run by tests/clients/mysql2.sh).
// usage: node mysql2_check.js SHA2_PORT NATIVE_PORT
// Prints "PASS name" / "FAIL name: detail" per check.
'use strict';
const mysql = require('mysql2/promise');

const UUID = '5f4b2a10-8c3d-11ee-b9d1-0242ac120002';

function report(name, ok, detail) {
  console.log((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ': ' + detail));
}

async function check(name, fn) {
  try {
    const r = await fn();
    report(name, r === undefined || r === true, String(r));
  } catch (e) {
    report(name, false, `${e.code || e.name}: ${e.message}`);
  }
}

function eq(got, want) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  return g === w ? true : `got ${g}, want ${w}`;
}

function connect(port, tls, password = 'cdch') {
  const opts = { host: '127.0.0.1', port, user: 'cdch', password, connectTimeout: 30000 };
  if (tls) opts.ssl = { rejectUnauthorized: false };
  return mysql.createConnection(opts);
}

async function queries(label, port, tls) {
  const conn = await connect(port, tls);
  const q = async (sql, args) => (await conn.query({ sql, rowsAsArray: true }, args))[0];

  await check(`${label}: identity`, async () => eq(
    (await q('SELECT @@version, @@server_id, @@server_uuid, @@GLOBAL.gtid_mode, @@binlog_format'))[0],
    ['8.0.36', 7, UUID, 'ON', 'ROW']));
  await check(`${label}: zongji checksum query`, async () => {
    const [rows] = await conn.query('select @@GLOBAL.binlog_checksum as checksum');
    return eq(rows[0].checksum, 'CRC32');
  });
  await check(`${label}: user variables`, async () => {
    await q('set @master_binlog_checksum=@@global.binlog_checksum');
    return eq((await q('SELECT @master_binlog_checksum'))[0][0], 'CRC32');
  });
  await check(`${label}: SHOW BINARY LOGS / MASTER STATUS`, async () => {
    const [logs] = await conn.query('SHOW BINARY LOGS');
    const [st] = await conn.query('SHOW MASTER STATUS');
    return eq([st[0].File, st[0].Position, st[0].Executed_Gtid_Set, logs[logs.length - 1].Encrypted],
      [logs[logs.length - 1].Log_name, logs[logs.length - 1].File_size, `${UUID}:1-7`, 'No']);
  });
  await check(`${label}: prepared information_schema query (@vlasky/zongji)`, async () => {
    const [rows] = await conn.execute(
      'SELECT COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME, COLUMN_COMMENT, COLUMN_TYPE ' +
      'FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA=? AND TABLE_NAME=? ORDER BY ORDINAL_POSITION',
      ['shop', 'orders']);
    return eq(rows.map((r) => [r.COLUMN_NAME, r.COLLATION_NAME, r.COLUMN_TYPE]),
      [['id', null, 'bigint unsigned'], ['total', null, 'decimal(10,2)'],
        ['note', 'utf8mb4_0900_ai_ci', 'varchar(100)'], ['placed', null, 'datetime(3)']]);
  });
  await check(`${label}: prepared arithmetic and NULL`, async () => {
    const [rows] = await conn.execute('SELECT ? + 1 AS a, @@server_id AS b, NULL AS c', [41]);
    return eq([rows[0].a, rows[0].b, rows[0].c], [42, 7, null]);
  });
  await check(`${label}: TLS state`, async () => eq(Boolean((await q("SHOW STATUS LIKE 'Ssl_cipher'"))[0][1]), tls));
  await check(`${label}: unknown statement -> 1064`, async () => {
    try { await q('FROBNICATE the server'); } catch (e) {
      return eq([e.errno, e.message.includes("'FROBNICATE the server'")], [1064, true]);
    }
    return 'no error';
  });
  await check(`${label}: KILL (zongji stop)`, async () => {
    const other = await connect(port, tls);
    await q(`KILL ${other.threadId}`);
    try { await other.query('SELECT 1'); } catch (e) { return true; } finally { other.destroy(); }
    return 'the killed connection still answered';
  });
  await conn.end();
  await check(`${label}: wrong password -> 1045`, async () => {
    try { const c = await connect(port, tls, 'wrong'); await c.end(); } catch (e) {
      return eq([e.errno, e.message], [1045, "Access denied for user 'cdch'@'127.0.0.1' (using password: YES)"]);
    }
    return 'connected';
  });
}

(async () => {
  const [sha2, native] = process.argv.slice(2).map(Number);
  await queries('sha2, no TLS', sha2, false); // fresh server: full authentication with the RSA key
  const c = await connect(sha2, true);
  await c.query('FLUSH PRIVILEGES');
  await c.end();
  await queries('sha2, TLS', sha2, true);     // full authentication over TLS
  await queries('sha2, no TLS again', sha2, false); // fast path
  await queries('native, no TLS', native, false);
  await queries('native, TLS', native, true);
})().catch((e) => { console.log(`FAIL mysql2_check: crashed: ${e.stack}`); process.exit(1); });
