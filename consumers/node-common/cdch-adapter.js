// cdcharness adapter foundation for Node families (consumers/README.md).
//
// What every Node adapter needs besides the library it drives, in one module with no
// dependencies beyond Node's own:
//
// * output: emit(obj) (one line of stdout), Raw (a JSON token printed verbatim, e.g. an exact
//   64-bit integer), ser(value) (the serializer: BigInt as a number token, Buffer as
//   {"base64"}, Date as UTC text, NaN/Infinity as strings), change(...) (a canonical change
//   event);
// * canonical values: T (MySQL column type codes), fmtDate, plainDecimal, bigIntValue, intValue,
//   bitValue, jsonValue (consumers/README.md "Output");
// * configuration (CDCH_CONFIG, a JSON object in the family's own terms): loadConfig(env),
//   Effective (the settings the library is given, the keys the harness keeps and why, and its
//   one {"kind":"config",...} line), ConfigError (an unhonourable setting: the
//   {"kind":"config-error"} line and exit status 2);
// * the run: run(family) runs one cell (one-shot), or, with CDCH_SESSION=1, serves the session
//   protocol (consumers/README.md "Session mode") with a fresh client per cell.
//
// A family's adapter is `require('../node-common/cdch-adapter.js')` and hands run() an object:
//
//   load()                       -> the library (a Promise; once per process)
//   start(lib, env, out, cell)   starts one cell's client with the settings in `env`; keeps
//                                what it needs in `cell` (cell.stopping / cell.closed are the
//                                foundation's); out.line(obj) prints, out.died(status) says the
//                                consumer died (after its error line). Throwing ConfigError
//                                ends the cell with the config-error line and status 2.
//   stop(cell, done)             asks the client to stop as a user's shutdown would; calls
//                                done() once it has (may throw: then it is done)
//   close(cell)                  takes the client apart (listeners, connections); idempotent
//
// and lists the folder in its manifest (`shares: ["../node-common"]`) so that a change here
// re-installs the family.
'use strict';

const fs = require('fs');

// ---- output ------------------------------------------------------------------------------
class Raw { constructor(text) { this.text = text; } }   // emitted verbatim (number tokens)

const pad = (n, w) => String(n).padStart(w, '0');

// A JS Date as UTC text (millisecond precision, the fraction only when non-zero).
function fmtDate(d) {
  const ms = d.getUTCMilliseconds();
  return pad(d.getUTCFullYear(), 4) + '-' + pad(d.getUTCMonth() + 1, 2) + '-' +
    pad(d.getUTCDate(), 2) + ' ' + pad(d.getUTCHours(), 2) + ':' + pad(d.getUTCMinutes(), 2) +
    ':' + pad(d.getUTCSeconds(), 2) + (ms ? '.' + pad(ms, 3) : '');
}

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

// A canonical change event (op insert|update|delete; images column -> canonical value).
function change(op, db, table, before, after, gtid, pos) {
  return { op, db, table, before, after, gtid, pos };
}

// ---- canonical values --------------------------------------------------------------------
const T = {
  DECIMAL: 0, TINY: 1, SHORT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5, NULL: 6, TIMESTAMP: 7,
  LONGLONG: 8, INT24: 9, DATE: 10, TIME: 11, DATETIME: 12, YEAR: 13, NEWDATE: 14, VARCHAR: 15,
  BIT: 16, TIMESTAMP2: 17, DATETIME2: 18, TIME2: 19, JSON: 245, NEWDECIMAL: 246, ENUM: 247,
  SET: 248, TINY_BLOB: 249, MEDIUM_BLOB: 250, LONG_BLOB: 251, BLOB: 252, VAR_STRING: 253,
  STRING: 254, GEOMETRY: 255,
};

// A JS Number (a library's lossy DECIMAL) as plain decimal text with `scale` fraction digits.
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

// A JSON column given as JSON text: printed verbatim once it parses (exact numerals kept).
function jsonValue(v) {
  if (typeof v === 'string') {
    try { JSON.parse(v); return new Raw(v); } catch (e) { return v; }
  }
  return v;
}

// ---- configuration (CDCH_CONFIG) ---------------------------------------------------------
// A setting's value as the config line shows it: strings as they are, the rest as JSON.
function settingText(v) {
  if (typeof v === 'string') return v;
  if (v === undefined) return 'null';
  if (typeof v === 'bigint') return v.toString();
  try { return JSON.stringify(v); } catch (e) { return String(v); }
}

// A setting the adapter cannot honour: {"kind":"config-error","message":"KEY=VALUE: why"}, and
// the cell ends with status 2 (the harness records a harness-error).
class ConfigError extends Error {
  constructor(key, value, why) {
    super(`${key}=${settingText(value)}: ${why}`);
    this.name = 'ConfigError';
  }
}

// The user's configuration: the JSON object in the file CDCH_CONFIG names ({} when the variable
// is unset or empty, or the file holds only white space). Throws ConfigError when the file
// cannot be read or is not a JSON object.
function loadConfig(env) {
  const file = (env || process.env).CDCH_CONFIG || '';
  if (!file) return {};
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) {
    throw new ConfigError('CDCH_CONFIG', file, `cannot be read: ${e.message}`);
  }
  if (!text.trim()) return {};
  let obj;
  try { obj = JSON.parse(text); } catch (e) {
    throw new ConfigError('CDCH_CONFIG', file, `not JSON: ${e.message}`);
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new ConfigError('CDCH_CONFIG', file, 'not a JSON object');
  }
  return obj;
}

// The settings one cell gives the library (set) and the user's keys the harness keeps (kept);
// line() is the cell's {"kind":"config"} line (printed once, before ready).
class Effective {
  constructor(user) {
    this.user = Object.assign({}, user || {});
    this.effective = {};
    this.keptKeys = {};
  }
  set(key, value) {
    const last = key.split('.').pop();
    const secret = (last === 'password' || last === 'passwd') && value !== undefined &&
      value !== null && value !== '';
    this.effective[key] = secret ? '***' : settingText(value);
  }
  kept(key, why) { this.keptKeys[key] = why; }
  line() { return { kind: 'config', effective: this.effective, kept: this.keptKeys }; }
}

// ---- the run: one-shot and session mode (consumers/README.md "Session mode") ----------------
// One process, start/stop lines on stdin, one cell at a time. The library is loaded once; each
// cell gets a fresh client (new connections, state, listeners) from family.start, as the Java
// adapters get a fresh client. When a cell is over its client is stopped as the one-shot run
// stops it (family.stop, at most STOP_GRACE_MS), then taken apart (family.close); nothing it
// still emits is printed.
//
// A cell ends by itself ({"kind":"ended","status":N}) when a one-shot run would have exited:
// status 1 on a fatal error, 2 on a configuration error; status 0 when nothing is left that
// would keep a one-shot process alive (no socket, timer or request besides this session's stdio
// pipes). An uncaught exception ends the session process with status 1, as it ends a one-shot
// run; the harness launches a fresh one for the next cell. stdout is written with blocking
// writes (fd 1) so that a cell's lines always precede its "stopped"/"ended".
const STOP_GRACE_MS = 2000;

function newCell() { return { stopping: false, closed: false }; }

// Starts a cell; a ConfigError becomes the config-error line and out.died(2).
function startCell(family, lib, env, out, cell) {
  try {
    family.start(lib, env, out, cell);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    out.line({ kind: 'config-error', message: err.message });
    out.died(2);
  }
}

// One-shot: the cell's settings from the environment; a fatal error exits 1, SIGTERM stops the
// consumer (family.stop, exit 0 once stopped or after STOP_GRACE_MS).
async function oneShot(family) {
  const lib = await family.load();
  const cell = newCell();
  startCell(family, lib, process.env, { line: emit, died: (status) => process.exit(status) }, cell);
  const shutdown = () => {
    if (cell.stopping) process.exit(0);
    cell.stopping = true;
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
    try { family.stop(cell, () => process.exit(0)); } catch (e) { process.exit(0); }
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

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

// Takes a cell's client apart (family.close); idempotent.
function closeCell(family, cell) {
  if (cell.closed) return;
  cell.closed = true;
  family.close(cell);
}

// Stops a running cell as a one-shot SIGTERM does (family.stop; done when stopped, when nothing
// keeps the process busy any more - where a one-shot run exits by itself - or after
// STOP_GRACE_MS), then closes it; resolves when done. Its timers are unref'ed: they do not count
// in drained().
function stopCell(family, cell) {
  return new Promise((resolve) => {
    if (cell.closed) return resolve();
    cell.stopping = true;
    let timer = null, poll = null, done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      closeCell(family, cell);
      resolve();
    };
    timer = setTimeout(finish, STOP_GRACE_MS);
    timer.unref();
    poll = setInterval(() => { if (drained()) finish(); }, 10);
    poll.unref();
    try { family.stop(cell, () => setImmediate(finish)); } catch (e) { finish(); }
  });
}

// Nothing left that keeps a one-shot process alive (this session's stdin/stdout/stderr pipes
// aside): the one-shot run would have exited 0 here.
function drained() {
  return process.getActiveResourcesInfo().every((r) => r === 'PipeWrap' || r === 'TTYWrap');
}

async function serveSession(family) {
  let lib = null;
  let cur = null; // {id, cell}
  const ended = (c, status) => {
    if (cur !== c) return;
    cur = null;
    closeCell(family, c.cell);
    sessionLine({ kind: 'ended', cell: c.id, status });
  };
  const startLine = async (id, env) => {
    if (!lib) lib = await family.load(); // a failure ends the process, as it ends a one-shot run
    const c = { id, cell: newCell() };
    cur = c;
    const out = {
      line: (obj) => { if (cur === c) sessionLine(obj); },
      died: (status) => ended(c, status),
    };
    try {
      startCell(family, lib, env, out, c.cell);
    } catch (err) { // what the one-shot run's catch does
      out.line({ kind: 'error', message: String((err && err.message) || err) });
      process.stderr.write(String((err && err.stack) || err) + '\n');
      ended(c, 1);
    }
  };
  const stopLine = async (id) => {
    if (cur && cur.id === id) {
      const c = cur;
      cur = null;
      await stopCell(family, c.cell);
    }
    sessionLine({ kind: 'stopped', cell: id });
  };
  setInterval(() => {
    if (cur && cur.cell && !cur.cell.stopping && !cur.cell.closed && drained()) ended(cur, 0);
  }, 100).unref();

  const rl = require('readline').createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve(); // lines are handled one after the other
  // a failure of the session itself (loading the library) ends the process as it ends a
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
        if (cur) { const c = cur; cur = null; await stopCell(family, c.cell); }
        const env = {};
        for (const [k, v] of Object.entries((m.env && typeof m.env === 'object') ? m.env : {})) {
          if (v !== null && v !== undefined) env[k] = String(v);
        }
        // the session's own, when the cell lacks them (CDCH_CONFIG: the session's launch
        // environment holds it too)
        for (const k of ['CDCH_CACHE', 'CDCH_VERSION', 'CDCH_BIN', 'CDCH_CONFIG']) {
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
      if (cur) { const c = cur; cur = null; await stopCell(family, c.cell); }
      process.exit(0);
    });
  });
  process.on('SIGTERM', () => process.exit(0));
}

// The adapter's entry point: CDCH_SESSION=1 serves cells until stdin ends (then exit 0), else
// one cell; a failure outside the library's own events prints an error line and exits 1.
function run(family) {
  (process.env.CDCH_SESSION === '1' ? serveSession(family) : oneShot(family)).catch((err) => {
    emit({ kind: 'error', message: String((err && err.message) || err) });
    process.stderr.write(String((err && err.stack) || err) + '\n');
    process.exit(1);
  });
}

module.exports = {
  Raw, ser, emit, change, sessionLine,
  T, fmtDate, plainDecimal, bigIntValue, intValue, bitValue, jsonValue,
  settingText, ConfigError, loadConfig, Effective,
  STOP_GRACE_MS, run, drained,
};
