"""MariaDB's functions that MariaDB's own test files call and Turnstile
lacked: JSON_OVERLAPS, JSON_VALUE, JSON_EXISTS, JSON_MERGE /
JSON_MERGE_PRESERVE, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_COMPACT,
JSON_SEARCH, ENCODE/DECODE, CHR, EXPORT_SET, CRC32C and CRC32's two-argument form, RANDOM_BYTES. Every
expected value below was read from MariaDB 10.11 for the same statement
(values compared as text: bytes as latin1, or through HEX()), without a
table and over a table's rows.
Hostile arguments are tests/security/test_sec_mariadb_functions.py.
"""

from __future__ import annotations

import pymysql
import pytest

from helpers import clients

# (statement, MariaDB 10.11's rows as text, or its error code)
CASES = [
    ('SELECT JSON_OVERLAPS(\'[1,2,3]\', \'[3,4]\'), JSON_OVERLAPS(\'[1,2]\', \'[3,4]\'), JSON_OVERLAPS(\'{"a":1,"b":2}\', \'{"b":2}\'), JSON_OVERLAPS(\'{"a":1}\', \'{"a":2}\')', [('1', '0', '1', '0')]),
    ("SELECT JSON_OVERLAPS('1', '1'), JSON_OVERLAPS('[1]', '1'), JSON_OVERLAPS('1', '[1]'), JSON_OVERLAPS(NULL, '1'), JSON_OVERLAPS('[[1,2]]', '[1,2]'), JSON_OVERLAPS('[[1,2]]', '[[1,2]]')", [('1', '1', '1', None, '0', '1')]),
    ('SELECT JSON_OVERLAPS(\'{"a":[1,2]}\', \'{"a":[1,2]}\'), JSON_OVERLAPS(\'{"a":1}\', \'[{"a":1}]\'), JSON_OVERLAPS(\'"a"\', \'"a"\'), JSON_OVERLAPS(\'true\', \'true\'), JSON_OVERLAPS(\'[1,"a"]\', \'["a"]\'), JSON_OVERLAPS(\'1.0\', \'1\')', [('1', '1', '1', '1', '1', '1')]),
    ('SELECT JSON_VALUE(\'{"a":1}\', \'$.a\'), JSON_VALUE(\'{"a":"x"}\', \'$.a\'), JSON_VALUE(\'{"a":[1]}\', \'$.a\'), JSON_VALUE(\'{"a":null}\', \'$.a\'), JSON_VALUE(\'{"a":true}\', \'$.a\')', [('1', 'x', None, None, '1')]),
    ('SELECT JSON_VALUE(\'[1,2]\', \'$[1]\'), JSON_VALUE(\'{"a":1}\', \'$.b\'), JSON_VALUE(NULL, \'$\'), JSON_VALUE(\'{"a":"\\\\u00e9"}\', \'$.a\'), JSON_VALUE(\'[1\', \'$\'), JSON_VALUE(\'[1]\', \'x\')', [('2', None, None, 'é', None, None)]),
    ('SELECT JSON_EXISTS(\'{"a":1}\', \'$.a\'), JSON_EXISTS(\'{"a":1}\', \'$.b\'), JSON_EXISTS(\'[1]\', \'$[0]\'), JSON_EXISTS(NULL, \'$\'), JSON_EXISTS(\'{"a":1}\', NULL)', [('1', '0', '1', None, None)]),
    ('SELECT JSON_MERGE(\'[1]\', \'[2]\'), JSON_MERGE(\'{"a":1}\', \'{"a":2}\'), JSON_MERGE(\'1\', \'2\'), JSON_MERGE(\'{"a":1}\', \'[1]\'), JSON_MERGE(\'[1]\', NULL), JSON_MERGE_PRESERVE(\'{"a":1}\', \'{"b":2}\'), JSON_MERGE(\'[1]\', \'2\', \'{"x":[3]}\')', [('[1, 2]', '{"a": [1, 2]}', '[1, 2]', '[{"a": 1}, 1]', None, '{"a": 1, "b": 2}', '[1, 2, {"x": [3]}]')]),
    ('SELECT JSON_COMPACT(\'{ "a" : [1, 2] }\'), JSON_COMPACT(NULL), JSON_COMPACT(\'[ "x y" , true ]\')', [('{"a":[1,2]}', None, '["x y",true]')]),
    ('SELECT HEX(CHR(65)), HEX(CHR(50089)), CHR(NULL), HEX(CHR(256)), HEX(CHR(0)), HEX(CHR(-1)), HEX(CHR(4294967295)), HEX(CHR(65.6)), HEX(CHR(4294967296))', [('41', 'C3A9', None, '0100', '00', 'FFFFFFFF', 'FFFFFFFF', '42', '00')]),
    ("SELECT EXPORT_SET(5,'Y','N',',',4), EXPORT_SET(6,'1','0'), EXPORT_SET(NULL,'a','b'), EXPORT_SET(1,'a','b','',2), EXPORT_SET(1,'a','b',',',100), EXPORT_SET(-1,'1','0','',70), EXPORT_SET(1,'a',NULL), EXPORT_SET(1,'a','b',NULL)", [('Y,N,Y,N', '0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0', None, 'ab', 'a,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b,b', '1111111111111111111111111111111111111111111111111111111111111111', None, None)]),
    ("SELECT CRC32C('MariaDB'), CRC32C(''), CRC32C(NULL), CRC32('MariaDB'), CRC32(0, 'MariaDB'), CRC32C(0, 'MariaDB'), CRC32C(CRC32C('Maria'), 'DB'), CRC32(CRC32('Maria'), 'DB'), CRC32C(-1, 'a'), CRC32C(NULL, 'a')", [('809606978', '0', None, '4227209140', '4227209140', '809606978', '809606978', '4227209140', '1817374622', None)]),
    ('SELECT LENGTH(RANDOM_BYTES(16)), RANDOM_BYTES(NULL), LENGTH(RANDOM_BYTES(1024)), RANDOM_BYTES(1025), RANDOM_BYTES(-1), LENGTH(RANDOM_BYTES(0)), RANDOM_BYTES(16) = RANDOM_BYTES(16)', [('16', None, '1024', None, None, '0', '0')]),
    ('SELECT JSON_ARRAY_APPEND(\'[1,2]\', \'$\', 3), JSON_ARRAY_APPEND(\'{"a":[1]}\', \'$.a\', 2, \'$.a\', 3), JSON_ARRAY_APPEND(\'{"a":1}\', \'$.a\', 2), JSON_ARRAY_APPEND(\'[1]\', \'$[5]\', 2), JSON_ARRAY_APPEND(NULL, \'$\', 1), JSON_ARRAY_APPEND(\'[1]\', \'$\', \'x\')', [('[1, 2, 3]', '{"a": [1, 2, 3]}', '{"a": [1, 2]}', None, None, '[1, "x"]')]),
    ('SELECT JSON_ARRAY_INSERT(\'[1,2]\', \'$[0]\', 0), JSON_ARRAY_INSERT(\'[1,2]\', \'$[9]\', 9), JSON_ARRAY_INSERT(\'{"a":[1]}\', \'$.a[1]\', 2), JSON_ARRAY_INSERT(\'[1]\', \'$[0]\', NULL), JSON_ARRAY_INSERT(\'[1]\', \'$\', 2)', [('[0, 1, 2]', '[1, 2, 9]', '{"a": [1, 2]}', '[null, 1]', None)]),
    # INTERVAL(n, n1, ...): how many of n1, ... before the first above n (was 1235).
    ("SELECT INTERVAL(55,10,20,30,40,50,60,70,80,90,100), interval(3,1,1+1,1+1+1+1), interval(0,1,2,3,4), INTERVAL(0.0, NULL), INTERVAL(NULL, 1), INTERVAL(5, NULL, 3, 10), INTERVAL(2.5, 1, 2.4, 2.6), INTERVAL('3', '10', 2), INTERVAL(1,1), INTERVAL(5, 10, NULL, 1)", [('5', '2', '0', '1', '-1', '2', '2', '0', '1', '0')]),
    ("SELECT c, INTERVAL(c, 2, 3) FROM fx ORDER BY c", [('1', '0'), ('2', '1'), ('3', '2'), ('4', '2')]),
    ("SELECT JSON_ARRAY_APPEND('[1]', '$')", 1582),
    ("SELECT EXPORT_SET(1, 'a')", 1582),
    ('SELECT c, JSON_VALUE(j, \'$.k\'), JSON_EXISTS(j, \'$.k\'), JSON_OVERLAPS(j, \'{"k":1}\'), HEX(CHR(c)), CRC32C(j) FROM fx ORDER BY c', [('1', '1', '1', '1', '01', '2058486179'), ('2', 'v', '1', '0', '02', '2095198849'), ('3', None, None, None, '03', None), ('4', None, '0', '0', '04', '3091053675')]),
    ("SELECT HEX(ENCODE('hello', 'pw')), HEX(ENCODE('', 'x')), DECODE(ENCODE('hello world', 'my pass'), 'my pass'), ENCODE(NULL,'a'), ENCODE('a', NULL), HEX(ENCODE('abc', '')), HEX(ENCODE(0xFF00C3, 'k')), HEX(DECODE(0x0102, 'k'))", [('997D699DC7', '', 'hello world', None, None, 'C45BFA', 'A10C59', '6D3E')]),
    ("SELECT HEX(ENCODE(REPEAT('xyz', 50), 'a long key with\ttabs and spaces é')), HEX(DECODE(REPEAT(0xFE, 20), 0xFFFF)), DECODE(ENCODE(c, j), j) = c FROM fx ORDER BY c", [('AE297E1AEBE30C07CFD8981C382550876AE0D19FA3CEF8A27D2B2DD4A46AEEB84E49D3A2F79F19BD205010DBEBEF36881A258574765C36FD8854A0B8F283F5C62617D2C1DB91E9FD2043423C1597829A08F83FE165E57F4EFEDF376FF393478D0AB9B6AE1EB0953EBF29C2284CEF454F2233856225B0FFDAFAD3AAA1B166D28B7B72976A922B0AC81BDF662A622641627E61C29D33DE', 'CE6B042897CE1E768D5152DD5A42D7C167BA8CAE', '1'), ('AE297E1AEBE30C07CFD8981C382550876AE0D19FA3CEF8A27D2B2DD4A46AEEB84E49D3A2F79F19BD205010DBEBEF36881A258574765C36FD8854A0B8F283F5C62617D2C1DB91E9FD2043423C1597829A08F83FE165E57F4EFEDF376FF393478D0AB9B6AE1EB0953EBF29C2284CEF454F2233856225B0FFDAFAD3AAA1B166D28B7B72976A922B0AC81BDF662A622641627E61C29D33DE', 'CE6B042897CE1E768D5152DD5A42D7C167BA8CAE', '1'), ('AE297E1AEBE30C07CFD8981C382550876AE0D19FA3CEF8A27D2B2DD4A46AEEB84E49D3A2F79F19BD205010DBEBEF36881A258574765C36FD8854A0B8F283F5C62617D2C1DB91E9FD2043423C1597829A08F83FE165E57F4EFEDF376FF393478D0AB9B6AE1EB0953EBF29C2284CEF454F2233856225B0FFDAFAD3AAA1B166D28B7B72976A922B0AC81BDF662A622641627E61C29D33DE', 'CE6B042897CE1E768D5152DD5A42D7C167BA8CAE', None), ('AE297E1AEBE30C07CFD8981C382550876AE0D19FA3CEF8A27D2B2DD4A46AEEB84E49D3A2F79F19BD205010DBEBEF36881A258574765C36FD8854A0B8F283F5C62617D2C1DB91E9FD2043423C1597829A08F83FE165E57F4EFEDF376FF393478D0AB9B6AE1EB0953EBF29C2284CEF454F2233856225B0FFDAFAD3AAA1B166D28B7B72976A922B0AC81BDF662A622641627E61C29D33DE', 'CE6B042897CE1E768D5152DD5A42D7C167BA8CAE', '1')]),
    ('SELECT JSON_SEARCH(\'["abc", ["abc", {"k":"ABC"}], 1]\', \'one\', \'abc\'), JSON_SEARCH(\'["abc", ["abc", {"k":"ABC"}], 1]\', \'all\', \'abc\'), JSON_SEARCH(\'["abc", ["x"]]\', \'all\', \'abc\'), JSON_SEARCH(\'["abc"]\', \'all\', \'zz\')', [('"$[0]"', '["$[0]", "$[1][0]", "$[1][1].k"]', '"$[0]"', None)]),
    ('SELECT JSON_SEARCH(\'{"a b":"x%"}\', \'one\', \'x|%\', \'|\'), JSON_SEARCH(\'["a"]\', \'one\', NULL), JSON_SEARCH(\'["a","b"]\', \'all\', \'%\', NULL, \'$[1]\'), JSON_SEARCH(\'{"a":"1","b":{"c":"1"}}\', \'all\', \'1\')', [('"$.a b"', None, '"$[1]"', '["$.a", "$.b.c"]')]),
    ('SELECT JSON_SEARCH(\'[1]\', \'two\', \'a\'), JSON_SEARCH(\'["a_b", "axb"]\', \'all\', \'a\\_b\'), JSON_SEARCH(\'["a\\\\\\\\b"]\', \'one\', \'a\\\\\\\\b\', \'|\'), JSON_SEARCH(\'[1, "1"]\', \'all\', \'1\'), JSON_SEARCH(\'["x","y"]\', \'all\', \'_\', NULL, \'$[1]\', \'$[0]\')', [(None, '"$[0]"', None, '["$[0]", "$[1]"]', '["$[0]", "$[1]"]')]),
    ('SELECT JSON_SEARCH(\'["a"]\', \'one\', \'a\', \'xy\')', 1210),
    ('SELECT JSON_SEARCH(\'["a"]\', \'one\')', 1582),
    ("SELECT c, JSON_SEARCH(j, 'all', 'v'), JSON_SEARCH(j, 'one', '1') FROM fx ORDER BY c", [('1', None, '"$.k"'), ('2', '"$.k"', None), ('3', None, None), ('4', None, '"$[0]"')]),
]


@pytest.fixture(scope="module")
def conn(sql_server):
    c = clients.root(sql_server)
    clients.query(c, "CREATE DATABASE mfun")
    clients.query(c, "USE mfun")
    clients.query(c, "CREATE TABLE fx (c INT, j TEXT)")
    clients.query(c, """INSERT INTO fx VALUES (1, '{"k":1}'), (2, '{"k":"v"}'), (3, NULL), (4, '[1]')""")
    yield c
    c.close()


def answer(conn, sql):
    try:
        rows = clients.query(conn, sql)
    except pymysql.MySQLError as e:
        return e.args[0]
    return [tuple(None if v is None else v.decode("latin1") if isinstance(v, bytes) else str(v) for v in r) for r in rows]


@pytest.mark.parametrize("sql,expected", CASES, ids=[c[0][:60] for c in CASES])
def test_function_as_mariadb(conn, sql, expected):
    assert answer(conn, sql) == expected
