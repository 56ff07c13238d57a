-- bench/lua/connect_point_select.lua — sysbench 1.0.20 script for the suite's
-- non-persistent connection experiment (bench/run; seeds 000 and 002).
--
-- Every event opens a NEW connection (drv:connect(), with --mysql-db), runs one
-- point select on sbtest1 through the text protocol, reads the result and
-- disconnects, so events/s == connections/s. sysbench 1.0.20 has no
-- --reconnect option; this is the way to get a connect per query.
--
--   sysbench bench/lua/connect_point_select.lua --threads=100 --time=5 \
--     --mysql-host=127.0.0.1 --mysql-port=N --mysql-user=U --mysql-password=P \
--     --mysql-db=sbtest --table-size=10000 run
--
-- The floor server (crates/floor) answers the query with its canned row; with
-- a blackhole engine the result is empty, with a real engine it is one row.

sysbench.cmdline.options = {
   table_size = {"Rows in sbtest1 (ids are drawn uniformly from 1..table_size)", 10000},
}

function thread_init()
   drv = sysbench.sql.driver()
end

function event()
   local con = drv:connect()
   local id = sysbench.rand.uniform(1, sysbench.opt.table_size)
   local rs = con:query("SELECT c FROM sbtest1 WHERE id=" .. id)
   if rs ~= nil and rs.free ~= nil then
      rs:free()
   end
   con:disconnect()
end
