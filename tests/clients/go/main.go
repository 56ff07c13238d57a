// The compatibility-suite program for go-sql-driver/mysql through database/sql.
//
// Contract: tests/clients/README.md (TS_* environment in, JSON lines out).
// Every check compares round-tripped values exactly, through both protocols
// where the driver offers both: a query without arguments goes out as
// COM_QUERY (text protocol), a query with arguments and interpolateParams=false
// (the default) as COM_STMT_PREPARE + COM_STMT_EXECUTE (binary protocol).
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
)

const driverModule = "github.com/go-sql-driver/mysql"

var (
	host     = env("TS_HOST", "127.0.0.1")
	port     = env("TS_PORT", "3306")
	socket   = os.Getenv("TS_SOCKET")
	dbName   = os.Getenv("TS_DB")
	nativeU  = os.Getenv("TS_NATIVE_USER")
	nativePw = os.Getenv("TS_NATIVE_PASSWORD")
	sha2U    = os.Getenv("TS_SHA2_USER")
	sha2Pw   = os.Getenv("TS_SHA2_PASSWORD")
)

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// ---------------------------------------------------------------- output

func emit(obj any) {
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}

type verdict struct {
	Feature string `json:"feature"`
	Status  string `json:"status"`
	Detail  string `json:"detail"`
}

// notApplicable is returned by a check when the driver lacks the feature.
type notApplicable struct{ reason string }

func (n notApplicable) Error() string { return n.reason }

// check runs one check; an error (or a panic) is a fail with the error as detail.
func check(feature string, fn func() (string, error)) {
	start := time.Now()
	var detail string
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		detail, err = fn()
	}()
	fmt.Fprintf(os.Stderr, "%-20s %6.0f ms  err=%v\n", feature, float64(time.Since(start).Microseconds())/1000, err)
	var na notApplicable
	switch {
	case errors.As(err, &na):
		emit(verdict{feature, "n/a", na.reason})
	case err != nil:
		emit(verdict{feature, "fail", err.Error()})
	default:
		emit(verdict{feature, "pass", detail})
	}
}

// ---------------------------------------------------------------- connections

type opts struct {
	user, pw          string
	interpolate       bool
	multiStatements   bool
	clientFoundRows   bool
	unixSocket        bool
	maxOpen, maxIdle  int
	checkConnLiveness bool
	tls               *tls.Config
}

func config(o opts) *mysql.Config {
	cfg := mysql.NewConfig()
	if o.user == "" {
		o.user, o.pw = nativeU, nativePw
	}
	cfg.User, cfg.Passwd = o.user, o.pw
	if o.unixSocket {
		cfg.Net, cfg.Addr = "unix", socket
	} else {
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	cfg.DBName = dbName
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Timeout = 5 * time.Second
	cfg.ReadTimeout = 30 * time.Second
	cfg.WriteTimeout = 30 * time.Second
	cfg.AllowNativePasswords = true
	cfg.InterpolateParams = o.interpolate
	cfg.MultiStatements = o.multiStatements
	cfg.ClientFoundRows = o.clientFoundRows
	cfg.TLS = o.tls
	return cfg
}

var openDBs []*sql.DB

func open(o opts) *sql.DB {
	conn, err := mysql.NewConnector(config(o))
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(conn)
	if o.maxOpen > 0 {
		db.SetMaxOpenConns(o.maxOpen)
	}
	if o.maxIdle > 0 {
		db.SetMaxIdleConns(o.maxIdle)
	}
	openDBs = append(openDBs, db)
	return db
}

// Shared pools: db (server-side prepares), idb (client-side interpolation,
// every statement is COM_QUERY), mdb (multiStatements=true).
var db, idb, mdb *sql.DB

func ctx() context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	time.AfterFunc(31*time.Second, cancel)
	return c
}

type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func exec(q querier, query string, args ...any) (sql.Result, error) {
	r, err := q.ExecContext(ctx(), query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", short(query), err)
	}
	return r, nil
}

func mustExec(q querier, queries ...string) error {
	for _, s := range queries {
		if _, err := exec(q, s); err != nil {
			return err
		}
	}
	return nil
}

func short(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

// queryAll reads every row as the driver's own values (scan into any).
func queryAll(q querier, query string, args ...any) ([][]any, error) {
	rows, err := q.QueryContext(ctx(), query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", short(query), err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", short(query), err)
	}
	return out, nil
}

func queryInt(q querier, query string, args ...any) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx(), query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", short(query), err)
	}
	return n, nil
}

// describe renders a driver value with its Go type, so that comparisons
// check the decoded type as well as the value.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		if len(x) > 40 {
			return fmt.Sprintf("[]byte(len %d, sha %x)", len(x), hashOf(x))
		}
		return fmt.Sprintf("[]byte(%q)", x)
	case string:
		if len(x) > 40 {
			return fmt.Sprintf("string(len %d, sha %x)", len(x), hashOf([]byte(x)))
		}
		return fmt.Sprintf("string(%q)", x)
	case time.Time:
		return "time.Time(" + x.Format("2006-01-02 15:04:05.999999999 MST") + ")"
	default:
		return fmt.Sprintf("%T(%v)", v, v)
	}
}

func hashOf(b []byte) uint32 { // FNV-1a, only to shorten messages
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// compareRows compares rows cell by cell (type and value); want[i][j] is
// the expected driver value.
func compareRows(label string, got, want [][]any, cols []string) error {
	var diffs []string
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d rows, want %d", label, len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			return fmt.Errorf("%s: row %d has %d columns, want %d", label, i+1, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			g, w := describe(got[i][j]), describe(want[i][j])
			if g != w {
				name := fmt.Sprint(j)
				if j < len(cols) {
					name = cols[j]
				}
				diffs = append(diffs, fmt.Sprintf("row %d %s: got %s, want %s", i+1, name, g, w))
			}
		}
	}
	if len(diffs) > 0 {
		if len(diffs) > 6 {
			diffs = append(diffs[:6], fmt.Sprintf("... %d more", len(diffs)-6))
		}
		return fmt.Errorf("%s: %s", label, strings.Join(diffs, "; "))
	}
	return nil
}

// readBoth reads `SELECT cols FROM table ORDER BY id` through the text
// protocol and through the binary protocol and compares both with want.
func readBoth(table string, cols []string, want [][]any) error {
	list := strings.Join(cols, ", ")
	text, err := queryAll(db, fmt.Sprintf("SELECT %s FROM %s ORDER BY id", list, table))
	if err != nil {
		return err
	}
	if err := compareRows("text protocol", text, want, cols); err != nil {
		return err
	}
	bin, err := queryAll(db, fmt.Sprintf("SELECT %s FROM %s WHERE id > ? ORDER BY id", list, table), 0)
	if err != nil {
		return err
	}
	return compareRows("binary protocol", bin, binaryForm(want), cols)
}

// binaryForm is what the driver makes of an expected value in a binary
// protocol row: go-sql-driver decodes BIGINT UNSIGNED as int64 when it fits
// and as its decimal string ([]byte) above math.MaxInt64 (the text protocol
// gives uint64 throughout).
func binaryForm(want [][]any) [][]any {
	out := make([][]any, len(want))
	for i, r := range want {
		out[i] = make([]any, len(r))
		for j, v := range r {
			if u, ok := v.(uint64); ok {
				if u <= math.MaxInt64 {
					v = int64(u)
				} else {
					v = []byte(fmt.Sprint(u))
				}
			}
			out[i][j] = v
		}
	}
	return out
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func asMySQLError(err error) (*mysql.MySQLError, bool) {
	var me *mysql.MySQLError
	ok := errors.As(err, &me)
	return me, ok
}

func globalStatus(name string) (int64, error) {
	var k string
	var v int64
	err := db.QueryRowContext(ctx(), "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&k, &v)
	return v, err
}

// ---------------------------------------------------------------- checks

// tlsTo verifies the server's certificate against the CA in caFile, with
// Go's full verification (chain and the name, here the IP 127.0.0.1).
func tlsTo(caFile string) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no certificate in %s", caFile)
	}
	return &tls.Config{RootCAs: roots, ServerName: host}, nil
}

func checkTLS() (string, error) {
	cfg, err := tlsTo(os.Getenv("TS_CA"))
	if err != nil {
		return "", err
	}
	d := open(opts{user: sha2U, pw: sha2Pw, tls: cfg})
	defer d.Close()
	var k, cipher string
	if err := d.QueryRowContext(ctx(), "SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&k, &cipher); err != nil {
		return "", err
	}
	if cipher == "" {
		return "", fmt.Errorf("Ssl_cipher is empty: the connection is not TLS")
	}
	other, err := tlsTo(os.Getenv("TS_OTHER_CA"))
	if err != nil {
		return "", err
	}
	bad := open(opts{user: sha2U, pw: sha2Pw, tls: other})
	defer bad.Close()
	err = bad.PingContext(ctx())
	if err == nil {
		return "", fmt.Errorf("a CA that signed nothing of the server's was accepted")
	}
	msg := err.Error()
	if len(msg) > 80 {
		msg = msg[:80]
	}
	return fmt.Sprintf("tls.Config{RootCAs, ServerName %s}, %s; with another CA: %s", host, cipher, msg), nil
}

// checkTLSResumption: with a ClientSessionCache, new connections resume
// the TLS session of earlier ones (the server's Ssl_session_cache_hits).
func checkTLSResumption() (string, error) {
	cfg, err := tlsTo(os.Getenv("TS_CA"))
	if err != nil {
		return "", err
	}
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(16)
	const conns = 6
	before, err := globalStatus("Ssl_session_cache_hits")
	if err != nil {
		return "", err
	}
	for i := 0; i < conns; i++ {
		// A pool of its own each time: a new connection and TLS handshake.
		d := open(opts{user: sha2U, pw: sha2Pw, tls: cfg})
		var one int64
		if err := d.QueryRowContext(ctx(), "SELECT 1").Scan(&one); err != nil {
			return "", err
		}
		d.Close()
	}
	after, err := globalStatus("Ssl_session_cache_hits")
	if err != nil {
		return "", err
	}
	if after-before < conns-1 {
		return "", fmt.Errorf("%d connections with a ClientSessionCache resumed %d times, want %d", conns, after-before, conns-1)
	}
	return fmt.Sprintf("%d connections with tls.NewLRUClientSessionCache: Ssl_session_cache_hits +%d", conns, after-before), nil
}

func checkConnect(user, pw string) func() (string, error) {
	return func() (string, error) {
		d := open(opts{user: user, pw: pw})
		defer d.Close()
		var one int64
		var who string
		if err := d.QueryRowContext(ctx(), "SELECT 1, CURRENT_USER()").Scan(&one, &who); err != nil {
			return "", err
		}
		if one != 1 {
			return "", fmt.Errorf("SELECT 1 returned %d", one)
		}
		if !strings.HasPrefix(who, user+"@") {
			return "", fmt.Errorf("CURRENT_USER() = %q, want %s@...", who, user)
		}
		// A wrong password must be refused with 1045 for the same account.
		bad := open(opts{user: user, pw: pw + "-wrong"})
		defer bad.Close()
		err := bad.PingContext(ctx())
		me, ok := asMySQLError(err)
		if !ok || me.Number != 1045 {
			return "", fmt.Errorf("wrong password: got %v, want error 1045", err)
		}
		return fmt.Sprintf("SELECT 1 as %s over TCP; a wrong password gets 1045", who), nil
	}
}

func checkIntegers() (string, error) {
	cols := []string{"ti", "tiu", "si", "siu", "mi", "miu", "i", "iu", "bi", "biu"}
	if err := mustExec(db, `CREATE TABLE t_int (id INT PRIMARY KEY,
		ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
		mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
		bi BIGINT, biu BIGINT UNSIGNED)`); err != nil {
		return "", err
	}
	row := func(biu uint64, vals ...int64) []any {
		r := make([]any, 0, len(cols))
		for _, v := range vals {
			r = append(r, v)
		}
		return append(r, biu)
	}
	mins := row(0, -128, 0, -32768, 0, -8388608, 0, math.MinInt32, 0, math.MinInt64)
	maxs := row(math.MaxUint64, 127, 255, 32767, 65535, 8388607, 16777215, math.MaxInt32, math.MaxUint32, math.MaxInt64)
	mids := row(1<<63, -1, 1, -2, 2, -3, 3, -4, 4, -5)
	ins := "INSERT INTO t_int (id, " + strings.Join(cols, ", ") + ") VALUES (?, " + placeholders(len(cols)) + ")"
	literal := func(id int, vals []any) string {
		lits := make([]string, len(vals))
		for j, v := range vals {
			lits[j] = fmt.Sprint(v)
		}
		return fmt.Sprintf("INSERT INTO t_int (id, %s) VALUES (%d, %s)", strings.Join(cols, ", "), id, strings.Join(lits, ", "))
	}
	// Every value with BIGINT UNSIGNED kept <= 2^63-1 first, so that a
	// failure above 2^63-1 is reported on its own.
	low := func(r []any) []any {
		c := append([]any(nil), r...)
		if c[len(c)-1].(uint64) > math.MaxInt64 {
			c[len(c)-1] = uint64(math.MaxInt64)
		}
		return c
	}
	var want [][]any
	for i, vals := range [][]any{mins, low(maxs), low(mids)} {
		if _, err := exec(db, ins, append([]any{i + 1}, vals...)...); err != nil {
			return "", fmt.Errorf("binary parameters: %w", err)
		}
		want = append(want, vals)
	}
	for i, vals := range [][]any{mins, low(maxs)} {
		if _, err := exec(db, literal(i+4, vals)); err != nil {
			return "", fmt.Errorf("literals: %w", err)
		}
		want = append(want, vals)
	}
	if err := readBoth("t_int", cols, want); err != nil {
		return "", err
	}
	// Out of range is an error (strict mode), not a clipped value.
	_, err := exec(db, "INSERT INTO t_int (id, tiu) VALUES (?, ?)", 9, 256)
	if me, ok := asMySQLError(err); !ok || me.Number != 1264 {
		return "", fmt.Errorf("256 into TINYINT UNSIGNED: got %v, want error 1264", err)
	}
	_, err = exec(db, "INSERT INTO t_int (id, biu) VALUES (?, ?)", 9, -1)
	if me, ok := asMySQLError(err); !ok || me.Number != 1264 {
		return "", fmt.Errorf("-1 into BIGINT UNSIGNED: got %v, want error 1264", err)
	}
	// Column metadata: the driver's type names come from type + UNSIGNED flag.
	rows, err := db.QueryContext(ctx(), "SELECT "+strings.Join(cols, ", ")+" FROM t_int")
	if err != nil {
		return "", err
	}
	cts, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return "", err
	}
	wantNames := []string{"TINYINT", "UNSIGNED TINYINT", "SMALLINT", "UNSIGNED SMALLINT", "MEDIUMINT",
		"UNSIGNED MEDIUMINT", "INT", "UNSIGNED INT", "BIGINT", "UNSIGNED BIGINT"}
	for i, ct := range cts {
		if ct.DatabaseTypeName() != wantNames[i] {
			return "", fmt.Errorf("column %s: DatabaseTypeName %q, want %q", cols[i], ct.DatabaseTypeName(), wantNames[i])
		}
	}
	// BIGINT UNSIGNED above 2^63-1: 2^63 and 18446744073709551615.
	if _, err := exec(db, "UPDATE t_int SET biu = ? WHERE id = ?", uint64(math.MaxUint64), 2); err != nil {
		return "", fmt.Errorf("BIGINT UNSIGNED 18446744073709551615 as a binary parameter (LONGLONG, unsigned flag): %w", err)
	}
	if _, err := exec(db, "UPDATE t_int SET biu = ? WHERE id = ?", uint64(1)<<63, 3); err != nil {
		return "", fmt.Errorf("BIGINT UNSIGNED 9223372036854775808 as a binary parameter: %w", err)
	}
	if _, err := exec(db, "UPDATE t_int SET biu = 18446744073709551615 WHERE id = 5"); err != nil {
		return "", fmt.Errorf("BIGINT UNSIGNED 18446744073709551615 as a literal: %w", err)
	}
	want[1], want[2], want[4] = maxs, mids, maxs
	if err := readBoth("t_int", cols, want); err != nil {
		return "", fmt.Errorf("BIGINT UNSIGNED above 2^63-1: %w", err)
	}
	n, err := queryInt(db, "SELECT COUNT(*) FROM t_int WHERE biu > ?", uint64(math.MaxInt64))
	if err != nil || n != 3 {
		return "", fmt.Errorf("WHERE biu > 9223372036854775807: %d rows (want 3), %v", n, err)
	}
	// Scanning into fixed-size Go integers.
	var tiu uint8
	var si int16
	var miu uint32
	var bi int64
	var biu uint64
	if err := db.QueryRowContext(ctx(), "SELECT tiu, si, miu, bi, biu FROM t_int WHERE id = ?", 2).Scan(&tiu, &si, &miu, &bi, &biu); err != nil {
		return "", err
	}
	if tiu != 255 || si != 32767 || miu != 16777215 || bi != math.MaxInt64 || biu != math.MaxUint64 {
		return "", fmt.Errorf("typed scan: %d %d %d %d %d", tiu, si, miu, bi, biu)
	}
	return "TINYINT..BIGINT signed/unsigned at min/max incl. BIGINT UNSIGNED 18446744073709551615 and 2^63, " +
		"inserted as binary parameters and as literals, read via text protocol (int64/uint64) and binary protocol (int64, BIGINT UNSIGNED above 2^63-1 as the driver's decimal string), scanned into uint64; " +
		"out of range gets 1264; DatabaseTypeName per column", nil
}

func checkDecimal() (string, error) {
	if err := mustExec(db, `CREATE TABLE t_dec (id INT PRIMARY KEY, d1 DECIMAL(10,2), d2 DECIMAL(18,0),
		d3 DECIMAL(15,5), d4 DECIMAL(5,5))`); err != nil {
		return "", err
	}
	cols := []string{"d1", "d2", "d3", "d4"}
	in := [][]string{
		{"12345678.90", "123456789012345678", "-1234567890.12345", "0.00001"},
		{"-0.50", "-999999999999999999", "0.10000", "-0.99999"},
		{"1.5", "0", "42", "0.5"}, // shown with the declared scale
	}
	want := [][]any{
		{[]byte("12345678.90"), []byte("123456789012345678"), []byte("-1234567890.12345"), []byte("0.00001")},
		{[]byte("-0.50"), []byte("-999999999999999999"), []byte("0.10000"), []byte("-0.99999")},
		{[]byte("1.50"), []byte("0"), []byte("42.00000"), []byte("0.50000")},
	}
	ins := "INSERT INTO t_dec (id, d1, d2, d3, d4) VALUES (?, ?, ?, ?, ?)"
	for i, r := range in[:2] {
		if _, err := exec(db, ins, i+1, r[0], r[1], r[2], r[3]); err != nil {
			return "", err
		}
	}
	if _, err := exec(db, fmt.Sprintf("INSERT INTO t_dec VALUES (3, %s, %s, %s, %s)", in[2][0], in[2][1], in[2][2], in[2][3])); err != nil {
		return "", err
	}
	if err := readBoth("t_dec", cols, want); err != nil {
		return "", err
	}
	// Metadata: precision and scale.
	rows, err := db.QueryContext(ctx(), "SELECT d1, d2, d3, d4 FROM t_dec")
	if err != nil {
		return "", err
	}
	cts, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return "", err
	}
	wantPS := [][2]int64{{10, 2}, {18, 0}, {15, 5}, {5, 5}}
	for i, ct := range cts {
		p, s, ok := ct.DecimalSize()
		if ct.DatabaseTypeName() != "DECIMAL" || !ok || p != wantPS[i][0] || s != wantPS[i][1] {
			return "", fmt.Errorf("column %s: %s DecimalSize=(%d,%d,%v), want DECIMAL (%d,%d)", cols[i], ct.DatabaseTypeName(), p, s, ok, wantPS[i][0], wantPS[i][1])
		}
	}
	// Exact comparison in SQL against a parameter.
	n, err := queryInt(db, "SELECT COUNT(*) FROM t_dec WHERE d1 = ?", "12345678.90")
	if err != nil || n != 1 {
		return "", fmt.Errorf("WHERE d1 = '12345678.90': %d rows, err %v", n, err)
	}
	return "DECIMAL(10,2)/(18,0)/(15,5)/(5,5) come back as the driver's string form ([]byte) with the declared scale, both protocols; DecimalSize() matches", nil
}

func checkFloat() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_float (id INT PRIMARY KEY, f FLOAT, d DOUBLE)"); err != nil {
		return "", err
	}
	fs := []float32{3.5, -1.25, 0.1, 1e10, 0}
	ds := []float64{math.Pi, -2.5e-300, 1e300, 0.1, math.MaxFloat64}
	var want [][]any
	for i := range fs {
		if _, err := exec(db, "INSERT INTO t_float VALUES (?, ?, ?)", i+1, fs[i], ds[i]); err != nil {
			return "", err
		}
		want = append(want, []any{fs[i], ds[i]})
	}
	// The same values as SQL literals (shortest round-trip text).
	for i := range fs {
		q := fmt.Sprintf("INSERT INTO t_float VALUES (%d, %v, %v)", i+11, fs[i], ds[i])
		if _, err := exec(db, q); err != nil {
			return "", err
		}
		want = append(want, []any{fs[i], ds[i]})
	}
	if err := readBoth("t_float", []string{"f", "d"}, want); err != nil {
		return "", err
	}
	return "FLOAT as float32 and DOUBLE as float64 (pi, 1e300, -2.5e-300, MaxFloat64) exact, binary parameters and literals, both protocols", nil
}

func checkString() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_str (id INT PRIMARY KEY, v VARCHAR(100), t TEXT, c CHAR(10))"); err != nil {
		return "", err
	}
	v := "Grüße, 世界! 😀 𝄞 it's \"q\" \\ back"
	t := strings.Repeat("aé世😀'\"\\\n\t", 500)
	c := "😀ab"
	// Row 1 binary parameters; row 2 client-side interpolation (escaping in a COM_QUERY).
	if _, err := exec(db, "INSERT INTO t_str VALUES (?, ?, ?, ?)", 1, v, t, c); err != nil {
		return "", err
	}
	if _, err := exec(idb, "INSERT INTO t_str VALUES (?, ?, ?, ?)", 2, v, t, c+"  "); err != nil {
		return "", err
	}
	want := [][]any{{[]byte(v), []byte(t), []byte(c)}, {[]byte(v), []byte(t), []byte(c)}}
	if err := readBoth("t_str", []string{"v", "t", "c"}, want); err != nil {
		return "", err
	}
	var s1, s2 string
	if err := db.QueryRowContext(ctx(), "SELECT v, t FROM t_str WHERE v = ? AND id = 1", v).Scan(&s1, &s2); err != nil {
		return "", fmt.Errorf("lookup by the UTF-8 value: %w", err)
	}
	if s1 != v || s2 != t {
		return "", fmt.Errorf("scan into string differs")
	}
	var chars, octets int64
	if err := db.QueryRowContext(ctx(), "SELECT CHAR_LENGTH(v), LENGTH(v) FROM t_str WHERE id = 1").Scan(&chars, &octets); err != nil {
		return "", err
	}
	if chars != int64(utf8.RuneCountInString(v)) || octets != int64(len(v)) {
		return "", fmt.Errorf("CHAR_LENGTH/LENGTH = %d/%d, want %d/%d", chars, octets, utf8.RuneCountInString(v), len(v))
	}
	return fmt.Sprintf("VARCHAR/TEXT/CHAR with 4-byte UTF-8 (U+1F600, U+1D11E), quotes and backslashes, %d-byte TEXT; binary parameters and interpolated text, both protocols; CHAR_LENGTH %d", len(t), chars), nil
}

func checkBlob() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_blob (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300), mb MEDIUMBLOB)"); err != nil {
		return "", err
	}
	all := make([]byte, 256)
	rev := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
		rev[i] = byte(255 - i)
	}
	if _, err := exec(db, "INSERT INTO t_blob (id, b, vb) VALUES (?, ?, ?)", 1, all, rev); err != nil {
		return "", err
	}
	// Hex literals in a COM_QUERY. (Interpolated _binary'...' literals, which
	// carry raw bytes in the query text, are checked by x_interpolate_params.)
	if _, err := exec(db, fmt.Sprintf("INSERT INTO t_blob (id, b, vb) VALUES (2, X'%x', 0x%x)", all, rev)); err != nil {
		return "", err
	}
	// Long data: a parameter above the driver's long-data size goes out as
	// COM_STMT_SEND_LONG_DATA.
	big := bytes.Repeat(all, 4096) // 1 MiB
	if _, err := exec(db, "INSERT INTO t_blob (id, mb) VALUES (?, ?)", 3, big); err != nil {
		return "", fmt.Errorf("1 MiB parameter: %w", err)
	}
	var gotBig []byte
	if err := db.QueryRowContext(ctx(), "SELECT mb FROM t_blob WHERE id = ?", 3).Scan(&gotBig); err != nil {
		return "", err
	}
	if !bytes.Equal(gotBig, big) {
		return "", fmt.Errorf("1 MiB MEDIUMBLOB came back with %d bytes, different", len(gotBig))
	}
	_, err := exec(db, "INSERT INTO t_blob (id, b) VALUES (?, ?)", 4, big)
	if me, ok := asMySQLError(err); !ok || me.Number != 1406 {
		return "", fmt.Errorf("1 MiB into BLOB: got %v, want error 1406", err)
	}
	if _, err := exec(db, "DELETE FROM t_blob WHERE id = 3"); err != nil {
		return "", err
	}
	want := [][]any{{all, rev}, {all, rev}}
	if err := readBoth("t_blob", []string{"b", "vb"}, want); err != nil {
		return "", err
	}
	var n int64
	var hx string
	if err := db.QueryRowContext(ctx(), "SELECT LENGTH(b), HEX(b) FROM t_blob WHERE id = 1").Scan(&n, &hx); err != nil {
		return "", err
	}
	if n != 256 || hx != strings.ToUpper(hex.EncodeToString(all)) {
		return "", fmt.Errorf("LENGTH/HEX on the server: %d %s", n, hx)
	}
	var got []byte
	if err := db.QueryRowContext(ctx(), "SELECT b FROM t_blob WHERE b = ?", all).Scan(&got); err != nil {
		return "", fmt.Errorf("lookup by the blob value: %w", err)
	}
	if !bytes.Equal(got, all) {
		return "", errors.New("lookup returned other bytes")
	}
	return "BLOB and VARBINARY with all 256 byte values as []byte: binary parameters and X'' literals, both protocols; LENGTH 256 and HEX match; lookup by blob parameter; 1 MiB MEDIUMBLOB via COM_STMT_SEND_LONG_DATA, 1406 for 1 MiB into BLOB", nil
}

func checkTemporal() (string, error) {
	if err := mustExec(db, `CREATE TABLE t_time (id INT PRIMARY KEY, d DATE, dt DATETIME, dt6 DATETIME(6),
		ts TIMESTAMP NULL, tm TIME)`); err != nil {
		return "", err
	}
	utc := func(y int, mo time.Month, d, h, mi, s, us int) time.Time {
		return time.Date(y, mo, d, h, mi, s, us*1000, time.UTC)
	}
	rows := [][]any{
		{utc(2024, 2, 29, 0, 0, 0, 0), utc(2024, 2, 29, 13, 14, 15, 0), utc(2024, 2, 29, 13, 14, 15, 123456), utc(2038, 1, 19, 3, 14, 7, 0), "838:59:59"},
		{utc(1000, 1, 1, 0, 0, 0, 0), utc(9999, 12, 31, 23, 59, 59, 0), utc(1970, 1, 1, 0, 0, 0, 1), utc(1970, 1, 1, 0, 0, 1, 0), "-01:02:03"},
		{utc(1999, 12, 31, 0, 0, 0, 0), utc(2000, 1, 1, 0, 0, 0, 0), utc(2000, 1, 1, 0, 0, 0, 500000), utc(2000, 1, 1, 0, 0, 0, 0), "00:00:00"},
	}
	var want [][]any
	for i, r := range rows {
		if _, err := exec(db, "INSERT INTO t_time VALUES (?, ?, ?, ?, ?, ?)", append([]any{i + 1}, r...)...); err != nil {
			return "", fmt.Errorf("binary parameters: %w", err)
		}
		want = append(want, []any{r[0], r[1], r[2], r[3], []byte(r[4].(string))})
	}
	// Literals in the canonical form.
	lit := "INSERT INTO t_time VALUES (11, '2024-02-29', '2024-02-29 13:14:15', '2024-02-29 13:14:15.123456', '2038-01-19 03:14:07', '838:59:59')"
	if _, err := exec(db, lit); err != nil {
		return "", err
	}
	want = append(want, want[0])
	if err := readBoth("t_time", []string{"d", "dt", "dt6", "ts", "tm"}, want); err != nil {
		return "", err
	}
	// Lookup by a time.Time parameter.
	n, err := queryInt(db, "SELECT COUNT(*) FROM t_time WHERE dt = ?", utc(2024, 2, 29, 13, 14, 15, 0))
	if err != nil || n != 2 {
		return "", fmt.Errorf("WHERE dt = time.Time: %d rows (want 2), %v", n, err)
	}
	return "DATE/DATETIME/DATETIME(6)/TIMESTAMP as time.Time (parseTime=true, UTC) incl. 1000-01-01, 9999-12-31 23:59:59, microseconds; TIME as its string (the driver has no TIME type) incl. 838:59:59 and negative; both protocols", nil
}

func checkNull() (string, error) {
	cols := []string{"i", "u", "dc", "f", "d", "s", "t", "b", "vb", "dt", "dtm", "ts", "tm", "e"}
	if err := mustExec(db, `CREATE TABLE t_null (id INT PRIMARY KEY, i INT, u BIGINT UNSIGNED, dc DECIMAL(5,2),
		f FLOAT, d DOUBLE, s VARCHAR(10), t TEXT, b BLOB, vb VARBINARY(10), dt DATE, dtm DATETIME,
		ts TIMESTAMP NULL, tm TIME, e ENUM('a','b'))`); err != nil {
		return "", err
	}
	nulls := make([]any, len(cols))
	if _, err := exec(db, "INSERT INTO t_null VALUES (?, "+placeholders(len(cols))+")", append([]any{1}, nulls...)...); err != nil {
		return "", err
	}
	if _, err := exec(db, "INSERT INTO t_null VALUES (2, "+strings.TrimSuffix(strings.Repeat("NULL, ", len(cols)), ", ")+")"); err != nil {
		return "", err
	}
	// Row 3 alternates NULL and values so that the NULL bitmap positions are checked.
	day := time.Date(2020, 5, 17, 0, 0, 0, 0, time.UTC)
	vals := []any{int64(7), nil, "1.25", nil, 2.5, nil, "t", nil, []byte{0, 1}, nil, day, nil, "01:02:03", nil}
	if _, err := exec(db, "INSERT INTO t_null VALUES (?, "+placeholders(len(cols))+")", append([]any{3}, vals...)...); err != nil {
		return "", err
	}
	// Row 4: the complement.
	vals4 := []any{nil, uint64(5), nil, float32(1.5), nil, "s", nil, []byte("b"), nil, day, nil, day, nil, "b"}
	if _, err := exec(db, "INSERT INTO t_null VALUES (?, "+placeholders(len(cols))+")", append([]any{4}, vals4...)...); err != nil {
		return "", err
	}
	want3 := []any{int64(7), nil, []byte("1.25"), nil, 2.5, nil, []byte("t"), nil, []byte{0, 1}, nil, day, nil, []byte("01:02:03"), nil}
	want4 := []any{nil, uint64(5), nil, float32(1.5), nil, []byte("s"), nil, []byte("b"), nil, day, nil, day, nil, []byte("b")}
	if err := readBoth("t_null", cols, [][]any{nulls, nulls, want3, want4}); err != nil {
		return "", err
	}
	// sql.Null* scans.
	var ni sql.NullInt64
	var nf sql.NullFloat64
	var ns sql.NullString
	var nt sql.NullTime
	var nb []byte
	if err := db.QueryRowContext(ctx(), "SELECT i, d, s, dtm, b FROM t_null WHERE id = ?", 1).Scan(&ni, &nf, &ns, &nt, &nb); err != nil {
		return "", err
	}
	if ni.Valid || nf.Valid || ns.Valid || nt.Valid || nb != nil {
		return "", fmt.Errorf("sql.Null* scan of NULLs: %v %v %v %v %v", ni, nf, ns, nt, nb)
	}
	n, err := queryInt(db, "SELECT COUNT(*) FROM t_null WHERE i IS NULL AND s IS NULL AND dt IS NULL")
	if err != nil || n != 2 {
		return "", fmt.Errorf("IS NULL count %d (want 2), %v", n, err)
	}
	return fmt.Sprintf("NULL in %d column types as nil (nil parameters and NULL literals), alternating NULL bitmaps, both protocols; sql.Null* not Valid", len(cols)), nil
}

func checkPrepared() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_prep (id INT PRIMARY KEY, name VARCHAR(20), score DOUBLE, born DATE)"); err != nil {
		return "", err
	}
	before, err := globalStatus("Com_stmt_prepare")
	if err != nil {
		return "", fmt.Errorf("SHOW GLOBAL STATUS: %w", err)
	}
	beforeExec, err := globalStatus("Com_stmt_execute")
	if err != nil {
		return "", err
	}
	// db.Prepare once, execute many times.
	ins, err := db.PrepareContext(ctx(), "INSERT INTO t_prep (id, name, score, born) VALUES (?, ?, ?, ?)")
	if err != nil {
		return "", err
	}
	defer ins.Close()
	type rec struct {
		name  any
		score any
		born  any
	}
	recs := map[int]rec{}
	for i := 1; i <= 6; i++ {
		r := rec{fmt.Sprintf("name-%d-é😀", i), float64(i) * 1.5, time.Date(2000+i, time.Month(i), i, 0, 0, 0, 0, time.UTC)}
		if i == 4 {
			r = rec{nil, nil, nil}
		}
		recs[i] = r
		res, err := ins.ExecContext(ctx(), i, r.name, r.score, r.born)
		if err != nil {
			return "", fmt.Errorf("execute %d: %w", i, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return "", fmt.Errorf("execute %d: %d rows affected", i, n)
		}
	}
	sel, err := db.PrepareContext(ctx(), "SELECT name, score, born FROM t_prep WHERE id = ?")
	if err != nil {
		return "", err
	}
	defer sel.Close()
	for i := 6; i >= 1; i-- {
		got, err := queryAll(stmtQuerier{sel}, "", i)
		if err != nil {
			return "", err
		}
		r := recs[i]
		want := []any{r.name, r.score, r.born}
		if s, ok := r.name.(string); ok {
			want[0] = []byte(s)
		}
		if err := compareRows(fmt.Sprintf("prepared select id=%d", i), got, [][]any{want}, []string{"name", "score", "born"}); err != nil {
			return "", err
		}
	}
	// A prepared statement used from several connections at once: database/sql
	// prepares it again on each connection it lands on.
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			conn, err := db.Conn(ctx())
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			st, err := conn.PrepareContext(ctx(), "SELECT ? + 0, CONCAT(?, 'x')")
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			for i := 0; i < 5; i++ {
				var n int64
				var s string
				if err := st.QueryRowContext(ctx(), g*100+i, fmt.Sprint(i)).Scan(&n, &s); err != nil {
					errs <- err
					return
				}
				if n != int64(g*100+i) || s != fmt.Sprint(i)+"x" {
					errs <- fmt.Errorf("goroutine %d: got %d %q", g, n, s)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return "", fmt.Errorf("concurrent statements: %w", err)
	}
	// The server must have seen prepares and executes (not client-side interpolation).
	after, err := globalStatus("Com_stmt_prepare")
	if err != nil {
		return "", err
	}
	afterExec, err := globalStatus("Com_stmt_execute")
	if err != nil {
		return "", err
	}
	if after-before < 6 || afterExec-beforeExec < 32 {
		return "", fmt.Errorf("Com_stmt_prepare grew by %d, Com_stmt_execute by %d: the statements were not prepared on the server", after-before, afterExec-beforeExec)
	}
	return fmt.Sprintf("COM_STMT_PREPARE/EXECUTE (interpolateParams=false): db.Prepare'd INSERT and SELECT executed 6 times each with different parameters incl. NULLs, 4 connections preparing concurrently; server counted %d prepares, %d executes", after-before, afterExec-beforeExec), nil
}

// x_prepare_errors: database/sql's Prepare reports bad statements at
// prepare time (MySQL parses and resolves the statement in COM_STMT_PREPARE).
func checkPrepareErrors() (string, error) {
	var bad []string
	for _, c := range []struct {
		sql  string
		want uint16
	}{
		{"SELECT * FROM t_prep_missing WHERE id = ?", 1146},
		{"SELEC 1 FROM t_prep WHERE id = ?", 1064},
		{"INSERT INTO t_prep_missing VALUES (?)", 1146},
		{"UPDATE t_prep SET nosuchcol = ? WHERE id = 1", 1054},
	} {
		st, err := db.PrepareContext(ctx(), c.sql)
		if st != nil {
			st.Close()
		}
		if me, ok := asMySQLError(err); !ok || me.Number != c.want {
			bad = append(bad, fmt.Sprintf("COM_STMT_PREPARE %q: got %v, want error %d", c.sql, err, c.want))
		}
	}
	if len(bad) > 0 {
		return "", errors.New(strings.Join(bad, "; "))
	}
	return "missing table 1146, syntax error 1064, unknown column 1054 at prepare time", nil
}

// stmtQuerier adapts a *sql.Stmt to queryAll (the query text is the statement's).
type stmtQuerier struct{ st *sql.Stmt }

func (s stmtQuerier) QueryContext(c context.Context, _ string, args ...any) (*sql.Rows, error) {
	return s.st.QueryContext(c, args...)
}
func (s stmtQuerier) ExecContext(c context.Context, _ string, args ...any) (sql.Result, error) {
	return s.st.ExecContext(c, args...)
}
func (s stmtQuerier) QueryRowContext(c context.Context, _ string, args ...any) *sql.Row {
	return s.st.QueryRowContext(c, args...)
}

func checkRollback() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_tx (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		return "", err
	}
	tx, err := db.BeginTx(ctx(), nil)
	if err != nil {
		return "", err
	}
	for i := 1; i <= 3; i++ {
		if _, err := exec(tx, "INSERT INTO t_tx VALUES (?, ?)", i, "r"); err != nil {
			tx.Rollback()
			return "", err
		}
	}
	inside, err := queryInt(tx, "SELECT COUNT(*) FROM t_tx")
	if err != nil {
		tx.Rollback()
		return "", err
	}
	if err := tx.Rollback(); err != nil {
		return "", err
	}
	after, err := queryInt(db, "SELECT COUNT(*) FROM t_tx")
	if err != nil {
		return "", err
	}
	if inside != 3 || after != 0 {
		return "", fmt.Errorf("rows inside the transaction %d (want 3), after rollback %d (want 0)", inside, after)
	}
	return "db.BeginTx, 3 inserts seen inside, tx.Rollback leaves 0 rows", nil
}

func checkCommit() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_txc (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		return "", err
	}
	other := open(opts{user: sha2U, pw: sha2Pw, maxOpen: 1})
	defer other.Close()
	tx, err := db.BeginTx(ctx(), nil)
	if err != nil {
		return "", err
	}
	txID, err := queryInt(tx, "SELECT CONNECTION_ID()")
	if err != nil {
		tx.Rollback()
		return "", err
	}
	for i := 1; i <= 2; i++ {
		if _, err := exec(tx, "INSERT INTO t_txc VALUES (?, ?)", i, "c"); err != nil {
			tx.Rollback()
			return "", err
		}
	}
	otherID, err := queryInt(other, "SELECT CONNECTION_ID()")
	if err != nil {
		tx.Rollback()
		return "", err
	}
	before, err := queryInt(other, "SELECT COUNT(*) FROM t_txc")
	if err != nil {
		tx.Rollback()
		return "", err
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	after, err := queryInt(other, "SELECT COUNT(*) FROM t_txc")
	if err != nil {
		return "", err
	}
	if otherID == txID || before != 0 || after != 2 {
		return "", fmt.Errorf("connection %d vs %d: other connection saw %d rows before commit (want 0), %d after (want 2)", txID, otherID, before, after)
	}
	return fmt.Sprintf("2 rows committed on connection %d: invisible to connection %d before commit, visible after", txID, otherID), nil
}

func checkDuplicate() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_dup (id INT PRIMARY KEY, email VARCHAR(50) UNIQUE)"); err != nil {
		return "", err
	}
	if _, err := exec(db, "INSERT INTO t_dup VALUES (?, ?)", 1, "a@x"); err != nil {
		return "", err
	}
	var details []string
	for _, c := range []struct {
		label string
		q     querier
		id    int
		email string
	}{{"primary key, prepared", db, 1, "b@x"}, {"unique key, text", idb, 2, "a@x"}} {
		_, err := c.q.ExecContext(ctx(), "INSERT INTO t_dup VALUES (?, ?)", c.id, c.email)
		me, ok := asMySQLError(err)
		if !ok {
			return "", fmt.Errorf("%s: got %v (%T), want *mysql.MySQLError 1062", c.label, err, err)
		}
		if me.Number != 1062 || string(me.SQLState[:]) != "23000" || !strings.Contains(me.Message, "Duplicate entry") {
			return "", fmt.Errorf("%s: got %d (%s) %q, want 1062 (23000) Duplicate entry", c.label, me.Number, me.SQLState, me.Message)
		}
		details = append(details, me.Message)
	}
	n, err := queryInt(db, "SELECT COUNT(*) FROM t_dup")
	if err != nil || n != 1 {
		return "", fmt.Errorf("rows after the failed inserts: %d, %v", n, err)
	}
	return "*mysql.MySQLError Number 1062 SQLState 23000: " + strings.Join(details, " | "), nil
}

func checkLastInsertID() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_ai (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		return "", err
	}
	conn, err := db.Conn(ctx())
	if err != nil {
		return "", err
	}
	defer conn.Close()
	lastID := func(r sql.Result) int64 { n, _ := r.LastInsertId(); return n }
	r, err := exec(conn, "INSERT INTO t_ai (v) VALUES (?)", "a")
	if err != nil {
		return "", err
	}
	first := lastID(r)
	r, err = exec(conn, "INSERT INTO t_ai (v) VALUES ('b'), ('c'), ('d')")
	if err != nil {
		return "", err
	}
	multi := lastID(r)
	sqlLast, err := queryInt(conn, "SELECT LAST_INSERT_ID()")
	if err != nil {
		return "", err
	}
	r, err = exec(conn, "INSERT INTO t_ai (id, v) VALUES (?, ?)", 100, "e")
	if err != nil {
		return "", err
	}
	explicit := lastID(r)
	r, err = exec(conn, "INSERT INTO t_ai (v) VALUES (?), (?)", "f", "g")
	if err != nil {
		return "", err
	}
	after := lastID(r)
	if first != 1 || multi != 2 || sqlLast != 2 || explicit != 100 || after != 101 {
		return "", fmt.Errorf("LastInsertId: single %d (want 1), 3-row insert %d (want 2), SELECT LAST_INSERT_ID() %d (want 2), explicit id %d (want 100), next 2-row insert %d (want 101)",
			first, multi, sqlLast, explicit, after)
	}
	return "Result.LastInsertId 1, then 2 for a 3-row insert (first id) = SELECT LAST_INSERT_ID(); explicit id 100; next 2-row insert 101", nil
}

func checkAffected() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_aff (id INT PRIMARY KEY, v INT)",
		"INSERT INTO t_aff VALUES (1, 10), (2, 20), (3, 30), (4, 40), (5, 50)"); err != nil {
		return "", err
	}
	ra := func(q querier, s string, args ...any) (int64, error) {
		r, err := exec(q, s, args...)
		if err != nil {
			return -1, err
		}
		return r.RowsAffected()
	}
	type step struct {
		q    querier
		sql  string
		args []any
		want int64
		what string
	}
	fdb := open(opts{clientFoundRows: true, maxOpen: 1})
	defer fdb.Close()
	steps := []step{
		{db, "UPDATE t_aff SET v = v + 1 WHERE id <= ?", []any{3}, 3, "UPDATE of 3 rows (prepared)"},
		{db, "UPDATE t_aff SET v = v + 1 WHERE id > 3", nil, 2, "UPDATE of 2 rows (text)"},
		{db, "UPDATE t_aff SET v = 999 WHERE id = ?", []any{42}, 0, "UPDATE matching nothing"},
		{db, "UPDATE t_aff SET v = v WHERE id <= 2", nil, 0, "UPDATE changing nothing, without CLIENT_FOUND_ROWS (driver default: changed rows)"},
		{fdb, "UPDATE t_aff SET v = v WHERE id <= 2", nil, 2, "UPDATE changing nothing, clientFoundRows=true (matched rows)"},
		{db, "DELETE FROM t_aff WHERE id >= ?", []any{4}, 2, "DELETE of 2 rows (prepared)"},
		{db, "DELETE FROM t_aff WHERE id = 1", nil, 1, "DELETE of 1 row (text)"},
		{db, "DELETE FROM t_aff WHERE id = 1", nil, 0, "DELETE of nothing"},
	}
	var bad []string
	for _, s := range steps {
		n, err := ra(s.q, s.sql, s.args...)
		if err != nil {
			return "", err
		}
		if n != s.want {
			bad = append(bad, fmt.Sprintf("%s: RowsAffected %d, want %d", s.what, n, s.want))
		}
	}
	if len(bad) > 0 {
		return "", errors.New(strings.Join(bad, "; ") + " (MySQL reports changed rows unless the client sets CLIENT_FOUND_ROWS in its handshake)")
	}
	return "RowsAffected for UPDATE 3/2/0, no-op UPDATE 0 (changed rows, driver default) and 2 with clientFoundRows=true, DELETE 2/1/0", nil
}

func checkMulti() (string, error) {
	if err := mustExec(mdb, "CREATE TABLE t_multi (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		return "", err
	}
	// Exec of several statements: the driver keeps every statement's counts
	// (mysql.Result through sql.Conn.Raw); RowsAffected is the last one's.
	conn, err := mdb.Conn(ctx())
	if err != nil {
		return "", err
	}
	var all []int64
	err = conn.Raw(func(dc any) error {
		res, err := dc.(driver.ExecerContext).ExecContext(ctx(),
			"INSERT INTO t_multi VALUES (1, 'a'); INSERT INTO t_multi VALUES (2, 'b'), (3, 'c'); UPDATE t_multi SET v = 'z' WHERE id = 1", nil)
		if err != nil {
			return err
		}
		mr := res.(mysql.Result)
		all = mr.AllRowsAffected()
		return nil
	})
	conn.Close()
	if err != nil {
		return "", fmt.Errorf("multi-statement Exec: %w", err)
	}
	if fmt.Sprint(all) != "[1 2 1]" {
		return "", fmt.Errorf("multi-statement Exec: AllRowsAffected %v, want [1 2 1]", all)
	}
	rows, err := mdb.QueryContext(ctx(), "SELECT 1 AS a; SELECT 'x' AS b, 2 AS c; SELECT id, v FROM t_multi ORDER BY id")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var sets []string
	for {
		cols, err := rows.Columns()
		if err != nil {
			return "", err
		}
		var vals []string
		for rows.Next() {
			v := make([]any, len(cols))
			p := make([]any, len(cols))
			for i := range v {
				p[i] = &v[i]
			}
			if err := rows.Scan(p...); err != nil {
				return "", err
			}
			var parts []string
			for _, x := range v {
				if b, ok := x.([]byte); ok {
					parts = append(parts, string(b))
				} else {
					parts = append(parts, fmt.Sprint(x))
				}
			}
			vals = append(vals, strings.Join(parts, ","))
		}
		sets = append(sets, strings.Join(cols, ",")+"="+strings.Join(vals, "|"))
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	got := strings.Join(sets, " ; ")
	want := "a=1 ; b,c=x,2 ; id,v=1,z|2,b|3,c"
	if got != want {
		return "", fmt.Errorf("result sets %q, want %q", got, want)
	}
	// An error in the second statement surfaces after the first result set.
	rows2, err := mdb.QueryContext(ctx(), "SELECT 7; SELECT * FROM t_multi_missing; SELECT 8")
	if err != nil {
		return "", err
	}
	var first int64
	for rows2.Next() {
		if err := rows2.Scan(&first); err != nil {
			rows2.Close()
			return "", err
		}
	}
	more := rows2.NextResultSet()
	err = rows2.Err()
	rows2.Close()
	me, ok := asMySQLError(err)
	if first != 7 || more || !ok || me.Number != 1146 {
		return "", fmt.Errorf("error in the second statement: first set %d, NextResultSet %v, err %v (want 7, false, 1146)", first, more, err)
	}
	// The connection is usable afterwards.
	if n, err := queryInt(mdb, "SELECT COUNT(*) FROM t_multi"); err != nil || n != 3 {
		return "", fmt.Errorf("after the error: %d, %v", n, err)
	}
	return "multiStatements=true: 3 result sets via rows.NextResultSet() (" + got + "); multi-statement Exec AllRowsAffected [1 2 1]; an error in statement 2 surfaces as 1146 after set 1", nil
}

func checkPoolReuse() (string, error) {
	p := open(opts{maxOpen: 1, maxIdle: 1})
	defer p.Close()
	c1, err := p.Conn(ctx())
	if err != nil {
		return "", err
	}
	id1, err := queryInt(c1, "SELECT CONNECTION_ID()")
	if err != nil {
		c1.Close()
		return "", err
	}
	if err := mustExec(c1, "SET @pool_marker = 42", "SET SESSION sql_mode = 'ANSI_QUOTES'",
		"CREATE TEMPORARY TABLE t_pool_tmp (x INT)", "INSERT INTO t_pool_tmp VALUES (1)"); err != nil {
		c1.Close()
		return "", err
	}
	c1.Close() // back to database/sql's pool
	c2, err := p.Conn(ctx())
	if err != nil {
		return "", err
	}
	defer c2.Close()
	id2, err := queryInt(c2, "SELECT CONNECTION_ID()")
	if err != nil {
		return "", err
	}
	var marker sql.NullInt64
	var mode string
	if err := c2.QueryRowContext(ctx(), "SELECT @pool_marker, @@SESSION.sql_mode").Scan(&marker, &mode); err != nil {
		return "", err
	}
	tmp, tmpErr := queryInt(c2, "SELECT COUNT(*) FROM t_pool_tmp")
	if id1 != id2 {
		return "", fmt.Errorf("connection %d returned to a pool of 1 and taken again came back as %d", id1, id2)
	}
	// go-sql-driver's ResetSession (driver.SessionResetter) only checks that the
	// idle socket is alive; it sends neither COM_RESET_CONNECTION nor
	// COM_CHANGE_USER, so on MySQL the session state survives the round trip
	// through the pool. The server must keep it too.
	if !marker.Valid || marker.Int64 != 42 || mode != "ANSI_QUOTES" || tmpErr != nil || tmp != 1 {
		return "", fmt.Errorf("state on reused connection %d: @pool_marker %v, sql_mode %q, temporary table %d/%v; "+
			"the driver sends no reset, so MySQL keeps all three", id2, marker, mode, tmp, tmpErr)
	}
	return "", notApplicable{fmt.Sprintf("database/sql reuses connection %d (same CONNECTION_ID, works), but go-sql-driver %s has no session reset: "+
		"ResetSession only checks liveness, no COM_RESET_CONNECTION/COM_CHANGE_USER; user variable, sql_mode and temporary table survive, as on MySQL",
		id1, driverVersion())}
}

func checkPoolConcurrency() (string, error) {
	const goroutines, perG, maxOpen = 16, 50, 8
	p := open(opts{maxOpen: maxOpen, maxIdle: maxOpen})
	defer p.Close()
	if err := mustExec(p, "CREATE TABLE t_conc (g INT, i INT, PRIMARY KEY (g, i))"); err != nil {
		return "", err
	}
	var mu sync.Mutex
	ids := map[int64]int{}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	start := time.Now()
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < perG; i++ {
				var n, id int64
				var err error
				want := int64(g*1000 + i)
				if i%2 == 0 {
					err = p.QueryRowContext(ctx(), "SELECT ? + 0, CONNECTION_ID()", want).Scan(&n, &id)
				} else {
					err = p.QueryRowContext(ctx(), fmt.Sprintf("SELECT %d, CONNECTION_ID()", want)).Scan(&n, &id)
				}
				if err == nil && n != want {
					err = fmt.Errorf("goroutine %d query %d: got %d, want %d", g, i, n, want)
				}
				if err == nil && i%5 == 0 {
					_, err = p.ExecContext(ctx(), "INSERT INTO t_conc VALUES (?, ?)", g, i)
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				ids[id]++
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return "", err
	}
	elapsed := time.Since(start)
	n, err := queryInt(p, "SELECT COUNT(*) FROM t_conc")
	if err != nil {
		return "", err
	}
	sum, err := queryInt(p, "SELECT SUM(g * 1000 + i) FROM t_conc")
	if err != nil {
		return "", err
	}
	var wantSum int64
	for g := 0; g < goroutines; g++ {
		for i := 0; i < perG; i += 5 {
			wantSum += int64(g*1000 + i)
		}
	}
	total := 0
	for _, c := range ids {
		total += c
	}
	st := p.Stats()
	if n != goroutines*perG/5 || sum != wantSum || total != goroutines*perG || len(ids) > maxOpen || len(ids) < 2 || st.OpenConnections > maxOpen {
		return "", fmt.Errorf("rows %d (want %d), sum %d (want %d), queries %d, distinct connections %d (want 2..%d), open %d",
			n, goroutines*perG/5, sum, wantSum, total, len(ids), maxOpen, st.OpenConnections)
	}
	return fmt.Sprintf("%d goroutines x %d queries (text and prepared) + %d inserts through SetMaxOpenConns(%d): all results right, %d distinct connections, %d waits, %.1f s",
		goroutines, perG, n, maxOpen, len(ids), st.WaitCount, elapsed.Seconds()), nil
}

// x_pool_kill: a pooled idle connection killed by the server is noticed by the
// driver's liveness check and replaced transparently.
func checkPoolKill() (string, error) {
	p := open(opts{maxOpen: 1, maxIdle: 1})
	defer p.Close()
	id1, err := queryInt(p, "SELECT CONNECTION_ID()")
	if err != nil {
		return "", err
	}
	if _, err := exec(db, fmt.Sprintf("KILL %d", id1)); err != nil {
		return "", err
	}
	time.Sleep(100 * time.Millisecond)
	id2, err := queryInt(p, "SELECT CONNECTION_ID()")
	if err != nil {
		return "", fmt.Errorf("first query after the pooled connection was killed: %w", err)
	}
	if id2 == id1 {
		return "", fmt.Errorf("killed connection %d still answers", id1)
	}
	return fmt.Sprintf("idle pooled connection %d killed by KILL: the pool's liveness check dropped it, next query ran on %d", id1, id2), nil
}

func checkUnixSocket() (string, error) {
	if socket == "" {
		return "", errors.New("TS_SOCKET is empty")
	}
	d := open(opts{user: sha2U, pw: sha2Pw, unixSocket: true})
	defer d.Close()
	var who, v string
	if err := d.QueryRowContext(ctx(), "SELECT CURRENT_USER(), ?", "via-socket").Scan(&who, &v); err != nil {
		return "", err
	}
	if !strings.HasPrefix(who, sha2U+"@") || v != "via-socket" {
		return "", fmt.Errorf("got %q %q", who, v)
	}
	return "caching_sha2_password over the Unix socket, prepared SELECT as " + who, nil
}

func checkInterpolate() (string, error) {
	s := "it's \\ \"q\" \x00 \x1a 😀"
	b := []byte{0, 1, '\'', '\\', '"', 0x1a, 0xff, '\n', '\r'}
	t := time.Date(2021, 3, 4, 5, 6, 7, 890000000, time.UTC)
	var gs string
	var gb []byte
	var gi int64
	var gu uint64
	var gf float64
	var gt time.Time
	var gn sql.NullString
	err := idb.QueryRowContext(ctx(), "SELECT ?, ?, ?, ?, ?, CAST(? AS DATETIME(6)), ?", s, b, int64(-5), uint64(math.MaxUint64), 2.5, t, nil).
		Scan(&gs, &gb, &gi, &gu, &gf, &gt, &gn)
	if err != nil {
		return "", fmt.Errorf("COM_QUERY with interpolated values, incl. _binary'...' holding non-UTF-8 bytes (MySQL takes any bytes inside a _binary string): %w", err)
	}
	if gs != s || !bytes.Equal(gb, b) || gi != -5 || gu != math.MaxUint64 || gf != 2.5 || !gt.Equal(t) || gn.Valid {
		return "", fmt.Errorf("got %q %q %d %d %v %v %v", gs, gb, gi, gu, gf, gt, gn)
	}
	before, err := globalStatus("Com_stmt_prepare")
	if err != nil {
		return "", err
	}
	for i := 0; i < 5; i++ {
		if _, err := queryInt(idb, "SELECT ? + 1", i); err != nil {
			return "", err
		}
	}
	after, err := globalStatus("Com_stmt_prepare")
	if err != nil {
		return "", err
	}
	if after != before {
		return "", fmt.Errorf("interpolateParams=true still prepared %d statements on the server", after-before)
	}
	return "interpolateParams=true: strings with quotes/backslash/NUL/^Z, _binary'' bytes, ints, uint64 max, float, time.Time, NULL interpolated into COM_QUERY and read back exactly; no server-side prepares", nil
}

func checkTxOptions() (string, error) {
	if err := mustExec(db, "CREATE TABLE t_txo (id INT PRIMARY KEY)", "INSERT INTO t_txo VALUES (1)"); err != nil {
		return "", err
	}
	tx, err := db.BeginTx(ctx(), &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return "", err
	}
	n, err := queryInt(tx, "SELECT COUNT(*) FROM t_txo")
	if err != nil {
		tx.Rollback()
		return "", err
	}
	_, werr := tx.ExecContext(ctx(), "INSERT INTO t_txo VALUES (2)")
	if err := tx.Rollback(); err != nil {
		return "", err
	}
	me, ok := asMySQLError(werr)
	if n != 1 || !ok || me.Number != 1792 {
		return "", fmt.Errorf("read-only transaction: count %d, write got %v (want 1792)", n, werr)
	}
	// The next transaction on the pool is read-write again.
	tx, err = db.BeginTx(ctx(), nil)
	if err != nil {
		return "", err
	}
	if _, err := exec(tx, "INSERT INTO t_txo VALUES (3)"); err != nil {
		tx.Rollback()
		return "", err
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	if n, err := queryInt(db, "SELECT COUNT(*) FROM t_txo"); err != nil || n != 2 {
		return "", fmt.Errorf("after a read-write commit: %d rows, %v", n, err)
	}
	return "BeginTx(ReadOnly, RepeatableRead): reads work, a write gets 1792; the next transaction writes and commits", nil
}

// ---------------------------------------------------------------- main

func driverVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == driverModule {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	emit(map[string]string{"client": "go-sql-driver/mysql", "version": driverVersion() + " (database/sql, " + runtime.Version() + ")"})
	// Never outlive the contract's 120 s.
	go func() {
		time.Sleep(110 * time.Second)
		fmt.Fprintln(os.Stderr, "go client: giving up after 110 s")
		os.Exit(3)
	}()
	db = open(opts{})
	idb = open(opts{interpolate: true})
	mdb = open(opts{multiStatements: true})
	defer func() {
		for _, d := range openDBs {
			d.Close()
		}
	}()

	checks := []struct {
		name string
		fn   func() (string, error)
	}{
		{"connect_native", checkConnect(nativeU, nativePw)},
		{"connect_sha2", checkConnect(sha2U, sha2Pw)},
		{"connect_tls", checkTLS},
		{"types_integer", checkIntegers},
		{"types_decimal", checkDecimal},
		{"types_float", checkFloat},
		{"types_string", checkString},
		{"types_blob", checkBlob},
		{"types_temporal", checkTemporal},
		{"types_null", checkNull},
		{"prepared", checkPrepared},
		{"tx_rollback", checkRollback},
		{"tx_commit", checkCommit},
		{"duplicate_key", checkDuplicate},
		{"last_insert_id", checkLastInsertID},
		{"affected_rows", checkAffected},
		{"multi_results", checkMulti},
		{"pool_reuse", checkPoolReuse},
		{"x_pool_concurrency", checkPoolConcurrency},
		{"x_pool_kill", checkPoolKill},
		{"x_unix_socket", checkUnixSocket},
		{"x_interpolate_params", checkInterpolate},
		{"x_tx_options", checkTxOptions},
		{"x_prepare_errors", checkPrepareErrors},
		{"x_tls_resumption", checkTLSResumption},
	}
	only := map[string]bool{}
	for _, a := range os.Args[1:] {
		only[a] = true
	}
	for _, c := range checks {
		if len(only) > 0 && !only[c.name] {
			continue
		}
		check(c.name, c.fn)
	}
}
