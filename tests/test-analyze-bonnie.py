#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on bonnie++ results, alone and beside fio runs.

Usage: test-analyze-bonnie.py PATH/TO/fiocamp-analyze

- The real bonnie++ 2.00a rows of tests/fixtures/bonnie/bonnie-2.00a come out
  with the values bonnie++ printed (K/sec as MiB/s, seeks/s, files/s, %CP,
  the latency as the slowest operation), "+++++" as too fast, never a value,
  and an empty field as no run at all; the hand-made rows of the older
  releases likewise.
- A pile of bonnie++ CSV files named by backend (zvol-1.csv, raw-1.csv ...,
  hand-made rows of known values shaped like the published comparison) gives
  the comparison table with the right medians and ranges, as states of one
  input, and as variants with --pattern; a bad file is rejected, named, and
  counted against its variant's stability.
- The same pile beside real fio runs of the bonnie++-equivalent suite
  (fio-jobs/bon_*.fio, 16 MiB, psync) shares the columns: block write is
  put_block and bon_write's write bandwidth, and so on.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import check, close, parse_csv, rejects, run, setup, summary  # noqa: E402

setup(sys.argv[1])
FIO = shutil.which("fio")
SRC = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
REAL = os.path.join(SRC, "tests", "fixtures", "bonnie", "bonnie-2.00a")
HAND = os.path.join(SRC, "tests", "fixtures", "bonnie", "handmade")

IO_TESTS = ["putc", "put_block", "rewrite", "getc", "get_block", "seeks"]
FILE_TESTS = ["seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"]
# where a test's rate goes: (direction, metric); bandwidths from KiB/s
PLACE = {"putc": ("write", "bw"), "put_block": ("write", "bw"), "rewrite": ("read", "bw"),
         "getc": ("read", "bw"), "get_block": ("read", "bw"), "seeks": ("read", "iops")}
for t in FILE_TESTS:
    PLACE[t] = ("read" if t.endswith("stat") else "write", "files")


def latency_us(text):
    for unit, scale in (("us", 1), ("ms", 1e3), ("s", 1e6)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise ValueError(text)


def rows_1_98(path):
    """Each 1.98 row of a file as {test: (rate text, cpu text, latency text)}."""
    out = []
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split(",")
            if fields[0] != "1.98":
                continue
            tests = {}
            for i, t in enumerate(IO_TESTS):
                tests[t] = (fields[9 + 2 * i], fields[10 + 2 * i], fields[38 + i])
            for i, t in enumerate(FILE_TESTS):
                tests[t] = (fields[26 + 2 * i], fields[27 + 2 * i], fields[44 + i])
            out.append(tests)
    return out


def rounds_rows(args):
    rc, out, err = run(["--csv", "rounds"] + args)
    rows, num = parse_csv(out)
    return rc, rows, num, err


def by_key(rows, num):
    """{(test base, row, metric, direction): (value, note)}; the test without
    its split ("put_block size=256m" is put_block), the row the rank of its
    round (a file name's trailing number is its round: bonnie-..._n128)."""
    rounds = sorted({int(r["round"]) for r in rows})
    got = {}
    for r in rows:
        base = r["test"].split(" ")[0]
        rank = rounds.index(int(r["round"])) + 1
        got[(base, rank, r["metric"], r["direction"])] = (num(r["value"]), r["note"])
    return got


def check_row_values(what, tests, got, rnd):
    """A bonnie++ row's tests against what the analyzer made of them."""
    for t, (rate, cpu, lat) in tests.items():
        d, metric = PLACE[t]
        key = (t, rnd, metric, d)
        if rate == "":
            check(not any(k[0] == t and k[1] == rnd for k in got),
                  f"{what} {t}: not run, so no run at all")
            continue
        if rate == "+++++":
            v, note = got.get(key, (0, ""))
            check(v is None and note.startswith("too fast to measure (bonnie++ +++++)"),
                  f"{what} {t}: +++++ is too fast, no value: {got.get(key)}")
        else:
            want = float(rate) / 1024 if metric == "bw" else float(rate)
            close(got.get(key, (None,))[0], want, 5e-4, f"{what} {t} {metric}")
        cpu_got = got.get((t, rnd, "cpu", d))
        if cpu in ("", "+++"):
            check(cpu_got is None or cpu_got[0] is None, f"{what} {t}: no CPU: {cpu_got}")
        else:
            close(cpu_got and cpu_got[0], float(cpu), 1e-9, f"{what} {t} CPU %")
        if lat:
            close(got.get((t, rnd, "lat_max", d), (None,))[0], latency_us(lat), 5e-4,
                  f"{what} {t}: latency is the slowest operation, lat_max")


def check_real():
    """Every real 2.00a sample: the values bonnie++ printed."""
    for name in sorted(os.listdir(REAL)):
        if not name.endswith((".csv", "_stdout.txt")):
            continue
        path = os.path.join(REAL, name)
        rows = rows_1_98(path)
        rc, out_rows, num, err = rounds_rows([path])
        check(rc == 0, f"{name}: exit {rc} {err}")
        got = by_key(out_rows, num)
        for i, tests in enumerate(rows, 1):
            check_row_values(f"{name} row {i}", tests, got, i)
        check(not any(v[0] == 0 for v in got.values()), f"{name}: no zero anywhere")
    # The text tables beside the CSV are skipped, not rejected; the rows of
    # -x 2 (one seed) are rounds 1 and 2.
    rc, out, err = run(["--csv", "summary", "--verbose", REAL])
    sk = rejects(err)
    check(rc == 0 and sk.get("bonnie-2.00a_q_s256_n1.stderr.txt") ==
          "skipped: bonnie++'s text table, not its CSV rows", f"text tables skipped: {rc} {sk}")
    rows, num = parse_csv(out)
    hdr = [r for r in rows if r["state"] == "q_x2_header" and r["metric"] == "lat_max" and
           r["test"].startswith("put_block")]
    check(len(hdr) == 1 and hdr[0]["n"] == "2" and num(hdr[0]["median"]) == (15458 + 250) / 2,
          f"-x 2: two rounds of one file: {hdr}")
    tf = [r for r in rows if r["state"] == "q_x2_header" and r["metric"] == "bw" and
          r["test"].startswith("put_block")]
    check(len(tf) == 1 and tf[0]["n"] == "0" and tf[0]["too_fast"] == "2" and
          num(tf[0]["too_fast_above"]) == 256.0 and tf[0]["median"] == "",
          f"+++++ twice: counted, above 128 MiB / 0.5 s, no median: {tf}")
    # Named on the command line, a text table is bonnie++'s without a row.
    rc, out, err = run(["--csv", "summary", REAL + "/bonnie-2.00a_q_s256_n1.stderr.txt"])
    check(rc == 2 and "rejected " + REAL + "/bonnie-2.00a_q_s256_n1.stderr.txt: not "
          "bonnie++ output: bonnie++'s text table, but no CSV row" in err,
          f"a text table named: {rc} {err}")


def check_handmade():
    """The older releases' rows (made by make-fixtures.py from their source)."""
    rc, out, err = run(["--csv", "rounds", "--pattern", "bonnie-{state}.csv", HAND])
    rows, num = parse_csv(out)
    check(rc == 0, f"handmade: exit {rc} {err}")
    # several names in one file: each is a variant
    got = {(r["variant"], r["state"], r["test"].split(" ")[0], r["metric"], int(r["round"])):
           num(r["value"]) for r in rows}
    # 1.97's slow-zvol: 6912 K/sec, seeks 456.7, latencies in ms and s
    close(got.get(("slow-zvol", "1.97_x3", "put_block", "bw", 1)), 6912 / 1024, 5e-4,
          "1.97 put_block")
    close(got.get(("slow-zvol", "1.97_x3", "seeks", "iops", 1)), 456.7, 5e-4,
          "1.97 seeks %.1f")
    close(got.get(("slow-zvol", "1.97_x3", "rewrite", "lat_max", 1)), 101e6, 1e-3,
          "1.97 rewrite latency 101s")
    close(got.get(("slow-zvol", "1.97_x3", "put_block", "lat_max", 1)), 2317e3, 1e-3,
          "1.97 put_block latency 2317ms")
    # 1.0x: no latency, seeks %.1f, the file tests
    close(got.get(("gen-4g", "1.03e_x3", "seeks", "iops", 1)), 4724.0, 5e-4,
          "1.03e seeks")
    close(got.get(("gen-4g", "1.03e_x3", "seq_create", "files", 1)), 50980, 5e-4,
          "1.03e files/s")
    check(("gen-4g", "1.03e_x3", "put_block", "lat_max", 1) not in got or
          got[("gen-4g", "1.03e_x3", "put_block", "lat_max", 1)] is None,
          "1.0x prints no latency")
    # 1.00's CPU beside +++++ is no rate: the rate is too fast all the same
    tf = [r for r in rows if r["variant"] == "gen-4g" and r["state"] == "1.00" and
          r["test"].startswith("get_block") and r["metric"] == "bw"]
    check(len(tf) == 1 and tf[0]["value"] == "" and "above 4096.000 MiB/s" in tf[0]["note"],
          f"1.00: +++++ below 1 s, so above 4096 MiB/s: {tf}")
    check("each name is a variant" in err, f"names as variants, said: {err}")


# ---- the backend pile ------------------------------------------------------------


def row_1_98(name, size, seed, put_block, rewrite, get_block, seeks, cpu, lat,
             files=None, putc=None):
    """A 2.00a row as bonnie++ -s SIZE -n 0 -f -q writes it (with -n and
    without -f when files / putc are given).  Rates in K/sec."""
    f = ["1.98", "2.00a", name, "1", str(seed), size, "", "8192", "5"]
    io_vals = [putc, put_block, rewrite, putc and putc // 2, get_block, seeks]
    for i, v in enumerate(io_vals):
        if v is None:
            f += ["", ""]
        elif v == "+":
            f += ["+++++", "+++"]
        else:
            f += [str(v), str(cpu[i] if isinstance(cpu, list) else cpu)]
    if files:
        f += ["16", "", "", "", ""]
        for v in files:
            f += ["+++++", "+++"] if v == "+" else [str(v), "10"]
    else:
        f += [""] * 5 + [""] * 12
    lats = [f"{lat[i]}us" if io_vals[i] is not None else "" for i in range(6)]
    lats += [f"{100 + i}us" if files else "" for i in range(6)]
    return ",".join(f + lats) + "\n"


# K/sec: raw 147..151 MiB/s write, 254..260 read, 2100..2300 seeks/s;
# zvol 6..7 MiB/s write, 440..480 seeks/s (the published ranges).
PILE = {
    "raw": [dict(put_block=150528, rewrite=81920, get_block=260096, seeks=2100, cpu=20),
            dict(put_block=152576, rewrite=82944, get_block=263168, seeks=2200, cpu=21),
            dict(put_block=154624, rewrite=83968, get_block=266240, seeks=2300, cpu=22)],
    "vnd": [dict(put_block=61440, rewrite=30720, get_block=204800, seeks=900, cpu=30),
            dict(put_block=62464, rewrite=31744, get_block=205824, seeks="+", cpu=31),
            dict(put_block=63488, rewrite=32768, get_block=206848, seeks=1000, cpu=32)],
    "zvol": [dict(put_block=6144, rewrite=4096, get_block=143360, seeks=440, cpu=5),
             dict(put_block=6656, rewrite=4608, get_block=146432, seeks=460, cpu=6),
             dict(put_block=7168, rewrite=5120, get_block=149504, seeks=480, cpu=7)],
}


def make_pile(pile):
    os.makedirs(pile)
    for backend, rows in PILE.items():
        for r, vals in enumerate(rows, 1):
            files = [50980, "+", 60681, 6375, "+", 58484] if backend == "raw" else None
            with open(f"{pile}/{backend}-{r}.csv", "w") as f:
                f.write(row_1_98("nbsd", "16G", 1796100000 + r, lat=[0, 900, 800, 0, 700, 9000],
                                 files=files, **vals))


def compare_rows(args):
    rc, out, err = run(["--csv", "compare"] + args)
    rows, num = parse_csv(out)
    return rc, rows, num, err


def want_range(backend, key, kib=True):
    vals = [v[key] for v in PILE[backend] if v[key] != "+"]
    vals = [v / 1024 for v in vals] if kib else [float(v) for v in vals]
    return statistics.median(vals), min(vals), max(vals), len(vals)


def check_pile(tmp):
    pile = os.path.join(tmp, "backends")
    make_pile(pile)
    rc, rows, num, err = compare_rows([pile])
    check(rc == 0, f"pile: exit {rc} {err}")
    got = {r["state"]: r for r in rows}
    check(sorted(got) == ["raw", "vnd", "zvol"], f"pile: a row per backend: {sorted(got)}")
    for backend in PILE:
        r = got.get(backend, {})
        for col, key, kib in (("block write MiB/s", "put_block", True),
                              ("rewrite MiB/s", "rewrite", True),
                              ("block read MiB/s", "get_block", True),
                              ("random seeks/s", "seeks", False)):
            med, lo, hi, n = want_range(backend, key, kib)
            close(num(r.get(f"{col} median", "")), med, 5e-4, f"{backend} {col} median")
            close(num(r.get(f"{col} min", "")), lo, 5e-4, f"{backend} {col} min")
            close(num(r.get(f"{col} max", "")), hi, 5e-4, f"{backend} {col} max")
            check(r.get(f"{col} n") == str(n), f"{backend} {col} n")
        close(num(r.get("block write MiB/s cpu_median", "")), PILE[backend][1]["cpu"], 1e-9,
              f"{backend} CPU % median")
        check(r.get("results") == "9" and r.get("rejected") == "0",
              f"{backend}: stability 9 ok: {r.get('results')} {r.get('rejected')}")
    # raw is the baseline state (the first); zvol's change against it
    zw = statistics.median([v["put_block"] for v in PILE["zvol"]])
    rw = statistics.median([v["put_block"] for v in PILE["raw"]])
    close(num(got["zvol"]["block write MiB/s change_pct"]), round((zw - rw) / rw * 100, 1),
          1e-9, "zvol against raw")
    check(got["raw"]["block write MiB/s change_pct"] == "", "the baseline has no change")
    # +++++: counted, above 8192 seeks / 0.5 s, never a value
    check(got["vnd"]["random seeks/s too_fast"] == "1" and
          num(got["vnd"]["random seeks/s too_fast_above"]) == 16384.0 and
          got["vnd"]["random seeks/s n"] == "2", f"vnd's +++++ seeks: {got['vnd']}")
    # the file tests of raw, with their own +++++
    check(got["raw"]["sequential stat files/s too_fast"] == "3" and
          got["raw"]["sequential stat files/s median"] == "",
          f"raw's stat tests too fast: {got['raw'].get('sequential stat files/s too_fast')}")
    close(num(got["raw"]["sequential create files/s median"]), 50980, 5e-4, "raw create files/s")
    # no per-char tests (-f): no column
    check(not any(k.startswith("per-char") for k in rows[0]), "-f: no per-char columns")

    # The terminal: the published shape.
    rc, out, err = run(["--compare", "--width", "160", pile])
    lines = out.splitlines()
    head = " ".join(l for l in lines if l.startswith("state "))
    check("block write MiB/s" in out and "seeks/s" in head and "stability" in head,
          f"the table's columns: {head}")

    def row_text(name):
        return " ".join(l for l in lines if l.startswith(name + " "))

    check("6.50 (6.00..7.00) -95.6%*" in row_text("zvol"), f"zvol's block write: {row_text('zvol')}")
    check("950 (900..1000) -56.8%* +1 too fast" in row_text("vnd"),
          f"vnd's seeks: {row_text('vnd')}")
    check("149 (147..151)" in row_text("raw") and row_text("raw").endswith("9 ok") and
          ">32768 (3 too fast)" in row_text("raw"), f"raw's row: {row_text('raw')}")
    text = out.replace("\n", " ")
    check("+++++ (done in less than 0.5 s)" in text and "bon_write's write bandwidth" in text,
          f"the legend says what the columns and marks are: {out}")
    rc, md, err = run(["--compare", "--markdown", pile])
    check("| state | block write MiB/s | CPU % |" in md and
          "| zvol | 6.50 (6.00..7.00) -95.6%\\* |" in md, f"Markdown: {md[:600]}")
    # JSON holds the comparison too
    rc, out, err = run(["--json", pile])
    doc = json.loads(out)
    cmp = doc["comparison"]
    titles = [c["title"] for c in cmp["columns"]]
    check(titles[:4] == ["block write MiB/s", "rewrite MiB/s", "block read MiB/s",
                         "random seeks/s"], f"JSON comparison columns: {titles}")
    z = [r for r in cmp["rows"] if r["state"] == "zvol"][0]
    check(z["cells"][0]["median"] == 6.5 and z["cells"][0]["cpu"]["median"] == 6.0 and
          z["results"] == 9, f"JSON zvol row: {z['cells'][0]}")

    # Backends as variants: --pattern.  A bad file: rejected, named, and
    # counted against its variant (whose every result it was).
    with open(f"{pile}/lvm-1.csv", "w") as f:
        f.write(row_1_98("nbsd", "16G", 1, lat=[0] * 6, put_block=1, rewrite=1, get_block=1,
                         seeks=1, cpu=1).replace(",1,1,1,1,", ",1,x1,1,1,", 1))
    rc, rows, num, err = compare_rows(["--pattern", "{variant}-{round}.csv", pile])
    why = rejects(err).get("lvm-1.csv", "")
    check(rc == 1 and why.startswith("rejected: bonnie++ CSV, line 1, column ") and
          "expected a CPU percentage" in why, f"a bad CSV, named: {why}")
    got = {r["variant"]: r for r in rows}
    check(sorted(got) == ["lvm", "raw", "vnd", "zvol"] and got["lvm"]["results"] == "0" and
          got["lvm"]["rejected"] == "1" and got["lvm"]["block write MiB/s median"] == "" and
          got["raw"]["results"] == "3", f"variants and their stability: {got.get('lvm')}")
    close(num(got["zvol"]["block write MiB/s change_pct"]), round((zw - rw) / rw * 100, 1),
          1e-9, "zvol against the baseline variant raw")
    rc, out, err = run(["--compare", "--width", "160", "--pattern", "{variant}-{round}.csv",
                        pile])
    lvm = " ".join(l for l in out.splitlines() if l.startswith("lvm "))
    check(lvm.endswith("0 ok, 1 rejected") and "(" not in lvm, f"lvm's row: {lvm}")
    os.remove(f"{pile}/lvm-1.csv")
    return pile


def check_sizes(tmp):
    """Rows of 16G and 32G: never one cell, a row each."""
    pile = os.path.join(tmp, "sizes")
    os.makedirs(pile)
    vals = {"zvol": (6144, 5120), "raw": (150528, 149504)}
    for backend, (w16, w32) in vals.items():
        for r in (1, 2):
            with open(f"{pile}/{backend}-{r}.csv", "w") as f:
                for size, w in (("16G", w16 + r * 1024), ("32G", w32 + r * 1024)):
                    f.write(row_1_98("nbsd", size, 7, lat=[0] * 6, put_block=w, rewrite=w,
                                     get_block=w, seeks=400 + r, cpu=3))
    rc, rows, num, err = compare_rows([pile])
    got = {(r["state"], r["size"]): r for r in rows}
    check(rc == 0 and sorted(got) == [("raw", "16g"), ("raw", "32g"), ("zvol", "16g"),
                                      ("zvol", "32g")], f"a row per size: {sorted(got)} {err}")
    for (backend, size), r in got.items():
        w = vals[backend][0 if size == "16g" else 1]
        close(num(r["block write MiB/s median"]), (w + 1.5 * 1024) / 1024, 5e-4,
              f"{backend} {size}: its own rows only")
        check(r["block write MiB/s n"] == "2", f"{backend} {size}: two rounds")
    check("runs on data sets of 2 sizes, a test each" in err and "warning" not in err,
          f"sizes are said, not warned of: {err}")


# ---- beside fio runs of the suite ---------------------------------------------------


def run_suite(pile, data):
    """fio-jobs/bon_* on 16 MiB, psync, twice, in the campaign layout
    disk/rN/JOB.json (with the logs beside, as fiocamp-run keeps them)."""
    for r in (1, 2):
        rdir = os.path.join(pile, "disk", f"r{r}")
        os.makedirs(rdir)
        for job in ("bon_write", "bon_rewrite", "bon_read", "bon_seeks"):
            env = dict(os.environ, FIOCAMP_FILE=data, FIOCAMP_SIZE=str(16 << 20),
                       FIOCAMP_RUNTIME="2", FIOCAMP_IOENGINE="psync", FIOCAMP_TEST=job)
            subprocess.run([FIO, "--output-format=json", f"--output={job}.json",
                            os.path.join(SRC, "fio-jobs", job + ".fio")],
                           cwd=rdir, env=env, check=True, capture_output=True, timeout=120)


def fio_value(pile, job, ddir, key):
    vals = []
    for r in (1, 2):
        with open(f"{pile}/disk/r{r}/{job}.json") as f:
            j = json.load(f)["jobs"][0]
        vals.append(j["usr_cpu"] + j["sys_cpu"] if key == "cpu" else
                    j[ddir]["bw_bytes"] / 1048576 if key == "bw" else j[ddir]["iops"])
    return statistics.median(vals), min(vals), max(vals)


def check_mixed(tmp, pile):
    if not FIO:
        print("fio not found; the mixed pile is not checked")
        return
    fio_pile = os.path.join(tmp, "fio-disk")
    data = os.path.join(tmp, "testfile")
    run_suite(fio_pile, data)
    args = ["--label", "bonnie=" + pile, "--label", "fio=" + fio_pile]
    rc, rows, num, err = compare_rows(args)
    # the block jobs on 16 MiB end within a second: no log line, and their
    # logs are rejected for it (the runs are not)
    bad = {k: v for k, v in rejects(err).items() if "holds no values" not in v}
    check(rc in (0, 1) and not bad, f"mixed: exit {rc} {bad}")
    got = {(r["variant"], r["state"]): r for r in rows}
    check(sorted(got) == [("bonnie", "raw"), ("bonnie", "vnd"), ("bonnie", "zvol"),
                          ("fio", "disk")], f"mixed rows: {sorted(got)}")
    f = got.get(("fio", "disk"), {})
    check(f.get("size") == "16m" and got[("bonnie", "raw")]["size"] == "16g",
          f"sizes apart: {f.get('size')}")
    for col, job, ddir, key in (("block write MiB/s", "bon_write", "write", "bw"),
                                ("rewrite MiB/s", "bon_rewrite", "read", "bw"),
                                ("block read MiB/s", "bon_read", "read", "bw"),
                                ("random seeks/s", "bon_seeks", "read", "iops")):
        med, lo, hi = fio_value(fio_pile, job, ddir, key)
        close(num(f.get(f"{col} median", "")), med, 5e-4 * max(1, med), f"fio {col} median")
        close(num(f.get(f"{col} min", "")), lo, 5e-4 * max(1, lo), f"fio {col} min")
        close(num(f.get(f"{col} max", "")), hi, 5e-4 * max(1, hi), f"fio {col} max")
        cmed, _, _ = fio_value(fio_pile, job, ddir, "cpu")
        close(num(f.get(f"{col} cpu_median", "")), cmed, 5e-4, f"fio {col}: CPU % = usr + sys")
    check(f.get("results") == "8" and f.get("rejected") == "0", f"fio stability: {f}")
    rc, out, err = run(["--compare", "--width", "200"] + args)
    text = out.replace("\n", " ")
    check("bon_seeks: fio's CPU % is the mean of its 5 processes" in text,
          f"the seeks' CPU is said to be a mean: {out[-900:]}")


def check_html(tmp, pile):
    """The comparison in the HTML report: the same rows and columns, and the
    chart with a panel per column."""
    html = os.path.join(tmp, "backends.html")
    charts = os.path.join(tmp, "charts")
    rc, out, err = run(["--html", html, "--svg", charts, "--pattern", "{variant}-{round}.csv",
                        pile])
    check(rc == 0, f"html: exit {rc} {err}")
    with open(html, encoding="utf-8") as f:
        page = f.read()
    sect = page[page.find('<section id="compare">'):]
    sect = sect[:sect.find("</section>")]
    for text in ("block write MiB/s", "random seeks/s", "stability", "6.50 (6.00..7.00)"):
        check(text in sect, f"html: the comparison holds {text!r}")
    check("<p class=\"sub\">bonnie++&#39;s tests and the fio suite&#39;s side by side" in sect,
          "html: the comparison's legend names bonnie++'s columns")
    svg = os.path.join(charts, "compare.svg")
    check(os.path.exists(svg), "html: compare.svg written")
    if os.path.exists(svg):
        with open(svg, encoding="utf-8") as f:
            chart = f.read()
        check("block write MiB/s" in chart and "random seeks/s" in chart,
              "compare.svg: a panel per column")
    # A test every round of which bonnie++ printed as +++++: its panel draws
    # the bound, as the table does (">16384 (1 too fast)"), not "no runs".
    src = os.path.join(REAL, "bonnie-2.00a_q_s1024-16k_n2-4096-1024-2.csv")
    two = os.path.join(tmp, "fast")
    for v in ("a", "b"):
        os.makedirs(os.path.join(two, v))
        shutil.copy(src, os.path.join(two, v, "run.csv"))
    charts = os.path.join(tmp, "charts-fast")
    rc, out, err = run(["--compare", "--svg", charts, os.path.join(two, "a"),
                        os.path.join(two, "b")])
    check(rc == 0 and ">16384 (1 too fast)" in out, f"+++++ compared: {rc} {out[:600]} {err}")
    with open(os.path.join(charts, "compare.svg"), encoding="utf-8") as f:
        chart = f.read()
    seeks = chart[chart.find("random seeks/s"):]
    seeks = seeks[:seeks.find("per-char write")]
    check(seeks.count("&gt;16384 (1 too fast)") == 2 and "no runs" not in seeks and
          'stroke-dasharray="3 2"' in seeks,
          f"compare.svg: the +++++ panel draws the bound: {seeks[:1500]}")
    check("dashed: &gt;rate = bonnie++&#39;s +++++ (too fast to time)" in chart,
          "compare.svg: its legend says what the dashed bar is")


def main():
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-bonnie-", dir=base)
    try:
        check_real()
        check_handmade()
        pile = check_pile(tmp)
        check_sizes(tmp)
        check_mixed(tmp, pile)
        check_html(tmp, pile)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
