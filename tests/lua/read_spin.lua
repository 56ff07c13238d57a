-- Turnstile integration test workload for sysbench 1.0.20: keeps the server
-- busy with autocommit reads (one persistent connection per thread, each
-- event two point selects on the tables test_sql_engine's visibility test
-- creates), so pool workers keep read snapshots between statements while
-- the test checks that every acknowledged commit is still seen.
-- Any failure raises a Lua error (sysbench then exits non-zero).

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function event()
   con:query_row("SELECT v FROM seen WHERE id = 1")
   con:query_row("SELECT v FROM other WHERE id = 1")
end

function thread_done()
   con:disconnect()
end
