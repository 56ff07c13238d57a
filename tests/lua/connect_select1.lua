-- Turnstile integration test workload for sysbench 1.0.20.
--
-- Each event opens a new connection with the built-in MySQL driver
-- (--mysql-host/--mysql-port/--mysql-socket/--mysql-user/...), runs
-- "SELECT 1", checks that the single value is 1, and disconnects.
-- Any failure raises a Lua error, which makes sysbench report FATAL and
-- exit non-zero, so a clean run means zero errors.

function thread_init()
   drv = sysbench.sql.driver()
end

function event()
   local con = drv:connect()
   local v = con:query_row("SELECT 1")
   if tonumber(v) ~= 1 then
      error(string.format("SELECT 1 returned %s", tostring(v)))
   end
   con:disconnect()
end
