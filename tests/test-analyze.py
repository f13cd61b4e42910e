#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end test of fiocamp-analyze on real fio runs.

Usage: test-analyze.py PATH/TO/fiocamp-analyze

Runs fio (2 s each, 8 MB file, --output-format=json, --write_iops_log,
--log_avg_msec=1000; fio 3.33 writes no log line at all for a 1 s run)
into a directory named like the published example: basis1-rw4k.json ..
basis3-rw4k.json, snap1-1-rw4k.json .. snap1-3-rw4k.json and
log-<label>-rw4k_iops.1.log.  Round 1 of snap1 is held to 100 IOPS with
rate_iops, a first-round effect that is certain to show.  Every number the
analyzer prints is checked against values computed here from fio's own JSON
and from the per-second series.
"""

import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import (at_once, check, close, drop_column, parse_csv, rejects, run,  # noqa: E402
                          run_fio, setup, summary, unwrap)

setup(sys.argv[1])
FIO = shutil.which("fio")


# ---- independent reference computations ---------------------------------


def quantile7(sorted_vals, q):
    h = (len(sorted_vals) - 1) * q
    lo = math.floor(h)
    if lo >= len(sorted_vals) - 1:
        return sorted_vals[-1]
    return sorted_vals[lo] + (h - lo) * (sorted_vals[lo + 1] - sorted_vals[lo])


def mw_exact_p(a, b):
    """Two-sided exact Mann-Whitney p by enumerating every split."""
    allv = a + b
    order = sorted(allv)
    rank = {}
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and order[j] == order[i]:
            j += 1
        rank[order[i]] = (i + 1 + j) / 2
        i = j
    ranks = [rank[v] for v in allv]
    n, k = len(allv), len(a)
    mean = k * (n + 1) / 2
    dev = abs(sum(ranks[:k]) - mean)
    ext = tot = 0
    for c in itertools.combinations(range(n), k):
        tot += 1
        if abs(sum(ranks[i] for i in c) - mean) >= dev - 1e-9:
            ext += 1
    return ext / tot


def fmt_short(v):
    """The table's number format (see an_fmt_short)."""
    a = abs(v)
    if a >= 1e7:
        return f"{v / 1e6:.1f}M"
    if a >= 1e6:
        return f"{v / 1e6:.2f}M"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_pct(p):
    s = f"{p:.1f}"
    if s in ("0.0", "-0.0"):
        return "0.0%"
    return ("" if s.startswith("-") else "+") + s + "%"


# ---- fio -----------------------------------------------------------------


def fio(outdir, label, data, runtime=2, extra=(), log=True, time_based=True):
    cmd = [
        FIO, "--name=rw4k", f"--filename={data}", "--size=8M", "--bs=4k",
        "--rw=randwrite", "--ioengine=libaio", "--iodepth=4", "--direct=1",
        f"--runtime={runtime}", "--output-format=json",
        f"--output={outdir}/{label}-rw4k.json",
    ] + (["--time_based"] if time_based else [])
    if log:
        cmd += [f"--write_iops_log={outdir}/log-{label}-rw4k", "--log_avg_msec=1000"]
    cmd += list(extra)
    run_fio(cmd)


def iops_of(path):
    with open(path) as f:
        doc = json.load(f)
    w = doc["jobs"][0]["write"]
    return w["iops"], w["clat_ns"]["percentile"]["99.000000"] / 1000.0


def main():
    if not FIO:
        print("fio not found; skipping")
        return 77
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-", dir=base)
    try:
        return body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def body(tmp):
    data = os.path.join(tmp, "test.dat")
    with open(data, "wb") as f:  # written in full, so fio does not lay it out
        f.write(os.urandom(8 << 20))
    ex = os.path.join(tmp, "example")
    os.mkdir(ex)
    labels = {("basis", r): f"basis{r}" for r in (1, 2, 3)}
    labels.update({("snap1", r): f"snap1-{r}" for r in (1, 2, 3)})
    shared = os.path.join(tmp, "shared")
    os.mkdir(shared)

    def example():
        """The rounds of a state at once; basis's runs before snap1's (its
        runs came first: the baseline)."""
        at_once(*(partial(fio, ex, f"basis{r}", data) for r in (1, 2, 3)))
        at_once(*(partial(fio, ex, f"snap1-{r}", data,
                          extra=["--rate_iops=100"] if r == 1 else []) for r in (1, 2, 3)))
    # beside them the runs of other piles, and the checks on those alone
    at_once(example, partial(fio, shared, "basis1", data,
                             extra=["--numjobs=2", "--per_job_logs=0"]),
            partial(check_group_logs, tmp, data), check_sample)

    iops = {k: iops_of(f"{ex}/{v}-rw4k.json")[0] for k, v in labels.items()}
    p99 = {k: iops_of(f"{ex}/{v}-rw4k.json")[1] for k, v in labels.items()}
    b_vals = [iops[("basis", r)] for r in (1, 2, 3)]
    s_vals = [iops[("snap1", r)] for r in (1, 2, 3)]
    bmed = statistics.median(b_vals)
    smed = statistics.median(s_vals)
    r1_pct = (iops[("snap1", 1)] - bmed) / bmed * 100
    rest_med = statistics.median(s_vals[1:])
    check(iops[("snap1", 1)] < 110, f"rate_iops=100 held round 1: {iops[('snap1', 1)]}")

    # Logs: fio 3.33 drops the last 1 s window, so a 2 s run logs one line.
    for k, v in labels.items():
        with open(f"{ex}/log-{v}-rw4k_iops.1.log") as f:
            check(len(f.read().splitlines()) >= 1, f"log of {v} has a line")

    # ---- the table -----------------------------------------------------
    rc, out, err = run(["--table", ex])
    check(rc == 0 and err == "", f"clean directory: exit {rc}, stderr {err}")
    lines = out.splitlines()
    check("baseline basis" in out, "baseline is basis (its runs came first)")
    head = [l for l in lines if "(base)" in l]
    check(head and head[0].split() == ["basis", "(base)", "snap1"], f"columns: {head[:1]}")
    med = [l for l in lines if l.startswith("IOPS median")]
    check(med and med[0].split()[2] == fmt_short(bmed), f"baseline median in {med}")
    check(med and fmt_pct((smed - bmed) / bmed * 100) in med[0], f"snap1 change in {med}")
    rng = [l for l in lines if l.strip().startswith("min..max")]
    want_rng = f"{fmt_short(min(b_vals))}..{fmt_short(max(b_vals))}"
    check(rng and rng[0].split()[1] == want_rng, f"baseline min..max {want_rng} in {rng[:1]}")
    r1 = [l for l in lines if l.strip().startswith("round 1 ")]
    want_r1 = f"{fmt_short(iops[('snap1', 1)])} {fmt_pct(r1_pct)}"
    check(r1 and r1[0].endswith(want_r1), f"round 1 '{want_r1}' in {r1[:1]}")
    check(all(len(l) <= 100 for l in lines), "table fits 100 columns")

    # ---- CSV summary in both dialects ----------------------------------
    results = {}
    for sep, dec, args in ((",", ".", []), (";", ",", ["--sep", ";", "--decimal", ","]),
                           (";", ",", ["--decimal", ","])):
        rc, out, err = run(["--csv", "summary"] + args + [ex])
        rows, num = parse_csv(out, sep, dec)
        got = {}
        for row in rows:
            if row["test"] == "rw4k" and row["direction"] == "write":
                got[(row["state"], row["metric"])] = {k: num(row[k]) if k not in (
                    "variant", "state", "baseline", "test", "job", "direction", "metric", "unit",
                    "baseline_variant", "outside_variant_range",
                    "outside_baseline_range", "mw_exact", "rw", "bs", "ioengine", "size",
                    "runtime") else row[k] for k in row}
        results[(sep, dec)] = got
        b = got.get(("basis", "iops"))
        s = got.get(("snap1", "iops"))
        check(b is not None and s is not None, "iops rows for both states")
        if not b or not s:
            continue
        close(b["median"], bmed, 5e-4, "baseline median")
        close(b["min"], min(b_vals), 5e-4, "baseline min")
        close(b["max"], max(b_vals), 5e-4, "baseline max")
        check(b["n"] == 3 and s["n"] == 3, "n = 3 rounds each")
        close(s["median"], smed, 5e-4, "snap1 median")
        close(s["change_pct"], round((smed - bmed) / bmed * 100, 1), 1e-9, "change %")
        close(s["round1"], iops[("snap1", 1)], 5e-4, "round 1 value")
        close(s["round1_change_pct"], round(r1_pct, 1), 1e-9, "round 1 change %")
        close(s["rest_median"], rest_med, 5e-4, "rounds 2..n median")
        close(s["mw_p"], mw_exact_p(s_vals, b_vals), 1e-6, "Mann-Whitney p")
        check(s["mw_exact"] == "yes", "exact p")
        check(s["outside_baseline_range"] == ("yes" if not min(b_vals) <= smed <= max(
            b_vals) else "no"), "outside flag")
        bq = sorted(b_vals)
        close(b["iqr"], quantile7(bq, 0.75) - quantile7(bq, 0.25), 5e-4, "IQR")
        p = got.get(("basis", "clat_p99"))
        close(p and p["median"], statistics.median([p99[("basis", r)] for r in (1, 2, 3)]),
              5e-4, "clat p99 median (us)")
    check(results.get((",", ".")) and results[(",", ".")] == results.get((";", ",")),
          "both dialects hold the same numbers")

    # ---- the same runs as a glob and as a list of files ------------------
    rc, ref, err = run(["--csv", "summary", ex])
    rc, out, err = run(["--csv", "summary", ex + "/*"])
    check(rc == 0 and out == ref, f"a quoted glob reads the same runs: {rc} {err}")
    files = sorted(os.path.join(ex, f) for f in os.listdir(ex) if f != "test.dat")
    rc, out, err = run(["--csv", "summary"] + files)
    check(rc == 0 and out == ref, f"a list of files reads the same runs: {rc} {err}")
    rc, out, err = run([ex])
    check(rc == 0 and out == ref, "not on a terminal, the default is --csv summary")
    check("the output is not a terminal: writing --csv summary" in err,
          f"the chosen format is said: {err!r}")
    check(ref.splitlines()[1].startswith("example,basis,yes,rw4k,"),
          f"the variant is the directory's name: {ref.splitlines()[1][:40]}")
    rc, out, err = run(["--json", "-j", "1", ex])
    rc8, out8, err8 = run(["--json", "-j", "8", ex])
    check(rc == rc8 == 0 and out == out8, "1 or 8 threads read the same")
    outfile = os.path.join(tmp, "summary.tsv")
    rc, out, err = run(["--csv", "summary", "--sep", "tab", "--bom", "-o", outfile, ex])
    with open(outfile, encoding="utf-8", newline="") as f:
        text = f.read()
    check(rc == 0 and out == "" and text.startswith("\ufeffvariant\tstate\tbaseline\ttest\t"),
          f"--sep tab --bom -o: {rc} {text[:40]!r}")
    check(text[1:].replace("\t", ",") == ref, "the tab-separated file holds the same fields")
    os.remove(outfile)
    rc, out, err = run(["--table", "--width", "40", ex])
    heads = [l.split() for l in out.splitlines() if l.strip() in ("basis (base)", "snap1")]
    check(["basis", "(base)"] in heads and ["snap1"] in heads, f"--width 40 wraps: {heads[:2]}")
    # Symbolic links back up the tree: each directory is read once.
    looped = os.path.join(tmp, "looped")
    os.mkdir(looped)
    os.symlink(ex, os.path.join(looped, "runs"))
    os.symlink(".", os.path.join(looped, "self"))
    os.symlink("../looped", os.path.join(looped, "again"))
    rc, out, err = run(["--csv", "summary", looped])
    check(rc == 0 and drop_column(out, "variant") == drop_column(ref, "variant"),
          f"symbolic link loops: {rc} {err}")
    check(err.count("not read again") == 2, f"the loops are noted: {err}")

    # ---- CSV rounds and JSON -------------------------------------------
    rc, out, err = run(["--csv", "rounds", ex])
    rows, num = parse_csv(out, ",", ".")
    rr = {(r["state"], int(r["round"])): num(r["value"]) for r in rows if r["metric"] == "iops"}
    for k, v in iops.items():
        close(rr.get(k), v, 5e-4, f"round value {k}")
    # CPU is the job's usr + sys; lat_max the slowest I/O (fio's lat max)
    for metric in ("cpu", "lat_max"):
        got = {(r["state"], int(r["round"])): num(r["value"]) for r in rows
               if r["metric"] == metric}
        for k, label in labels.items():
            with open(f"{ex}/{label}-rw4k.json") as f:
                j = json.load(f)["jobs"][0]
            want = (j["usr_cpu"] + j["sys_cpu"] if metric == "cpu"
                    else j["write"]["lat_ns"]["max"] / 1000.0)
            close(got.get(k), want, 5e-4, f"{metric} of {k}")
    rc, out, err = run(["--json", ex])
    doc = json.loads(out)
    check(doc["baseline"] == "basis", "JSON baseline")
    ser = [s for s in doc["series"] if s["metric"] == "iops"][0]
    close(ser["cells"][1]["round1_change_pct"], r1_pct, 1e-6, "JSON round 1 change")
    check([x["round"] for x in ser["cells"][1]["rounds"]] == [1, 2, 3], "JSON rounds")
    check(ser["cells"][1]["variant"] == "example" and doc["baseline_variant"] == "example",
          "JSON variant")
    rc, out, err = run(["--markdown", ex])
    check("| | basis (base) | snap1 |" in out, "Markdown table header")
    check(f"| IOPS round 1 | {fmt_short(iops[('basis', 1)])}" in out, "Markdown sub-row")

    # ---- per-second profiles and recovery --------------------------------
    check_profiles(ex)

    # ---- rejected inputs and exit codes ----------------------------------
    bad = os.path.join(tmp, "bad")
    shutil.copytree(ex, bad)
    with open(f"{ex}/basis1-rw4k.json", "rb") as f:
        doc_bytes = f.read()
    with open(f"{bad}/basis4-rw4k.json", "wb") as f:
        f.write(doc_bytes[: len(doc_bytes) // 2])
    with open(f"{bad}/basis5-rw4k.txt", "w") as f:
        f.write("these are my notes about the runs\n")
    # bs=1000 with direct I/O fails with EINVAL: a run with error != 0.
    subprocess.run([FIO, "--name=rw4k", f"--filename={data}", "--size=8M", "--bs=1000",
                    "--direct=1", "--rw=read", "--output-format=json",
                    f"--output={bad}/snap1-4-rw4k.json"], capture_output=True)
    # The same workload stopped after 500 I/Os: a run cut short (number_ios
    # and time_based are no part of a workload; runtime is).
    fio(bad, "basis6", data, log=False, time_based=False, extra=["--number_ios=500"])
    # basis01 is round 1 of basis again (the same run, so the numbers stay).
    shutil.copy(f"{ex}/basis1-rw4k.json", f"{bad}/basis01-rw4k.json")
    shutil.copy(f"{ex}/log-basis1-rw4k_iops.1.log", f"{bad}/log-basis9-rw4k_iops.1.log")
    # Logs that cannot be used; their runs stay.
    shutil.copy(f"{ex}/log-basis2-rw4k_iops.1.log", f"{bad}/log-basis2-rw4k_iops.2.log")
    shutil.copy(f"{ex}/log-basis3-rw4k_iops.1.log", f"{bad}/basis3-rw4k_iops.1.log")
    with open(f"{bad}/snap1-2-rw4k_iops.1.log", "w") as f:
        f.write("garbage\n")
    with open(f"{bad}/log-basis01-rw4k_iops.1.log", "w") as f:
        f.write("1000, 500, 0, 0, 0\n2000, 500, 0, 0, 0\n")  # reads, of a write job
    os.symlink("nowhere.json", f"{bad}/basis7-rw4k.json")
    rc, out, err = run(["--csv", "summary", bad])
    check(rc == 1, f"rejected inputs: exit {rc}")
    reasons = rejects(err)
    check("fio did not finish" in reasons.get("basis4-rw4k.json", ""),
          f"truncated JSON: {reasons.get('basis4-rw4k.json')}")
    # A .txt that is not fio output is skipped, not rejected: notes beside runs.
    check(reasons.get("basis5-rw4k.txt") == "skipped: not fio output",
          f"non-fio file: {reasons.get('basis5-rw4k.txt')}")
    check("failed with error 22" in reasons.get("snap1-4-rw4k.json", ""),
          f"error run: {reasons.get('snap1-4-rw4k.json')}")
    check("well short" in reasons.get("basis6-rw4k.json", ""),
          f"short run: {reasons.get('basis6-rw4k.json')}")
    check(reasons.get("basis1-rw4k.json") == "rejected: state basis, round 1, test rw4k again; "
          f"{bad}/basis01-rw4k.json is used instead", f"twice: {reasons.get('basis1-rw4k.json')}")
    check(reasons.get("log-basis9-rw4k_iops.1.log") == "rejected: no fio output of the same run "
          "found for this log", f"a log without its run: {reasons.get('log-basis9-rw4k_iops.1.log')}")
    for name, want in (
            ("log-basis2-rw4k_iops.2.log", "log number 2, but the report has 1 job(s)"),
            ("log-basis3-rw4k_iops.1.log", "a second iops log for job 1; the first one is used"),
            ("snap1-2-rw4k_iops.1.log", "line 1: field 1: expected a number, found 'g'"),
            ("log-basis01-rw4k_iops.1.log",
             "the log holds no values for a direction the report shows I/O for"),
            ("basis7-rw4k.json", "cannot stat: No such file or directory")):
        check(want in reasons.get(name, ""), f"{name}: {reasons.get(name)}")
    rows, num = parse_csv(out, ",", ".")
    b = [r for r in rows if r["state"] == "basis" and r["metric"] == "iops"][0]
    close(num(b["median"]), bmed, 5e-4, "rejected runs are not averaged in")
    check(b["n"] == "3", "still 3 basis runs")

    # per_job_logs=0: one log for both jobs, whose seconds belong to neither.
    rc, out, err = run(["--csv", "profile", shared])
    check(rc == 1 and f"rejected {shared}/log-basis1-rw4k_iops.log: one log for the report's "
          "2 jobs (per_job_logs=0)" in err, f"a log shared by jobs: {rc} {err}")
    check(out.count("\r\n") == 1, f"no per-second values from it: {out}")
    # Job names with the separators, a quote, a line break, Markdown's | and *.
    odd = 'a;b,"q"\nline|*x'
    names = os.path.join(tmp, "jobnames")
    os.mkdir(names)
    with open(f"{shared}/basis1-rw4k.json") as f:
        doc = json.load(f)
    doc["jobs"][0]["jobname"] = odd
    with open(f"{names}/basis1-rw4k.json", "w") as f:
        json.dump(doc, f)
    for sep, dec in ((",", "."), (";", ",")):
        rc, out, err = run(["--csv", "summary", "--decimal", dec, names])
        rows, num = parse_csv(out, sep, dec)
        check(rc == 0 and {r["job"] for r in rows} == {odd, "rw4k"},
              f"job names survive the CSV ({sep}): {rc} {sorted({r['job'] for r in rows})}")
        iops = [num(r["median"]) for r in rows if r["job"] == odd and r["metric"] == "iops"]
        close(iops[0] if iops else None, doc["jobs"][0]["write"]["iops"], 5e-4,
              f"the odd job's IOPS ({sep})")
    rc, out, err = run(["--markdown", names])
    heads = [l for l in out.splitlines() if l.startswith("### ")]
    check('### rw4k: job 1 "a;b,"q" line\\|\\*x", write' in heads, f"Markdown heading: {heads}")
    check(not any(l.startswith("line") for l in out.splitlines()), "no line break in Markdown")

    only_bad = os.path.join(tmp, "only-bad")
    os.mkdir(only_bad)
    shutil.copy(f"{bad}/basis4-rw4k.json", only_bad)
    rc, out, err = run(["--csv", "summary", only_bad])
    check(rc == 2 and "nothing to analyze" in err, f"nothing to analyze: {rc} {err}")
    rc, out, err = run(["--csv", "summary", os.path.join(tmp, "missing")])
    check(rc == 2 and "missing: No such file" in err, f"missing input: {rc} {err}")
    rc, out, err = run([])
    check(rc == 2 and "no input" in err, "no input")
    rc, out, err = run(["--csv", "bogus", ex])
    check(rc == 2 and "bogus" in err, "bad --csv")
    rc, out, err = run(["--baseline", "nosuch", ex])
    check(rc == 2 and "nosuch" in err, "unknown --baseline")
    for args, want in (
            (["--state-order", "basis,nosuch"], 'no usable runs of a state called "nosuch"'),
            (["--sep", "ab"], '--sep: "ab" is not one character'),
            (["--sep", '"'], '--sep: """ is not one character'),
            (["--decimal", ";"], '--decimal: ";" is neither . nor ,'),
            (["--width", "20"], '--width: "20" is not a width from 40 to 1000'),
            (["--threads", "0"], '--threads: "0" is not a number from 1 to 256'),
            (["--metrics", "iops,nosuch"], '--metrics: unknown metric "nosuch"'),
            (["--metrics", "sec_first"], '--metrics: unknown metric "sec_first"'),
            (["--table", "--json"], "choose one of --table, --csv, --json, --markdown"),
            (["--pattern", "{state}-{tset}.json"], "unknown placeholder {tset}"),
            (["--pattern", "results.json"], "needs at least one of {variant}, {state}"),
            (["--pct", "half"], '--pct: "half" is neither percent nor fraction'),
            (["--layout", "tree"], '--layout: "tree" is not auto, names or bench-fio'),
            (["--label", "=x"], '--label: "=x" is not NAME=PATH'),
            (["--compare", "--json"], "--compare goes with the terminal or --markdown"),
            (["--baseline-variant", "nosuch"],
             'no usable runs of a variant called "nosuch"'),
            (["-o", os.path.join(tmp, "missing", "out.csv")],
             f"{tmp}/missing/out.csv: No such file or directory")):
        rc, out, err = run(args + [ex])
        check(rc == 2 and want in err and out == "", f"{args}: exit {rc}, {err!r}")
    rc, out, err = run(["--baseline", "snap1", "--csv", "summary", ex])
    rows, num = parse_csv(out, ",", ".")
    b = [r for r in rows if r["state"] == "basis" and r["metric"] == "iops"][0]
    check(b["baseline"] == "no" and b["change_pct"] != "", "--baseline snap1")
    rc, out, err = run(["--state-order", "snap1,basis", "--table", ex])
    head = [l for l in out.splitlines() if "(base)" in l]
    check(head and head[0].split() == ["snap1", "basis", "(base)"], f"--state-order {head[:1]}")

    # ---- time order beats the alphabet -----------------------------------
    tord = os.path.join(tmp, "time-order")
    os.mkdir(tord)
    for (st, r), lab in labels.items():
        new = f"zbase{r}" if st == "basis" else f"after-{r}"
        shutil.copy(f"{ex}/{lab}-rw4k.json", f"{tord}/{new}-rw4k.json")
    rc, out, err = run(["--json", tord])
    doc = json.loads(out)
    check(doc["baseline"] == "zbase", f"baseline by fio timestamp: {doc['baseline']}")

    # ---- --pattern --------------------------------------------------------
    pat = os.path.join(tmp, "pattern")
    os.mkdir(pat)
    for (st, r), lab in labels.items():
        shutil.copy(f"{ex}/{lab}-rw4k.json", f"{pat}/rw4k.{st}.r{r}.json")
        shutil.copy(f"{ex}/log-{lab}-rw4k_iops.1.log", f"{pat}/rw4k.{st}.r{r}_iops.1.log")
    # Without --pattern: the job name rw4k and the round word r1 tell the rest.
    rc, out, err = run(["--csv", "summary", pat])
    rows, num = parse_csv(out, ",", ".")
    s = [r for r in rows if r["state"] == "snap1" and r["metric"] == "iops"]
    check(rc == 0 and s and s[0]["test"] == "rw4k", f"TEST.STATE.rN by default: {rc} {err}")
    close(s and num(s[0]["round1_change_pct"]), round(r1_pct, 1), 1e-9, "default values")
    rc, out, err = run(["--csv", "summary", "--pattern", "{test}.{state}.r{round}.json", pat])
    check(rc == 0, f"--pattern: exit {rc} {err}")
    rows, num = parse_csv(out, ",", ".")
    s = [r for r in rows if r["state"] == "snap1" and r["metric"] == "iops"]
    close(s and num(s[0]["round1_change_pct"]), round(r1_pct, 1), 1e-9, "--pattern values")

    # ---- a campaign directory with a manifest -----------------------------
    check_campaign(tmp, ex, labels, bmed)

    return summary()


def check_group_logs(tmp, data):
    """numjobs=3 with group_reporting: one report entry, a log from each
    process (fio numbers them .1 to .3); the per-second profile is their sum,
    never the first process alone."""
    grp = os.path.join(tmp, "grouped")
    os.mkdir(grp)
    fio(grp, "basis1", data, runtime=3, extra=["--numjobs=3", "--group_reporting"])
    logs = sorted(f for f in os.listdir(grp) if f.endswith(".log"))
    check(logs == [f"log-basis1-rw4k_iops.{k}.log" for k in (1, 2, 3)],
          f"fio writes a log per process: {logs}")
    with open(f"{grp}/basis1-rw4k.json") as f:
        doc = json.load(f)
    check(len(doc["jobs"]) == 1, "group_reporting: one entry in the report")
    rc, out, err = run(["--csv", "profile", grp])
    rows, num = parse_csv(out, ",", ".")
    check(rc == 0 and "rejected" not in err, f"every process's log is used: {rc} {err}")
    got = {r["time_s"]: num(r["value"]) for r in rows}
    check(len(got) >= 1, f"a per-second value: {got}")
    # Each process's log alone, as the log of a one-process report: the
    # grouped profile is the sum of those, second by second.
    alone = {}
    for k, name in enumerate(logs, 1):
        one = os.path.join(tmp, f"grouped-{k}")
        os.mkdir(one)
        single = json.loads(json.dumps(doc))
        single["jobs"][0]["job options"]["numjobs"] = "1"
        with open(f"{one}/basis1-rw4k.json", "w") as f:
            json.dump(single, f)
        shutil.copy(f"{grp}/{name}", f"{one}/log-basis1-rw4k_iops.1.log")
        rc1, out1, err1 = run(["--csv", "profile", one])
        rows1, num1 = parse_csv(out1, ",", ".")
        for r in rows1:
            alone.setdefault(r["time_s"], []).append(num1(r["value"]))
    for t, v in got.items():
        want = sum(alone.get(t, [])) if len(alone.get(t, [])) == 3 else None
        close(v, want, 1e-6 * (want or 0) + 2e-3, f"second {t}: the sum of the three processes")
    # the sum is the job's rate: about three times one process's, never one
    # of them.  (Not held against the report's IOPS: on a loaded machine a
    # 3 s run's two logged seconds can be half its whole-run rate, as seen
    # in CI, and fio logs no value for the last, partial second.)
    each = [v for vs in alone.values() for v in vs]
    check(got and each and statistics.median(got.values()) > 2 * statistics.median(each),
          f"the profile {got} is the rate of all three processes, not one's ({each})")
    # One process's log missing: a sum of two is no rate of the job.
    os.remove(f"{grp}/{logs[2]}")
    rc, out, err = run(["--csv", "profile", grp])
    check(rc == 1 and "the logs of 2 of the 3 processes of job 1 (numjobs, group_reporting) "
          "were found" in err and out.count("\r\n") == 1, f"a process's log missing: {rc} {err}")
    # A log shared by the processes (per_job_logs=0) holds their sum already.
    shr = os.path.join(tmp, "grouped-shared")
    os.mkdir(shr)
    fio(shr, "basis1", data, runtime=3,
        extra=["--numjobs=3", "--group_reporting", "--per_job_logs=0"])
    rc, out, err = run(["--csv", "profile", shr])
    rows, num = parse_csv(out, ",", ".")
    vals = [num(r["value"]) for r in rows]
    # fio appends each process's windows to the shared file as a block of
    # its own (time starts again): window k of the job is the sum of
    # window k of every block.
    blocks, last = [], None
    with open(f"{shr}/log-basis1-rw4k_iops.log") as f:
        for line in f:
            t, v = (int(x) for x in line.split(",")[:2])
            if last is None or t < last:
                blocks.append([])
            blocks[-1].append(v)
            last = t
    want = [sum(b[k] for b in blocks if k < len(b)) for k in range(max(map(len, blocks)))]
    check(rc == 0 and len(blocks) == 3 and len(vals) == len(want)
          and all(abs(v - w) <= 0.05 * w for v, w in zip(vals, want)),
          f"a shared log of three processes: {rc} {vals} against the sums {want} of "
          f"{len(blocks)} blocks {err}")


def check_profiles(ex):
    rc, out, err = run(["--csv", "profile", ex])
    rows, num = parse_csv(out, ",", ".")
    series = {}
    for r in rows:
        series.setdefault((r["state"], int(r["round"])), []).append(
            (num(r["time_s"]), num(r["value"])))
    check(len(series) == 6, f"a profile for each of the 6 runs: {sorted(series)}")
    base_vals = sorted(v for (st, _), pts in series.items() if st == "basis"
                       for _, v in pts if v is not None)
    check(len(base_vals) >= 3, "baseline per-second values")
    if not base_vals:
        return
    low, high = quantile7(base_vals, 0.1), quantile7(base_vals, 0.9)
    rc, out, err = run(["--json", ex])
    doc = json.loads(out)
    band = doc["bands"][0]
    close(band["p10"], low, 1e-3, "band p10")
    close(band["p90"], high, 1e-3, "band p90")
    rc, out, err = run(["--csv", "rounds", ex])
    rows, num = parse_csv(out, ",", ".")
    rec = {(r["state"], int(r["round"])): (num(r["value"]), r["note"])
           for r in rows if r["metric"] == "recovery_s"}
    for key, pts in series.items():
        want = next((t for t, v in pts if v is not None and v >= low), None)
        got, note = rec.get(key, (None, "missing"))
        if want is None:
            check(got is None and note == "never back in the band", f"recovery {key}: {note}")
        else:
            close(got, want, 1e-9, f"recovery {key}")
    # Held to 100 IOPS for the whole round: never back in the band, unless
    # the shared disk stalled a baseline second below that.
    rc, out, err = run(["--table", ex])
    line = [l for l in out.splitlines() if l.strip().startswith("recovery round 1")]
    if low > 200:
        check(rec.get(("snap1", 1), (0, ""))[1] == "never back in the band",
              "round 1 never recovers")
        check(line and line[0].split()[-1] == "never", f"table recovery: {line}")
    else:
        print(f"note: baseline band starts at {low:.0f} IOPS; the disk stalled", file=sys.stderr)


def check_campaign(tmp, ex, labels, bmed):
    camp = os.path.join(tmp, "camp")
    manifest = {
        "format": "fiocamp-manifest", "version": 1, "campaign": "demo", "status": "done",
        "fio_version": "fio-3.33", "tests": ["rw4k"], "states": [],
    }
    actions = [
        {"action": "power-off", "text": "power-off", "status": "done", "duration_s": 12.5,
         "task": {"name": "ServerStateChangeTask + ServerStateChangeTask", "state": "FINISHED",
                  "duration_s": 11.75, "count": 2}},
        {"action": "snapshot", "text": "snapshot grenzlast-1", "status": "done",
         "duration_s": 20.25, "task": {"name": "SnapshotCreateTask", "duration_s": 19.5}},
        {"action": "power-on", "text": "power-on", "status": "done", "duration_s": 3.0},
        {"action": "wait-ssh", "text": "wait-ssh", "status": "done", "duration_s": 5.5,
         "downtime_s": 41.25},
    ]
    for st in ("basis", "snap1"):
        state = {"name": st, "status": "done", "downtime_s": 41.25 if st == "snap1" else None,
                 "before": actions if st == "snap1" else [], "rounds": []}
        for r in (1, 2, 3):
            d = f"{st}/r{r}"
            os.makedirs(f"{camp}/{d}")
            shutil.copy(f"{ex}/{labels[(st, r)]}-rw4k.json", f"{camp}/{d}/rw4k.json")
            shutil.copy(f"{ex}/log-{labels[(st, r)]}-rw4k_iops.1.log",
                        f"{camp}/{d}/rw4k_iops.1.log")
            tests = [{"test": "rw4k", "status": "done", "exit_status": 0,
                      "json": f"{d}/rw4k.json", "logs": [f"{d}/rw4k_iops.1.log"]}]
            if r == 3 and st == "snap1":
                tests.append({"test": "rr4k", "status": "failed", "exit_status": 1,
                              "json": f"{d}/rr4k.json", "logs": []})
            state["rounds"].append({"round": r, "status": "done", "tests": tests})
        manifest["states"].append(state)
    manifest["states"].append({"name": "control", "status": "pending", "downtime_s": None,
                               "before": [], "rounds": [{"round": 1, "status": "pending",
                                                         "tests": [{"test": "rw4k",
                                                                    "status": "pending"}]}]})
    with open(f"{camp}/manifest.json", "w") as f:
        json.dump(manifest, f, indent=2)
    # A stray file the manifest does not list is not read.
    with open(f"{camp}/basis/r1/stray.json", "w") as f:
        f.write("not fio\n")
    # What fiocamp-run writes beside the states: prefill runs, a failed
    # round moved aside.  Read by names, they would be a state "before" and
    # a fourth round.
    os.makedirs(f"{camp}/prefill")
    shutil.copy(f"{ex}/basis1-rw4k.json", f"{camp}/prefill/prefill.json")
    shutil.copy(f"{ex}/basis1-rw4k.json", f"{camp}/prefill/before-snap1.json")
    os.makedirs(f"{camp}/snap1/r2.failed-1")
    shutil.copy(f"{ex}/basis1-rw4k.json", f"{camp}/snap1/r2.failed-1/rw4k.json")

    rc, out, err = run(["--table", camp])
    out = unwrap(out)
    check(rc == 1 and "marks this run failed (fio exit status 1)" in err,
          f"manifest failed run: {rc} {err}")
    check("stray" not in err, "only what the manifest lists is read")
    # The failed run counts against the campaign's stability.
    rc2, cmp_out, err2 = run(["--csv", "compare", camp])
    crow, cnum = parse_csv(cmp_out, ",", ".")
    check(rc2 == 1 and [(r["state"], r["results"], r["rejected"]) for r in crow] ==
          [("basis", "6", "1"), ("snap1", "6", "1")],
          f"a failed run is counted in the stability: {[(r['state'], r['results'], r['rejected']) for r in crow]}")
    check("campaign demo" in out, "campaign name in the header")
    lines = out.splitlines()
    dt = [l for l in lines if l.startswith("downtime s")]
    check(dt and dt[0].split()[-2:] == ["-", "41.2"], f"downtime row {dt}")
    ac = [l for l in lines if l.startswith("actions s")]
    check(ac and ac[0].endswith("41.2 (4)"), f"actions row {ac}")
    tk = [l for l in lines if l.startswith("provider tasks")]
    # the first action's task object sums up two tasks ("count": 2)
    check(tk and tk[0].endswith("31.2 (3)"), f"tasks row {tk}")
    check("note: state control: no usable runs" in out, "pending state noted")
    check(f"note: {camp}/manifest.json: 1 run(s) pending, running or skipped, not analyzed"
          in out, f"pending run noted: {out}")
    rc, out, err = run(["--csv", "transitions", "--decimal", ",", camp])
    rows, num = parse_csv(out, ";", ",")
    snap = [r for r in rows if r["state"] == "snap1"]
    check(len(snap) == 4, f"4 actions of snap1: {len(snap)}")
    if len(snap) == 4:
        close(num(snap[0]["duration_s"]), 12.5, 1e-9, "power-off duration")
        close(num(snap[1]["task_duration_s"]), 19.5, 1e-9, "snapshot task duration")
        close(num(snap[3]["action_downtime_s"]), 41.25, 1e-9, "wait-ssh downtime")
        check(snap[1]["text"] == "snapshot grenzlast-1", "action text")
    rc, out, err = run(["--csv", "summary", camp])
    rows, num = parse_csv(out, ",", ".")
    s = [r for r in rows if r["state"] == "snap1" and r["metric"] == "iops"][0]
    close(num(s["downtime_s"]), 41.25, 1e-9, "summary downtime_s")
    close(num(s["transition_s"]), 41.25, 1e-9, "summary transition_s (sum of actions)")
    b = [r for r in rows if r["state"] == "basis" and r["metric"] == "iops"][0]
    close(num(b["baseline_median"]), bmed, 5e-4, "manifest: baseline median")
    # Without the manifest the same layout is read by its names.
    rc, out, err = run(["--csv", "summary", "--no-manifest", camp])
    check("stray.json: not fio output" in err, f"--no-manifest reads the tree: {err}")
    rows, num = parse_csv(out, ",", ".")
    b = [r for r in rows if r["state"] == "basis" and r["metric"] == "iops"][0]
    close(num(b["median"]), bmed, 5e-4, "campaign layout by name: baseline median")
    check({r["state"] for r in rows} == {"basis", "snap1"}, "by name: no state from prefill/")
    s = [r for r in rows if r["state"] == "snap1" and r["metric"] == "iops"][0]
    check(s["n"] == "3", f"by name: the failed round moved aside is left out: n = {s['n']}")
    check("prefill: the campaign's prefill runs, not analyzed" in err, f"prefill noted: {err}")
    check("r2.failed-1: a failed round moved aside, not analyzed" in err, f"failed: {err}")
    check(err.count("rejected") == 1, f"nothing but stray.json rejected: {err}")
    # A campaign inside a tree is read through its manifest.
    parent = os.path.join(tmp, "campaigns")
    os.mkdir(parent)
    os.symlink(camp, os.path.join(parent, "demo"))
    rc, out, err = run(["--table", parent])
    check(rc == 1 and "campaign demo" in out, f"a campaign in a tree: {rc} {out[:80]}")
    check(f"rejected {parent}/demo/snap1/r3/rr4k.json: the campaign marks" in err,
          f"a campaign in a tree, its rejects: {err}")
    # Manifest entries that cannot be used.
    odd = os.path.join(tmp, "odd-camp")
    os.makedirs(f"{odd}/basis/r1")
    shutil.copy(f"{ex}/basis1-rw4k.json", f"{odd}/basis/r1/rw4k.json")
    tests = [{"test": "rw4k", "status": "done", "json": "basis/r1/rw4k.json",
              "logs": ["../rw4k_iops.1.log", "basis/r1/notes.txt"]},
             {"test": "rr4k", "status": "done"},
             {"test": "rs4k", "status": "done", "json": "../../etc/passwd"},
             {"test": "bad name", "status": "done", "json": "basis/r1/rw4k.json"}]
    with open(f"{odd}/manifest.json", "w") as f:
        json.dump({"format": "fiocamp-manifest", "version": 1, "campaign": "odd", "states": [
            {"name": "basis", "rounds": [{"round": 1, "tests": tests}]}]}, f)
    rc, out, err = run(["--csv", "summary", odd])
    for want in (f"rejected {odd}/../rw4k_iops.1.log: not a path inside the campaign",
                 f"rejected {odd}/basis/r1/notes.txt: not a fio log name",
                 f"rejected {odd}/basis/r1/rr4k: manifest.json lists the run as done but names "
                 "no JSON file",
                 f"rejected {odd}/basis/r1/rs4k: manifest.json names \"../../etc/passwd\", "
                 "which is not a path inside",
                 "state basis round 1: a test without a valid name, skipped"):
        check(want in err, f"odd manifest: {want!r} in {err}")
    check(rc == 1 and len(out.splitlines()) > 1, f"odd manifest: the good run is used: {rc}")
    with open(f"{odd}/manifest.json", "w") as f:
        json.dump({"states": []}, f)
    rc, out, err = run(["--csv", "summary", odd])
    check(rc == 2 and f"{odd}/manifest.json: not a fiocamp manifest" in err,
          f"not a manifest: {rc} {err}")
    # A broken manifest is a clear error.
    with open(f"{camp}/manifest.json", "w") as f:
        f.write('{"format": "fiocamp-manifest", "states": [\n')
    rc, out, err = run(["--table", camp])
    check(rc == 2 and "manifest.json:2:" in err, f"broken manifest: {rc} {err}")
    os.remove(f"{camp}/manifest.json")
    os.symlink("nowhere.json", f"{camp}/manifest.json")
    rc, out, err = run(["--table", parent])
    check(rc == 2 and err == f"fiocamp-analyze: {parent}/demo/manifest.json: "
          "No such file or directory\n", f"a manifest that cannot be opened: {rc} {err!r}")


def check_sample():
    """The shipped sample campaign, against its own fio JSON."""
    src = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
    camp = os.path.join(src, "tests", "fixtures", "sample-campaign")
    with open(os.path.join(camp, "manifest.json")) as f:
        man = json.load(f)
    vals = {}
    for st in man["states"]:
        for rnd in st["rounds"]:
            for t in rnd["tests"]:
                with open(os.path.join(camp, t["json"])) as f:
                    doc = json.load(f)
                vals[(st["name"], t["test"], rnd["round"])] = doc["jobs"][0]["read"]["iops"]
    rc, out, err = run(["--csv", "summary", camp])
    check(rc == 0 and err == "", f"sample campaign: exit {rc} {err}")
    rows, num = parse_csv(out, ",", ".")
    got = {(r["state"], r["test"], r["metric"]): r for r in rows}
    for st in ("warm", "evicted", "control"):
        for test in ("cached4k", "direct4k"):
            r = got.get((st, test, "iops"))
            v = [vals[(st, test, k)] for k in (1, 2, 3)]
            close(r and num(r["median"]), statistics.median(v), 5e-4, f"sample {st} {test}")
            close(r and num(r["round1"]), v[0], 5e-4, f"sample {st} {test} round 1")
            check(r and r["baseline"] == ("yes" if st == "warm" else "no"), "sample baseline")
    # The first second after the eviction is far below the warm band.
    rc, out, err = run(["--json", camp])
    doc = json.loads(out)
    band = [b for b in doc["bands"] if b["test"] == "cached4k"][0]
    prof = [p for p in doc["profiles"] if p["state"] == "evicted" and p["test"] == "cached4k"
            and p["round"] == 1][0]
    check(prof["first"] < band["p10"] / 10, f"evicted round 1 starts cold: {prof['first']}")
    check(prof["recovery_s"] is not None and prof["recovery_s"] >= 1,
          f"evicted round 1 recovers later: {prof['recovery_s']}")
    # A round that never got back into the band ranks after every round
    # that did (inf here); a statistic that falls on it is empty.
    rec = {}
    for p in doc["profiles"]:
        v = p["recovery_s"]
        rec.setdefault((p["state"], p["test"]), []).append(math.inf if v is None else v)
    check(rec[("control", "direct4k")].count(math.inf) == 2, "sample: 2 rounds never recover")
    for (st, test), vals in rec.items():
        r = got[(st, test, "recovery_s")]
        med = statistics.median(vals)
        check(r["n"] == str(len(vals)), f"recovery n {st} {test}: {r['n']}")
        if math.isinf(med):
            check(r["median"] == "", f"recovery median {st} {test} never: {r['median']!r}")
        else:
            close(num(r["median"]), med, 5e-4, f"recovery median {st} {test}")
        check(r["max"] == ("" if math.inf in vals else f"{max(vals):.3f}"), f"max {st} {test}")
        if st != "warm":
            close(num(r["mw_p"]), mw_exact_p(vals, rec[("warm", test)]), 1e-6,
                  f"recovery Mann-Whitney p {st} {test}")


if __name__ == "__main__":
    sys.exit(main())
