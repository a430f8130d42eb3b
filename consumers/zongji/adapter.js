#!/usr/bin/env node
// cdcharness adapter for the zongji family (npm): zongji, @rodrigogs/zongji,
// @powersync/mysql-zongji, @vlasky/zongji. One script for the family:
//
//   node adapter.js PACKAGE [CACHE_DIR]       (CACHE_DIR defaults to $CDCH_CACHE)
//   node adapter.js PACKAGE CACHE_DIR --probe (setup.sh: can it drive the installed package?)
//
// Starts ZongJi as its users do (includeEvents tablemap/writerows/updaterows/deleterows/rotate,
// startAtEnd false, filename/position from the environment, or gtidSet where the package has
// it) and prints each row change as a canonical change event (consumers/README.md); every
// 'error' event becomes a {"kind":"error"} line (the process exits non-zero when the error is
// fatal, i.e. the consumer died). Output, configuration and the session loop (a fresh ZongJi
// instance per cell) come from the Node foundation, ../node-common/cdch-adapter.js; this file
// holds what is zongji's.
//
// Configuration (CDCH_CONFIG): a JSON object of start() options. The user's values win over
// the adapter's defaults (includeEvents, excludeEvents, includeSchema, excludeSchema and any
// other option the package reads), except the ones the harness owns (HARNESS below: server id,
// start position, startAtEnd, nonBlock), reported with their reason in the config line's "kept".
// An option the installed package does not read (found by reflection on its source: the
// destructured _options/_filters parameters, `options.NAME` reads) is refused: config-error,
// exit 2.
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
const cdch = require('../node-common/cdch-adapter.js');

const { Raw, T } = cdch;
const pkg = process.argv[2];
const cache = process.argv[3] || process.env.CDCH_CACHE;
if (!pkg || !cache) {
  process.stderr.write('usage: adapter.js PACKAGE [CACHE_DIR]  (or CDCH_CACHE)\n');
  process.exit(2);
}

// ---- value mapping -----------------------------------------------------------------------
const INT_TYPES = new Set([T.TINY, T.SHORT, T.LONG, T.LONGLONG, T.INT24, T.YEAR]);

function canon(column, v) {
  if (v === null || v === undefined) return null;
  const t = column ? column.type : undefined;
  if (INT_TYPES.has(t)) return cdch.intValue(v);
  switch (t) {
    case T.NEWDECIMAL:
    case T.DECIMAL:
      if (typeof v === 'number') return cdch.plainDecimal(v, (column.metadata && column.metadata.decimals) || 0);
      return String(v);
    case T.FLOAT:
    case T.DOUBLE:
      return v;
    case T.BIT:
      return Buffer.isBuffer(v) ? cdch.bitValue(v) : cdch.intValue(v);
    case T.SET:
      if (Array.isArray(v)) return v;
      return v === '' ? [] : String(v).split(',');
    case T.JSON:
      // every version gives JSON text here (zongji < @vlasky 0.7: JSON.stringify of its own
      // decoding; @vlasky >= 0.7 with jsonStrings: MySQL's text with exact 64-bit numerals)
      return cdch.jsonValue(v);
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

// ---- the library ---------------------------------------------------------------------------
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
  const ZongJi = mod.default || mod;
  return { ZongJi, version, startOptions: startOptions(ZongJi) };
}

function versionAtLeast(v, want) {
  const a = v.split('.').map(Number), b = want.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) > (b[i] || 0);
  return true;
}

// The start() options the installed package reads, by reflection on its source: the names
// its _options/_filters methods destructure (zongji >= 0.5 and its forks) and every
// `options.NAME` / `options[NAME]` read in its methods (the 0.4 line reads them where it needs
// them). null when nothing can be found (then no option is refused).
function startOptions(ZongJi) {
  const names = new Set();
  const proto = ZongJi && ZongJi.prototype;
  const sources = [];
  try { sources.push(Function.prototype.toString.call(ZongJi)); } catch (e) { /* not a function */ }
  for (const k of proto ? Object.getOwnPropertyNames(proto) : []) {
    const d = Object.getOwnPropertyDescriptor(proto, k);
    if (!d || typeof d.value !== 'function') continue;
    let src;
    try { src = Function.prototype.toString.call(d.value); } catch (e) { continue; }
    sources.push(src);
    const m = (k === '_options' || k === '_filters') && /^[^(]*\(\s*\{([^}]*)\}/.exec(src);
    for (const part of m ? m[1].split(',') : []) {
      const name = part.split(/[=:]/)[0].trim();
      if (/^\w+$/.test(name)) names.add(name);
    }
  }
  for (const src of sources) {
    for (const m of src.matchAll(/\boptions\s*(?:\.\s*(\w+)|\[\s*['"](\w+)['"]\s*\])/g)) names.add(m[1] || m[2]);
  }
  return names.size ? names : null;
}

// ---- configuration -------------------------------------------------------------------------
// start() options the harness owns, and why (the config line's "kept").
const START = 'the harness sets where each cell starts (CDCH_START_FILE/CDCH_START_POS or CDCH_GTID_SET)';
const HARNESS = {
  serverId: 'the harness gives each cell a replica server id unique in the run (CDCH_SERVER_ID)',
  filename: START,
  position: START,
  binlogName: START,
  binlogNextPos: START,
  gtidSet: START,
  startAtEnd: 'startAtEnd would skip the stream the harness serves: the cell starts where the harness says',
  nonBlock: 'the harness stops the consumer once the stream is done; a non-blocking dump ends ' +
    'at the first moment the server has nothing to send',
};
// the adapter's default event filter (a user's includeEvents/excludeEvents replaces it)
const INCLUDE_EVENTS = ['tablemap', 'writerows', 'updaterows', 'deleterows', 'rotate'];

// ---- one cell ------------------------------------------------------------------------------
// A fresh ZongJi instance (its own connections, table map and listeners) with the settings in
// `env`, kept in `cell` before it is started. `out.line(obj)` prints a line; `out.died(status)`
// is called when the consumer died (a fatal 'error' event), after its error line.
function startCell(lib, env, out, cell) {
  const { ZongJi, version, startOptions: known } = lib;
  const line = (obj) => { if (!cell.closed) out.line(obj); };
  const cfg = new cdch.Effective(cdch.loadConfig(env));
  const conn = {
    host: env.CDCH_HOST || '127.0.0.1',
    port: parseInt(env.CDCH_PORT || '3306', 10),
    user: env.CDCH_USER || 'root',
    password: env.CDCH_PASSWORD || '',
    dateStrings: true,
    // @vlasky >= 0.7 (mysql2): JSON as MySQL's text, 64-bit integers exact (the default parsed
    // mode turns integers beyond 2^53 into strings, indistinguishable from JSON strings)
    ...(pkg === '@vlasky/zongji' && versionAtLeast(version, '0.7.0') ? { jsonStrings: true } : {}),
  };
  for (const key of Object.keys(cfg.user)) {
    if (known && !known.has(key) && !(key in HARNESS)) {
      throw new cdch.ConfigError(key, cfg.user[key], `not a start() option of ${pkg}@${version}`);
    }
  }
  const zongji = new ZongJi(conn);
  cell.zongji = zongji;

  // Two option dialects: zongji >= 0.5 and its forks (filename/position, zongji.get(),
  // a 'ready' event) and the 0.4 line @rodrigogs/zongji continues (binlogName/binlogNextPos
  // as options and as the instance's checkpoint properties, no 'ready' event).
  const newApi = typeof zongji.get === 'function';
  const opts = {
    serverId: parseInt(env.CDCH_SERVER_ID || '1001', 10),
    startAtEnd: false,
    includeEvents: INCLUDE_EVENTS,
  };
  const gtidSet = env.CDCH_GTID_SET;
  // GTID positioning: a start() option gtidSet (@vlasky/zongji >= 0.8), found by reflection
  const hasGtidStart = known ? known.has('gtidSet') : pkg === '@vlasky/zongji' && versionAtLeast(version, '0.8.0');
  const startFile = env.CDCH_START_FILE;
  const startPos = parseInt(env.CDCH_START_POS || '4', 10);
  // A library without GTID positioning starts where CDCH_START_FILE/POS say: the harness sets them to
  // the same point as CDCH_GTID_SET (consumers/README.md), as a user of that library would resume.
  if (gtidSet && hasGtidStart) {
    opts.gtidSet = gtidSet;
  } else if (newApi) {
    if (startFile) opts.filename = startFile;
    opts.position = startPos;
  } else if (startFile && (!known || known.has('binlogName'))) {
    opts.binlogName = startFile;
    opts.binlogNextPos = startPos;
  } else if (startFile) {
    // zongji < 0.4 takes no start position: its dump starts at the server's first binlog
    process.stderr.write(`adapter: ${pkg}@${version} takes no start position; it starts at the first binlog, ` +
      `not at ${startFile}:${startPos}\n`);
  }
  for (const [key, value] of Object.entries(cfg.user)) {
    if (key in HARNESS) cfg.kept(key, HARNESS[key]);
    else opts[key] = value;
  }
  for (const [k, v] of Object.entries(conn)) cfg.set(`connection.${k}`, v);
  for (const [k, v] of Object.entries(opts)) cfg.set(k, v);
  line(cfg.line());

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
      line(cdch.change(op, tm.parentSchema, tm.tableName, image(tm, before), image(tm, after), gtid, pos));
    }
  });

  zongji.start(opts);
}

// Stops the instance as its users do (zongji.stop(); done at 'stopped' - @rodrigogs/zongji has
// no 'stopped' event: the foundation also ends the stop when nothing keeps the process busy).
function stopCell(cell, done) {
  cell.zongji.once('stopped', done);
  cell.zongji.stop();
}

// Takes the instance apart: listeners removed (a no-op 'error' listener left, so a late error
// cannot throw), both connections destroyed. The packages keep no per-stream state at module
// level (checked for every pinned version: lib/capture.js of @rodrigogs/zongji caches mysql's
// classes, nothing else).
function closeCell(cell) {
  const z = cell.zongji;
  if (!z) return;
  z.removeAllListeners();
  z.on('error', () => {});
  for (const c of [z.connection, z.ctrlConnection]) {
    try { if (c) c.destroy(); } catch (e) { /* already gone */ }
  }
}

// setup.sh: can this adapter drive the installed package? Prints its version; exit 0.
async function probe() {
  const lib = await loadZongJi();
  const proto = lib.ZongJi && lib.ZongJi.prototype;
  const missing = ['start', 'stop', 'on'].filter((m) => !proto || typeof proto[m] !== 'function');
  if (typeof lib.ZongJi !== 'function' || missing.length) {
    console.log(`${pkg} exports no ZongJi class with ${missing.join(', ') || 'a constructor'}`);
    process.exit(1);
  }
  console.log(lib.version);
  console.log(`start() options it reads: ${lib.startOptions ? [...lib.startOptions].sort().join(', ') : '(none found)'}`);
}

if (process.argv[4] === '--probe') {
  probe().catch((err) => { console.log(String((err && err.message) || err)); process.exit(1); });
} else {
  cdch.run({ load: loadZongJi, start: startCell, stop: stopCell, close: closeCell });
}
