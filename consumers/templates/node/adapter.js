#!/usr/bin/env node
// cdcharness adapter template for a Node CDC library (here: @vlasky/zongji).
// Output, canonical values, the config line and the run (one-shot, SIGTERM, session mode with a
// fresh client per cell) come from the foundation, consumers/node-common/cdch-adapter.js; this
// file holds what is the library's. Places to change for your library: "// CHANGE:".
'use strict';
process.env.TZ = 'UTC'; // TIMESTAMPs formatted in local time come out in UTC

const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
const { pathToFileURL } = require('url');
// the foundation: ../node-common in consumers/<family>/, ../../node-common in consumers/templates/<lang>/
const cdch = require([path.join(__dirname, '..', 'node-common'), path.join(__dirname, '..', '..', 'node-common')]
  .find((d) => fs.existsSync(d)) + '/cdch-adapter.js');
const { T } = cdch;

const PKG = '@vlasky/zongji'; // CHANGE: your library's npm name (as in setup.sh)
// CHANGE: the start() options a user may give in CDCH_CONFIG (any other key is refused:
// config-error, exit 2); HARNESS: the options the harness owns, and why.
const ALLOWED = new Set(['includeEvents', 'excludeEvents']);
const HARNESS = Object.fromEntries(['serverId', 'filename', 'position', 'gtidSet', 'startAtEnd']
  .map((k) => [k, 'the harness sets the server id and where each cell starts']));

// CHANGE: the library's value -> canonical (consumers/README.md "Output").
function value(column, v) {
  if (v === null || v === undefined) return null;
  switch (column.type) {
    case T.TINY: case T.SHORT: case T.INT24: case T.LONG: case T.LONGLONG: case T.YEAR:
      return cdch.intValue(v);
    case T.NEWDECIMAL: return String(v);
    case T.BIT: return Buffer.isBuffer(v) ? cdch.bitValue(v) : cdch.intValue(v);
    case T.SET: return Array.isArray(v) ? v : (v === '' ? [] : String(v).split(','));
    case T.JSON: return cdch.jsonValue(v);
    default: return v; // strings, numbers, Buffers ({"base64"}) and Dates: the foundation prints them
  }
}

function image(tm, row) {
  if (!row) return null;
  const out = {};
  tm.columns.forEach((c, i) => { out[c.name !== undefined ? c.name : '@' + (i + 1)] = value(c, row[c.name]); });
  return out;
}

// The library, loaded once per process from the cache dir setup.sh installed it in.
async function load() {
  const req = createRequire(path.join(path.resolve(process.env.CDCH_CACHE), 'package.json'));
  const mod = await import(pathToFileURL(req.resolve(PKG)).href);
  return mod.default || mod;
}

// One cell: a fresh client with the settings in `env`; out.line(obj) prints, out.died(status).
function start(ZongJi, env, out, cell) {
  const cfg = new cdch.Effective(cdch.loadConfig(env));
  const conn = { host: env.CDCH_HOST, port: Number(env.CDCH_PORT), user: env.CDCH_USER,
    password: env.CDCH_PASSWORD, dateStrings: true, jsonStrings: true };
  const opts = { serverId: Number(env.CDCH_SERVER_ID), startAtEnd: false,
    includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows', 'rotate'] };
  if (env.CDCH_GTID_SET) opts.gtidSet = env.CDCH_GTID_SET;
  else Object.assign(opts, { filename: env.CDCH_START_FILE || undefined, position: Number(env.CDCH_START_POS || 4) });
  for (const [key, v] of Object.entries(cfg.user)) {
    if (key in HARNESS) cfg.kept(key, HARNESS[key]);
    else if (ALLOWED.has(key)) opts[key] = v;
    else throw new cdch.ConfigError(key, v, `not a setting this adapter passes (${[...ALLOWED].join(', ')})`);
  }
  for (const [k, v] of Object.entries(conn)) cfg.set(`connection.${k}`, v);
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) cfg.set(k, v);
  out.line(cfg.line());

  const zongji = new ZongJi(conn); // CHANGE: start your library
  cell.zongji = zongji;
  zongji.on('ready', () => out.line({ kind: 'ready' }));
  zongji.on('error', (err) => {
    if (cell.stopping || cell.closed) return;
    out.line({ kind: 'error', message: String((err && err.message) || err) });
    if (err && err.fatal) out.died(1); // the consumer died
  });
  zongji.on('binlog', (ev) => {
    const op = { WriteRows: 'insert', UpdateRows: 'update', DeleteRows: 'delete' }[ev.getTypeName()];
    if (!op) return;
    const tm = ev.tableMap[ev.tableId];
    const pos = { file: zongji.get('filename'), pos: zongji.get('position') };
    for (const row of ev.rows) {
      const before = op === 'insert' ? null : image(tm, op === 'update' ? row.before : row);
      const after = op === 'delete' ? null : image(tm, op === 'update' ? row.after : row);
      out.line(cdch.change(op, tm.parentSchema, tm.tableName, before, after, ev.gtid || null, pos));
    }
  });
  zongji.start(opts);
}

// Stop as a user's shutdown does (done() once stopped), then take the client apart.
function stop(cell, done) { cell.zongji.once('stopped', done); cell.zongji.stop(); }
function close(cell) {
  const z = cell.zongji;
  if (!z) return;
  z.removeAllListeners();
  z.on('error', () => {});
  for (const c of [z.connection, z.ctrlConnection]) { try { if (c) c.destroy(); } catch (e) { /* gone */ } }
}

cdch.run({ load, start, stop, close });
