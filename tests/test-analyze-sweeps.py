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
    return summary()


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
