-- bench/lua/connect_select1.lua — sysbench 1.0.20 script for the connection benchmark.
--
-- Why: the core-server issue is about what one short-lived connection costs a
-- server (accept, greeting, authentication, one trivial query, teardown).
-- Every sysbench event therefore opens a NEW connection with the driver's
-- connect(), runs `SELECT 1`, reads the result and disconnects, so
-- events/s == connections/s. sysbench 1.0.20 has no --reconnect option; this
-- is the way to get a connect per event.
--
-- Connection parameters come from the usual sysbench options
-- (--mysql-host/--mysql-port or --mysql-socket, --mysql-user,
-- --mysql-password, --mysql-db). bench/connect.sh runs it as:
--   sysbench bench/lua/connect_select1.lua --threads=100 --time=20 \
--     --mysql-host=127.0.0.1 --mysql-port=N --mysql-user=U --mysql-password=P run

function thread_init()
   drv = sysbench.sql.driver()
end

function event()
   local con = drv:connect()
   local rs = con:query("SELECT 1")
   if rs ~= nil and rs.free ~= nil then
      rs:free()
   end
   con:disconnect()
end
