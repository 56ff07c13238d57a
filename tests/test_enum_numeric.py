"""ENUM and SET columns in numeric context, as MariaDB 10.11 reads them.

An ENUM value in numeric context is its member's 1-based index, a SET value
the bitmask of its members: `e + 0`, CAST(e AS SIGNED), SUM(e), `e = 2`,
`e IN (3, 'x')`, `CASE e WHEN 3`, `e < 3` and ORDER BY e all go by the number,
where Turnstile read the stored text (0, or a text comparison that matched
nothing). A string compared with the column still compares as text, and a
number written into the column is the index (bitmask) of what it stores; a
SET is stored with its members in the column's order. Every expected answer
here is what MariaDB 10.11 answered for the same statements.
"""

from helpers.clients import query


def ids(conn, where):
    return [r[0] for r in query(conn, f"SELECT id FROM e2 {where}")]


def setup(conn):
    query(conn, "CREATE TABLE e2 (id INT PRIMARY KEY, e ENUM('x','b','a'), s SET('p','q','r'))")
    query(conn, "INSERT INTO e2 VALUES (1,'x','p'),(2,'b','r,q'),(3,'a','r,p'),(4,2,6),(5,NULL,NULL)")


def test_values_as_numbers(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    rows = query(conn, "SELECT id, e, e + 0, -e, CAST(e AS SIGNED), s, s + 0 FROM e2 ORDER BY id")
    assert [tuple(str(v) if v is not None else None for v in r) for r in rows] == [
        ("1", "x", "1", "-1", "1", "p", "1"),
        ("2", "b", "2", "-2", "2", "q,r", "6"),
        ("3", "a", "3", "-3", "3", "p,r", "5"),
        ("4", "b", "2", "-2", "2", "q,r", "6"),
        ("5", None, None, None, None, None, None),
    ]
    assert [tuple(str(v) for v in r) for r in query(conn, "SELECT SUM(e), SUM(s), MAX(e + 0) FROM e2")] == [("8", "18", "3")]


def test_comparisons_by_index(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    # The same text with a number, then a string (one cached statement).
    assert ids(conn, "WHERE e = 2 ORDER BY id") == [2, 4]
    assert ids(conn, "WHERE e = 'a' ORDER BY id") == [3]
    assert ids(conn, "WHERE e <> 1 ORDER BY id") == [2, 3, 4]
    assert ids(conn, "WHERE e = 9 ORDER BY id") == []
    assert ids(conn, "WHERE e IN (3, 'x') ORDER BY id") == [1, 3]
    assert ids(conn, "WHERE e < 3 ORDER BY id") == [1, 2, 4]
    assert ids(conn, "WHERE e < 'b' ORDER BY id") == [3]
    assert ids(conn, "WHERE 2 >= e ORDER BY id") == [1, 2, 4]
    assert ids(conn, "WHERE s = 6 ORDER BY id") == [2, 4]
    assert ids(conn, "WHERE CASE e WHEN 3 THEN 1 WHEN 'x' THEN 1 ELSE 0 END ORDER BY id") == [1, 3]


def test_prepared_parameter_of_either_kind(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    query(conn, "PREPARE st FROM 'SELECT id FROM e2 WHERE e <= ? ORDER BY id'")
    query(conn, "SET @v = 2")
    assert [r[0] for r in query(conn, "EXECUTE st USING @v")] == [1, 2, 4]
    query(conn, "SET @v = 'b'")
    assert [r[0] for r in query(conn, "EXECUTE st USING @v")] == [2, 3, 4]


def test_order_by_index(scratch_db):
    conn, _ = scratch_db
    setup(conn)
    assert ids(conn, "ORDER BY e DESC, id") == [3, 2, 4, 1, 5]
    assert ids(conn, "ORDER BY s, id") == [5, 1, 3, 2, 4]
    # Groups in the order of their number, as MariaDB sorts them.
    assert [tuple(r) for r in query(conn, "SELECT e, COUNT(*) FROM e2 GROUP BY e")] == [(None, 1), ("x", 1), ("b", 2), ("a", 1)]
    # An alias of that name is what ORDER BY names.
    assert [r[0] for r in query(conn, "SELECT id AS e FROM e2 ORDER BY e DESC")] == [5, 4, 3, 2, 1]


def test_binary_members_keep_their_case(scratch_db):
    conn, _ = scratch_db
    query(conn, "CREATE TABLE eb (a ENUM('a','A') CHARACTER SET latin1 COLLATE latin1_bin PRIMARY KEY)")
    query(conn, "INSERT INTO eb VALUES ('a'),('A')")
    assert [tuple(str(v) for v in r) for r in query(conn, "SELECT a, a + 0 FROM eb ORDER BY a")] == [("a", "1"), ("A", "2")]
    query(conn, "CREATE TABLE sb (s SET('a','A') CHARACTER SET latin1 COLLATE latin1_bin)")
    query(conn, "INSERT INTO sb VALUES ('a'),('a,A'),('A,a'),('A')")
    assert [r[0] for r in query(conn, "SELECT s FROM sb ORDER BY s")] == ["a", "A", "a,A", "a,A"]
