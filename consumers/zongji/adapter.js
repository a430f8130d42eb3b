#!/usr/bin/env node
// cdcharness adapter for the zongji family (npm): zongji, @rodrigogs/zongji,
// @powersync/mysql-zongji, @vlasky/zongji. One script for the family:
//
//   node adapter.js PACKAGE [CACHE_DIR]       (CACHE_DIR defaults to $CDCH_CACHE)
//
// Starts ZongJi as its users do (includeEvents tablemap/writerows/updaterows/deleterows/rotate,
// startAtEnd false, filename/position from the environment, or gtidSet where the package has
// it) and prints each row change as a canonical change event (consumers/README.md); every
// 'error' event becomes a {"kind":"error"} line (the process exits non-zero when the error is
// fatal, i.e. the consumer died). With CDCH_SESSION=1 one process serves many cells, a fresh
// ZongJi instance per cell (session mode, at the end).
//
// Connection options: dateStrings: true (the documented node-mysql/mysql2 option that keeps
// microseconds and zero dates; without it temporals are JS Dates at millisecond precision),
// jsonStrings: true for @vlasky/zongji >= 0.7 (see JSON below), and the process runs with
// TZ=UTC (zongji formats TIMESTAMP in local time).
//
// Value mapping (consumer -> canonical), per column type from the event's table map:
//   integers: Number / exact string / BigInt -> JSON number token; DECIMAL: exact string as is
//   (@vlasky >= 0.7), a lossy Number (older) -> plain decimal text at the column's scale;
//   FLOAT/DOUBLE -> number; DATE/DATETIME/TIMESTAMP/TIME strings as is (a Date -> UTC text);
//   text -> string; Buffer -> {"base64"}; BIT Buffer -> unsigned integer;
//   ENUM label (undefined -> null); SET "a,b" -> ["a","b"];
//   JSON: the JSON text verbatim (@vlasky >= 0.7 runs with its jsonStrings option: MySQL's
//   text with exact 64-bit integers; older versions give JSON.stringify of their own decoding);
//   GEOMETRY: zongji parses it to {x,y}/arrays and drops the SRID; it cannot be mapped back to
//   {"srid","wkb"}, so it is printed as the consumer gives it (the harness reports it).
'use strict';
process.env.TZ = 'UTC';

const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
const { pathToFileURL } = require('url');

const pkg = process.argv[2];
const cache = process.argv[3] || process.env.CDCH_CACHE;
if (!pkg || !cache) {
  process.stderr.write('usage: adapter.js PACKAGE [CACHE_DIR]  (or CDCH_CACHE)\n');
  process.exit(2);
}

// ---- output ------------------------------------------------------------------------------
class Raw { constructor(text) { this.text = text; } }   // emitted verbatim (number tokens)

function ser(v) {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Raw) return v.text;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Buffer.isBuffer(v)) return ser({ base64: v.toString('base64') });
  if (v instanceof Date) return JSON.stringify(fmtDate(v));
  if (Array.isArray(v)) return '[' + v.map(ser).join(',') + ']';
  if (typeof v === 'object') {
    return '{' + Object.keys(v).map(k => JSON.stringify(k) + ':' + ser(v[k])).join(',') + '}';
  }
  return JSON.stringify(String(v));
}

function emit(obj) { process.stdout.write(ser(obj) + '\n'); }

// ---- value mapping -----------------------------------------------------------------------
const T = {
  DECIMAL: 0, TINY: 1, SHORT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5, NULL: 6, TIMESTAMP: 7,
  LONGLONG: 8, INT24: 9, DATE: 10, TIME: 11, DATETIME: 12, YEAR: 13, NEWDATE: 14, VARCHAR: 15,
  BIT: 16, TIMESTAMP2: 17, DATETIME2: 18, TIME2: 19, JSON: 245, NEWDECIMAL: 246, ENUM: 247,
  SET: 248, TINY_BLOB: 249, MEDIUM_BLOB: 250, LONG_BLOB: 251, BLOB: 252, VAR_STRING: 253,
  STRING: 254, GEOMETRY: 255,
};
const INT_TYPES = new Set([T.TINY, T.SHORT, T.LONG, T.LONGLONG, T.INT24, T.YEAR]);

const pad = (n, w) => String(n).padStart(w, '0');
function fmtDate(d) {
  const ms = d.getUTCMilliseconds();
  return pad(d.getUTCFullYear(), 4) + '-' + pad(d.getUTCMonth() + 1, 2) + '-' +
    pad(d.getUTCDate(), 2) + ' ' + pad(d.getUTCHours(), 2) + ':' + pad(d.getUTCMinutes(), 2) +
    ':' + pad(d.getUTCSeconds(), 2) + (ms ? '.' + pad(ms, 3) : '');
}

// A JS Number (zongji's lossy DECIMAL) as plain decimal text with `scale` fraction digits.
function plainDecimal(x, scale) {
  let s = String(x);
  let neg = false;
  if (s[0] === '-') { neg = true; s = s.slice(1); }
  let [mant, exp] = s.split('e');
  exp = exp ? parseInt(exp, 10) : 0;
  let [ip, fp = ''] = mant.split('.');
  let digits = ip + fp;
  let point = ip.length + exp;
  if (point <= 0) { digits = '0'.repeat(1 - point) + digits; point = 1; }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  ip = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  fp = digits.slice(point);
  if (fp.length < scale) fp += '0'.repeat(scale - fp.length);
  const out = ip + (scale > 0 || fp.length ? '.' + fp : '');
  return (neg ? '-' : '') + out;
}

const INT64_MIN = -(2n ** 63n), INT64_MAX = 2n ** 63n - 1n;
// canonical integers: a JSON number within the signed 64-bit range, a decimal string beyond
function bigIntValue(n) {
  return n >= INT64_MIN && n <= INT64_MAX ? new Raw(n.toString()) : n.toString();
}

function intValue(v) {
  if (typeof v === 'bigint') return bigIntValue(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return bigIntValue(BigInt(v));
  return v;
}

function bitValue(buf) {
  let n = 0n;
  for (const b of buf) n = (n << 8n) | BigInt(b);
  return bigIntValue(n);
}

// JSON columns: every version gives JSON text here (zongji < @vlasky 0.7: JSON.stringify of
// its own decoding; @vlasky >= 0.7 with jsonStrings: MySQL's text with exact 64-bit numerals),
// printed verbatim once it parses.
function jsonValue(v) {
  if (typeof v === 'string') {
    try { JSON.parse(v); return new Raw(v); } catch (e) { return v; }
  }
  return v;
}

function canon(column, v) {
  if (v === null || v === undefined) return null;
  const t = column ? column.type : undefined;
  if (INT_TYPES.has(t)) return intValue(v);
  switch (t) {
    case T.NEWDECIMAL:
    case T.DECIMAL:
      if (typeof v === 'number') return plainDecimal(v, (column.metadata && column.metadata.decimals) || 0);
      return String(v);
    case T.FLOAT:
    case T.DOUBLE:
      return v;
    case T.BIT:
      return Buffer.isBuffer(v) ? bitValue(v) : intValue(v);
    case T.SET:
      if (Array.isArray(v)) return v;
      return v === '' ? [] : String(v).split(',');
    case T.JSON:
      return jsonValue(v);
    default:
      if (Buffer.isBuffer(v)) return { base64: v.toString('base64') };
      if (typeof v === 'bigint') return new Raw(v.toString());
      return v;
  }
}

function image(tableMap, row) {
  if (!row) return null;
  const cols = (tableMap && tableMap.columns) || [];
  const out = {};
  cols.forEach((c, i) => {
    const name = c.name !== undefined && c.name !== null ? c.name : '@' + (i + 1);
    out[name] = canon(c, row[c.name]);
  });
  // columns the table map does not list (should not happen)
  for (const k of Object.keys(row)) if (!(k in out)) out[k] = canon(undefined, row[k]);
  return out;
}

// ---- run -----------------------------------------------------------------------------------
async function loadZongJi() {
  const req = createRequire(path.join(path.resolve(cache), 'package.json'));
  const entry = req.resolve(pkg);
  const mod = await import(pathToFileURL(entry).href);
  // the installed version, from the package's own package.json (not require(pkg +
  // '/package.json'): @vlasky/zongji >= 0.7 has an exports map that does not export it)
  let version = '?';
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (meta.name === pkg) { version = meta.version; break; }
    } catch (e) { /* keep walking up */ }
  }
  return { ZongJi: mod.default || mod, version };
}

function versionAtLeast(v, want) {
  const a = v.split('.').map(Number), b = want.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) > (b[i] || 0);
  return true;
}

// One consumer run (a cell): a fresh ZongJi instance (its own connections, table map and
// listeners) with the settings in `env`, kept in `cell` (from newCell()) before it is started.
// `out.line(obj)` prints a line; `out.died(status)` is called when the consumer died (a fatal
// 'error' event), after its error line.
function newCell() { return { zongji: null, stopping: false, closed: false }; }

function startCell(lib, env, out, cell) {
  const { ZongJi, version } = lib;
  const line = (obj) => { if (!cell.closed) out.line(obj); };
  const zongji = new ZongJi({
    host: env.CDCH_HOST || '127.0.0.1',
    port: parseInt(env.CDCH_PORT || '3306', 10),
    user: env.CDCH_USER || 'root',
    password: env.CDCH_PASSWORD || '',
    dateStrings: true,
    // @vlasky >= 0.7 (mysql2): JSON as MySQL's text, 64-bit integers exact (the default parsed
    // mode turns integers beyond 2^53 into strings, indistinguishable from JSON strings)
    ...(pkg === '@vlasky/zongji' && versionAtLeast(version, '0.7.0') ? { jsonStrings: true } : {}),
  });
  cell.zongji = zongji;

  // Two option dialects: zongji >= 0.5 and its forks (filename/position, zongji.get(),
  // a 'ready' event) and the 0.4 line @rodrigogs/zongji continues (binlogName/binlogNextPos
  // as options and as the instance's checkpoint properties, no 'ready' event).
  const newApi = typeof zongji.get === 'function';
  const opts = {
    serverId: parseInt(env.CDCH_SERVER_ID || '1001', 10),
    startAtEnd: false,
    includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows', 'rotate'],
  };
  const gtidSet = env.CDCH_GTID_SET;
  const hasGtidStart = pkg === '@vlasky/zongji' && versionAtLeast(version, '0.8.0');
  const startFile = env.CDCH_START_FILE;
  const startPos = parseInt(env.CDCH_START_POS || '4', 10);
  // A library without GTID positioning starts where CDCH_START_FILE/POS say: the harness sets them to
  // the same point as CDCH_GTID_SET (consumers/README.md), as a user of that library would resume.
  if (gtidSet && hasGtidStart) {
    opts.gtidSet = gtidSet;
  } else if (newApi) {
    if (startFile) opts.filename = startFile;
    opts.position = startPos;
  } else if (startFile) {
    opts.binlogName = startFile;
    opts.binlogNextPos = startPos;
  }
  const checkpoint = () => {
    const file = newApi ? zongji.get('filename') : zongji.binlogName;
    const position = newApi ? zongji.get('position') : zongji.binlogNextPos;
    return file !== undefined && file !== null && position !== undefined && position !== null ?
      { file, pos: position } : null;
  };

  let ready = false;
  const markReady = () => { if (!ready) { ready = true; line({ kind: 'ready' }); } };
  zongji.on('ready', markReady);
  zongji.on('error', (err) => {
    if (cell.stopping || cell.closed) return;
    const msg = (err && (err.message || String(err))) || 'error';
    line({ kind: 'error', message: msg });
    if (err && err.fatal) {
      process.stderr.write(`zongji fatal error: ${err.stack || msg}\n`);
      out.died(1);
    }
  });
  zongji.on('binlog', (ev) => {
    markReady(); // the 0.4 dialect has no 'ready' event: the dump's first event (rotate) is it
    const name = ev.getTypeName();
    let op;
    if (name === 'WriteRows') op = 'insert';
    else if (name === 'UpdateRows') op = 'update';
    else if (name === 'DeleteRows') op = 'delete';
    else return;
    const tm = ev.tableMap[ev.tableId];
    const pos = checkpoint();
    const gtid = ev.gtid || null;
    for (const row of ev.rows) {
      let before = null, after = null;
      if (op === 'insert') after = row;
      else if (op === 'delete') before = row;
      else { before = row.before; after = row.after; }
      line({
        op, db: tm.parentSchema, table: tm.tableName,
        before: image(tm, before), after: image(tm, after), gtid, pos,
      });
    }
  });

  zongji.start(opts);
}

// One-shot: the cell's settings from the environment; a fatal error exits 1, SIGTERM stops the
// consumer (zongji.stop(), exit 0 at 'stopped' or after 2 s).
async function main() {
  const lib = await loadZongJi();
  const cell = newCell();
  startCell(lib, process.env, { line: emit, died: (status) => process.exit(status) }, cell);
  const zongji = cell.zongji;
  const shutdown = () => {
    if (cell.stopping) process.exit(0);
    cell.stopping = true;
    setTimeout(() => process.exit(0), 2000).unref();
    try { zongji.stop(); } catch (e) { process.exit(0); }
    zongji.on('stopped', () => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

// ---- session mode (consumers/README.md "Session mode") --------------------------------------
// One process, start/stop lines on stdin, one cell at a time. The package is loaded once; each
// cell gets a fresh ZongJi instance (new connections, table map, listeners) from startCell, as
// the Java adapters get a fresh client. When a cell is over its instance is stopped as the
// one-shot run stops it (zongji.stop(), at most STOP_GRACE_MS), then taken apart: listeners
// removed (a no-op 'error' listener left, so a late error cannot throw), both connections
// destroyed, nothing it still emits is printed. The packages keep no per-stream state at module
// level (checked for every pinned version: lib/capture.js of @rodrigogs/zongji caches mysql's
// classes, nothing else).
//
// A cell ends by itself ({"kind":"ended","status":N}) when a one-shot run would have exited:
// status 1 on a fatal error; status 0 when nothing is left that would keep a one-shot process
// alive (no socket, timer or request besides this session's stdio pipes). An uncaught
// exception ends the session process with status 1, as it ends a one-shot run; the harness
// launches a fresh one for the next cell. stdout is written with blocking writes (fd 1) so that
// a cell's lines always precede its "stopped"/"ended".
const STOP_GRACE_MS = 2000;

function writeAll(fd, text) {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // the pipe is full
    }
  }
}

function sessionLine(obj) { writeAll(1, ser(obj) + '\n'); }

// Takes a cell's instance apart (see above); idempotent.
function closeCell(cell) {
  if (cell.closed) return;
  cell.closed = true;
  const z = cell.zongji;
  if (!z) return;
  z.removeAllListeners();
  z.on('error', () => {});
  for (const c of [z.connection, z.ctrlConnection]) {
    try { if (c) c.destroy(); } catch (e) { /* already gone */ }
  }
}

// Stops a running cell as a one-shot SIGTERM does (zongji.stop(); done at 'stopped', when
// nothing keeps the process busy any more - where a one-shot run exits by itself, e.g.
// @rodrigogs/zongji, which has no 'stopped' event - or after STOP_GRACE_MS), then closes it;
// resolves when done. Its timers are unref'ed: they do not count in drained().
function stopCell(cell) {
  return new Promise((resolve) => {
    if (cell.closed) return resolve();
    cell.stopping = true;
    let timer = null, poll = null, done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      closeCell(cell);
      resolve();
    };
    timer = setTimeout(finish, STOP_GRACE_MS);
    timer.unref();
    poll = setInterval(() => { if (drained()) finish(); }, 10);
    poll.unref();
    cell.zongji.once('stopped', () => setImmediate(finish));
    try { cell.zongji.stop(); } catch (e) { finish(); }
  });
}

// Nothing left that keeps a one-shot process alive (this session's stdin/stdout/stderr pipes
// aside): the one-shot run would have exited 0 here.
function drained() {
  return process.getActiveResourcesInfo().every((r) => r === 'PipeWrap' || r === 'TTYWrap');
}

async function serveSession() {
  let lib = null;
  let cur = null; // {id, cell}
  const ended = (c, status) => {
    if (cur !== c) return;
    cur = null;
    closeCell(c.cell);
    sessionLine({ kind: 'ended', cell: c.id, status });
  };
  const startLine = async (id, env) => {
    if (!lib) lib = await loadZongJi(); // a failure ends the process, as it ends a one-shot run
    const c = { id, cell: newCell() };
    cur = c;
    const out = {
      line: (obj) => { if (cur === c) sessionLine(obj); },
      died: (status) => ended(c, status),
    };
    try {
      startCell(lib, env, out, c.cell);
    } catch (err) { // what main().catch does in a one-shot run
      out.line({ kind: 'error', message: String((err && err.message) || err) });
      process.stderr.write(String((err && err.stack) || err) + '\n');
      ended(c, 1);
    }
  };
  const stopLine = async (id) => {
    if (cur && cur.id === id) {
      const c = cur;
      cur = null;
      await stopCell(c.cell);
    }
    sessionLine({ kind: 'stopped', cell: id });
  };
  setInterval(() => {
    if (cur && cur.cell && !cur.cell.stopping && !cur.cell.closed && drained()) ended(cur, 0);
  }, 100).unref();

  const rl = require('readline').createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve(); // lines are handled one after the other
  // a failure of the session itself (loading the package) ends the process as it ends a
  // one-shot run: an error line, exit 1
  const fail = (err) => {
    sessionLine({ kind: 'error', message: String((err && err.message) || err) });
    process.stderr.write(String((err && err.stack) || err) + '\n');
    process.exit(1);
  };
  rl.on('line', (text) => {
    queue = queue.then(async () => {
      if (!text.trim()) return;
      let m = null;
      try { m = JSON.parse(text); } catch (e) { /* reported below */ }
      const id = m && m.cell !== undefined ? String(m.cell) : '';
      if (m && m.kind === 'start') {
        if (cur) { const c = cur; cur = null; await stopCell(c.cell); }
        const env = {};
        for (const [k, v] of Object.entries((m.env && typeof m.env === 'object') ? m.env : {})) {
          if (v !== null && v !== undefined) env[k] = String(v);
        }
        for (const k of ['CDCH_CACHE', 'CDCH_VERSION', 'CDCH_BIN']) {
          if (!(k in env) && process.env[k] !== undefined) env[k] = process.env[k];
        }
        await startLine(id, env);
      } else if (m && m.kind === 'stop') {
        await stopLine(id);
      } else {
        process.stderr.write(`adapter: bad session line: ${text}\n`);
      }
    }).catch(fail);
  });
  rl.on('close', () => {
    queue = queue.then(async () => {
      if (cur) { const c = cur; cur = null; await stopCell(c.cell); }
      process.exit(0);
    });
  });
  process.on('SIGTERM', () => process.exit(0));
}

(process.env.CDCH_SESSION === '1' ? serveSession() : main()).catch((err) => {
  emit({ kind: 'error', message: String((err && err.message) || err) });
  process.stderr.write(String((err && err.stack) || err) + '\n');
  process.exit(1);
});
