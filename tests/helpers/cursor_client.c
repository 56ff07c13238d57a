/* A MariaDB Connector/C (libmariadb) client for the cursor and COM_FIELD_LIST
 * tests: what a C application does, through the library's own API, so the
 * server's packets are read by the library that defines them.
 *
 *   cursor_client HOST PORT USER PASSWORD DB cursor PREFETCH SQL
 *       prepare SQL, execute it with STMT_ATTR_CURSOR_TYPE = READ_ONLY and
 *       STMT_ATTR_PREFETCH_ROWS = PREFETCH (COM_STMT_FETCH of that many rows),
 *       print each row (tab-separated, NULL as \N), then "rows N"
 *   cursor_client ... interleave SQL1 SQL2
 *       two cursors open at once (one row per fetch), fetched in turn with a
 *       COM_QUERY between fetches; prints "1:<row>" / "2:<row>" / "q:<value>"
 *   cursor_client ... fields TABLE
 *       mysql_list_fields (COM_FIELD_LIST): "name<TAB>default" per column
 *       (default \N when the library holds none)
 *
 * Exit status 0 on success; on an error, "error CODE MESSAGE" and status 1.
 * Build: cc cursor_client.c $(mariadb_config --cflags --libs)
 */
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCOLS 32
#define MAXLEN 4096

static int fail_conn(MYSQL *m) {
    printf("error %u %s\n", mysql_errno(m), mysql_error(m));
    return 1;
}

static int fail_stmt(MYSQL_STMT *s) {
    printf("error %u %s\n", mysql_stmt_errno(s), mysql_stmt_error(s));
    return 1;
}

struct bound {
    MYSQL_STMT *stmt;
    unsigned ncols;
    MYSQL_BIND bind[MAXCOLS];
    char buf[MAXCOLS][MAXLEN];
    unsigned long len[MAXCOLS];
    my_bool null[MAXCOLS];
};

/* Prepare and execute SQL with a read-only cursor; bind every column as a string. */
static int open_cursor(MYSQL *m, struct bound *b, const char *sql, unsigned long prefetch) {
    unsigned long type = CURSOR_TYPE_READ_ONLY;
    b->stmt = mysql_stmt_init(m);
    if (!b->stmt) return fail_conn(m);
    if (mysql_stmt_prepare(b->stmt, sql, strlen(sql))) return fail_stmt(b->stmt);
    if (mysql_stmt_attr_set(b->stmt, STMT_ATTR_CURSOR_TYPE, &type)) return fail_stmt(b->stmt);
    if (mysql_stmt_attr_set(b->stmt, STMT_ATTR_PREFETCH_ROWS, &prefetch)) return fail_stmt(b->stmt);
    if (mysql_stmt_execute(b->stmt)) return fail_stmt(b->stmt);
    b->ncols = mysql_stmt_field_count(b->stmt);
    if (b->ncols > MAXCOLS) b->ncols = MAXCOLS;
    memset(b->bind, 0, sizeof b->bind);
    for (unsigned i = 0; i < b->ncols; i++) {
        b->bind[i].buffer_type = MYSQL_TYPE_STRING;
        b->bind[i].buffer = b->buf[i];
        b->bind[i].buffer_length = MAXLEN - 1;
        b->bind[i].length = &b->len[i];
        b->bind[i].is_null = &b->null[i];
    }
    if (mysql_stmt_bind_result(b->stmt, b->bind)) return fail_stmt(b->stmt);
    return 0;
}

/* Fetch one row and print it after PREFIX; 1 = a row, 0 = no more, -1 = error. */
static int fetch_row(struct bound *b, const char *prefix) {
    int r = mysql_stmt_fetch(b->stmt);
    if (r == MYSQL_NO_DATA) return 0;
    if (r == 1) {
        fail_stmt(b->stmt);
        return -1;
    }
    printf("%s", prefix);
    for (unsigned i = 0; i < b->ncols; i++) {
        if (i) printf("\t");
        if (b->null[i]) {
            printf("\\N");
        } else {
            unsigned long n = b->len[i] < MAXLEN - 1 ? b->len[i] : MAXLEN - 1;
            printf("%.*s", (int)n, b->buf[i]);
        }
    }
    printf("\n");
    return 1;
}

static int run_cursor(MYSQL *m, unsigned long prefetch, const char *sql) {
    struct bound *b = calloc(1, sizeof *b);
    if (open_cursor(m, b, sql, prefetch)) return 1;
    long rows = 0;
    int r;
    while ((r = fetch_row(b, "")) == 1) rows++;
    if (r < 0) return 1;
    printf("rows %ld\n", rows);
    mysql_stmt_close(b->stmt);
    return 0;
}

static int query_value(MYSQL *m, const char *sql) {
    if (mysql_query(m, sql)) return fail_conn(m);
    MYSQL_RES *res = mysql_store_result(m);
    if (!res) return fail_conn(m);
    MYSQL_ROW row = mysql_fetch_row(res);
    printf("q:%s\n", row && row[0] ? row[0] : "\\N");
    mysql_free_result(res);
    return 0;
}

static int run_interleave(MYSQL *m, const char *sql1, const char *sql2) {
    struct bound *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    if (open_cursor(m, a, sql1, 1) || open_cursor(m, b, sql2, 1)) return 1;
    int more_a = 1, more_b = 1;
    while (more_a || more_b) {
        if (more_a && (more_a = fetch_row(a, "1:")) < 0) return 1;
        if (query_value(m, "SELECT 'between'")) return 1;
        if (more_b && (more_b = fetch_row(b, "2:")) < 0) return 1;
    }
    mysql_stmt_close(a->stmt);
    mysql_stmt_close(b->stmt);
    printf("done\n");
    return 0;
}

static int run_fields(MYSQL *m, const char *table) {
    MYSQL_RES *res = mysql_list_fields(m, table, NULL);
    if (!res) return fail_conn(m);
    MYSQL_FIELD *f;
    while ((f = mysql_fetch_field(res))) printf("%s\t%s\n", f->name, f->def ? f->def : "\\N");
    mysql_free_result(res);
    return query_value(m, "SELECT 'still in sync'");
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: %s HOST PORT USER PASSWORD DB MODE ARGS...\n", argv[0]);
        return 2;
    }
    MYSQL *m = mysql_init(NULL);
    if (!mysql_real_connect(m, argv[1], argv[3], argv[4], argv[5], (unsigned)atoi(argv[2]), NULL, 0)) return fail_conn(m);
    int rc = 2;
    if (!strcmp(argv[6], "cursor") && argc == 9) rc = run_cursor(m, strtoul(argv[7], NULL, 10), argv[8]);
    else if (!strcmp(argv[6], "interleave") && argc == 9) rc = run_interleave(m, argv[7], argv[8]);
    else if (!strcmp(argv[6], "fields") && argc == 8) rc = run_fields(m, argv[7]);
    mysql_close(m);
    return rc;
}
