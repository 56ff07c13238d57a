#!/usr/bin/env python3
"""bench/lib/report.py — renders docs/benchmarks.md and docs/bench/*.png from a
suite results file (bench/results/suite-<stamp>.json, written by suite.py).

The report is generated, never edited by hand: bench/run calls render() at the
end of every run, and

    python3 bench/lib/report.py bench/results/suite-<stamp>.json

re-renders it from an earlier run. Layout: a summary table first (each
experiment: Turnstile, MariaDB, ratio, runs), issue 4's targets, the plots,
then every experiment's table, notes on what was skipped or misbehaved, the
machine, versions and the exact server configurations.

Every figure is the median over successful runs, with (min–max) when there
was more than one run.
"""

import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LABEL = {
    "ts-thread": "Turnstile per-thread", "ts-pool": "Turnstile pool",
    "mdb-thread": "MariaDB per-thread", "mdb-pool": "MariaDB pool-of-threads",
    "floor": "floor (crates/floor)", "rawfloor": "raw socket floor",
    "ts-stats-on": "Turnstile statistics=true", "ts-stats-off": "Turnstile statistics=false",
    "mdb-ps-off": "MariaDB performance_schema=OFF", "mdb-ps-on": "MariaDB performance_schema=ON",
}
COLOR = {"ts-thread": "#1f77b4", "ts-pool": "#17becf", "mdb-thread": "#d62728", "mdb-pool": "#ff7f0e",
         "floor": "#7f7f7f", "rawfloor": "#2ca02c"}
WL = {"connect": "connect + point select + disconnect", "oltp_point_select": "oltp_point_select",
      "oltp_read_only": "oltp_read_only", "oltp_read_write": "oltp_read_write"}


# ---------------------------------------------------------------- aggregation
def sel(recs, **f):
    return [r for r in recs if all(r.get(k) == v for k, v in f.items())]


def st(recs, key):
    """(median, min, max, n) over successful records, or None."""
    vals = [r[key] for r in recs if r.get("ok", True) and r.get(key) is not None]
    if not vals:
        return None
    return (statistics.median(vals), min(vals), max(vals), len(vals))


def num(v, nd=0):
    if v is None:
        return "n/a"
    if abs(v) >= 100 and nd <= 1:
        return f"{v:,.0f}"
    return f"{v:,.{nd}f}"


def fmt(s, nd=0):
    if not s:
        return "n/a"
    m, lo, hi, n = s
    if n == 1 or lo == hi:
        return num(m, nd)
    return f"{num(m, nd)} ({num(lo, nd)}–{num(hi, nd)})"


def ratio(a, b, nd=2):
    if not a or not b or not b[0]:
        return "n/a"
    return f"{a[0] / b[0]:.{nd}f}×"


def med(s):
    return s[0] if s else None


def nruns(*ss):
    ns = [s[3] for s in ss if s]
    return "/".join(str(n) for n in ns) if ns else "0"


# ---------------------------------------------------------------- plots
def make_plots(doc, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # plotting is optional; the tables are the report
        return [], f"plots skipped: matplotlib unavailable ({e})"
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.endswith(".png"):
            os.remove(os.path.join(outdir, f))
    R = doc["records"]
    made = []

    def save(fig, name, title):
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), dpi=90)
        plt.close(fig)
        made.append((name, title))

    def line(ax, recs, xkey, ykey, label, color=None, style="-o"):
        xs = sorted({r[xkey] for r in recs if r.get(xkey) is not None})
        pts = [(x, st(sel(recs, **{xkey: x}), ykey)) for x in xs]
        pts = [(x, s) for x, s in pts if s]
        if not pts:
            return
        x = [p[0] for p in pts]
        y = [p[1][0] for p in pts]
        lo = [p[1][0] - p[1][1] for p in pts]
        hi = [p[1][2] - p[1][0] for p in pts]
        ax.errorbar(x, y, yerr=[lo, hi], fmt=style, label=label, color=color, capsize=3, markersize=4)

    # 1. non-persistent connections
    np_ = sel(R, exp="nonpersistent")
    if np_:
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
        for ax, t in zip(axes[:2], ("tcp", "unix")):
            for s in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool", "floor"):
                line(ax, sel(np_, server=s, transport=t), "clients", "ops_per_s", LABEL[s], COLOR.get(s))
            ax.set_xscale("log")
            ax.set_title(f"connect + point select + disconnect ({t})")
            ax.set_xlabel("clients")
            ax.set_ylabel("connections / s")
            ax.grid(alpha=.3)
        for s in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool", "floor"):
            line(axes[2], sel(np_, server=s, transport="tcp"), "clients", "server_us_per_op", LABEL[s], COLOR.get(s))
        axes[2].set_xscale("log")
        axes[2].set_title("server CPU per connection (TCP)")
        axes[2].set_xlabel("clients")
        axes[2].set_ylabel("µs CPU / connection")
        axes[2].grid(alpha=.3)
        axes[0].legend(fontsize=8)
        save(fig, "nonpersistent.png", "Non-persistent connections (seeds 000/002)")

    # 2. persistent point select (issue 4 benchmark 1)
    ps = sel(R, exp="persistent")
    if ps:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for s in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool"):
            line(axes[0], sel(ps, server=s), "threads", "ops_per_s", LABEL[s], COLOR.get(s))
            line(axes[1], sel(ps, server=s), "threads", "server_us_per_op", LABEL[s], COLOR.get(s))
        for ax, yl in zip(axes, ("transactions / s", "server µs CPU / transaction")):
            ax.set_xscale("log")
            ax.set_xlabel("client threads")
            ax.set_ylabel(yl)
            ax.grid(alpha=.3)
        axes[0].set_title("persistent oltp_point_select (TCP)")
        axes[1].set_title("server CPU per point select")
        axes[0].legend(fontsize=8)
        save(fig, "persistent_point_select.png", "Persistent point select, the four schedulers (issue 4 benchmark 1)")

    # 3. load curves
    cv = sel(R, exp="curves")
    for wl in ("oltp_point_select", "oltp_read_only", "oltp_read_write"):
        c = sel(cv, workload=wl)
        if not c:
            continue
        fig, ax = plt.subplots(figsize=(7.5, 4.5))
        for s in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool"):
            for t, style in (("tcp", "-o"), ("unix", "--s")):
                line(ax, sel(c, server=s, transport=t), "threads", "ops_per_s", f"{LABEL[s]} ({t})", COLOR.get(s), style)
        ax.set_xscale("log")
        ax.set_xlabel("client threads")
        ax.set_ylabel("transactions / s")
        ax.set_title(f"{wl}: TPS vs threads")
        ax.grid(alpha=.3)
        ax.legend(fontsize=7)
        save(fig, f"curves_{wl}.png", f"Load curve: {wl}")

    def bars(ax, groups, series, values, colors=None, ylabel=""):
        import numpy as np
        x = np.arange(len(groups))
        w = 0.8 / max(1, len(series))
        for i, sname in enumerate(series):
            ys, lo, hi = [], [], []
            for g in groups:
                s = values(g, sname)
                ys.append(s[0] if s else 0)
                lo.append((s[0] - s[1]) if s else 0)
                hi.append((s[2] - s[0]) if s else 0)
            ax.bar(x + i * w - 0.4 + w / 2, ys, w, yerr=[lo, hi], capsize=3, label=sname,
                   color=(colors or {}).get(sname))
        ax.set_xticks(x)
        ax.set_xticklabels(groups, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=.3)

    # 4. schedulers local vs remote
    sc = sel(R, exp="schedulers")
    if sc:
        fig, ax = plt.subplots(figsize=(8, 4.2))
        bases = [b for b in ("ts-thread", "ts-pool", "mdb-thread", "mdb-pool") if sel(sc, base=b)]
        thr = sorted({r["threads"] for r in sc})
        groups = [f"{LABEL[b]}\n{t} thr" for t in thr for b in bases]
        keymap = {f"{LABEL[b]}\n{t} thr": (b, t) for t in thr for b in bases}
        bars(ax, groups, ["local", "remote"],
             lambda g, loc: st(sel(sc, base=keymap[g][0], threads=keymap[g][1], location=loc), "ops_per_s"),
             {"local": "#1f77b4", "remote": "#ff7f0e"}, "transactions / s")
        ax.set_title(f"{sc[0]['workload']}: co-located vs network-namespace clients (delay: {sc[0].get('delay')})")
        ax.legend()
        save(fig, "schedulers.png", "Schedulers, local vs remote clients (seed 004)")

    # 5. floor under the load generator
    fl = sel(R, exp="floor_loadgen")
    if fl:
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
        names = [n for n in ("rawfloor", "floor", "ts-thread", "ts-pool", "mdb-thread", "mdb-pool") if sel(fl, server=n)]
        bars(axes[0], [LABEL[n].replace(" ", "\n", 1) for n in names], ["server", "client"],
             lambda g, who: st(sel(fl, server=names[[LABEL[n].replace(" ", "\n", 1) for n in names].index(g)]),
                               f"{who}_us_per_op"),
             {"server": "#1f77b4", "client": "#aec7e8"}, "µs CPU / connection")
        axes[0].set_title("CPU per connection under turnstile-loadgen (100 threads, TCP)")
        axes[0].legend()
        bars(axes[1], [LABEL[n].replace(" ", "\n", 1) for n in names], ["conn/s"],
             lambda g, _: st(sel(fl, server=names[[LABEL[n].replace(" ", "\n", 1) for n in names].index(g)]), "ops_per_s"),
             {"conn/s": "#2ca02c"}, "connections / s")
        axes[1].set_title("connections per second")
        save(fig, "floor.png", "The floor: raw socket pair and canned server vs Turnstile and MariaDB")

    # 6. storm
    sm = sel(R, exp="storm")
    if sm:
        fig, ax = plt.subplots(figsize=(8, 4.2))
        names = [n for n in ("ts-pool", "ts-thread", "mdb-pool", "mdb-thread") if sel(sm, server=n)]
        bars(ax, [LABEL[n] for n in names], ["p50", "p99", "p999"],
             lambda g, p: st(sel(sm, server=names[[LABEL[n] for n in names].index(g)]), f"lat_{p}_ms"),
             {"p50": "#2ca02c", "p99": "#ff7f0e", "p999": "#d62728"}, "connect latency, ms")
        ax.set_title(f"connect storm: {sm[0]['clients']:,} clients at once (latency to first query result)")
        ax.legend()
        save(fig, "storm.png", "Connect storm")

    # 7. scale
    meta = [r for r in R if r.get("exp") == "scale_meta" and isinstance(r.get("level"), int)]
    sca = sel(R, exp="scale")
    if meta:
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
        for b in ("ts-pool", "mdb-pool", "ts-thread", "mdb-thread"):
            m = sorted([r for r in meta if r["base"] == b], key=lambda r: r["held"])
            if m:
                axes[0].plot([r["held"] for r in m], [r["server_rss_kib"] / 1024 for r in m], "-o", label=LABEL[b],
                             color=COLOR.get(b))
            line(axes[1], sel(sca, base=b), "idle", "ops_per_s", LABEL[b], COLOR.get(b))
        axes[0].set_xlabel("idle connections held")
        axes[0].set_ylabel("server RSS, MiB")
        axes[0].set_title("server memory with idle connections")
        axes[1].set_xlabel("idle connections held")
        axes[1].set_ylabel("point selects / s (64 active clients)")
        axes[1].set_title("active throughput beside idle connections")
        for ax in axes:
            ax.grid(alpha=.3)
            ax.legend(fontsize=8)
        save(fig, "scale.png", "Scale: idle connections with 64 active clients")

    # 8. slow readers
    sr = sel(R, exp="slow_readers")
    if sr:
        fig, ax = plt.subplots(figsize=(7, 4.2))
        names = [n for n in ("ts-pool", "ts-thread", "mdb-pool", "mdb-thread") if sel(sr, server=n)]
        bars(ax, [LABEL[n] for n in names], ["without slow readers", "with slow readers"],
             lambda g, k: st(sel(sr, server=names[[LABEL[n] for n in names].index(g)],
                                 slow_clients=0 if k.startswith("without") else doc["meta"]["plan"]["slow_clients"]),
                             "ops_per_s"),
             {"without slow readers": "#1f77b4", "with slow readers": "#d62728"}, "point selects / s (16 clients)")
        ax.set_title(f"{doc['meta']['plan']['slow_clients']} slow readers (4 MB result each, never read)")
        ax.legend()
        save(fig, "slow_readers.png", "Slow readers (issue 4 benchmark 3)")

    # 9. instrumentation
    ins = sel(R, exp="instrumentation")
    if ins:
        fig, ax = plt.subplots(figsize=(8, 4.2))
        names = [n for n in ("ts-stats-on", "ts-stats-off", "mdb-ps-off", "mdb-ps-on") if sel(ins, server=n)]
        wls = sorted({r["workload"] for r in ins})
        bars(ax, [LABEL[n].replace(" ", "\n", 1) for n in names], wls,
             lambda g, w: st(sel(ins, server=names[[LABEL[n].replace(" ", "\n", 1) for n in names].index(g)],
                                 workload=w), "server_us_per_op"), None, "server µs CPU / operation")
        ax.set_title("instrumentation on/off: server CPU per operation")
        ax.legend(fontsize=8)
        save(fig, "instrumentation.png", "Instrumentation overhead")
    return made, ""


# ---------------------------------------------------------------- markdown
def render(doc, docs_dir, raw_rel):
    R = doc["records"]
    meta = doc["meta"]
    plan = meta.get("plan", {})
    plots, plot_note = make_plots(doc, os.path.join(docs_dir, "bench"))
    L = []
    P = L.append
    P("<!-- GENERATED by bench/run (bench/lib/report.py). Do not edit: re-run the suite or "
      "`python3 bench/lib/report.py bench/results/suite-<stamp>.json`. -->")
    P("# Benchmarks")
    P("")
    P(f"Generated by `{meta.get('command', 'bench/run')}` ({meta['mode']} mode) on {meta['started']}, "
      f"{meta['seconds']} s. Turnstile {meta.get('turnstile_rev')}. Engine: {meta.get('engine')}. "
      f"Raw data: `{raw_rel}` (and `.csv`).")
    P("")
    P(meta.get("engine_note", ""))
    P("")
    P("Every figure is the median over successful runs with (min–max) when there was more than one run; "
      "**runs** gives the number of runs behind the Turnstile/MariaDB figures. CPU per operation is utime+stime "
      "of the server process over the run (from /proc, all threads) divided by operations; the client's is the "
      "load generator's own rusage. This machine has "
      f"{meta['machine'].get('nproc')} cores shared with other work (load average "
      f"{meta['machine'].get('loadavg_start')} at the start, {meta['machine'].get('loadavg_end')} at the end), "
      "so ratios measured in the same run are the figures to read; absolute numbers drift.")
    P("")

    # ------------------------------------------------ summary
    P("## Summary")
    P("")
    P("| experiment | metric | Turnstile | MariaDB | Turnstile / MariaDB | runs |")
    P("|---|---|---:|---:|---:|---:|")

    def row(exp, metric, t, m, r=None, runs=None, tnd=0, mnd=None):
        mnd = tnd if mnd is None else mnd
        P(f"| {exp} | {metric} | {t if isinstance(t, str) else fmt(t, tnd)} | "
          f"{m if isinstance(m, str) else fmt(m, mnd)} | {r if r is not None else ratio(t, m)} | "
          f"{runs if runs is not None else nruns(t if not isinstance(t, str) else None, m if not isinstance(m, str) else None)} |")

    np_ = sel(R, exp="nonpersistent")
    for t in ("tcp", "unix"):
        for ts, md, sched in (("ts-thread", "mdb-thread", "per-thread"), ("ts-pool", "mdb-pool", "pool")):
            a, b = st(sel(np_, server=ts, transport=t, clients=100), "ops_per_s"), st(sel(np_, server=md, transport=t, clients=100), "ops_per_s")
            if a or b:
                row(f"Non-persistent: connect + point select + disconnect, 100 clients, {t.upper() if t == 'tcp' else 'Unix socket'}, {sched}",
                    "connections/s", a, b)
                a2, b2 = st(sel(np_, server=ts, transport=t, clients=100), "server_us_per_op"), st(sel(np_, server=md, transport=t, clients=100), "server_us_per_op")
                row("″", "server µs CPU / connection (lower is better)", a2, b2, tnd=1)
                a3, b3 = st(sel(np_, server=ts, transport=t, clients=100), "client_us_per_op"), st(sel(np_, server=md, transport=t, clients=100), "client_us_per_op")
                row("″", "client µs CPU / connection", a3, b3, tnd=1)
    ps = sel(R, exp="persistent")
    for thr in sorted({r["threads"] for r in ps}):
        for ts, md, sched in (("ts-thread", "mdb-thread", "per-thread"), ("ts-pool", "mdb-pool", "pool")):
            a, b = st(sel(ps, server=ts, threads=thr), "ops_per_s"), st(sel(ps, server=md, threads=thr), "ops_per_s")
            row(f"Persistent point select, {thr} clients, TCP, {sched}", "transactions/s", a, b)
            row("″", "server µs CPU / point select", st(sel(ps, server=ts, threads=thr), "server_us_per_op"),
                st(sel(ps, server=md, threads=thr), "server_us_per_op"), tnd=1)
        tp, tt = st(sel(ps, server="ts-pool", threads=thr), "ops_per_s"), st(sel(ps, server="ts-thread", threads=thr), "ops_per_s")
        mp, mt = st(sel(ps, server="mdb-pool", threads=thr), "ops_per_s"), st(sel(ps, server="mdb-thread", threads=thr), "ops_per_s")
        row(f"Persistent point select, {thr} clients: pool vs per-thread", "pool TPS / per-thread TPS",
            ratio(tp, tt), ratio(mp, mt), "—", nruns(tp, tt))
    cv = sel(R, exp="curves")
    for wl in ("oltp_read_only", "oltp_read_write", "oltp_point_select"):
        c = sel(cv, workload=wl, transport="tcp")
        if not c:
            continue
        thr = 16 if sel(c, threads=16) else (64 if sel(c, threads=64) else sorted({r["threads"] for r in c})[0])
        for ts, md, sched in (("ts-thread", "mdb-thread", "per-thread"), ("ts-pool", "mdb-pool", "pool")):
            row(f"Persistent {wl}, {thr} threads, TCP, {sched}", "transactions/s",
                st(sel(c, server=ts, threads=thr), "ops_per_s"), st(sel(c, server=md, threads=thr), "ops_per_s"))
    sc = sel(R, exp="schedulers")
    if sc:
        wl = sc[0]["workload"]
        for thr in sorted({r["threads"] for r in sc}):
            for loc in ("local", "remote"):
                tp, tt = st(sel(sc, base="ts-pool", threads=thr, location=loc), "ops_per_s"), st(sel(sc, base="ts-thread", threads=thr, location=loc), "ops_per_s")
                mp, mt = st(sel(sc, base="mdb-pool", threads=thr, location=loc), "ops_per_s"), st(sel(sc, base="mdb-thread", threads=thr, location=loc), "ops_per_s")
                where = "co-located clients" if loc == "local" else f"clients in a netns over veth (delay {sc[0].get('delay')})"
                row(f"Schedulers, {wl} {thr} threads, {where}", "pool TPS / per-thread TPS", ratio(tp, tt), ratio(mp, mt),
                    "—", nruns(tp, tt))
                row("″", "pool transactions/s", tp, mp)
    ins = sel(R, exp="instrumentation")
    for wl in sorted({r["workload"] for r in ins}):
        on, off = st(sel(ins, server="ts-stats-on", workload=wl), "ops_per_s"), st(sel(ins, server="ts-stats-off", workload=wl), "ops_per_s")
        pon, poff = st(sel(ins, server="mdb-ps-on", workload=wl), "ops_per_s"), st(sel(ins, server="mdb-ps-off", workload=wl), "ops_per_s")
        row(f"Instrumentation on vs off ({WL.get(wl, wl)}, {100 if wl == 'connect' else 16} clients, TCP, per-thread)",
            "throughput on / off (Turnstile statistics; MariaDB performance_schema)", ratio(on, off), ratio(pon, poff), "—",
            nruns(on, off))
        son, soff = st(sel(ins, server="ts-stats-on", workload=wl), "server_us_per_op"), st(sel(ins, server="ts-stats-off", workload=wl), "server_us_per_op")
        mson, msoff = st(sel(ins, server="mdb-ps-on", workload=wl), "server_us_per_op"), st(sel(ins, server="mdb-ps-off", workload=wl), "server_us_per_op")
        row("″", "server µs CPU / op, on / off", ratio(son, soff), ratio(mson, msoff), "—", nruns(son, soff))
    fl = st(sel(np_, server="floor", transport="tcp", clients=100), "server_us_per_op")
    if fl:
        for ts, md, sched in (("ts-thread", "mdb-thread", "per-thread"), ("ts-pool", "mdb-pool", "pool")):
            a, b = st(sel(np_, server=ts, transport="tcp", clients=100), "server_us_per_op"), st(sel(np_, server=md, transport="tcp", clients=100), "server_us_per_op")
            row(f"Floor (sysbench, 100 clients, TCP), {sched}", "server CPU/connection as a multiple of crates/floor's",
                ratio(a, fl), ratio(b, fl), "—", nruns(a, b))
    lg = sel(R, exp="floor_loadgen")
    raw = st(sel(lg, server="rawfloor"), "total_us_per_op")
    if raw:
        for ts, md, sched in (("ts-thread", "mdb-thread", "per-thread"), ("ts-pool", "mdb-pool", "pool")):
            a, b = st(sel(lg, server=ts), "total_us_per_op"), st(sel(lg, server=md), "total_us_per_op")
            row(f"Floor (turnstile-loadgen, 100 threads, TCP), {sched}",
                f"server+client CPU/connection as a multiple of the raw socket pair's ({fmt(raw, 1)} µs)",
                ratio(a, raw), ratio(b, raw), "—", nruns(a, b))
            a2, b2 = st(sel(lg, server=ts), "ops_per_s"), st(sel(lg, server=md), "ops_per_s")
            row("″", "connections/s under turnstile-loadgen", a2, b2)
    sm = sel(R, exp="storm")
    if sm:
        n = sm[0]["clients"]
        for ts, md, sched in (("ts-pool", "mdb-pool", "pool"), ("ts-thread", "mdb-thread", "per-thread")):
            a, b = sel(sm, server=ts), sel(sm, server=md)
            if not (a or b):
                continue
            row(f"Connect storm, {n:,} clients at once, {sched}", "seconds until all are served",
                st(a, "time_to_serve_all_s"), st(b, "time_to_serve_all_s"), tnd=2)
            row("″", "p50 / p99 / p99.9 connect latency, ms",
                " / ".join(fmt(st(a, k), 0) for k in ("lat_p50_ms", "lat_p99_ms", "lat_p999_ms")),
                " / ".join(fmt(st(b, k), 0) for k in ("lat_p50_ms", "lat_p99_ms", "lat_p999_ms")),
                ratio(st(a, "lat_p99_ms"), st(b, "lat_p99_ms")) + " (p99)", nruns(st(a, "ops"), st(b, "ops")))
            row("″", "errors (all runs)", errsum(a), errsum(b), "—", nruns(st(a, "ops"), st(b, "ops")))
    meta_s = [r for r in R if r.get("exp") == "scale_meta" and isinstance(r.get("level"), int)]
    sca = sel(R, exp="scale")
    if meta_s:
        for ts, md, sched in (("ts-pool", "mdb-pool", "pool"), ("ts-thread", "mdb-thread", "per-thread")):
            tm = [r for r in meta_s if r["base"] == ts]
            mm = [r for r in meta_s if r["base"] == md]
            if not (tm or mm):
                continue
            lvl = 10000 if any(r["level"] == 10000 for r in tm + mm) else max(r["level"] for r in tm + mm)
            a = next((r for r in tm if r["level"] == lvl), None)
            b = next((r for r in mm if r["level"] == lvl), None)
            pa, pb = (a or {}).get("rss_per_idle_kib"), (b or {}).get("rss_per_idle_kib")
            row(f"Idle connections ({lvl:,} held), {sched}", "server RSS per idle connection, KiB",
                num(pa, 1), num(pb, 1), f"{pa / pb:.2f}×" if pa and pb else "n/a", "1")
            ta, tb = max((r["held"] for r in tm), default=None), max((r["held"] for r in mm), default=None)
            row("″", "most idle connections held", num(ta), num(tb), "—", "1")
            pra = projection(tm)
            prb = projection(mm)
            row("″", "projected server RSS at 100,000 idle, GiB", num(pra, 2), num(prb, 2),
                f"{pra / prb:.2f}×" if pra and prb else "n/a", "—")
            t0, tmax = scale_tps(sca, ts)
            m0, mmax = scale_tps(sca, md)
            row("″", "64-client point-select TPS with the most idle held / with none",
                f"{t0}" if isinstance(t0, str) else (f"{tmax[0] / t0[0]:.2f}×" if t0 and tmax else "n/a"),
                f"{m0}" if isinstance(m0, str) else (f"{mmax[0] / m0[0]:.2f}×" if m0 and mmax else "n/a"), "—",
                nruns(tmax, mmax))
    sr = sel(R, exp="slow_readers")
    if sr:
        k = plan.get("slow_clients", 200)
        for ts, md, sched in (("ts-pool", "mdb-pool", "pool"), ("ts-thread", "mdb-thread", "per-thread")):
            a0, a1 = st(sel(sr, server=ts, slow_clients=0), "ops_per_s"), st(sel(sr, server=ts, slow_clients=k), "ops_per_s")
            b0, b1 = st(sel(sr, server=md, slow_clients=0), "ops_per_s"), st(sel(sr, server=md, slow_clients=k), "ops_per_s")
            if not (a0 or b0):
                continue
            row(f"Slow readers: 16 point-select clients beside {k} clients that never read a 4 MB result, {sched}",
                "point-select TPS with / without the slow readers", ratio(a1, a0), ratio(b1, b0), "—", nruns(a1, b1))
            row("″", "point-select TPS with the slow readers", a1, b1)
            ra = next((r.get("server_rss_kib") for r in R if r.get("exp") == "slow_readers_meta" and r["server"] == ts), None)
            rb = next((r.get("server_rss_kib") for r in R if r.get("exp") == "slow_readers_meta" and r["server"] == md), None)
            row("″", "server RSS with the slow readers, MiB", num(ra / 1024 if ra else None), num(rb / 1024 if rb else None),
                f"{ra / rb:.2f}×" if ra and rb else "n/a", "1")
    P("")

    # ------------------------------------------------ issue 4 targets
    P("### Issue 4 targets")
    P("")
    P("| target | measured | met? |")
    P("|---|---|---|")
    tp = st(sel(ps, server="ts-pool", threads=16), "ops_per_s")
    tt = st(sel(ps, server="ts-thread", threads=16), "ops_per_s")
    target_row(P, "pool loses ≤ 5% to per-thread at 16 clients (persistent point select)",
               (tp[0] / tt[0]) if tp and tt else None, lambda v: v >= 0.95, "pool/per-thread = {:.3f}")
    tp = st(sel(ps, server="ts-pool", threads=1000), "ops_per_s")
    tt = st(sel(ps, server="ts-thread", threads=1000), "ops_per_s")
    target_row(P, "pool wins at 1,000 clients", (tp[0] / tt[0]) if tp and tt else None, lambda v: v > 1.0,
               "pool/per-thread = {:.3f}")
    a = st(sel(np_, server="ts-pool", transport="tcp", clients=100), "server_us_per_op")
    b = st(sel(np_, server="mdb-pool", transport="tcp", clients=100), "server_us_per_op")
    c = st(sel(np_, server="ts-thread", transport="tcp", clients=100), "server_us_per_op")
    target_row(P, "connect+query+disconnect, 100 clients, pool: server CPU/conn ≤ 1/3 of MariaDB pool-of-threads'",
               (a[0] / b[0]) if a and b else None, lambda v: v <= 1 / 3, "Turnstile pool / MariaDB pool = {:.2f}")
    target_row(P, "… and no worse than Turnstile's per-thread scheduler",
               (a[0] / c[0]) if a and c else None, lambda v: v <= 1.05, "pool / per-thread = {:.2f} (≤ 1.05 counted as equal)")
    k = plan.get("slow_clients", 200)
    a0, a1 = st(sel(sr, server="ts-pool", slow_clients=0), "ops_per_s"), st(sel(sr, server="ts-pool", slow_clients=k), "ops_per_s")
    target_row(P, "slow readers: point-select TPS ≥ 90% of its value without them (pool)",
               (a1[0] / a0[0]) if a0 and a1 else None, lambda v: v >= 0.9, "{:.2f} of the baseline")
    tm = [r for r in meta_s if r["base"] == "ts-pool" and r["level"] == 10000]
    v = tm[0].get("rss_per_idle_kib") if tm else None
    target_row(P, "≤ 8 KiB RSS per idle connection (pool, 10,000 idle)", v, lambda x: x <= 8, "{:.1f} KiB")
    P("")

    # ------------------------------------------------ plots
    P("## Plots")
    P("")
    if plot_note:
        P(f"_{plot_note}_")
        P("")
    for name, title in plots:
        P(f"### {title}")
        P("")
        P(f"![{title}](bench/{name})")
        P("")

    # ------------------------------------------------ detail tables
    P("## All measurements")
    P("")
    detail(P, R, plan)

    # ------------------------------------------------ notes
    P("## Notes, skips and misbehaviour")
    P("")
    notes = list(doc.get("notes", []))
    if not notes:
        P("None.")
    for n in notes:
        P(f"- {n}")
    if doc.get("misbehaviour"):
        P("")
        P("Turnstile/MariaDB misbehaviour seen during the run: " + "; ".join(doc["misbehaviour"]))
    P("")
    P(f"Quick mode runs a reduced matrix (fewer client counts, 2 s runs, 1 run where not marked); "
      f"full mode is the one to publish. This report: **{meta['mode']}** mode.")
    P("")
    timing = [r for r in R if r.get("exp") == "timing"]
    if timing:
        P("Time per experiment: " + ", ".join(f"{r['experiment']} {r['seconds']:.0f} s" for r in timing) + ".")
        P("")

    # ------------------------------------------------ machine & configs
    m = meta["machine"]
    P("## Machine, versions, configurations")
    P("")
    P(f"- machine: {m.get('nproc')} CPUs ({m.get('cpu_model')}), {m.get('memory')} RAM, {m.get('kernel')}, {m.get('os')}")
    P(f"- load average: {m.get('loadavg_start')} at the start, {m.get('loadavg_end')} at the end")
    P(f"- limits: open files (hard) {m.get('nofile_limit')}; " +
      ", ".join(f"{k}={v}" for k, v in (m.get("sysctl") or {}).items()))
    P(f"- versions: {m.get('mariadbd')}; {m.get('sysbench')}; {m.get('rustc')}; Python {m.get('python')}")
    P(f"- Turnstile: {meta.get('turnstile_rev')} (binary `{os.path.relpath(meta.get('turnstile_bin', ''), ROOT)}`)")
    P(f"- sysbench tables: 1 × {meta.get('table_size'):,} rows (`sbtest1`), default `--db-ps-mode=auto` (prepared statements)")
    P(f"- remote clients: {meta.get('remote_delay') or 'not run'}")
    P("")
    P("Exact server command lines (each server has its own port, socket and data directory under a temp dir; "
      "MariaDB's datadirs are copies of one `mariadb-install-db` datadir with the `bench` user and `sbtest1`):")
    P("")
    for name, c in sorted(doc.get("configs", {}).items()):
        P(f"- **{name}**: `{c['command']}`")
        if c.get("variables"):
            P("  - variables: " + ", ".join(f"`{k}={v}`" for k, v in sorted(c["variables"].items())))
    P("")
    out = os.path.join(docs_dir, "benchmarks.md")
    with open(out, "w") as f:
        f.write("\n".join(L).rstrip() + "\n")
    return out


def errsum(recs):
    tot = {}
    for r in recs:
        try:
            for k, v in json.loads(r.get("error_kinds") or "{}").items():
                tot[k] = tot.get(k, 0) + v
        except ValueError:
            pass
    if not recs:
        return "n/a"
    return "none" if not tot else ", ".join(f"{k}: {v}" for k, v in sorted(tot.items()))


def projection(meta_list):
    """Server RSS at 100,000 idle connections (GiB), from the largest level's per-connection slope."""
    pts = [r for r in meta_list if r.get("rss_per_idle_kib") is not None and r.get("held")]
    if not pts:
        return None
    r = max(pts, key=lambda r: r["held"])
    return (r["server_rss0_kib"] + 100_000 * r["rss_per_idle_kib"]) / 1024 / 1024


def scale_tps(sca, base):
    recs = sel(sca, base=base)
    if not recs:
        return None, None
    idles = sorted({r["idle"] for r in recs})
    return st(sel(recs, idle=idles[0]), "ops_per_s"), st(sel(recs, idle=idles[-1]), "ops_per_s")


def target_row(P, what, v, ok, f):
    if v is None:
        P(f"| {what} | not measured | n/a |")
    else:
        P(f"| {what} | {f.format(v)} | {'yes' if ok(v) else '**no**'} |")


def detail(P, R, plan):
    def table(title, recs, keys, cols):
        if not recs:
            return
        P(f"### {title}")
        P("")
        P("| " + " | ".join(k for k, _ in keys) + " | " + " | ".join(c for c, _, _ in cols) + " |")
        P("|" + "---|" * len(keys) + "---:|" * len(cols))
        groups = {}
        for r in recs:
            groups.setdefault(tuple(r.get(k) for _, k in keys), []).append(r)
        for g, rs in sorted(groups.items(), key=lambda kv: tuple(str(x) if not isinstance(x, (int, float)) else f"{x:012.3f}" for x in kv[0])):
            cells = [LABEL.get(v, str(v)) if isinstance(v, str) else str(v) for v in g]
            okn = sum(1 for r in rs if r.get("ok"))
            vals = [fmt(st(rs, key), nd) for _, key, nd in cols]
            P("| " + " | ".join(cells) + " | " + " | ".join(vals[:-1] + [f"{okn}/{len(rs)}"]) + " |")
        P("")
    base_cols = [("ops/s", "ops_per_s", 0), ("server µs/op", "server_us_per_op", 1), ("client µs/op", "client_us_per_op", 1),
                 ("p95 ms", "lat_p95_ms", 2), ("ok runs", "ok", 0)]
    table("Non-persistent connections (sysbench, bench/lua/connect_point_select.lua)", sel(R, exp="nonpersistent"),
          [("transport", "transport"), ("clients", "clients"), ("server", "server")], base_cols)
    table("Persistent point select (issue 4 benchmark 1)", sel(R, exp="persistent"),
          [("threads", "threads"), ("server", "server")], base_cols)
    table("Load curves (1 run per point)", sel(R, exp="curves"),
          [("workload", "workload"), ("transport", "transport"), ("threads", "threads"), ("server", "server")], base_cols)
    table("Schedulers: local vs remote clients", sel(R, exp="schedulers"),
          [("threads", "threads"), ("location", "location"), ("server", "base")], base_cols)
    table("Instrumentation overhead", sel(R, exp="instrumentation"),
          [("workload", "workload"), ("server", "server")], base_cols)
    table("The floor under turnstile-loadgen (connect loop, 100 threads, TCP)", sel(R, exp="floor_loadgen"),
          [("server", "server")],
          [("conn/s", "ops_per_s", 0), ("server µs/conn", "server_us_per_op", 1), ("client µs/conn", "client_us_per_op", 1),
           ("total µs/conn", "total_us_per_op", 1), ("p50 ms", "lat_p50_ms", 2), ("p99 ms", "lat_p99_ms", 2), ("ok runs", "ok", 0)])
    table("Connect storm", sel(R, exp="storm"), [("server", "server")],
          [("served", "served", 0), ("s to serve all", "time_to_serve_all_s", 2), ("p50 ms", "lat_p50_ms", 1),
           ("p99 ms", "lat_p99_ms", 1), ("p99.9 ms", "lat_p999_ms", 1), ("max ms", "lat_max_ms", 1),
           ("server µs/conn", "server_us_per_op", 1), ("client µs/conn", "client_us_per_op", 1), ("ok runs", "ok", 0)])
    sm = sel(R, exp="storm")
    if sm:
        P("Storm errors by kind: " + "; ".join(f"{LABEL.get(n, n)}: {errsum(sel(sm, server=n))}"
                                               for n in sorted({r['server'] for r in sm})))
        P("")
    meta = [r for r in R if r.get("exp") == "scale_meta" and isinstance(r.get("level"), int)]
    if meta:
        P("### Scale: idle connections (fresh servers)")
        P("")
        P("| server | idle held | server RSS MiB | KiB per idle conn | server threads | kernel TCP mem pages (machine) |")
        P("|---|---:|---:|---:|---:|---:|")
        for r in meta:
            P(f"| {LABEL.get(r['base'], r['base'])} | {r['held']:,} | {r['server_rss_kib'] / 1024:,.1f} | "
              f"{num(r.get('rss_per_idle_kib'), 2)} | {r.get('server_threads')} | {r.get('tcp_mem_pages')} |")
        rel = [r for r in R if r.get("exp") == "scale_meta" and r.get("level") == "release"]
        if rel:
            P("")
            P("Alive at release (every held connection answered COM_PING): " +
              ", ".join(f"{LABEL.get(r['base'], r['base'])} {r.get('alive_at_release', 0):,}/{r['held']:,}" for r in rel))
        P("")
    table("Scale: 64 active point-select clients beside idle connections", sel(R, exp="scale"),
          [("server", "base"), ("idle", "idle")], base_cols)
    table("Slow readers", sel(R, exp="slow_readers"), [("server", "server"), ("slow clients", "slow_clients")], base_cols)
    sm = [r for r in R if r.get("exp") == "slow_readers_meta"]
    if sm:
        P("Slow readers held: " + "; ".join(
            f"{LABEL.get(r['server'], r['server'])}: {((r.get('ready') or {}).get('held'))} ready, "
            f"dropped by the server before release {((r.get('done') or {}).get('dropped'))}, server RSS "
            f"{(r.get('server_rss_kib') or 0) / 1024:,.0f} MiB, {r.get('server_threads')} threads" for r in sm))
        P("")


def main():
    if len(sys.argv) != 2:
        print("usage: report.py bench/results/suite-<stamp>.json", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    out = render(doc, os.path.join(ROOT, "docs"), os.path.relpath(os.path.abspath(sys.argv[1]), ROOT))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
