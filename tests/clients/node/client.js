'use strict';
// The compatibility-suite program for mysql2 (Node.js).
//
// Contract: tests/clients/README.md (TS_* environment in, JSON lines out).
// `query` goes out as COM_QUERY (text protocol; mysql2 interpolates the
// values on the client), `execute` as COM_STMT_PREPARE + COM_STMT_EXECUTE
// (binary protocol, statements cached per connection). Values are compared
// exactly, with their JavaScript types, through both protocols.

const assert = require('node:assert/strict');
const util = require('node:util');
const mysql = require('mysql2/promise');
const mysqlVersion = require('mysql2/package.json').version;

const E = process.env;
const base = {
  host: E.TS_HOST || '127.0.0.1',
  port: Number(E.TS_PORT || 3306),
  database: E.TS_DB,
  user: E.TS_NATIVE_USER,
  password: E.TS_NATIVE_PASSWORD,
  timezone: 'Z',
  connectTimeout: 5000,
};
const SHA2 = { user: E.TS_SHA2_USER, password: E.TS_SHA2_PASSWORD };

// ------------------------------------------------------------------ output

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

class NotApplicable extends Error {}

const opened = [];
async function connect(extra = {}) {
  const c = await mysql.createConnection({ ...base, ...extra });
  opened.push(c);
  return c;
}

async function check(feature, fn) {
  const t0 = Date.now();
  try {
    const detail = await fn();
    emit({ feature, status: 'pass', detail: String(detail || '') });
    process.stderr.write(`${feature}: pass (${Date.now() - t0} ms)\n`);
  } catch (e) {
    if (e instanceof NotApplicable) {
      emit({ feature, status: 'n/a', detail: e.message });
    } else {
      const msg = e && e.errno ? `${e.code} errno ${e.errno} (${e.sqlState}): ${e.sqlMessage}` : String((e && e.message) || e);
      emit({ feature, status: 'fail', detail: msg.slice(0, 2000) });
      process.stderr.write(`${feature}: ${(e && e.stack) || e}\n`);
    }
  }
}

// describe() renders a value with its JavaScript type so that comparisons
// check the decoded type as well as the value.
function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Buffer.isBuffer(v)) return v.length > 40 ? `Buffer(len ${v.length}, ${hash(v)})` : `Buffer(${v.toString('hex')})`;
  if (v instanceof Date) return `Date(${isNaN(v) ? 'Invalid' : v.toISOString()})`;
  if (typeof v === 'string') return v.length > 40 ? `string(len ${v.length}, ${hash(Buffer.from(v))})` : `string(${JSON.stringify(v)})`;
  if (typeof v === 'number') return `number(${Object.is(v, -0) ? '-0' : String(v)})`;
  return `${typeof v}(${util.inspect(v)})`;
}

function hash(buf) {
  let h = 2166136261;
  for (const b of buf) h = Math.imul(h ^ b, 16777619) >>> 0;
  return h.toString(16);
}

// rows: array of objects (mysql2's default); want: array of arrays in cols order.
function compareRows(label, rows, cols, want) {
  if (rows.length !== want.length) throw new Error(`${label}: ${rows.length} rows, want ${want.length}`);
  const diffs = [];
  rows.forEach((r, i) => {
    cols.forEach((c, j) => {
      const g = describe(r[c]);
      const w = describe(want[i][j]);
      if (g !== w) diffs.push(`row ${i + 1} ${c}: got ${g}, want ${w}`);
    });
  });
  if (diffs.length) {
    const more = diffs.length > 6 ? `; ... ${diffs.length - 6} more` : '';
    throw new Error(`${label}: ${diffs.slice(0, 6).join('; ')}${more}`);
  }
}

// Read `SELECT cols FROM table ORDER BY id` through query (text) and execute
// (binary) and compare with wantText / wantBin.
async function readBoth(conn, table, cols, wantText, wantBin = wantText) {
  const sql = `SELECT ${cols.join(', ')} FROM ${table}`;
  const [text] = await conn.query(`${sql} ORDER BY id`);
  compareRows('query (text protocol)', text, cols, wantText);
  const [bin] = await conn.execute(`${sql} WHERE id > ? ORDER BY id`, [0]);
  compareRows('execute (binary protocol)', bin, cols, wantBin);
}

async function expectError(promise, errno, code, what) {
  try {
    await promise;
  } catch (e) {
    if (e.errno === errno && (!code || e.code === code)) return e;
    throw new Error(`${what}: got ${e.code} ${e.errno} ${e.message}, want ${code || ''} ${errno}`);
  }
  throw new Error(`${what}: succeeded, want error ${errno}`);
}

async function globalStatus(conn, name) {
  const [rows] = await conn.query(`SHOW GLOBAL STATUS LIKE '${name}'`);
  if (rows.length !== 1) throw new Error(`SHOW GLOBAL STATUS LIKE '${name}': ${rows.length} rows`);
  return Number(rows[0].Value);
}

// ------------------------------------------------------------------ checks

let db; // the main connection (native account)

function connectCheck(user, password) {
  return async () => {
    const c = await connect({ user, password });
    const [rows] = await c.query('SELECT 1 AS one, CURRENT_USER() AS who');
    assert.equal(rows[0].one, 1);
    if (!rows[0].who.startsWith(user + '@')) throw new Error(`CURRENT_USER() = ${rows[0].who}`);
    const [erows] = await c.execute('SELECT ? AS v', ['x']);
    assert.equal(erows[0].v, 'x');
    await c.end();
    await expectError(mysql.createConnection({ ...base, user, password: password + '-wrong' }), 1045, 'ER_ACCESS_DENIED_ERROR', 'wrong password');
    return `SELECT 1 (query and execute) as ${rows[0].who}; a wrong password gets ER_ACCESS_DENIED_ERROR 1045`;
  };
}

// TLS with the server's certificate verified (Node's default with `ca`:
// rejectUnauthorized and the host name, here the IP 127.0.0.1); another CA
// is refused.
async function checkTLS() {
  const fs = require('node:fs');
  const tls = (file) => mysql.createConnection({ ...base, ...SHA2, ssl: { ca: fs.readFileSync(file), rejectUnauthorized: true } });
  const c = await tls(E.TS_CA);
  const [rows] = await c.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
  await c.end();
  const cipher = rows[0].Value;
  if (!cipher) throw new Error('Ssl_cipher is empty: the connection is not TLS');
  let refused = null;
  try {
    const bad = await tls(E.TS_OTHER_CA);
    await bad.end();
  } catch (e) {
    refused = String(e.message).slice(0, 80);
  }
  if (refused === null) throw new Error("a CA that signed nothing of the server's was accepted");
  return `ssl: { ca, rejectUnauthorized: true }, ${cipher}; with another CA: ${refused}`;
}

async function checkIntegers() {
  const cols = ['ti', 'tiu', 'si', 'siu', 'mi', 'miu', 'i', 'iu', 'bi', 'biu'];
  await db.query(`CREATE TABLE t_int (id INT PRIMARY KEY, ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT,
    siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED)`);
  // BIGINT values as decimal strings (bigNumberStrings form); the rest as numbers.
  const mins = [-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, '-9223372036854775808', '0'];
  const maxs = [127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, '9223372036854775807', '18446744073709551615'];
  const mids = [-1, 1, -2, 2, -3, 3, -4, 4, '-5', '9223372036854775808'];
  const lowBiu = (r) => [...r.slice(0, 9), BigInt(r[9]) > 9223372036854775807n ? '9223372036854775807' : r[9]];
  const ins = `INSERT INTO t_int (id, ${cols.join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')})`;
  const T = mysql.TypedParameter;
  // BIGINT parameters as typed LONGLONG (signed / unsigned) for execute.
  const typed = (r) => [...r.slice(0, 8), T.LONGLONG(BigInt(r[8])), T.LONGLONG.unsigned(BigInt(r[9]))];
  const big = await connect({ supportBigNumbers: true, bigNumberStrings: true });
  // Rows 1-3: execute (binary parameters); 4-5: query (client-side interpolation).
  const want = [];
  for (const [i, r] of [mins, lowBiu(maxs), lowBiu(mids)].entries()) {
    await big.execute(ins, [i + 1, ...typed(r)]);
    want.push(r);
  }
  for (const [i, r] of [mins, lowBiu(maxs)].entries()) {
    await big.query(ins, [i + 4, ...r]);
    want.push(r);
  }
  await readBoth(big, 't_int', cols, want);
  // supportBigNumbers without bigNumberStrings: numbers where exact, strings otherwise.
  const mixed = await connect({ supportBigNumbers: true });
  const mixedWant = want.map((r) => r.map((v) => (typeof v === 'string' && Number.isSafeInteger(Number(v)) ? Number(v) : v)));
  await readBoth(mixed, 't_int', cols, mixedWant);
  await expectError(big.execute('INSERT INTO t_int (id, tiu) VALUES (?, ?)', [9, 256]), 1264, 'ER_WARN_DATA_OUT_OF_RANGE', '256 into TINYINT UNSIGNED');
  await expectError(big.query('INSERT INTO t_int (id, biu) VALUES (9, -1)'), 1264, 'ER_WARN_DATA_OUT_OF_RANGE', '-1 into BIGINT UNSIGNED');
  // Above 2^63-1.
  try {
    await big.execute('UPDATE t_int SET biu = ? WHERE id = ?', [T.LONGLONG.unsigned(18446744073709551615n), 2]);
    await big.execute('UPDATE t_int SET biu = ? WHERE id = ?', ['9223372036854775808', 3]);
    await big.query('UPDATE t_int SET biu = ? WHERE id = ?', ['18446744073709551615', 5]);
  } catch (e) {
    throw new Error(`BIGINT UNSIGNED above 2^63-1 (18446744073709551615 as LONGLONG unsigned parameter, 2^63 as string parameter, max as literal): ${e.code} ${e.errno} ${e.sqlMessage}`);
  }
  want[1] = maxs;
  want[2] = mids;
  want[4] = maxs;
  await readBoth(big, 't_int', cols, want);
  const [[cnt]] = await big.execute('SELECT COUNT(*) AS n FROM t_int WHERE biu > ?', ['9223372036854775807']);
  if (Number(cnt.n) !== 3) throw new Error(`WHERE biu > 9223372036854775807: ${cnt.n} rows, want 3`);
  return 'TINYINT..BIGINT signed/unsigned at min/max incl. BIGINT UNSIGNED 18446744073709551615 and 2^63: numbers, BIGINT as exact strings with supportBigNumbers+bigNumberStrings (and numbers where safe with supportBigNumbers alone); typed LONGLONG parameters (execute) and interpolated values (query); both protocols; 1264 out of range';
}

async function checkDecimal() {
  await db.query('CREATE TABLE t_dec (id INT PRIMARY KEY, d1 DECIMAL(10,2), d2 DECIMAL(18,0), d3 DECIMAL(15,5), d4 DECIMAL(5,5))');
  const cols = ['d1', 'd2', 'd3', 'd4'];
  await db.execute('INSERT INTO t_dec VALUES (?, ?, ?, ?, ?)', [1, '12345678.90', '123456789012345678', '-1234567890.12345', '0.00001']);
  await db.query('INSERT INTO t_dec VALUES (?, ?, ?, ?, ?)', [2, '-0.50', '-999999999999999999', '0.10000', '-0.99999']);
  await db.query('INSERT INTO t_dec VALUES (3, 1.5, 0, 42, 0.5)');
  await db.execute('INSERT INTO t_dec VALUES (?, ?, ?, ?, ?)', [4, 2.25, 7, -3, 0.125]); // JS numbers go out as DOUBLE
  const want = [
    ['12345678.90', '123456789012345678', '-1234567890.12345', '0.00001'],
    ['-0.50', '-999999999999999999', '0.10000', '-0.99999'],
    ['1.50', '0', '42.00000', '0.50000'],
    ['2.25', '7', '-3.00000', '0.12500'],
  ];
  await readBoth(db, 't_dec', cols, want);
  const dn = await connect({ decimalNumbers: true });
  await readBoth(dn, 't_dec', ['d1', 'd4'], want.map((r) => [Number(r[0]), Number(r[3])]));
  const [[r]] = await db.execute('SELECT COUNT(*) AS n FROM t_dec WHERE d1 = ?', ['12345678.90']);
  assert.equal(r.n, 1);
  return 'DECIMAL(10,2)/(18,0)/(15,5)/(5,5) as strings with the declared scale (mysql2 default), as numbers with decimalNumbers:true; string and DOUBLE parameters; both protocols';
}

// The text MySQL prints for a FLOAT: the shortest decimal that reads back as the same float32.
function floatText(v) {
  const f = Math.fround(v);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(parseFloat(s)) === f) return parseFloat(s);
  }
  return f;
}

async function checkFloat() {
  await db.query('CREATE TABLE t_float (id INT PRIMARY KEY, f FLOAT, d DOUBLE)');
  const fs = [3.5, -1.25, 0.1, 1e10, 0, 123.456];
  const ds = [Math.PI, -2.5e-300, 1e300, 0.1, Number.MAX_VALUE, -0.5];
  for (let i = 0; i < fs.length; i++) {
    await db.execute('INSERT INTO t_float VALUES (?, ?, ?)', [i + 1, fs[i], ds[i]]);
    await db.query('INSERT INTO t_float VALUES (?, ?, ?)', [i + 11, fs[i], ds[i]]);
  }
  const ids = [];
  for (let i = 0; i < fs.length; i++) ids.push(i);
  const rowsOf = (fmt) => [...ids.map((i) => [fmt(fs[i]), ds[i]]), ...ids.map((i) => [fmt(fs[i]), ds[i]])];
  // Text protocol: FLOAT as MySQL prints it (shortest float32 text); binary: the float32 itself.
  try {
    await readBoth(db, 't_float', ['f', 'd'], rowsOf(floatText), rowsOf(Math.fround));
  } catch (e) {
    throw new Error(`${e.message} (MySQL's text protocol prints a FLOAT as the shortest decimal of its float32, e.g. 0.1)`);
  }
  return 'FLOAT and DOUBLE as numbers: DOUBLE exact (pi, 1e300, -2.5e-300, MAX_VALUE); FLOAT as its float32 (binary) and its shortest text (text protocol); parameters via execute and query';
}

async function checkString() {
  await db.query('CREATE TABLE t_str (id INT PRIMARY KEY, v VARCHAR(100), t TEXT, c CHAR(10))');
  const v = 'Grüße, 世界! 😀 𝄞 it\'s "q" \\ back';
  const t = 'aé世😀\'"\\\n\t\0'.repeat(500);
  const c = '😀ab';
  await db.execute('INSERT INTO t_str VALUES (?, ?, ?, ?)', [1, v, t, c]);
  await db.query('INSERT INTO t_str VALUES (?, ?, ?, ?)', [2, v, t, c + '  ']);
  await readBoth(db, 't_str', ['v', 't', 'c'], [[v, t, c], [v, t, c]]);
  const [[r]] = await db.execute('SELECT CHAR_LENGTH(v) AS cl, LENGTH(v) AS bl, COUNT(*) AS n FROM t_str WHERE v = ?', [v]);
  const chars = [...v].length;
  if (r.cl !== chars || r.bl !== Buffer.byteLength(v) || r.n !== 2) {
    throw new Error(`CHAR_LENGTH/LENGTH/count = ${r.cl}/${r.bl}/${r.n}, want ${chars}/${Buffer.byteLength(v)}/2`);
  }
  return `VARCHAR/TEXT/CHAR with 4-byte UTF-8 (U+1F600, U+1D11E), quotes, backslash, NUL; ${Buffer.byteLength(t)}-byte TEXT; execute and query; both protocols; CHAR_LENGTH ${chars}`;
}

async function checkBlob() {
  await db.query('CREATE TABLE t_blob (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300), mb MEDIUMBLOB)');
  const all = Buffer.from([...Array(256).keys()]);
  const rev = Buffer.from([...all].reverse());
  await db.execute('INSERT INTO t_blob (id, b, vb) VALUES (?, ?, ?)', [1, all, rev]); // BLOB parameters
  await db.query('INSERT INTO t_blob (id, b, vb) VALUES (?, ?, ?)', [2, all, rev]); // interpolated as X'...'
  await readBoth(db, 't_blob', ['b', 'vb'], [[all, rev], [all, rev]]);
  const [[r]] = await db.execute('SELECT LENGTH(b) AS n, HEX(b) AS h FROM t_blob WHERE b = ? AND id = 1', [all]);
  if (!r || r.n !== 256 || r.h !== all.toString('hex').toUpperCase()) throw new Error(`LENGTH/HEX/lookup: ${JSON.stringify(r)}`);
  const bigBuf = Buffer.alloc(1 << 20);
  for (let i = 0; i < bigBuf.length; i++) bigBuf[i] = (i * 7) & 255;
  await db.execute('INSERT INTO t_blob (id, mb) VALUES (?, ?)', [3, bigBuf]);
  const [[g]] = await db.execute('SELECT mb FROM t_blob WHERE id = ?', [3]);
  if (!Buffer.isBuffer(g.mb) || !g.mb.equals(bigBuf)) throw new Error('1 MiB MEDIUMBLOB came back different');
  await expectError(db.execute('INSERT INTO t_blob (id, b) VALUES (?, ?)', [4, bigBuf]), 1406, 'ER_DATA_TOO_LONG', '1 MiB into BLOB');
  return 'BLOB/VARBINARY with all 256 byte values as Buffer: BLOB parameters (execute) and X\'\' (query), both protocols; LENGTH/HEX and lookup by blob; 1 MiB MEDIUMBLOB round trip, 1406 for 1 MiB into BLOB';
}

async function checkTemporal() {
  await db.query('CREATE TABLE t_time (id INT PRIMARY KEY, d DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME)');
  const cols = ['d', 'dt', 'dt6', 'ts', 'tm'];
  const rows = [
    ['2024-02-29', '2024-02-29 13:14:15', '2024-02-29 13:14:15.123456', '2038-01-19 03:14:07', '838:59:59'],
    ['1000-01-01', '9999-12-31 23:59:59', '1970-01-01 00:00:00.000001', '1970-01-01 00:00:01', '-01:02:03'],
    ['1999-12-31', '2000-01-01 00:00:00', '2000-01-01 00:00:00.500000', '2000-01-01 00:00:00', '00:00:00'],
    ['2001-01-01', '2001-01-01 01:01:01', '2001-01-01 01:01:01.000000', '2001-01-01 01:01:01', '12:00:00'],
  ];
  for (const [i, r] of rows.entries()) {
    await db.execute(`INSERT INTO t_time VALUES (?, ${cols.map(() => '?').join(', ')})`, [i + 1, ...r]);
    await db.query(`INSERT INTO t_time VALUES (?, ${cols.map(() => '?').join(', ')})`, [i + 11, ...r]);
  }
  // A JS Date parameter (execute sends DATETIME, query interpolates it in the connection's time zone 'Z').
  const when = new Date(Date.UTC(2021, 2, 4, 5, 6, 7, 890));
  await db.execute('INSERT INTO t_time (id, dt6) VALUES (?, ?)', [21, when]);
  await db.query('INSERT INTO t_time (id, dt6) VALUES (?, ?)', [22, when]);
  const all = [...rows, ...rows];
  const asDate = (s) => new Date(s.replace(' ', 'T') + (s.length === 10 ? 'T00:00:00Z' : 'Z'));
  // Default: Date objects (millisecond precision), TIME as a string.
  const wantDates = all.map((r) => [asDate(r[0]), asDate(r[1]), asDate(r[2]), asDate(r[3]), r[4]]);
  wantDates.push([null, null, when, null, null], [null, null, when, null, null]);
  await readBoth(db, 't_time', cols, wantDates);
  // dateStrings: exact strings. The text protocol has MySQL's canonical text
  // (DATETIME(6) always with 6 digits); the binary protocol has what mysql2
  // makes of the binary value (no fraction when it is zero).
  const ds = await connect({ dateStrings: true });
  const wantText = all.map((r) => [...r]);
  wantText.push([null, null, '2021-03-04 05:06:07.890000', null, null], [null, null, '2021-03-04 05:06:07.890000', null, null]);
  const wantBin = wantText.map((r) => r.map((v, j) => (j === 2 && v ? v.replace(/\.000000$/, '') : v)));
  try {
    await readBoth(ds, 't_time', cols, wantText, wantBin);
  } catch (e) {
    throw new Error(`dateStrings: ${e.message} (MySQL's text protocol prints DATETIME(n) with exactly n fractional digits)`);
  }
  return 'DATE/DATETIME/DATETIME(6)/TIMESTAMP as Date (timezone Z) and exact strings with dateStrings:true, incl. 1000-01-01, 9999-12-31, microseconds; TIME as string incl. 838:59:59 and negative; string and Date parameters; both protocols';
}

async function checkNull() {
  const cols = ['i', 'u', 'dc', 'f', 'd', 's', 't', 'b', 'vb', 'dt', 'dtm', 'ts', 'tm', 'e', 'j'];
  await db.query(`CREATE TABLE t_null (id INT PRIMARY KEY, i INT, u BIGINT UNSIGNED, dc DECIMAL(5,2), f FLOAT, d DOUBLE,
    s VARCHAR(10), t TEXT, b BLOB, vb VARBINARY(10), dt DATE, dtm DATETIME, ts TIMESTAMP NULL, tm TIME, e ENUM('a','b'), j JSON)`);
  const ph = `(?, ${cols.map(() => '?').join(', ')})`;
  const nulls = cols.map(() => null);
  await db.execute(`INSERT INTO t_null VALUES ${ph}`, [1, ...nulls]);
  await db.query(`INSERT INTO t_null VALUES (2, ${cols.map(() => 'NULL').join(', ')})`);
  const day = '2020-05-17';
  const r3 = [7, null, '1.25', null, 2.5, null, 't', null, Buffer.from([0, 1]), null, `${day} 00:00:00`, null, '01:02:03', null, '{"a": 1}'];
  const r4 = [null, '5', null, 1.5, null, 's', null, Buffer.from('b'), null, day, null, `${day} 00:00:00`, null, 'b', null];
  await db.execute(`INSERT INTO t_null VALUES ${ph}`, [3, ...r3]);
  await db.query(`INSERT INTO t_null VALUES ${ph}`, [4, ...r4]);
  const ds = await connect({ dateStrings: true, supportBigNumbers: true, bigNumberStrings: true });
  const fix = (r) => r.map((v, j) => (cols[j] === 'j' && v ? { a: 1 } : cols[j] === 'b' && typeof v === 'string' ? Buffer.from(v) : v));
  const want = [nulls, nulls, fix(r3), fix(r4)];
  await readBoth(ds, 't_null', cols, want);
  const [[n]] = await db.query('SELECT COUNT(*) AS n FROM t_null WHERE i IS NULL AND s IS NULL AND dt IS NULL');
  assert.equal(n.n, 2);
  return `NULL in ${cols.length} column types as null (null parameters and NULL literals) with alternating NULL bitmaps; both protocols`;
}

async function checkPrepared() {
  await db.query('CREATE TABLE t_prep (id INT PRIMARY KEY, name VARCHAR(20), score DOUBLE, born DATE)');
  const c = await connect({ dateStrings: true });
  const p0 = await globalStatus(db, 'Com_stmt_prepare');
  const e0 = await globalStatus(db, 'Com_stmt_execute');
  // execute(): mysql2 prepares once per connection and caches the statement.
  const recs = [];
  for (let i = 1; i <= 6; i++) {
    const r = i === 4 ? [null, null, null] : [`name-${i}-é😀`, i * 1.5, `200${i}-0${i}-0${i}`];
    recs.push(r);
    const [res] = await c.execute('INSERT INTO t_prep VALUES (?, ?, ?, ?)', [i, ...r]);
    if (res.affectedRows !== 1) throw new Error(`execute ${i}: affectedRows ${res.affectedRows}`);
  }
  // connection.prepare(): an explicit statement object executed several times.
  const st = await c.prepare('SELECT name, score, born FROM t_prep WHERE id = ?');
  const info = st.statement;
  if (info.parameters.length !== 1 || info.columns.length !== 3 || info.columns.map((c) => c.name).join() !== 'name,score,born') {
    throw new Error(`prepare: ${info.parameters.length} parameters, columns ${info.columns.map((c) => c.name)} (want 1; name,score,born)`);
  }
  for (let i = 6; i >= 1; i--) {
    const [rows] = await st.execute([i]);
    compareRows(`statement.execute(${i})`, rows, ['name', 'score', 'born'], [recs[i - 1]]);
  }
  st.close();
  const p1 = await globalStatus(db, 'Com_stmt_prepare');
  const e1 = await globalStatus(db, 'Com_stmt_execute');
  // 2 prepares (INSERT cached by execute(), SELECT by prepare()); 12 executes.
  if (p1 - p0 !== 2 || e1 - e0 !== 12) throw new Error(`Com_stmt_prepare +${p1 - p0} (want 2), Com_stmt_execute +${e1 - e0} (want 12)`);
  // After close, the statement id is gone on the server: a new prepare works.
  const [[again]] = await c.execute('SELECT COUNT(*) AS n FROM t_prep WHERE score > ?', [2]);
  assert.equal(again.n, 4);
  return `execute() prepared the INSERT once and ran it 6 times (incl. NULLs); prepare() + statement.execute() 6 times with different ids; server counted ${p1 - p0} prepares, ${e1 - e0} executes`;
}

async function checkRollback() {
  await db.query('CREATE TABLE t_tx (id INT PRIMARY KEY, v VARCHAR(10))');
  await db.beginTransaction();
  for (let i = 1; i <= 3; i++) await db.execute('INSERT INTO t_tx VALUES (?, ?)', [i, 'r']);
  const [[inside]] = await db.query('SELECT COUNT(*) AS n FROM t_tx');
  await db.rollback();
  const [[after]] = await db.query('SELECT COUNT(*) AS n FROM t_tx');
  if (inside.n !== 3 || after.n !== 0) throw new Error(`inside ${inside.n} (want 3), after rollback ${after.n} (want 0)`);
  return 'beginTransaction, 3 rows seen inside, rollback leaves 0';
}

async function checkCommit() {
  await db.query('CREATE TABLE t_txc (id INT PRIMARY KEY, v VARCHAR(10))');
  const other = await connect(SHA2);
  await db.beginTransaction();
  await db.execute('INSERT INTO t_txc VALUES (?, ?)', [1, 'c']);
  await db.query('INSERT INTO t_txc VALUES (2, ?)', ['c']);
  const [[before]] = await other.query('SELECT COUNT(*) AS n FROM t_txc');
  await db.commit();
  const [[after]] = await other.execute('SELECT COUNT(*) AS n FROM t_txc');
  if (before.n !== 0 || after.n !== 2) throw new Error(`other connection saw ${before.n} before commit (want 0), ${after.n} after (want 2)`);
  return `2 rows committed on connection ${db.threadId}: invisible to connection ${other.threadId} before commit, visible after`;
}

async function checkDuplicate() {
  await db.query('CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50) UNIQUE)');
  await db.execute('INSERT INTO t_dup VALUES (?, ?)', [1, 'a@x']);
  const msgs = [];
  for (const [label, p] of [
    ['primary key, execute', () => db.execute('INSERT INTO t_dup VALUES (?, ?)', [1, 'b@x'])],
    ['unique key, query', () => db.query('INSERT INTO t_dup VALUES (?, ?)', [2, 'a@x'])],
  ]) {
    const e = await expectError(p(), 1062, 'ER_DUP_ENTRY', label);
    if (e.sqlState !== '23000' || !/^Duplicate entry /.test(e.sqlMessage)) throw new Error(`${label}: sqlState ${e.sqlState}, message ${e.sqlMessage}`);
    msgs.push(e.sqlMessage);
  }
  const [[n]] = await db.query('SELECT COUNT(*) AS n FROM t_dup');
  assert.equal(n.n, 1);
  return `err.code ER_DUP_ENTRY, errno 1062, sqlState 23000: ${msgs.join(' | ')}`;
}

async function checkLastInsertId() {
  await db.query('CREATE TABLE t_ai (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))');
  const [a] = await db.execute('INSERT INTO t_ai (v) VALUES (?)', ['a']);
  const [b] = await db.query('INSERT INTO t_ai (v) VALUES ?', [[['b'], ['c'], ['d']]]);
  const [[l]] = await db.query('SELECT LAST_INSERT_ID() AS id');
  const [c] = await db.execute('INSERT INTO t_ai (id, v) VALUES (?, ?)', [100, 'e']);
  const [d] = await db.execute('INSERT INTO t_ai (v) VALUES (?), (?)', ['f', 'g']);
  const got = [a.insertId, b.insertId, l.id, c.insertId, d.insertId];
  if (got.join() !== '1,2,2,100,101') throw new Error(`insertId single/3-row/LAST_INSERT_ID()/explicit/2-row = ${got}, want 1,2,2,100,101`);
  return 'insertId 1 (execute), 2 for a 3-row insert (first id, query) = LAST_INSERT_ID(); explicit 100; next 2-row insert 101';
}

async function checkAffected() {
  await db.query('CREATE TABLE t_aff (id INT PRIMARY KEY, v INT)');
  await db.query('INSERT INTO t_aff VALUES (1, 10), (2, 20), (3, 30), (4, 40), (5, 50)');
  const steps = [
    [db, 'execute', 'UPDATE t_aff SET v = v + 1 WHERE id <= ?', [3], 3, 'UPDATE of 3 rows'],
    [db, 'query', 'UPDATE t_aff SET v = v + 1 WHERE id > 3', [], 2, 'UPDATE of 2 rows'],
    [db, 'execute', 'UPDATE t_aff SET v = 999 WHERE id = ?', [42], 0, 'UPDATE matching nothing'],
    // mysql2 sets CLIENT_FOUND_ROWS: affectedRows counts matched rows.
    [db, 'query', 'UPDATE t_aff SET v = v WHERE id <= 2', [], 2, 'no-op UPDATE with CLIENT_FOUND_ROWS (mysql2 default): matched rows'],
    [db, 'execute', 'DELETE FROM t_aff WHERE id >= ?', [4], 2, 'DELETE of 2 rows'],
    [db, 'query', 'DELETE FROM t_aff WHERE id = 1', [], 1, 'DELETE of 1 row'],
    [db, 'query', 'DELETE FROM t_aff WHERE id = 1', [], 0, 'DELETE of nothing'],
  ];
  const bad = [];
  for (const [c, how, sql, args, want, what] of steps) {
    const [res] = await c[how](sql, args);
    if (res.affectedRows !== want) bad.push(`${what}: affectedRows ${res.affectedRows}, want ${want}`);
  }
  // Without CLIENT_FOUND_ROWS MySQL reports changed rows.
  const nf = await connect({ flags: '-FOUND_ROWS' });
  const [res] = await nf.query('UPDATE t_aff SET v = v WHERE id <= 3');
  if (res.affectedRows !== 0) bad.push(`no-op UPDATE matching 2 rows with flags '-FOUND_ROWS': affectedRows ${res.affectedRows}, want 0 (MySQL reports changed rows unless the client sets CLIENT_FOUND_ROWS in its handshake)`);
  if (bad.length) throw new Error(bad.join('; '));
  return 'affectedRows for UPDATE 3/2/0, no-op UPDATE 2 (CLIENT_FOUND_ROWS, mysql2 default) and 0 without it; DELETE 2/1/0';
}

async function checkMulti() {
  const m = await connect({ multipleStatements: true });
  await m.query('CREATE TABLE t_multi (id INT PRIMARY KEY, v VARCHAR(10))');
  const [results] = await m.query(
    "INSERT INTO t_multi VALUES (1, 'a'), (2, 'b'); SELECT 1 AS a; SELECT 'x' AS b, 2 AS c; UPDATE t_multi SET v = 'z' WHERE id = 1; SELECT id, v FROM t_multi ORDER BY id"
  );
  const shape = results.map((r) => (Array.isArray(r) ? JSON.stringify(r) : `ok(${r.affectedRows})`)).join(' ; ');
  const want = 'ok(2) ; [{"a":1}] ; [{"b":"x","c":2}] ; ok(1) ; [{"id":1,"v":"z"},{"id":2,"v":"b"}]';
  if (shape !== want) throw new Error(`results ${shape}, want ${want}`);
  // An error in the second statement rejects the query; the connection stays usable.
  await expectError(m.query('SELECT 7; SELECT * FROM t_multi_missing; SELECT 8'), 1146, 'ER_NO_SUCH_TABLE', 'error in statement 2');
  const [[n]] = await m.query('SELECT COUNT(*) AS n FROM t_multi');
  assert.equal(n.n, 2);
  // Without multipleStatements the server refuses a multi-statement query.
  await expectError(db.query('SELECT 1; SELECT 2'), 1064, 'ER_PARSE_ERROR', 'multi-statement without multipleStatements');
  return `multipleStatements:true: 5 results (${shape}); error in statement 2 gives ER_NO_SUCH_TABLE; without the option 1064`;
}

async function sessionState(conn) {
  const [[s]] = await conn.query('SELECT CONNECTION_ID() AS id, @pool_marker AS marker, @@SESSION.sql_mode AS mode');
  let tmp;
  try {
    const [[t]] = await conn.query('SELECT COUNT(*) AS n FROM t_pool_tmp');
    tmp = `temporary table with ${t.n} row(s)`;
  } catch (e) {
    tmp = e.errno === 1146 ? 'no temporary table' : `temporary table: ${e.message}`;
  }
  return { id: s.id, marker: s.marker, mode: s.mode, tmp };
}

async function dirty(conn) {
  await conn.query("SET @pool_marker = 42, SESSION sql_mode = 'ANSI_QUOTES'");
  await conn.query('CREATE TEMPORARY TABLE t_pool_tmp (x INT)');
  await conn.query('INSERT INTO t_pool_tmp VALUES (1)');
  await conn.execute('SELECT ? AS warm', [1]); // a cached prepared statement
}

async function checkPoolReuse() {
  const [[g]] = await db.query('SELECT @@GLOBAL.sql_mode AS mode');
  // resetOnRelease: mysql2 sends COM_RESET_CONNECTION when a connection goes back.
  const pool = mysql.createPool({ ...base, connectionLimit: 1, resetOnRelease: true });
  let reusedId;
  try {
    const c1 = await pool.getConnection();
    const before = await sessionState(c1);
    await dirty(c1);
    const dirtyState = await sessionState(c1);
    c1.release();
    const c2 = await pool.getConnection();
    const after = await sessionState(c2);
    // The statement cache was cleared with the reset: execute prepares again.
    const [[w]] = await c2.execute('SELECT ? AS warm', [2]);
    c2.release();
    const clean = { id: before.id, marker: null, mode: g.mode, tmp: 'no temporary table' };
    if (dirtyState.marker !== 42 || dirtyState.mode !== 'ANSI_QUOTES' || !dirtyState.tmp.startsWith('temporary table with 1')) {
      throw new Error(`setting the state did not work: ${JSON.stringify(dirtyState)}`);
    }
    if (JSON.stringify(after) !== JSON.stringify(clean)) {
      throw new Error(`after release (COM_RESET_CONNECTION) and reuse: ${JSON.stringify(after)}, want ${JSON.stringify(clean)}`);
    }
    if (w.warm !== 2) throw new Error(`execute after reset: ${w.warm}`);
    reusedId = after.id;
  } finally {
    await pool.end();
  }
  // Without resetOnRelease (mysql2's default) the state stays, as on MySQL.
  const pool2 = mysql.createPool({ ...base, connectionLimit: 1 });
  let kept;
  try {
    const c1 = await pool2.getConnection();
    await dirty(c1);
    const id = c1.threadId;
    c1.release();
    const c2 = await pool2.getConnection();
    kept = await sessionState(c2);
    c2.release();
    if (kept.id !== id || kept.marker !== 42 || kept.mode !== 'ANSI_QUOTES') throw new Error(`default pool (no reset): ${JSON.stringify(kept)}`);
  } finally {
    await pool2.end();
  }
  return `createPool({connectionLimit: 1, resetOnRelease: true}): connection ${reusedId} taken again after release (same CONNECTION_ID) has no user variable, the global sql_mode, no temporary table (COM_RESET_CONNECTION), and execute re-prepares; with mysql2's default pool (no reset) the state survives on connection ${kept.id}, as on MySQL`;
}

async function checkExecute() {
  // Every common type through the binary protocol: parameters and results.
  await db.query(`CREATE TABLE t_exec (id INT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, i INT, bi BIGINT, bu BIGINT UNSIGNED,
    dc DECIMAL(12,4), f FLOAT, d DOUBLE, s VARCHAR(40), t TEXT, b BLOB, dt DATE, dtm DATETIME(3), tm TIME, y YEAR, e ENUM('x','y'), j JSON, bo BOOL)`);
  const cols = ['ti', 'si', 'i', 'bi', 'bu', 'dc', 'f', 'd', 's', 't', 'b', 'dt', 'dtm', 'tm', 'y', 'e', 'j', 'bo'];
  const T = mysql.TypedParameter;
  const row = [-7, 65535, -2147483648, T.LONGLONG(-9007199254740993n), T.LONGLONG.unsigned(4611686018427387904n), '-12345678.1234', 0.5, 1 / 3,
    'é😀', 'text\n', Buffer.from([255, 0, 39]), '2024-06-30', '2024-06-30 23:59:58.125', '-10:00:00', 2155, 'y', { k: [1, 'two'] }, true];
  const want = [-7, 65535, -2147483648, '-9007199254740993', '4611686018427387904', '-12345678.1234', 0.5, 1 / 3,
    'é😀', 'text\n', Buffer.from([255, 0, 39]), '2024-06-30', '2024-06-30 23:59:58.125', '-10:00:00', 2155, 'y', { k: [1, 'two'] }, 1];
  const c = await connect({ dateStrings: true, supportBigNumbers: true });
  await c.execute(`INSERT INTO t_exec VALUES (?, ${cols.map(() => '?').join(', ')})`, [1, ...row]);
  const [bin, fields] = await c.execute(`SELECT ${cols.join(', ')} FROM t_exec WHERE id = ?`, [1]);
  compareRows('execute', bin, cols, [want]);
  // Result metadata from the binary protocol: MySQL type codes.
  const types = fields.map((f) => f.columnType).join(',');
  const wantTypes = [1, 2, 3, 8, 8, 246, 4, 5, 253, 252, 252, 10, 12, 11, 13, 254, 245, 1].join(',');
  if (types !== wantTypes) throw new Error(`column types ${types}, want ${wantTypes}`);
  // Same values through the text protocol.
  const [text] = await c.query(`SELECT ${cols.join(', ')} FROM t_exec WHERE id = 1`);
  try {
    compareRows('query', text, cols, [want]);
  } catch (e) {
    throw new Error(`${e.message} (MySQL's text protocol prints DATETIME(n) with exactly n fractional digits)`);
  }
  return `${cols.length} column types (incl. YEAR, ENUM, JSON, BOOL, DATETIME(3), typed LONGLONG) through execute: parameters in, values and column type codes out, equal to the text protocol`;
}

async function checkLargeResult() {
  // A result of several MB: larger than the socket buffers, so the server's
  // output backs up and (under pool-of-threads) the result pauses and
  // resumes. Every row must arrive intact through both protocols.
  const n = 40000;
  await db.query('CREATE TABLE t_large (id INT PRIMARY KEY, pad CHAR(100) NOT NULL, dtm DATETIME(3) NOT NULL)');
  // 40,000 levels: past the default cte_max_recursion_depth (1,000), as in MySQL.
  await db.query(`SET SESSION cte_max_recursion_depth = ${n}`);
  await db.query(`INSERT INTO t_large WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < ${n})
    SELECT k, REPEAT('x', 100), '2024-01-02 03:04:05.678' FROM s`);
  const c = await connect({ dateStrings: true });
  for (const mode of ['execute', 'query']) {
    const [rows] = await c[mode]('SELECT id, pad, dtm FROM t_large WHERE id > ? ORDER BY id', [0]);
    if (rows.length !== n) throw new Error(`${mode}: ${rows.length} rows, want ${n}`);
    rows.forEach((r, i) => {
      if (r.id !== i + 1 || r.pad !== 'x'.repeat(100) || r.dtm !== '2024-01-02 03:04:05.678') {
        throw new Error(`${mode}: row ${i + 1} is ${util.inspect(r)}`);
      }
    });
  }
  return `${n} rows (~6 MB) through execute (binary protocol) and query (text), every row intact`;
}

async function checkPool() {
  const pool = mysql.createPool({ ...base, connectionLimit: 4, supportBigNumbers: true });
  try {
    await pool.query('CREATE TABLE t_pool (w INT, i INT, PRIMARY KEY (w, i))');
    const ids = new Map();
    const workers = [];
    const t0 = Date.now();
    for (let w = 0; w < 16; w++) {
      workers.push((async () => {
        for (let i = 0; i < 25; i++) {
          const n = w * 1000 + i;
          const [[r]] = i % 2 ? await pool.query('SELECT ? + 0 AS n, CONNECTION_ID() AS id', [n]) : await pool.execute('SELECT ? + 0 AS n, CONNECTION_ID() AS id', [n]);
          if (Number(r.n) !== n) throw new Error(`worker ${w}: got ${r.n}, want ${n}`);
          ids.set(r.id, (ids.get(r.id) || 0) + 1);
          if (i % 5 === 0) await pool.execute('INSERT INTO t_pool VALUES (?, ?)', [w, i]);
        }
      })());
    }
    await Promise.all(workers);
    const [[s]] = await pool.query('SELECT COUNT(*) AS n, SUM(w * 1000 + i) AS total FROM t_pool');
    let wantTotal = 0;
    for (let w = 0; w < 16; w++) for (let i = 0; i < 25; i += 5) wantTotal += w * 1000 + i;
    if (s.n !== 80 || Number(s.total) !== wantTotal || ids.size > 4 || ids.size < 2) {
      throw new Error(`rows ${s.n} (want 80), total ${s.total} (want ${wantTotal}), distinct connections ${ids.size} (want 2..4)`);
    }
    // A transaction on a connection taken from the pool.
    const c = await pool.getConnection();
    await c.beginTransaction();
    await c.execute('INSERT INTO t_pool VALUES (?, ?)', [99, 1]);
    await c.rollback();
    c.release();
    const [[after]] = await pool.query('SELECT COUNT(*) AS n FROM t_pool WHERE w = 99');
    assert.equal(after.n, 0);
    return `16 workers x 25 queries (query and execute) + 80 inserts through connectionLimit 4: all results right, ${ids.size} distinct connections, ${Date.now() - t0} ms; pooled transaction rolled back`;
  } finally {
    await pool.end();
  }
}

async function checkChangeUser() {
  const c = await connect();
  await c.query("SET @cu_marker = 'x'");
  const id = c.threadId;
  await c.changeUser({ user: SHA2.user, password: SHA2.password, database: E.TS_DB });
  const [[a]] = await c.query('SELECT CURRENT_USER() AS who, @cu_marker AS m, CONNECTION_ID() AS id');
  await c.changeUser({ user: base.user, password: base.password });
  const [[b]] = await c.execute('SELECT CURRENT_USER() AS who, DATABASE() AS db', []);
  if (!a.who.startsWith(SHA2.user + '@') || a.m !== null || a.id !== id || !b.who.startsWith(base.user + '@') || b.db !== E.TS_DB) {
    throw new Error(`after changeUser: ${JSON.stringify(a)}, back: ${JSON.stringify(b)}`);
  }
  await expectError(c.changeUser({ user: SHA2.user, password: 'wrong' }), 1045, 'ER_ACCESS_DENIED_ERROR', 'changeUser with a wrong password');
  return `COM_CHANGE_USER on connection ${id}: to ${a.who} (session state reset), back to ${b.who} with the database kept; a wrong password gets 1045`;
}

async function checkChangedRows() {
  await db.query('CREATE TABLE t_chg (id INT PRIMARY KEY, v INT)');
  await db.query('INSERT INTO t_chg VALUES (1, 1), (2, 2), (3, 3)');
  const [r] = await db.query('UPDATE t_chg SET v = 2 WHERE id <= 3');
  if (r.affectedRows !== 3 || r.changedRows !== 2 || !/Rows matched: 3\s+Changed: 2\s+Warnings: 0/.test(r.info)) {
    throw new Error(`UPDATE of 3 matched rows, 2 changed: affectedRows ${r.affectedRows}, changedRows ${r.changedRows}, info ${JSON.stringify(r.info)}; MySQL's OK packet says "Rows matched: 3  Changed: 2  Warnings: 0", from which mysql2 takes changedRows`);
  }
  return `changedRows 2 of 3 matched rows (info "${r.info}")`;
}

async function checkUnixSocket() {
  if (!E.TS_SOCKET) throw new Error('TS_SOCKET is empty');
  const c = await mysql.createConnection({ socketPath: E.TS_SOCKET, user: SHA2.user, password: SHA2.password, database: E.TS_DB });
  opened.push(c);
  const [[r]] = await c.execute('SELECT CURRENT_USER() AS who, ? AS v', ['sock']);
  if (!r.who.startsWith(SHA2.user + '@') || r.v !== 'sock') throw new Error(JSON.stringify(r));
  return `caching_sha2_password over the Unix socket as ${r.who}, execute works`;
}

// ------------------------------------------------------------------ main

async function main() {
  emit({ client: 'mysql2', version: `${mysqlVersion} (Node.js ${process.versions.node})` });
  const timer = setTimeout(() => {
    process.stderr.write('node client: giving up after 110 s\n');
    process.exit(3);
  }, 110000);
  const checks = [
    ['connect_native', connectCheck(base.user, base.password)],
    ['connect_sha2', connectCheck(SHA2.user, SHA2.password)],
    ['connect_tls', checkTLS],
    ['types_integer', checkIntegers],
    ['types_decimal', checkDecimal],
    ['types_float', checkFloat],
    ['types_string', checkString],
    ['types_blob', checkBlob],
    ['types_temporal', checkTemporal],
    ['types_null', checkNull],
    ['prepared', checkPrepared],
    ['tx_rollback', checkRollback],
    ['tx_commit', checkCommit],
    ['duplicate_key', checkDuplicate],
    ['last_insert_id', checkLastInsertId],
    ['affected_rows', checkAffected],
    ['multi_results', checkMulti],
    ['pool_reuse', checkPoolReuse],
    ['x_execute', checkExecute],
    ['x_large_result', checkLargeResult],
    ['x_pool', checkPool],
    ['x_change_user', checkChangeUser],
    ['x_changed_rows', checkChangedRows],
    ['x_unix_socket', checkUnixSocket],
  ];
  const only = new Set(process.argv.slice(2));
  try {
    db = await connect();
  } catch (e) {
    process.stderr.write(`cannot connect: ${e.stack}\n`);
  }
  for (const [name, fn] of checks) {
    if (only.size && !only.has(name)) continue;
    if (!db && name !== 'connect_native' && name !== 'connect_sha2' && name !== 'connect_tls') {
      emit({ feature: name, status: 'fail', detail: 'no connection (see connect_native)' });
      continue;
    }
    await check(name, fn);
  }
  for (const c of opened) {
    try {
      await c.end();
    } catch (e) {
      c.destroy();
    }
  }
  clearTimeout(timer);
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(2);
});
