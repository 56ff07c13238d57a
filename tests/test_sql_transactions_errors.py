"""Transactions, sessions and error codes as MariaDB 10.11 answers them
(issue #22's "Transactions and sessions" and "Errors"; each case was run
side by side against MariaDB 10.11):

- a session's transaction_read_only (SET SESSION TRANSACTION READ ONLY, or
  the variable under either name) refuses writes and DDL with ERR 1792, in
  autocommit statements and in transactions that do not say READ WRITE; a
  temporary table may still be created; a global value reaches new sessions;
- UNLOCK TABLES commits what was written under LOCK TABLES with autocommit=0;
- deleting a referenced parent row is 1451 (not 1452, the child's error);
- PREPARE of a text no statement starts with is 1064 at PREPARE;
- ALTER TABLE ... AUTO_INCREMENT = n sets the next value (InnoDB's rule:
  never at or below a value in use);
- a scalar subquery that returns more than one row is 1242/21000 (SQLite
  would answer with its first row), wherever it stands: select list, WHERE,
  SET, VALUES, a function's argument, nested, correlated, prepared; a row
  subquery, IN/EXISTS/ANY and derived tables are not scalar;
- 1054 names the clause the unknown column stands in, as MariaDB 10.11
  does ('INSERT INTO', 'VALUES', 'SET', 'SELECT', 'WHERE', 'ORDER BY', ...),
  from the engine and from the front's own evaluation alike;
- a stray `*/` outside an executable comment is a syntax error (1064);
- SET TRANSACTION without a scope is the next transaction's only (the
  session's variables stay), and COMMIT/ROLLBACK AND CHAIN opens the next
  transaction with the access mode of the one that ended;
- SET TRANSACTION without a scope is 1568 while a transaction runs (SET
  SESSION/GLOBAL TRANSACTION are not); an access mode said twice in START
  TRANSACTION or SET TRANSACTION (READ ONLY, READ WRITE), or an isolation
  level said twice, is 1064.
"""

import pymysql
import pytest

from helpers import clients
from helpers.clients import query, scalar


def code(conn, sql):
    with pytest.raises(pymysql.MySQLError) as ei:
        query(conn, sql)
    return ei.value.args[0]


@pytest.fixture
def db(sql_conn, uniq):
    name = uniq("tx")
    query(sql_conn, f"CREATE DATABASE {name}")
    query(sql_conn, f"USE {name}")
    query(sql_conn, "CREATE TABLE t (a INT)")
    yield name
    query(sql_conn, "SET SESSION TRANSACTION READ WRITE")
    query(sql_conn, f"DROP DATABASE IF EXISTS {name}")


def test_read_only_session_refuses_writes_and_ddl(sql_conn, db):
    query(sql_conn, "SET SESSION TRANSACTION READ ONLY")
    assert query(sql_conn, "SELECT @@transaction_read_only, @@tx_read_only") == ((1, 1),)
    assert code(sql_conn, "INSERT INTO t VALUES (1)") == 1792
    assert code(sql_conn, "CREATE TABLE v (a INT)") == 1792
    assert code(sql_conn, "DROP TABLE t") == 1792
    # A transaction that does not say is read-only too; READ WRITE overrides.
    query(sql_conn, "START TRANSACTION")
    assert code(sql_conn, "UPDATE t SET a = 2") == 1792
    query(sql_conn, "ROLLBACK")
    query(sql_conn, "START TRANSACTION READ WRITE")
    query(sql_conn, "INSERT INTO t VALUES (2)")
    query(sql_conn, "COMMIT")
    # autocommit=0: the implicit transaction follows the session.
    query(sql_conn, "SET autocommit = 0")
    assert code(sql_conn, "INSERT INTO t VALUES (3)") == 1792
    query(sql_conn, "ROLLBACK")
    query(sql_conn, "SET autocommit = 1")
    # Temporary tables stay writable (MySQL allows them in read-only transactions).
    query(sql_conn, "CREATE TEMPORARY TABLE tmp (a INT)")
    query(sql_conn, "DROP TEMPORARY TABLE tmp")
    query(sql_conn, "SET SESSION tx_read_only = 0")
    assert scalar(sql_conn, "SELECT @@transaction_read_only") == 0
    query(sql_conn, "INSERT INTO t VALUES (4)")
    assert [r[0] for r in query(sql_conn, "SELECT a FROM t ORDER BY a")] == [2, 4]


def test_transaction_characteristics(sql_conn, db):
    query(sql_conn, "START TRANSACTION")
    assert code(sql_conn, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE") == 1568
    assert code(sql_conn, "SET TRANSACTION READ ONLY") == 1568
    query(sql_conn, "SET SESSION TRANSACTION READ WRITE")
    query(sql_conn, "COMMIT")
    query(sql_conn, "SET TRANSACTION READ WRITE, ISOLATION LEVEL REPEATABLE READ")
    assert code(sql_conn, "SET TRANSACTION READ ONLY, READ WRITE") == 1064
    assert code(sql_conn, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, ISOLATION LEVEL SERIALIZABLE") == 1064
    assert code(sql_conn, "START TRANSACTION READ ONLY, READ WRITE") == 1064
    assert code(sql_conn, "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT, READ WRITE") == 1064
    query(sql_conn, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ WRITE")
    query(sql_conn, "COMMIT")


def test_set_transaction_without_scope_is_the_next_transactions_only(sql_conn, db):
    """MariaDB 10.11: SET TRANSACTION READ ONLY / ISOLATION LEVEL without
    SESSION or GLOBAL leaves @@tx_read_only and @@tx_isolation as they are
    and holds until a COMMIT or ROLLBACK; COMMIT/ROLLBACK AND CHAIN opens
    the next transaction with the access mode of the one that ended."""
    query(sql_conn, "SET TRANSACTION READ ONLY")
    assert scalar(sql_conn, "SELECT @@tx_read_only") == 0
    assert code(sql_conn, "DELETE FROM t") == 1792
    query(sql_conn, "START TRANSACTION")
    assert code(sql_conn, "DELETE FROM t") == 1792
    query(sql_conn, "COMMIT")
    query(sql_conn, "DELETE FROM t")
    query(sql_conn, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    assert scalar(sql_conn, "SELECT @@tx_isolation") == "REPEATABLE-READ"
    query(sql_conn, "START TRANSACTION READ ONLY")
    query(sql_conn, "COMMIT AND CHAIN")
    assert code(sql_conn, "INSERT INTO t VALUES (1)") == 1792
    query(sql_conn, "ROLLBACK AND CHAIN")
    assert code(sql_conn, "INSERT INTO t VALUES (1)") == 1792
    query(sql_conn, "COMMIT AND NO CHAIN")
    query(sql_conn, "BEGIN")
    query(sql_conn, "ROLLBACK AND CHAIN")
    query(sql_conn, "INSERT INTO t VALUES (5)")
    query(sql_conn, "COMMIT")
    assert scalar(sql_conn, "SELECT COUNT(*) FROM t") == 1
    query(sql_conn, "DROP TABLE t")
    query(sql_conn, "CREATE TABLE t (a INT)")


def test_global_read_only_reaches_new_sessions(sql_server, sql_conn, db):
    query(sql_conn, "SET GLOBAL transaction_read_only = 1")
    try:
        other = clients.root(sql_server)
        try:
            assert scalar(other, "SELECT @@session.tx_read_only") == 1
            assert code(other, f"INSERT INTO {db}.t VALUES (1)") == 1792
        finally:
            other.close()
    finally:
        query(sql_conn, "SET GLOBAL transaction_read_only = 0")
    fresh = clients.root(sql_server)
    query(fresh, f"INSERT INTO {db}.t VALUES (1)")
    fresh.close()


def test_unlock_tables_commits(sql_server, db):
    mine = clients.root(sql_server, database=db)
    query(mine, "SET autocommit = 0")
    query(mine, "LOCK TABLES t WRITE")
    query(mine, "INSERT INTO t VALUES (1)")
    query(mine, "UNLOCK TABLES")
    mine.close()  # a disconnect rolls back whatever was not committed
    other = clients.root(sql_server)
    assert scalar(other, f"SELECT COUNT(*) FROM {db}.t") == 1
    other.close()


def test_deleting_a_referenced_parent_is_1451(sql_conn, db):
    query(sql_conn, "CREATE TABLE p (id INT PRIMARY KEY)")
    query(sql_conn, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id))")
    query(sql_conn, "INSERT INTO p VALUES (1)")
    query(sql_conn, "INSERT INTO c VALUES (1, 1)")
    assert code(sql_conn, "DELETE FROM p WHERE id = 1") == 1451
    assert code(sql_conn, "INSERT INTO c VALUES (2, 9)") == 1452


def test_prepare_of_no_statement_is_a_syntax_error_at_prepare(sql_conn, db):
    assert code(sql_conn, "PREPARE s FROM 'SELEC 1'") == 1064
    assert code(sql_conn, "EXECUTE s") == 1243  # never prepared
    query(sql_conn, "PREPARE s FROM 'SELECT 1'")
    assert query(sql_conn, "EXECUTE s") == ((1,),)


def test_alter_table_auto_increment_sets_the_next_value(sql_conn, db):
    query(sql_conn, "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    query(sql_conn, "INSERT INTO a (v) VALUES (1)")
    query(sql_conn, "ALTER TABLE a AUTO_INCREMENT = 1000")
    query(sql_conn, "INSERT INTO a (v) VALUES (2)")
    assert scalar(sql_conn, "SELECT MAX(id) FROM a") == 1000
    # At or below a value in use: one past the largest (InnoDB).
    query(sql_conn, "ALTER TABLE a AUTO_INCREMENT = 5")
    query(sql_conn, "INSERT INTO a (v) VALUES (3)")
    assert scalar(sql_conn, "SELECT MAX(id) FROM a") == 1001
    assert "AUTO_INCREMENT=1002" in query(sql_conn, "SHOW CREATE TABLE a")[0][1]


def test_scalar_subquery_of_several_rows_is_1242(sql_conn, db):
    query(sql_conn, "CREATE TABLE s (a INT, b INT)")
    query(sql_conn, "INSERT INTO s VALUES (1, 10), (1, 11), (2, 20)")
    for sql in [
        "SELECT (SELECT b FROM s)",
        "SELECT a, (SELECT b FROM s s2 WHERE s2.a = s1.a) FROM s s1",
        "SELECT * FROM s WHERE b = (SELECT b FROM s WHERE a = 1)",
        "SELECT (SELECT 1 UNION SELECT 2)",
        "SELECT IFNULL((SELECT b FROM s WHERE a > 0), 0)",
        "SELECT (SELECT (SELECT b FROM s))",
        "UPDATE s SET b = (SELECT b FROM s WHERE a = 1) WHERE a = 2",
        "INSERT INTO s (a, b) VALUES (9, (SELECT b FROM s WHERE a = 1))",
    ]:
        with pytest.raises(pymysql.MySQLError) as ei:
            query(sql_conn, sql)
        assert ei.value.args == (1242, "Subquery returns more than 1 row"), sql
    assert query(sql_conn, "SELECT * FROM s ORDER BY a, b") == ((1, 10), (1, 11), (2, 20))
    # One row, none, or several rows where they are allowed.
    assert query(sql_conn, "SELECT a, (SELECT MAX(b) FROM s s2 WHERE s2.a = s1.a) m FROM s s1 ORDER BY a, m") == ((1, 11), (1, 11), (2, 20))
    assert scalar(sql_conn, "SELECT (SELECT b FROM s WHERE a = 3)") is None
    assert scalar(sql_conn, "SELECT (SELECT 1 UNION SELECT 1)") == 1
    assert scalar(sql_conn, "SELECT (SELECT b FROM s WHERE a = 1 ORDER BY b DESC LIMIT 1)") == 11
    assert query(sql_conn, "SELECT a, b FROM s WHERE (a, b) = (SELECT a, b FROM s WHERE a = 2)") == ((2, 20),)
    assert query(sql_conn, "SELECT b FROM s WHERE a IN (SELECT a FROM s) AND EXISTS (SELECT b FROM s) ORDER BY b") == ((10,), (11,), (20,))
    assert query(sql_conn, "SELECT COUNT(*) FROM (SELECT b FROM s) d") == ((3,),)
    query(sql_conn, "UPDATE s SET b = (SELECT 5 FROM s WHERE a = 2) WHERE a = 2")
    assert scalar(sql_conn, "SELECT b FROM s WHERE a = 2") == 5
    # Prepared (binary protocol): the same statement errs or answers by its parameter.
    query(sql_conn, "PREPARE p FROM 'SELECT (SELECT b FROM s WHERE a = ?)'")
    query(sql_conn, "SET @x = 2")
    assert query(sql_conn, "EXECUTE p USING @x") == ((5,),)
    query(sql_conn, "SET @x = 1")
    assert code(sql_conn, "EXECUTE p USING @x") == 1242


@pytest.mark.parametrize("sql,clause", [
    ("INSERT INTO t (nope) VALUES (1)", "INSERT INTO"),
    ("INSERT INTO t (a) VALUES (nope)", "VALUES"),
    ("INSERT INTO t SET nope = 1", "INSERT INTO"),
    ("UPDATE t SET nope = 1", "SET"),
    ("UPDATE t SET a = nope", "SET"),
    ("SELECT nope FROM t", "SELECT"),
    ("SELECT a FROM t WHERE nope = 1", "WHERE"),
    ("SELECT a FROM t ORDER BY nope", "ORDER BY"),
    ("SELECT a FROM t GROUP BY nope", "GROUP BY"),
    ("SELECT a FROM t HAVING nope = 1", "HAVING"),
    ("DELETE FROM t WHERE nope = 1", "WHERE"),
    ("SELECT nope", "SELECT"),
    ("SET @a = nope", "SET"),
    ("SELECT 1 WHERE nope", "WHERE"),
    # t has no unique key: SQLite never looks at this SET; MariaDB checks it.
    ("INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE nope = 1", "UPDATE"),
])
def test_unknown_column_names_its_clause(sql_conn, db, sql, clause):
    with pytest.raises(pymysql.MySQLError) as ei:
        query(sql_conn, sql)
    assert ei.value.args == (1054, f"Unknown column 'nope' in '{clause}'")


def test_stray_comment_close_is_a_syntax_error(sql_conn, db):
    for sql in ["SELECT 1 */", "SELECT a FROM t */", "SELECT 1 /*!+ 1 */ */"]:
        assert code(sql_conn, sql) == 1064, sql
    assert scalar(sql_conn, "SELECT 1 /*!+ 1 */") == 2
    assert scalar(sql_conn, "SELECT 2 /* x */ * 3") == 6
