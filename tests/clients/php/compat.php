<?php
// Turnstile client compatibility suite: PHP's mysqli and PDO_mysql (both on
// mysqlnd).  `php compat.php mysqli|pdo`; the contract (environment in, JSON
// lines out) is in tests/clients/README.md.
declare(strict_types=1);

error_reporting(E_ALL);
ini_set('display_errors', 'stderr');

final class NotApplicable extends Exception {}
final class CheckFailed extends Exception {}

function env(string $name): string
{
    $v = getenv($name);
    if ($v === false) {
        fwrite(STDERR, "missing environment variable $name\n");
        exit(2);
    }
    return $v;
}

function emit(array $obj): void
{
    echo json_encode($obj, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
    flush();
}

/** Run one check: the closure returns a detail string (pass), throws
 *  NotApplicable (n/a) or anything else (fail). */
function check(string $feature, callable $fn): void
{
    $t0 = microtime(true);
    try {
        $detail = (string)$fn();
        $status = 'pass';
    } catch (NotApplicable $e) {
        $status = 'n/a';
        $detail = $e->getMessage();
    } catch (Throwable $e) {
        $status = 'fail';
        $detail = get_class($e) . ($e->getCode() ? ' [' . $e->getCode() . ']' : '') . ': ' . $e->getMessage();
        if (!($e instanceof CheckFailed)) {
            $detail .= ' (at ' . basename($e->getFile()) . ':' . $e->getLine() . ')';
        }
        fwrite(STDERR, "$feature: $detail\n" . $e->getTraceAsString() . "\n");
    }
    $ms = (int)round((microtime(true) - $t0) * 1000);
    fwrite(STDERR, sprintf("%-22s %-4s %5d ms  %s\n", $feature, $status, $ms, $detail));
    emit(['feature' => $feature, 'status' => $status, 'detail' => $detail]);
}

function show($v): string
{
    if (is_string($v)) {
        return preg_match('//u', $v) && !preg_match('/[\x00-\x1f\x7f]/', $v)
            ? var_export($v, true) : 'hex:' . bin2hex($v);
    }
    return str_replace("\n", ' ', var_export($v, true));
}

/** Strict (===) comparison, types included. */
function eq($got, $want, string $what): void
{
    if ($got !== $want) {
        throw new CheckFailed("$what: got " . show($got) . ', want ' . show($want));
    }
}

function ok(bool $cond, string $what): void
{
    if (!$cond) {
        throw new CheckFailed($what);
    }
}

$HOST = env('TS_HOST');
$PORT = (int)env('TS_PORT');
$SOCKET = env('TS_SOCKET');
$DB = env('TS_DB');
$NATIVE = [env('TS_NATIVE_USER'), env('TS_NATIVE_PASSWORD')];
$SHA2 = [env('TS_SHA2_USER'), env('TS_SHA2_PASSWORD')];

// Shared test data.
const U64_MAX = '18446744073709551615';
function int_rows(): array
{
    // ti tiu si siu mi miu i iu bi biu
    return [
        'min' => [-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, PHP_INT_MIN, 0],
        'max' => [127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, PHP_INT_MAX, PHP_INT_MAX],
        'mid' => [-1, 1, -2, 2, -3, 3, -4, 4, -5, 5],
    ];
}
const INT_COLS = ['ti', 'tiu', 'si', 'siu', 'mi', 'miu', 'i', 'iu', 'bi', 'biu'];
const INT_DDL = 'CREATE TABLE t_int (k VARCHAR(8) PRIMARY KEY, ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT,'
    . ' siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,'
    . ' bi BIGINT, biu BIGINT UNSIGNED)';

// DECIMAL: value inserted => value the server must return (declared scale).
const DEC_DDL = 'CREATE TABLE t_dec (id INT PRIMARY KEY, d102 DECIMAL(10,2), d180 DECIMAL(18,0), d155 DECIMAL(15,5), d194 DECIMAL(19,4))';
function dec_rows(): array
{
    return [
        1 => [['12345678.90', '999999999999999999', '1234567890.12345', '-12345.6789'],
              ['12345678.90', '999999999999999999', '1234567890.12345', '-12345.6789']],
        2 => [['-0.05', '-999999999999999999', '0.1', '0'],
              ['-0.05', '-999999999999999999', '0.10000', '0.0000']],
        3 => [['7', '0', '-3.5', '100000000000.5'],
              ['7.00', '0', '-3.50000', '100000000000.5000']],
    ];
}
const DEC_COLS = ['d102', 'd180', 'd155', 'd194'];

const FLT_DDL = 'CREATE TABLE t_float (id INT PRIMARY KEY, f FLOAT, d DOUBLE)';
function flt_rows(): array
{
    return [1 => [1.5, 0.1], 2 => [-0.25, 3.141592653589793], 3 => [0.1, 1.0E+300], 4 => [12345.5, -2.5E-300]];
}

const STR_DDL = 'CREATE TABLE t_str (id INT PRIMARY KEY, v VARCHAR(100), t TEXT) DEFAULT CHARSET=utf8mb4';
function str_rows(): array
{
    return [
        1 => ["h\u{e9}llo w\u{f6}rld", "caf\u{e9} \u{2014} na\u{ef}ve"],
        2 => ["grin \u{1F600} 4-byte", "\u{65e5}\u{672c}\u{8a9e} \u{1F680}\u{1F30D} \u{10348}"],
        3 => ['', "quotes ' \" back\\slash\ttab\nnewline"],
        4 => [str_repeat("\u{1F600}", 100), str_repeat("\u{00fc}\u{1F600}", 5000)],
    ];
}

function all_bytes(): string
{
    $s = '';
    for ($i = 0; $i < 256; $i++) {
        $s .= chr($i);
    }
    return $s;
}
const BLOB_DDL = 'CREATE TABLE t_blob (id INT PRIMARY KEY, b BLOB, vb VARBINARY(600))';
function blob_rows(): array
{
    $a = all_bytes();
    // Row 3 goes through the text protocol as an escaped string literal: raw bytes (not UTF-8) in COM_QUERY.
    return [1 => [$a, strrev($a)], 2 => [str_repeat($a, 255), $a . $a], 3 => [strrev($a), "\x80\xff\x00'\"\\\x1a\xc3("], 4 => ['', "\x00"]];
}

const TEMP_DDL = 'CREATE TABLE t_temporal (id INT PRIMARY KEY, d DATE, dt DATETIME, ts TIMESTAMP NULL, tm TIME, dt6 DATETIME(6))';
function temp_rows(): array
{
    return [
        1 => ['2024-02-29', '2024-02-29 13:45:59', '2024-02-29 13:45:59', '13:45:59', '2024-02-29 13:45:59.123456'],
        2 => ['1000-01-01', '1000-01-01 00:00:00', '1970-01-01 00:00:01', '-838:59:59', '1999-12-31 23:59:59.000001'],
        3 => ['9999-12-31', '9999-12-31 23:59:59', '2038-01-19 03:14:07', '838:59:59', '2000-01-01 00:00:00.500000'],
    ];
}

/** The temporal strings decoded into PHP's date/time type and formatted back. */
function temporal_decode(array $row): array
{
    [$d, $dt, $ts, $tm, $dt6] = $row;
    $out = [];
    foreach ([[$d, 'Y-m-d'], [$dt, 'Y-m-d H:i:s'], [$ts, 'Y-m-d H:i:s'], [$dt6, 'Y-m-d H:i:s.u']] as [$v, $fmt]) {
        $o = DateTimeImmutable::createFromFormat('!' . $fmt, (string)$v, new DateTimeZone('UTC'));
        if ($o === false) {
            throw new CheckFailed('not a ' . $fmt . ' value: ' . show($v));
        }
        $out[] = $o->format($fmt);
    }
    // TIME is a duration in MySQL (-838:59:59..838:59:59): check its shape and seconds.
    if (!preg_match('/^(-?)(\d{2,3}):(\d{2}):(\d{2})$/', (string)$tm, $m)) {
        throw new CheckFailed('not a TIME value: ' . show($tm));
    }
    $out[] = ($m[1] === '-' ? -1 : 1) * ((int)$m[2] * 3600 + (int)$m[3] * 60 + (int)$m[4]);
    return $out;
}

const NULL_DDL = 'CREATE TABLE t_null (id INT PRIMARY KEY, ti TINYINT, bi BIGINT UNSIGNED, dc DECIMAL(10,2), f FLOAT,'
    . ' db DOUBLE, vc VARCHAR(10), tx TEXT, bl BLOB, vb VARBINARY(10), d DATE, dt DATETIME, ts TIMESTAMP NULL,'
    . ' tm TIME, yr YEAR, en ENUM(\'a\',\'b\'), js JSON, bt BIT(8))';
const NULL_COLS = ['ti', 'bi', 'dc', 'f', 'db', 'vc', 'tx', 'bl', 'vb', 'd', 'dt', 'ts', 'tm', 'yr', 'en', 'js', 'bt'];

$mode = $argv[1] ?? '';
if ($mode === 'mysqli') {
    require __DIR__ . '/mysqli_checks.php';
} elseif ($mode === 'pdo') {
    require __DIR__ . '/pdo_checks.php';
} else {
    fwrite(STDERR, "usage: compat.php mysqli|pdo\n");
    exit(2);
}
