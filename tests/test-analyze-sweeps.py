#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on sweeps: one job at several queue depths, job counts
and block sizes, repeated, named the way people name them.

Usage: test-analyze-sweeps.py PATH/TO/fiocamp-analyze

A handful of real fio 3.33 runs (1 MiB each, no runtime) are made once and
copied under many names.  The reports decide what a test is: the words of
a name that say the workload (qd8 beside iodepth=8, nj4, 4k, randread,
iodepth-8/) are the test's, never a state, a variant or a round; digits
inside a word are never a round.  Every pile must come out right without
--pattern, with a note naming the --pattern that reads it so, and that
pattern must read it the same way.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import check, parse_csv, run, setup, summary  # noqa: E402

setup(sys.argv[1])
FIO = shutil.which("fio")


def fio(out, data, rw, qd, nj=1, bs="4k", fmt="json"):
    cmd = [FIO, f"--name={rw}", f"--filename={data}", "--size=1M", f"--rw={rw}",
           f"--bs={bs}", f"--iodepth={qd}", f"--numjobs={nj}", "--ioengine=libaio",
           "--direct=1", f"--output-format={fmt}", f"--output={out}"]
    subprocess.run(cmd, check=True, capture_output=True)


def reading(args):
    """{(variant, state, test): [rounds]} of the first job's IOPS, the exit
    status and stderr."""
    rc, out, err = run(["--csv", "rounds"] + args)
    got = {}
    if rc in (0, 1) and out:
        rows, _ = parse_csv(out)
        for r in rows:
            if r["metric"] == "iops" and r["job_index"] in ("", "0", "1"):
                got.setdefault((r["variant"], r["state"], r["test"]), []).append(
                    int(r["round"]))
    return rc, {k: sorted(v) for k, v in got.items()}, err


def notes_with_pattern(err):
    """The --pattern of each reading note."""
    out = []
    for line in err.splitlines():
        if " read as " in line and "--pattern '" in line:
            out.append(line.split("--pattern '", 1)[1].split("'", 1)[0])
    return out


def copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy(src, dst)


def same_reading_by_pattern(name, pile, got):
    """The note's --pattern reads the pile into the same states, variants
    and rounds (the pattern's tests come from the job name, split by
    workload, so only their number is compared)."""
    rc, out, err = run(["--csv", "rounds", pile])
    pats = notes_with_pattern(err)
    check(len(pats) == 1, f"{name}: one reading note: {pats} {err}")
    if len(pats) != 1:
        return
    rc, again, err2 = reading(["--pattern", pats[0], pile])
    check(rc == 0, f"{name}: --pattern '{pats[0]}' reads the pile: {rc} {err2}")
    shape = lambda d: sorted({(v, s) for v, s, _ in d})  # noqa: E731
    check(shape(again) == shape(got) and len(again) == len(got) and
          sorted(map(tuple, again.values())) == sorted(map(tuple, got.values())),
          f"{name}: --pattern '{pats[0]}' reads it the same: {sorted(again.items())[:3]} "
          f"against {sorted(got.items())[:3]}")


def main():
    if not FIO:
        print("fio not found; skipping")
        return 77
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-sweeps-", dir=base)
    try:
        return sweeps(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def sweeps(tmp):
    data = os.path.join(tmp, "test.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(1 << 20))
    real = os.path.join(tmp, "real")
    os.makedirs(real)
    R = {}
    for rw in ("randread", "randwrite"):
        for qd in (1, 8, 32):
            for nj in (1, 4):
                R[rw, qd, nj] = f"{real}/{rw}-{qd}-{nj}.json"
                fio(R[rw, qd, nj], data, rw, qd, nj)
    for qd in (1, 8):
        R["128k", qd] = f"{real}/randread-128k-{qd}.json"
        fio(R["128k", qd], data, "randread", qd, 1, bs="128k")

    # host-a/randread_qd8_nj4_rep2.json: rw x iodepth x numjobs x 3 reps x 2
    # hosts.  Before: the sweep words were 6 states, and the workloads split
    # with "not pooled" warnings.
    p = os.path.join(tmp, "hosts")
    for h in ("host-a", "host-b"):
        for (rw, qd, nj) in [k for k in R if len(k) == 3]:
            for r in (1, 2, 3):
                copy(R[rw, qd, nj], f"{p}/{h}/{rw}_qd{qd}_nj{nj}_rep{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and "not pooled" not in err, f"hosts: exit {rc}, nothing split: {err}")
    check({s for _, s, _ in got} == {"all"}, f"hosts: one state: {sorted(got)[:4]}")
    check({v for v, _, _ in got} == {"host-a", "host-b"}, f"hosts: two variants: {got}")
    check(len({t for _, _, t in got}) == 12 and ("host-b", "all", "randread_qd8_nj4") in got,
          f"hosts: 12 tests: {sorted({t for _, _, t in got})}")
    check(all(v == [1, 2, 3] for v in got.values()), f"hosts: rounds 1..3: {got}")
    check("72 names read as --pattern '{variant}/{test}_rep{round}.json', e.g. "
          "host-a/randread_qd1_nj1_rep1.json: variant host-a, state all, round 1, "
          "test randread_qd1_nj1; qd1 (iodepth), nj1 (numjobs) say the workload" in err,
          f"hosts: the note: {err}")
    same_reading_by_pattern("hosts", p, got)
    rc, out, err = run(["--compare", "--width", "100", p])
    check(rc == 0 and out.count(" -") < 10, f"hosts: --compare has no holes: {out[:800]}")
    # A --pattern that leaves the test to the job name: the workloads apart,
    # named by what differs.  Before, numjobs=4 (four jobs alike) was named
    # by every field of the jobs 2..4 ("randread jobs=4 job1:iodepth=1
    # job1:numjobs=4 job2:name=randread job2:rw=randread ...").
    rc, got, err = reading(["--pattern", "{variant}/*_rep{round}.json", p])
    check(rc == 0 and ("host-a", "all", "randread iodepth=8 numjobs=4") in got and
          len(got) == 24 and "job2:" not in err,
          f"hosts --pattern: tests named by what differs: {sorted(got)[:4]} {err}")
    # --explain: every run's reading, no statistics
    rc, out, err = run(["--explain", p])
    lines = [l for l in out.splitlines() if l.startswith("  ")]
    check(rc == 0 and len(lines) == 72 and
          "  host-b/randwrite_qd32_nj1_rep3.json: variant host-b, state all, round 3, test "
          "randwrite_qd32_nj1; workload randwrite bs=4k iodepth=32 numjobs=1 ioengine=libaio "
          "direct=1 size=1m; json fio-3.33; read by its name, as --pattern "
          "'{variant}/{test}_rep{round}.json'" in lines and "read as --pattern" in err,
          f"--explain: a line per run: {rc} {lines[:2]} {err}")
    rc, out, err = run(["--explain", "--json", p])
    doc = json.loads(out)
    r = [x for x in doc["runs"] if x["file"].endswith("host-a/randread_qd8_nj1_rep2.json")]
    check(rc == 0 and len(doc["runs"]) == 72 and len(r) == 1 and
          {k: r[0][k] for k in ("variant", "state", "round", "test", "format", "fio_version",
                                "read_by", "pattern")} ==
          {"variant": "host-a", "state": "all", "round": 2, "test": "randread_qd8_nj1",
           "format": "json", "fio_version": "fio-3.33", "read_by": "names",
           "pattern": "{variant}/{test}_rep{round}.json"} and
          r[0]["workload"][0]["iodepth"] == "8" and doc["rejected"] == [] and
          any("read as --pattern" in n for n in doc["notes"]),
          f"--explain --json: {rc} {r} {doc.get('notes')}")
    rc, out, err = run(["--explain", "--pattern", "{variant}/{test}_rep{round}.json", p])
    check(rc == 0 and out.count("read by --pattern '{variant}/{test}_rep{round}.json'") == 72,
          f"--explain --pattern: {out[:300]}")
    rc, out, err = run(["--explain", "--csv", "summary", p])
    check(rc == 2 and "--explain writes lines, or JSON with --json" in err,
          f"--explain with another output: {rc} {err}")

    # run1_randread_qd32.json.  Before: state run1_randread_qd, round 32.
    p = os.path.join(tmp, "run-first")
    for r in (1, 2, 3):
        for qd in (1, 8, 32):
            copy(R["randread", qd, 1], f"{p}/run{r}_randread_qd{qd}.json")
    rc, got, err = reading([p])
    check(rc == 0 and got == {("run-first", "all", f"randread_qd{qd}"): [1, 2, 3]
                              for qd in (1, 8, 32)}, f"run1_randread_qd32: {got} {err}")
    check("read as --pattern 'run{round}_{test}.json'" in err, f"run1_: the note: {err}")
    same_reading_by_pattern("run1_", p, got)

    # 1_randread_iodepth32_jobs1.json.  Before: state 1_randread_iodepth,
    # round 32, test jobs1.
    p = os.path.join(tmp, "number-first")
    for r in (1, 2, 3):
        for qd in (1, 8, 32):
            copy(R["randread", qd, 1], f"{p}/{r}_randread_iodepth{qd}_jobs1.json")
    rc, got, err = reading([p])
    check(rc == 0 and got == {("number-first", "all", f"randread_iodepth{qd}_jobs1"): [1, 2, 3]
                              for qd in (1, 8, 32)}, f"1_randread_iodepth32_jobs1: {got} {err}")
    check("read as --pattern '{round}_{test}.json'" in err, f"1_...: the note: {err}")
    same_reading_by_pattern("1_...", p, got)

    # results/iodepth-8/numjobs-2/run-1.json.  Before: each workload
    # directory was a variant.
    p = os.path.join(tmp, "tree")
    for qd in (1, 8):
        for nj in (1, 4):
            for r in (1, 2):
                copy(R["randread", qd, nj], f"{p}/results/iodepth-{qd}/numjobs-{nj}/run-{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and {v for v, _, _ in got} == {"tree"} and {s for _, s, _ in got} == {"all"}
          and len(got) == 4 and all(v == [1, 2] for v in got.values()) and
          ("tree", "all", "randread iodepth-8/numjobs-4") in got,
          f"results/iodepth-8/numjobs-2/run-1: one variant, 4 tests: {got} {err}")
    check("read as --pattern '*/*/run-{round}.json'" in err and
          "iodepth-1 (iodepth), numjobs-1 (numjobs) say the workload" in err,
          f"tree: the note: {err}")
    same_reading_by_pattern("tree", p, got)

    # A directory above the hosts common to all of them is no part of the
    # variants' names: host-a, as {variant}/ reads it, not results/host-a.
    p = os.path.join(tmp, "deep")
    for h in ("host-a", "host-b"):
        for r in (1, 2):
            copy(R["randread", 8, 1], f"{p}/results/{h}/randread_qd8_{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and got == {(h, "all", "randread_qd8"): [1, 2] for h in ("host-a", "host-b")},
          f"deep: variants host-a, host-b: {got} {err}")
    same_reading_by_pattern("deep", p, got)

    # Nested workload directories under hosts: the hosts are the variants.
    p = os.path.join(tmp, "nested")
    for h in ("vm1", "vm2"):
        for rw in ("randread", "randwrite"):
            for qd in (1, 32):
                for r in (1, 2):
                    copy(R[rw, qd, 1], f"{p}/{h}/{rw}/4k/qd{qd}/{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and {v for v, _, _ in got} == {"vm1", "vm2"} and
          {s for _, s, _ in got} == {"all"} and len({t for _, _, t in got}) == 4 and
          ("vm2", "all", "randread/4k/qd32") in got and all(v == [1, 2] for v in got.values()),
          f"nested: 2 variants, 4 tests: {got} {err}")
    check("read as --pattern '{variant}/*/*/*/{round}.json'" in err, f"nested: the note: {err}")
    same_reading_by_pattern("nested", p, got)

    # fio-randread-4k-qd1-nj1-1.json: 4k and qd1 the test's, 1 the round.
    # Before: states qd1, qd8, qd32, test nj1.
    p = os.path.join(tmp, "dashes")
    for r in (1, 2, 3):
        for qd in (1, 8, 32):
            copy(R["randread", qd, 1], f"{p}/fio-randread-4k-qd{qd}-nj1-{r}.json")
        for qd in (1, 8):
            copy(R["128k", qd], f"{p}/fio-randread-128k-qd{qd}-nj1-{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and {s for _, s, _ in got} == {"fio"} and len(got) == 5 and
          ("dashes", "fio", "randread-128k-qd8-nj1") in got and
          all(v == [1, 2, 3] for v in got.values()), f"fio-randread-4k-qd1-nj1-1: {got} {err}")
    check("read as --pattern '{state}-{test}-{round}.json'" in err and
          "128k (bs)" in err, f"dashes: the note: {err}")
    same_reading_by_pattern("dashes", p, got)

    # Dates: 2026-11-30_randread_qd1.json, a run a day.  Before: state qd,
    # round 1 (and 8), the second day's runs rejected as the same round.
    p = os.path.join(tmp, "dates")
    for d in ("2026-11-28", "2026-11-29", "2026-11-30"):
        for qd in (1, 8):
            copy(R["randread", qd, 1], f"{p}/{d}_randread_qd{qd}.json")
    rc, got, err = reading([p])
    check(rc == 0 and got == {("dates", "all", f"randread_qd{qd}"): [1, 2, 3] for qd in (1, 8)},
          f"dates: one state, rounds by time: {got} {err}")
    check("read as --pattern '*_{test}.json'" in err and
          "the date 2026-11-28 (and those of the others) is no part of it" in err,
          f"dates: the note: {err}")
    same_reading_by_pattern("dates", p, got)

    # Hosts in the names: they vary apart from the workload, so they are
    # the states.
    p = os.path.join(tmp, "host-names")
    for h in ("nvme0n1", "sda"):
        for qd in (1, 32):
            for r in (1, 2):
                copy(R["randwrite", qd, 4], f"{p}/{h}_randwrite_T4_qd{qd}_{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and {s for _, s, _ in got} == {"nvme0n1", "sda"} and
          {t for _, _, t in got} == {"randwrite_T4_qd1", "randwrite_T4_qd32"} and
          all(v == [1, 2] for v in got.values()), f"host names: states: {got} {err}")
    check("read as --pattern '{state}_{test}_{round}.json'" in err, f"host names: {err}")
    same_reading_by_pattern("host names", p, got)

    # A word that looks like a workload's but is not this run's stays the
    # state's: qd8 beside iodepth=1.
    p = os.path.join(tmp, "liar")
    for st in ("qd8", "qd16"):
        for r in (1, 2):
            copy(R["randread", 1, 1], f"{p}/{st}-{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and {s for _, s, _ in got} == {"qd8", "qd16"},
          f"a qd word the report contradicts is a state: {got} {err}")

    # Digits inside a word are never a round: v1 and v2 are states.
    p = os.path.join(tmp, "versions")
    for st in ("v1", "v2"):
        for r in (1, 2):
            copy(R["randread", 8, 1], f"{p}/{st}_randread_qd8_{r}.json")
    rc, got, err = reading([p])
    check(rc == 0 and got == {("versions", s, "randread_qd8"): [1, 2] for s in ("v1", "v2")},
          f"v1, v2: states, not rounds: {got} {err}")
    # The campaign layout read by names is said too, with its pattern.
    p = os.path.join(tmp, "layout")
    for st, r in (("basis", 1), ("basis", 2), ("snap", 1), ("snap", 2)):
        copy(R["randread", 1, 1], f"{p}/{st}/r{r}/rr.json")
    rc, got, err = reading([p])
    check(rc == 0 and got == {("layout", s, "randread"): [1, 2] for s in ("basis", "snap")} or
          got == {("layout", s, "rr"): [1, 2] for s in ("basis", "snap")},
          f"layout: {got} {err}")
    check("4 names read as the campaign layout, --pattern '{state}/r{round}/{test}.json', "
          "e.g. basis/r1/rr.json: state basis, round 1, test rr" in err, f"layout: note: {err}")
    same_reading_by_pattern("layout", p, got)
    # bonnie++ files: a note counts names (files), not their rows' runs.
    src = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
    row = os.path.join(src, "tests", "fixtures", "bonnie", "bonnie-2.00a",
                       "bonnie-2.00a_q_s0_n128.csv")
    p = os.path.join(tmp, "bonnie")
    for name in ("zvol-1", "zvol-2", "raw-1"):
        copy(row, f"{p}/{name}.csv")
    rc, out, err = run(["--csv", "summary", p])
    check(rc == 0 and "3 names read as --pattern '{state}-{round}.csv', e.g. raw-1.csv: state "
          "raw, round 1, the tests of its bonnie++ rows" in err, f"bonnie++ files: {err}")
    formats(tmp, data, R)
    sweep_views(tmp, data, R)
    sweep_charts(tmp, R)
    return summary()


def sweep_rows(args):
    """--csv sweep's rows: exit status, rows, stderr."""
    rc, out, err = run(["--csv", "sweep"] + args)
    rows = parse_csv(out)[0] if rc in (0, 1) and out else []
    return rc, rows, err


def sweep_views(tmp, data, R):
    """The sweeps shown: the tables, --csv sweep and --json's sweeps of a
    pile named randread_qd8_nj4_rep2.json, of a bench-fio tree of real
    1 s runs, and of a campaign whose manifest lists points."""
    # the hosts pile of sweeps(): randread and randwrite, iodepth x numjobs
    p = os.path.join(tmp, "hosts")
    rc, out, err = run(["--table", "--width", "100", p])
    check(rc == 0 and "Sweep randread bs=4k: iodepth x numjobs" in out and
          "Sweep randwrite bs=4k: iodepth x numjobs" in out and
          "IOPS median, host-b (change against host-a)" in out and
          "            numjobs 1  numjobs 4" in out and "iodepth 32" in out and
          "Saturation point: numjobs 1: " in out, f"hosts: the sweep tables: {out[-3000:]}")
    rc, rows, err = sweep_rows([p])
    check(rc == 0 and len(rows) == 24 and
          {(r["sweep"], r["swept"]) for r in rows} ==
          {("randread bs=4k", "iodepth,numjobs"), ("randwrite bs=4k", "iodepth,numjobs")} and
          {(r["iodepth"], r["numjobs"]) for r in rows} ==
          {(q, n) for q in ("1", "8", "32") for n in ("1", "4")} and
          all(r["n"] == "3" and float(r["iops_median"]) > 0 and float(r["p99_us_median"]) > 0
              for r in rows) and
          all((r["change_pct"] == "") == (r["variant"] == "host-a") for r in rows),
          f"hosts: --csv sweep, a row per point and host: {rows[:2]} {err}")
    # numjobs=4 without group_reporting is four jobs: the point sums them
    qd8 = [r for r in rows if r["test"] == "randread_qd8_nj4" and r["variant"] == "host-a"]
    rc, out, err = run(["--csv", "summary", p])
    srows = [r for r in parse_csv(out)[0] if r["test"] == "randread_qd8_nj4" and
             r["variant"] == "host-a" and r["metric"] == "iops" and r["direction"] == "read"]
    check(len(qd8) == 1 and len(srows) == 4 and
          abs(float(qd8[0]["iops_median"]) - sum(float(r["median"]) for r in srows)) <
          0.01 * float(qd8[0]["iops_median"]),
          f"hosts: a point's IOPS is its four jobs' sum: {qd8} {[r['median'] for r in srows]}")
    # two tests that differ in iodepth alone but never ran in one state (a
    # paced job of a state of its own beside the suite): no sweep; the same
    # two side by side in both states: a sweep
    apart, both = os.path.join(tmp, "apart"), os.path.join(tmp, "both")
    for r in (1, 2):
        copy(R["randread", 1, 1], f"{apart}/quiet/suite_rep{r}.json")
        copy(R["randread", 32, 1], f"{apart}/steady/paced_rep{r}.json")
        for st in ("quiet", "steady"):
            copy(R["randread", 1, 1], f"{both}/{st}/suite_rep{r}.json")
            copy(R["randread", 32, 1], f"{both}/{st}/paced_rep{r}.json")
    pat = ["--json", "--pattern", "{state}/{test}_rep{round}.json"]
    rc, out, err = run(pat + [apart])
    check(rc == 0 and json.loads(out).get("sweeps") in (None, []),
          f"apart: tests never measured together are no sweep: {out[:300]} {err}")
    rc, out, err = run(pat + [both])
    check(rc == 0 and len(json.loads(out).get("sweeps") or []) == 1,
          f"both: measured together they are a sweep: {out[:300]} {err}")
    rc, out, err = run(["--json", p])
    doc = json.loads(out)
    sw = doc.get("sweeps", [])
    check(rc == 0 and len(sw) == 2 and sw[0]["options"] == ["iodepth", "numjobs"] and
          sw[0]["values"] == {"iodepth": ["1", "8", "32"], "numjobs": ["1", "4"]} and
          sw[0]["load"] == "iodepth" and len(sw[0]["points"]) == 6 and
          len(sw[0]["points"][0]["columns"]) == 2 and
          len(sw[0]["points"][0]["columns"][0]["iops"]["values"]) == 3 and
          len(sw[0]["saturation"]) == 2 and len(sw[0]["saturation"][0]["lines"]) == 2 and
          sw[0]["saturation"][0]["text"].startswith("Saturation point: numjobs 1: "),
          f"hosts: --json sweeps: {json.dumps(sw)[:600]}")
    rc, out, err = run(["--markdown", p])
    check(rc == 0 and "## Sweep randread bs=4k: iodepth x numjobs" in out and
          "| iodepth 8 |" in out, f"hosts: Markdown: {out[-1500:]}")

    # A bench-fio tree (DEVICE/BS/MODE-IODEPTH-NUMJOBS.json) of real 1 s
    # runs: 3 queue depths x 2 job counts, numjobs with group_reporting as
    # bench-fio runs them.
    bf = os.path.join(tmp, "bench-fio", "loop0", "4k")
    os.makedirs(bf)
    for qd in (1, 4, 16):
        for nj in (1, 2):
            subprocess.run([FIO, "--name=randread", f"--filename={data}", "--size=1M",
                            "--rw=randread", "--bs=4k", f"--iodepth={qd}", f"--numjobs={nj}",
                            "--ioengine=libaio", "--direct=1", "--time_based", "--runtime=1",
                            "--group_reporting", "--output-format=json",
                            f"--output={bf}/randread-{qd}-{nj}.json"],
                           check=True, capture_output=True)
    p = os.path.join(tmp, "bench-fio")
    rc, out, err = run(["--table", "--width", "100", p])
    check(rc == 0 and "read as a bench-fio tree" in out + err and
          "Sweep randread bs=4k: iodepth x numjobs" in out and "iodepth 16" in out,
          f"bench-fio: the sweep: {rc} {out[-1500:]} {err}")
    rc, rows, err = sweep_rows([p])
    check(rc == 0 and len(rows) == 6 and
          sorted((int(r["iodepth"]), int(r["numjobs"])) for r in rows) ==
          [(q, n) for q in (1, 4, 16) for n in (1, 2)] and
          all(float(r["iops_median"]) > 0 for r in rows),
          f"bench-fio: --csv sweep: {rows} {err}")
    # the workload columns in summary, wide and rounds
    for kind in ("summary", "wide", "rounds"):
        rc, out, err = run(["--csv", kind, p])
        head = out.splitlines()[0].split(",") if out else []
        check(rc == 0 and all(c in head for c in ("rw", "bs", "iodepth", "numjobs")),
              f"bench-fio: --csv {kind} has the workload columns: {head}")

    # A campaign's points: the same test once per point in each round,
    # files named TEST@iodepth=8,numjobs=4.json; the point is the test's.
    camp = os.path.join(tmp, "campaign")
    points = [("1", "1"), ("1", "4"), ("8", "1"), ("8", "4")]
    states = []
    for st in ("before", "after"):
        rounds = []
        for rn in (1, 2):
            tests = []
            for qd, nj in points:
                rel = f"{st}/r{rn}/rr@iodepth={qd},numjobs={nj}.json"
                copy(R["randread", int(qd), int(nj)], os.path.join(camp, rel))
                # after's (8, 4) disturbed in both rounds, its (1, 1) in round 1
                why = ("foreign I/O 60.0% > 5%" if st == "after" and
                       ((qd, nj) == ("8", "4") or ((qd, nj) == ("1", "1") and rn == 1)) else None)
                tests.append({"test": "rr", "point": {"iodepth": qd, "numjobs": nj},
                              "status": "done", "exit_status": 0, "json": rel,
                              "telemetry": {"disturbed": why}})
            rounds.append({"round": rn, "status": "done", "tests": tests})
        states.append({"name": st, "status": "done", "before": [], "rounds": rounds})
    with open(os.path.join(camp, "manifest.json"), "w") as f:
        json.dump({"format": "fiocamp-manifest", "version": 1, "campaign": "points",
                   "status": "done", "fio_version": "fio-3.33", "target": "local",
                   "settings": {"rounds": 2, "disturbed": {"steal": 0.05, "foreign_io": 0.05}},
                   "tests": ["rr"], "states": states}, f)
    rc, rows, err = sweep_rows([camp])
    check(rc == 0 and len(rows) == 8 and {r["sweep"] for r in rows} == {"rr"} and
          {r["test"] for r in rows} == {f"rr@iodepth={q},numjobs={n}" for q, n in points} and
          all(r["n"] == "2" for r in rows) and
          all((r["change_pct"] == "") == (r["state"] == "before") for r in rows),
          f"campaign points: 4 points x 2 states, 2 rounds each: {rows} {err}")
    rc, got, err = reading([camp])
    check(rc == 0 and len(got) == 8 and
          got.get(("campaign", "after", "rr@iodepth=8,numjobs=4")) == [1, 2],
          f"campaign points: a test per point: {sorted(got.items())[:3]} {err}")
    rc, out, err = run(["--table", "--width", "100", camp])
    check(rc == 0 and "Sweep rr: iodepth x numjobs" in out and
          "IOPS median, after (change against before)" in out,
          f"campaign points: the table: {out[-1500:]}")
    # a point's median over disturbed rounds is marked as in the table:
    # ! some, !! most; before's points none
    after = out[out.find("IOPS median, after"):]
    after = after[:after.find("\n\n")]
    before = out[out.find("IOPS median, before"):]
    before = before[:before.find("\n\n")]
    rows = {ln.split()[1]: ln.split()[2:] for ln in after.splitlines()
            if ln.startswith("iodepth ")}
    check(rows.get("1", [""])[1].endswith("%!") and rows.get("8", ["", "", "", ""])[3]
          .endswith("%!!") and not rows.get("1", ["", "", "!"])[3].endswith("!") and
          "!" not in before, f"campaign points: the disturbed marks: {after} {before}")
    # a point that is no object of names is said and left out
    with open(os.path.join(camp, "manifest.json")) as f:
        m = json.load(f)
    m["states"][0]["rounds"][0]["tests"][0]["point"] = ["iodepth", "1"]
    with open(os.path.join(camp, "manifest.json"), "w") as f:
        json.dump(m, f)
    rc, out, err = run(["--csv", "rounds", camp])
    check("a point that is not an object of option names and values, skipped" in err,
          f"campaign points: a bad point: {err}")


SVG = "{http://www.w3.org/2000/svg}"


def well_formed(path):
    """Whether xmllint (when installed) and Python's parser read the file."""
    if shutil.which("xmllint"):
        r = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
        if r.returncode != 0:
            return False
    try:
        ET.parse(path)
    except ET.ParseError:
        return False
    return True


def svg_parts(path):
    """The classes of a chart's elements counted, and its texts."""
    root = ET.parse(path).getroot()
    count = {}
    for e in root.iter():
        for c in (e.get("class") or "").split():
            count[c] = count.get(c, 0) + 1
    texts = [e.text or "" for e in root.iter(SVG + "text")]
    titles = [e.text or "" for e in root.iter(SVG + "title")]
    return count, texts, titles


def rewrite(src, dst, qd, iops, p99_us):
    """A copy of a real report at iodepth qd with its IOPS and p99 set."""
    with open(src) as f:
        d = json.load(f)
    job = d["jobs"][0]
    job["job options"]["iodepth"] = str(qd)
    rd = job["read"]
    rd["iops"] = float(iops)
    rd["bw"] = int(iops * 4)
    rd["bw_bytes"] = int(iops * 4096)
    rd["clat_ns"]["percentile"]["99.000000"] = int(p99_us * 1000)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "w") as f:
        json.dump(d, f)


def sweep_charts(tmp, R):
    """--svg's sweep-*.svg and the HTML report's Sweep section: a line per
    value of the other option and per column, a dot per round, the log axes
    where they belong, the saturation point ringed where the rule finds
    it."""
    p = os.path.join(tmp, "hosts")
    out = os.path.join(tmp, "svg-hosts")
    html = os.path.join(tmp, "hosts.html")
    rc, _, err = run(["--svg", out, "--html", html, p])
    files = sorted(f for f in os.listdir(out) if f.startswith("sweep-")) if rc == 0 else []
    check(files == ["sweep-randread-bs-4k-iops.svg", "sweep-randread-bs-4k-latency.svg",
                    "sweep-randwrite-bs-4k-iops.svg", "sweep-randwrite-bs-4k-latency.svg"],
          f"hosts: the sweep charts: {rc} {files} {err}")
    for f in files:
        check(well_formed(os.path.join(out, f)), f"hosts: {f} is well-formed")
    if files:
        # 2 hosts x numjobs 1, 4: four lines; 3 queue depths x 3 rounds each
        count, texts, titles = svg_parts(os.path.join(out, files[0]))
        check(count.get("line") == 4 and count.get("median") == 12 and
              count.get("round") == 36 and count.get("whisker", 0) <= 12 and
              "iodepth (log)" in texts and
              all(v in texts for v in ("1", "8", "32")) and
              "host-b, numjobs 4" in texts and
              any(t.startswith("host-a, numjobs 1, iodepth 8, round 2: ") for t in titles),
              f"hosts: {files[0]}: lines, medians, rounds: {count} {texts[:20]}")
        count, texts, titles = svg_parts(os.path.join(out, files[1]))
        check(count.get("line") == 4 and count.get("median") == 12 and
              "round" not in count and
              any(t.startswith("p99 latency") for t in texts),
              f"hosts: {files[1]}: a line per host and numjobs: {count}")
    check(well_formed(html), "hosts: the HTML report is well-formed")
    with open(html) as f:
        page = f.read()
    sect = page.split('<section id="sweeps">', 1)[1].split("</section>", 1)[0] \
        if '<section id="sweeps">' in page else ""
    check("<h2>Sweep</h2>" in sect and '<a href="#sweeps">Sweep</a>' in page and
          sect.count("<figure") == 4 and sect.count("<svg") == 4 and
          '<figure id="chart-sweep-randread-bs-4k-latency">' in sect and
          sect.count('<p class="sat"><b>host-a</b>: Saturation point: numjobs 1: ') == 2 and
          sect.count("<table>") == 8 and
          "IOPS median, host-b (change against host-a)" in sect and
          sect.index("<figure") < sect.index('<p class="sat">') < sect.index("<table>"),
          f"hosts: the HTML's Sweep section: the charts, the saturation, the tables: "
          f"{sect[:300]}")

    # A device that saturates at iodepth 32: IOPS doubling up to it, p99
    # flat, then IOPS flat and p99 up 2.25 times.  From 100 to 3300 IOPS
    # (33 times): a log axis; from 1000 to 8550 (8.6 times): a linear one.
    # The slow device's p99 reaches 36,000 µs: its latency axis in ms.
    qds = [1, 2, 4, 8, 16, 32, 64]
    shapes = {"log": ([100, 200, 400, 800, 1600, 3200, 3300], [100, 100, 100, 100, 110, 400, 900]),
              "linear": ([1000, 2000, 4000, 8000, 8400, 8500, 8550],
                         [100, 100, 110, 120, 300, 900, 2000]),
              "slow": ([1000, 2000, 4000, 8000, 8400, 8500, 8550],
                       [2000, 2000, 2200, 2400, 6000, 18000, 36000])}
    for name, (iops, p99) in shapes.items():
        p = os.path.join(tmp, f"device-{name}")
        for r in (1, 2):
            for i, qd in enumerate(qds):
                rewrite(R["randread", 1, 1], f"{p}/r{r}_randread_qd{qd}.json", qd,
                        iops[i] * (1 + 0.02 * r), p99[i])
        out = os.path.join(tmp, f"svg-{name}")
        rc, tab, err = run(["--table", "--width", "120", "--svg", out, p])
        check(rc == 0 and "Saturation point: iodepth " in tab, f"{name}: the sweep: {tab[-600:]}")
        files = sorted(f for f in os.listdir(out) if f.startswith("sweep-")) if rc == 0 else []
        check(files == ["sweep-randread-bs-4k-numjobs-1-iops.svg",
                        "sweep-randread-bs-4k-numjobs-1-latency.svg"],
              f"{name}: two charts: {files}")
        if len(files) != 2:
            continue
        count, texts, titles = svg_parts(os.path.join(out, files[0]))
        log = name == "log"
        want = "iodepth 32" if log else "iodepth 8"
        sat = [t for t in titles if "saturation point" in t]
        check(count.get("saturation") == 1 and len(sat) == 1 and sat[0].endswith(want) and
              "ringed: the saturation point" in texts,
              f"{name}: {files[0]}: the saturation point ringed on the IOPS too: {count} {sat}")
        check(count.get("line") == 1 and count.get("median") == 7 and count.get("round") == 14
              and ("IOPS (log)" in texts) == log and ("IOPS" in texts) != log and
              (all(t in texts for t in ("100", "200", "500", "1k", "2k", "5k")) if log else
               "0" in texts),
              f"{name}: {files[0]}: one line, a dot per round, "
              f"{'a log' if log else 'a linear'} y axis: {count} {texts}")
        count, texts, titles = svg_parts(os.path.join(out, files[1]))
        sat = [t for t in titles if "saturation point" in t]
        want = "iodepth 32" if log else "iodepth 8"
        check(count.get("saturation") == 1 and len(sat) == 1 and sat[0].endswith(want) and
              f"Saturation point: {want} " in tab and
              "ringed: the saturation point" in texts,
              f"{name}: {files[1]}: the saturation point ringed at {want}: {count} {sat} "
              f"{tab[-400:]}")
        # the latency in ms from 10,000 µs: the axis title, the ticks, the hover texts
        unit = "ms" if name == "slow" else "µs"
        ylabel = f"p99 latency ({unit})"
        tips = [t for t in titles if ", p99 " in t]
        # the y axis's ticks come between the subtitle and its title
        yticks = texts[2:texts.index(ylabel)] if ylabel in texts else []
        check(len(tips) == 7 and all(t.endswith(f" {unit}") for t in tips) and
              (yticks == ["0", "10", "20", "30", "40"] and tips[-1].endswith(", p99 36.0 ms")
               if name == "slow" else yticks[:1] == ["0"]),
              f"{name}: {files[1]}: p99 latency in {unit}: {texts} {tips}")
    # not reached: no ring, and no legend of one
    p = os.path.join(tmp, "device-linear")
    for r in (1, 2):
        rewrite(R["randread", 1, 1], f"{p}/r{r}_randread_qd64.json", 64, 20000, 2000)
    out = os.path.join(tmp, "svg-unsaturated")
    rc, tab, err = run(["--table", "--width", "120", "--svg", out, p])
    lat = os.path.join(out, "sweep-randread-bs-4k-numjobs-1-latency.svg")
    count, texts, titles = svg_parts(lat) if rc == 0 else ({}, [], [])
    check("Saturation point: not reached" in tab and "saturation" not in count and
          "ringed: the saturation point" not in texts,
          f"not reached: no ring: {count} {tab[-400:]}")
    iops = os.path.join(out, "sweep-randread-bs-4k-numjobs-1-iops.svg")
    count, texts, titles = svg_parts(iops) if rc == 0 else ({}, [], [])
    check("saturation" not in count and "ringed: the saturation point" not in texts,
          f"not reached: no ring on the IOPS: {count}")


def formats(tmp, data, R):
    """The same job saved as JSON, normal and terse output.  Before: three
    tests "randread rw=- bs=- iodepth=- ..." and alike, "not pooled", their
    rounds 4..9."""
    real = os.path.join(tmp, "real")
    for fmt in ("normal", "terse"):
        fio(f"{real}/qd8.{fmt}", data, "randread", 8, fmt=fmt)
    p = os.path.join(tmp, "formats")
    for r in (1, 2, 3):
        copy(R["randread", 8, 1], f"{p}/randread-{r}.json")
        copy(f"{real}/qd8.normal", f"{p}/randread-{r + 3}.txt")
        copy(f"{real}/qd8.terse", f"{p}/randread-{r + 6}.terse")
    rc, got, err = reading([p])
    check(rc == 0 and got == {("formats", "all", "randread"): list(range(1, 10))} and
          "not pooled" not in err, f"formats: one test, rounds 1..9: {got} {err}")
    check("test randread: 3 runs of terse output (options unknown) and 3 runs of normal "
          "output (options partly unknown) joined the runs whose known options agree" in err,
          f"formats: the note: {err}")
    check(len(notes_with_pattern(err)) == 1 and
          "9 names read as --pattern '{test}-{round}.json'" in err,
          f"formats: one reading note for the three extensions: {err}")
    rc, out, err = run(["--json", p])
    doc = json.loads(out)
    check(len(doc["tests"]) == 1 and doc["tests"][0]["workload"][0].get("numjobs") == "1",
          f"formats: the test's workload is the JSON's: {doc['tests']}")
    # Two workloads of that name: the terse runs agree with both, and keep a
    # test of their own, named so, rounds 1..3; the normal ones join qd8.
    fio(f"{real}/qd1.json", data, "randread", 1)
    for r in (1, 2, 3):
        copy(f"{real}/qd1.json", f"{p}/randread-{r + 9}.json")
    rc, got, err = reading([p])
    check(rc == 0 and got == {("formats", "all", "randread iodepth=8"): [1, 2, 3, 4, 5, 6],
                              ("formats", "all", "randread iodepth=1"): [1, 2, 3],
                              ("formats", "all", "randread (terse: options unknown)"): [1, 2, 3]},
          f"formats: terse runs that agree with two workloads: {got} {err}")
    check('"randread (terse: options unknown)" (3 runs)' in err and
          "test randread (terse: options unknown): its rounds 7..9 (from the names) are its "
          "rounds 1..3" in err and "rw=-" not in err, f"formats: said: {err}")
    rc, out, err = run(["--table", "--width", "120", p])
    check(rc == 0 and "randread (terse: options unknown)" in out, f"formats: table: {out[:400]}")


if __name__ == "__main__":
    sys.exit(main())
