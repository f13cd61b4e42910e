#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on piles of fio output named the way people name them.

Usage: test-analyze-piles.py PATH/TO/fiocamp-analyze

Each pile is made here from real fio runs (1 s, 4 MiB files, in a
temporary directory below the build directory), except the bench-fio tree,
which is a committed fixture (tests/fixtures/bench-fio), and fio's normal
output (the same runs' JSON beside it).  Every pile must
come out with the right variants, states, rounds and tests without a
--pattern, and runs of different workloads are never pooled.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial

from harness import wait_for

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import (at_once, check, close, parse_csv, rejects, run,  # noqa: E402
                          run_fio, setup, summary)

setup(sys.argv[1])
FIO = shutil.which("fio")
SRC = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))


def fio(out, data, name="randwrite", rw="randwrite", bs="4k", extra=(), fmt="json"):
    """One 1 s fio run, its report written to `out`."""
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cmd = [FIO, f"--name={name}", f"--filename={data}", "--size=4M", f"--rw={rw}",
           "--ioengine=libaio", "--iodepth=4", "--direct=1", "--runtime=1", "--time_based",
           f"--output-format={fmt}", f"--output={out}"]
    if bs:
        cmd.append(f"--bs={bs}")
    run_fio(cmd + list(extra))


def summary_rows(args):
    rc, out, err = run(["--csv", "summary"] + args)
    rows, num = parse_csv(out)
    return rc, rows, num, err


def identities(rows):
    """{(variant, state, test): n} of the iops rows."""
    return {(r["variant"], r["state"], r["test"]): int(r["n"]) for r in rows
            if r["metric"] == "iops"}


def rounds_of(args):
    rc, out, err = run(["--csv", "rounds"] + args)
    rows, num = parse_csv(out)
    got = {}
    for r in rows:
        if r["metric"] == "iops":
            got.setdefault((r["variant"], r["state"], r["test"]), []).append(int(r["round"]))
    return got


def lines_fit(text, width, what):
    long = [l for l in text.splitlines() if len(l) > width]
    check(not long, f"{what}: every line within {width} columns: {long[:2]}")


# ---- piles ----------------------------------------------------------------


def pile_state_round(tmp, data):
    """before-1.json, after_snapshot-2.json: state and round, no test in the
    name; the test is fio's job name."""
    pile = os.path.join(tmp, "state-round")
    for st in ("before", "after_snapshot"):  # the rounds of a state at once
        at_once(*(partial(fio, f"{pile}/{st}-{r}.json", data) for r in (1, 2, 3)))
    rc, rows, num, err = summary_rows([pile])
    ids = identities(rows)
    check(rc == 0, f"state-round: exit {rc} {err}")
    check(ids == {("state-round", "before", "randwrite"): 3,
                  ("state-round", "after_snapshot", "randwrite"): 3},
          f"state-round: states before, after_snapshot; test randwrite: {ids}")
    got = rounds_of([pile])
    check(all(v == [1, 2, 3] for v in got.values()) and len(got) == 2,
          f"state-round: rounds 1..3: {got}")
    check("test randwrite (fio's job name: the name holds none)" in err,
          f"state-round: the test from the job name is said: {err}")
    check("n = 1" not in err, "state-round: no single-run warning")
    b = [r for r in rows if r["state"] == "before" and r["metric"] == "iops"][0]
    check(b["baseline"] == "yes", "state-round: before ran first: the baseline")
    return pile


def pile_dated(tmp, data):
    """2024-05-01_ssd_randwrite_run3.json: the date is no state, 05 no round."""
    pile = os.path.join(tmp, "dated")
    for dev in ("ssd", "hdd"):
        # a generic job name: the rw mode in the name marks the test
        at_once(*(partial(fio, f"{pile}/2024-05-01_{dev}_randwrite_run{r}.json", data,
                          name="job1") for r in (1, 2, 3)))
    rc, rows, num, err = summary_rows([pile])
    ids = identities(rows)
    check(rc == 0, f"dated: exit {rc} {err}")
    check(ids == {("dated", "ssd", "randwrite"): 3, ("dated", "hdd", "randwrite"): 3},
          f"dated: states ssd, hdd; test randwrite: {ids}")
    got = rounds_of([pile])
    check(all(v == [1, 2, 3] for v in got.values()), f"dated: rounds 1..3: {got}")
    check("the date 2024-05-01 (and those of the others) is no part of it" in err,
          f"dated: the date is said: {err}")
    # The same round on another day: the names differ only by the date.
    shutil.copy(f"{pile}/2024-05-01_ssd_randwrite_run1.json",
                f"{pile}/2024-05-02_ssd_randwrite_run1.json")
    rc, out, err = run(["--csv", "summary", pile])
    why = rejects(err).get("2024-05-02_ssd_randwrite_run1.json", "")
    check(rc == 1 and "state ssd, round 1, test randwrite again" in why and
          "differ only in their dates" in why, f"dated: same round another day: {why}")
    os.remove(f"{pile}/2024-05-02_ssd_randwrite_run1.json")
    return pile


def pile_bench_fio(tmp):
    """The committed bench-fio tree: devices as variants, a test per
    workload; 4k and 64k never pooled, not even by a --pattern."""
    tree = os.path.join(SRC, "tests", "fixtures", "bench-fio")
    rc, rows, num, err = summary_rows([tree])
    ids = identities(rows)
    check(rc == 0, f"bench-fio: exit {rc} {err}")
    want = set()
    for dev in ("vda", "vdb"):
        for bs in ("4k", "64k"):
            for mode in ("randread", "randwrite"):
                for qd in (1, 16):
                    want.add((dev, "all", f"{mode} bs={bs} iodepth={qd} numjobs=1"))
    check(set(ids) == want and set(ids.values()) == {1},
          f"bench-fio: 2 devices x 8 workloads, one run each: {sorted(ids)}")
    check("read as a bench-fio tree" in err, f"bench-fio: recognised: {err}")
    check("n = 1" in err and "single run" in err, f"bench-fio: n = 1 warning: {err}")
    sk = rejects(err)
    check(sk.get("write-8-1.json") == "skipped: bench-fio's preconditioning run" or
          "skipped 6 files: bench-fio's preconditioning run" in err,
          f"bench-fio: the preconditioning run is skipped: {err}")
    # its logs are found by bench-fio's names (MODE-iodepth-N-numjobs-M)
    rc, out, err = run(["--csv", "profile", tree])
    prof, num = parse_csv(out)
    tests = {(r["variant"], r["test"]) for r in prof}
    check(len(tests) == 16, f"bench-fio: a per-second profile for every run: {len(tests)}")
    # the numbers are fio's
    with open(os.path.join(tree, "vdb", "64k", "randread-16-1.json")) as f:
        doc = json.load(f)
    r = [x for x in rows if x["variant"] == "vdb" and x["metric"] == "bw" and
         x["test"] == "randread bs=64k iodepth=16 numjobs=1"][0]
    close(num(r["median"]), doc["jobs"][0]["read"]["bw_bytes"] / 1048576, 5e-4,
          "bench-fio: vdb 64k QD16 MiB/s")
    base = [x for x in rows if x["variant"] == "vda" and x["metric"] == "bw" and
            x["test"] == r["test"]][0]
    close(num(r["variant_change_pct"]),
          (num(r["median"]) - num(base["median"])) / num(base["median"]) * 100, 0.051,
          "bench-fio: vdb against vda (one decimal)")
    # With the pattern of the issue, state = device and test = file name:
    # 4k and 64k share names, but not a workload.
    copy = os.path.join(tmp, "bench-fio")
    shutil.copytree(tree, copy)
    shutil.rmtree(os.path.join(copy, "vda", "128k"))
    rc, rows, num, err = summary_rows(["--pattern", "{state}/*/{test}.json", copy])
    ids = identities(rows)
    check(("bench-fio", "vda", "randread-1-1 bs=4k") in ids and
          ("bench-fio", "vda", "randread-1-1 bs=64k") in ids and set(ids.values()) == {1},
          f"bench-fio --pattern: 4k and 64k apart: {sorted(ids)[:4]}")
    check('test randread-1-1: runs of 2 different workloads, not pooled: '
          '"randread-1-1 bs=4k" (2 runs), "randread-1-1 bs=64k" (2 runs)' in err,
          f"bench-fio --pattern: said on stderr: {err}")
    # --layout bench-fio names a tree that is not all bench-fio
    with open(os.path.join(copy, "vda", "stray.json"), "w") as f:
        f.write(open(os.path.join(copy, "vda", "4k", "randread-1-1.json")).read())
    rc, out, err = run(["--csv", "summary", copy])
    check("read as a bench-fio tree" not in err, "bench-fio: a stray file: read by names")
    rc, out, err = run(["--csv", "summary", "--layout", "bench-fio", copy])
    check(rc == 1 and "rejected %s/vda/stray.json: not where a bench-fio tree keeps its runs"
          % copy in err, f"--layout bench-fio: the stray is rejected: {rc} {err}")
    # the compact view at 80 columns
    rc, out, err = run(["--compare", "--width", "80", tree])
    lines_fit(out, 80, "bench-fio --compare")
    rows = [l for l in out.splitlines() if l.startswith(("vda (base)", "vdb "))]
    check(len(rows) == 4 and all(l.split()[1:] for l in rows) and
          sum(l.startswith("variant") and "IOPS" in l for l in out.splitlines()) == 1 and
          sum(l.startswith("variant") and "MiB/s" in l for l in out.splitlines()) == 2,
          f"bench-fio --compare: devices as rows, 8 tests in two groups: {out}")


def campaign(root, name, ex_json, states, failed_restore=False, variants=None):
    """A campaign directory like fiocamp-run writes, from real fio JSON;
    with `variants`, each round runs the test once on each of them."""
    camp = os.path.join(root, name)
    man = {"format": "fiocamp-manifest", "version": 1, "campaign": name, "status": "done",
           "fio_version": "fio-3.33", "tests": ["rw4k"], "states": []}
    k = 0
    for st in states:
        state = {"name": st, "status": "done", "downtime_s": None, "before": [],
                 "rounds": []}
        if st != states[0]:
            state["before"] = [{"action": "power-off", "text": "power-off",
                                "status": "done", "duration_s": 10.5},
                               {"action": "wait-ssh", "text": "wait-ssh", "status": "done",
                                "duration_s": 20.0, "downtime_s": 30.5}]
            state["downtime_s"] = 30.5
        for r in (1, 2, 3):
            d = f"{st}/r{r}"
            os.makedirs(f"{camp}/{d}")
            tests = []
            for v in variants or [None]:
                f = f"{d}/{v}/rw4k.json" if v else f"{d}/rw4k.json"
                os.makedirs(os.path.dirname(f"{camp}/{f}"), exist_ok=True)
                shutil.copy(ex_json[k % len(ex_json)], f"{camp}/{f}")
                k += 1
                t = {"test": "rw4k", "status": "done", "exit_status": 0, "json": f,
                     "logs": []}
                if v:
                    t["variant"] = v
                tests.append(t)
            state["rounds"].append({"round": r, "status": "done", "tests": tests})
        man["states"].append(state)
    if failed_restore:
        man["status"] = "failed"
        man["states"].append({
            "name": "restore", "status": "failed", "downtime_s": None, "rounds": [],
            "before": [
                {"action": "hash", "text": "hash /data/payload", "status": "done",
                 "duration_s": 1.5, "result": {"sha256": "aa", "path": "/data/payload"}},
                {"action": "verify-hash", "text": "verify-hash /data/payload",
                 "status": "failed", "duration_s": 1.25,
                 "result": {"path": "/data/payload", "expected": "aa", "actual": "bb",
                            "match": False},
                 "error": "verify-hash /data/payload: sha256 differs: expected aa, got bb"}]})
    with open(f"{camp}/manifest.json", "w") as f:
        json.dump(man, f, indent=2)
    return camp


def pile_campaigns(tmp, data):
    """Two campaign directories given together: variants, not repeats."""
    runs = os.path.join(tmp, "campaign-runs")
    ex = [f"{runs}/r{i}.json" for i in range(6)]
    at_once(*(partial(fio, r, data, name="rw4k") for r in ex))
    a = campaign(tmp, "run-a", ex, ["basis", "snap1"])
    b = campaign(tmp, "run-b", ex[::-1], ["basis", "snap1"], failed_restore=True)
    rc, rows, num, err = summary_rows([a, b])
    ids = identities(rows)
    check(rc == 0 and "again" not in err, f"two campaigns: exit {rc} {err}")
    check(ids == {(v, s, "rw4k"): 3 for v in ("run-a", "run-b") for s in ("basis", "snap1")},
          f"two campaigns: variants run-a, run-b: {ids}")
    rb = [r for r in rows if r["variant"] == "run-b" and r["state"] == "basis" and
          r["metric"] == "iops"][0]
    ra = [r for r in rows if r["variant"] == "run-a" and r["state"] == "basis" and
          r["metric"] == "iops"][0]
    check(ra["baseline_variant"] == "yes" and rb["baseline_variant"] == "no",
          "two campaigns: the first is the baseline variant")
    close(num(rb["variant_change_pct"]),
          (num(rb["median"]) - num(ra["median"])) / num(ra["median"]) * 100, 0.051,
          "two campaigns: change against the baseline variant (one decimal)")
    s = [r for r in rows if r["variant"] == "run-b" and r["state"] == "snap1" and
         r["metric"] == "iops"][0]
    close(num(s["downtime_s"]), 30.5, 1e-9, "two campaigns: each variant's transitions")
    # --label names them; --baseline-variant picks the other
    rc, rows, num, err = summary_rows(["--label", "zvol=" + a, "--label", "raw=" + b,
                                       "--baseline-variant", "raw"])
    ids = identities(rows)
    check({v for v, _, _ in ids} == {"zvol", "raw"}, f"--label: {ids}")
    rz = [r for r in rows if r["variant"] == "zvol" and r["state"] == "basis" and
          r["metric"] == "iops"][0]
    check(rz["baseline_variant"] == "no" and rz["variant_change_pct"] != "",
          "--baseline-variant raw")
    # the compact view, the default on a terminal with several variants
    rc, out, err = run(["--compare", "--width", "80", a, b])
    lines = out.splitlines()
    check(rc == 0 and any(l.startswith("variant") for l in lines), f"--compare: {out}")
    row = [l for l in lines if l.startswith("run-b / basis")]
    check(row and "(" in row[0] and ".." in row[0] and "%" in row[0],
          f"--compare: median (min..max) change: {row}")
    lines_fit(out, 80, "--compare")
    check(any(l.startswith("run-b / restore (failed)") for l in lines),
          f"--compare: the failed restore is a row: {out}")
    # the failed restore with a hash that differs: marked, with its actions
    rc, out, err = run(["--table", "--width", "100", a, b])
    check("run-b / restore (failed)" in out, f"the failed state is a column: {out[:600]}")
    dline = [l for l in out.splitlines() if l.startswith("data (verify-hash)")]
    check(any(l.split()[-1] == "DIFFERS" for l in dline), f"data row: {dline}")
    check("state transitions" in out and "status" in out, "status row")
    rc, out, err = run(["--csv", "transitions", a, b])
    tr, num = parse_csv(out)
    vh = [r for r in tr if r["state"] == "restore" and r["action"] == "verify-hash"]
    check(len(vh) == 1 and vh[0]["hash"] == "differs" and vh[0]["state_status"] == "failed" and
          vh[0]["data"] == "DIFFERS" and "sha256 differs" in vh[0]["error"],
          f"--csv transitions: the failed restore: {vh}")
    rc, out, err = run(["--json", a, b])
    doc = json.loads(out)
    t = [x for x in doc["transitions"] if x["state"] == "restore"]
    check(len(t) == 1 and t[0]["failed"] and t[0]["integrity"] == {
        "checked": 1, "matched": 0, "result": "differs"} and
        [x["hash"] for x in t[0]["actions"]] == [None, "differs"],
        f"--json: the failed restore: {t}")
    check([v["name"] for v in doc["variants"]] == ["run-a", "run-b"] and
          all("variant" in c for s in doc["series"] for c in s["cells"]),
          "--json: variants and a variant in every cell")
    # variants within one campaign (backends), from the manifest
    c = campaign(tmp, "backends", ex, ["basis", "snap1"], variants=["zvol", "raw"])
    rc, rows, num, err = summary_rows([c])
    ids = identities(rows)
    check(rc == 0 and ids == {(v, s, "rw4k"): 3 for v in ("zvol", "raw")
                              for s in ("basis", "snap1")},
          f"variants in a manifest: {rc} {ids} {err}")
    r = [x for x in rows if x["variant"] == "raw" and x["state"] == "snap1" and
         x["metric"] == "iops"][0]
    check(r["downtime_s"] == "30.500" and r["baseline_variant"] == "no",
          f"variants of one campaign share its transitions: {r['downtime_s']}")
    rc, rows, num, err = summary_rows([c, a])
    check({x["variant"] for x in rows} == {"backends/zvol", "backends/raw", "run-a"},
          f"a campaign with variants beside another: {sorted({x['variant'] for x in rows})}")
    # a parent directory holding both: the same two variants
    parent = os.path.join(tmp, "campaigns")
    os.mkdir(parent)
    os.symlink(a, os.path.join(parent, "run-a"))
    os.symlink(b, os.path.join(parent, "run-b"))
    rc, rows, num, err = summary_rows([parent])
    ids = identities(rows)
    check({v for v, _, _ in ids} == {"run-a", "run-b"} and "again" not in err,
          f"campaigns in one directory: variants by directory: {ids} {err}")
    return a, b


def pile_contents(tmp, data):
    """Files known by content: fio JSON saved as .log, terse as .out; what is
    not fio output is skipped and said; empty inputs are named."""
    d = os.path.join(tmp, "contents")
    at_once(partial(fio, f"{d}/results-before-1.log", data),
            partial(fio, f"{d}/results-before-2.log", data))
    at_once(partial(fio, f"{d}/results-after-1", data),  # no extension at all
            partial(fio, f"{d}/results-after-2.out", data, fmt="terse"))
    with open(f"{d}/notes.txt", "w") as f:
        f.write("ran on the new disk, 2024-05-01\n")
    with open(f"{d}/blob.bin", "wb") as f:
        f.write(b"\x00\x01\x02" * 100)
    with open(f"{d}/utf16.txt", "wb") as f:
        f.write("fio-3.33\n".encode("utf-16"))
    rc, out, err = run(["--csv", "rounds", d])
    rows, num = parse_csv(out)
    got = {(r["state"], int(r["round"])) for r in rows if r["metric"] == "iops"}
    check(rc == 0 and got == {("before", 1), ("before", 2), ("after", 1), ("after", 2)},
          f"contents: .log, none and .out read, 'results' dropped: {rc} {got} {err}")
    why = rejects(err)
    check(why.get("notes.txt") == "skipped: not fio output", f"notes.txt: {why}")
    check(why.get("blob.bin") == "skipped: a binary file, not fio output", f"blob: {why}")
    check("UTF-16" in why.get("utf16.txt", ""), f"utf16: {why}")
    rc, out, err = run(["--json", d])
    doc = json.loads(out)
    fmts = {os.path.basename(r["file"]): r["format"] for r in doc["runs"]}
    check(fmts.get("results-after-2.out") == "terse" and
          fmts.get("results-before-1.log") == "json", f"contents: formats {fmts}")
    # --verbose says what became of every file
    rc, out, err = run(["--verbose", "--csv", "summary", d])
    for name in ("results-before-1.log", "results-after-1", "notes.txt", "blob.bin"):
        check(f"/{name}:" in err, f"--verbose names {name}: {err}")
    check("read %s/results-before-1.log: fio JSON fio-3.33, variant contents, state before, "
          "round 1, test randwrite" % d in err, f"--verbose identity: {err}")
    # an empty directory, one of notes only, a note named on the command line
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    rc, out, err = run(["--csv", "summary", empty])
    check(rc == 2 and f"rejected {empty}: no fio output found" in err and
          "nothing to analyze" in err, f"empty directory: {rc} {err}")
    notes = os.path.join(tmp, "notes-only")
    os.mkdir(notes)
    shutil.copy(f"{d}/notes.txt", notes)
    rc, out, err = run(["--csv", "summary", notes])
    check(rc == 2 and f"skipped {notes}/notes.txt: not fio output" in err and
          f"rejected {notes}: no fio output found" in err, f"notes only: {rc} {err}")
    rc, out, err = run(["--csv", "summary", f"{d}/notes.txt", f"{d}/results-before-1.log"])
    check(rc == 1 and f"rejected {d}/notes.txt: not fio output" in err,
          f"a note named on the command line: {rc} {err}")
    # a log whose run cannot be told: two runs of its name, as near as each other
    amb = os.path.join(tmp, "ambiguous")
    at_once(partial(fio, f"{amb}/a/x-1.json", data), partial(fio, f"{amb}/b/x-1.json", data))
    os.makedirs(f"{amb}/logs")
    with open(f"{amb}/logs/x-1_iops.1.log", "w") as f:
        f.write("1000, 500, 1, 0, 0\n")
    rc, out, err = run(["--csv", "summary", amb])
    check(rc == 1 and f"rejected {amb}/logs/x-1_iops.1.log: several runs of the same name "
          "could own this log" in err, f"an ambiguous log: {rc} {err}")
    rc, out, err = run(["--csv", "summary", empty, d])
    check(rc == 1 and f"rejected {empty}: no fio output found" in err,
          f"an empty input beside a good one: {rc} {err}")


def pile_workloads(tmp, data):
    """Names alike, workloads not: never pooled.  Workloads alike, written
    differently (bs=4096, blocksize=4k, readwrite): one test."""
    d = os.path.join(tmp, "workloads")
    at_once(partial(fio, f"{d}/before-1.json", data, bs="4k"),
            partial(fio, f"{d}/before-2.json", data, bs="64k"),
            partial(fio, f"{d}/before-3.json", data, bs="4k", extra=["--iodepth=16"]))
    rc, rows, num, err = summary_rows([d])
    ids = identities(rows)
    check(ids == {("workloads", "before", "randwrite bs=4k iodepth=4"): 1,
                  ("workloads", "before", "randwrite bs=64k iodepth=4"): 1,
                  ("workloads", "before", "randwrite bs=4k iodepth=16"): 1},
          f"workloads: three tests: {ids}")
    check('test randwrite: runs of 3 different workloads, not pooled' in err,
          f"workloads: said on stderr: {err}")
    # the same workload in other words
    s = os.path.join(tmp, "same")
    at_once(partial(fio, f"{s}/a-1.json", data, name="mix", rw="randrw", bs=None,
                    extra=["--bs=4096"]),
            partial(fio, f"{s}/a-2.json", data, name="mix", rw="randrw", bs=None,
                    extra=["--blocksize=4k"]),
            partial(fio, f"{s}/a-3.json", data, name="mix", rw="randrw", bs="4K,4k",
                    extra=["--rwmixwrite=50"]))
    rc, rows, num, err = summary_rows([s])
    ids = identities(rows)
    check(ids == {("same", "a", "mix"): 3} or
          set(ids.values()) == {3}, f"same workload, other words: one test: {ids} {err}")
    check("not pooled" not in err, f"same workload: no split: {err}")
    rc, out, err = run(["--json", s])
    doc = json.loads(out)
    wl = doc["tests"][0]["workload"][0]
    check(wl.get("rw") == "randrw" and wl.get("rwmixread") == "50" and wl.get("bs") == "4k" and
          wl.get("iodepth") == "4" and wl.get("ioengine") == "libaio" and
          wl.get("direct") == "1" and wl.get("size") == "4m" and wl.get("runtime") == "1s",
          f"the workload in the JSON: {wl}")


def pile_normal(tmp, data):
    """fio's normal output, the default most past runs exist in: read by
    content from .txt and names without extension, with the numbers of the
    JSON of the same runs within the precision fio printed."""
    d = os.path.join(tmp, "normal")
    j = os.path.join(tmp, "normal-json")
    os.makedirs(d)
    os.makedirs(j)
    at_once(*(partial(fio, os.path.join(tmp, f"both-{r}.out"), data, fmt="normal,json")
              for r in (1, 2, 3)))
    for r in (1, 2, 3):
        with open(os.path.join(tmp, f"both-{r}.out")) as f:
            text = f.read()
        # fio writes its banner, the JSON, then the normal report
        i = text.index("\n{") + 1
        _, end = json.JSONDecoder().raw_decode(text[i:])
        with open(f"{j}/before-{r}.json", "w") as f:
            f.write(text[i:i + end] + "\n")
        name = f"{d}/before-{r}.txt" if r < 3 else f"{d}/before-{r}"
        with open(name, "w") as f:
            f.write(text[:i] + text[i + end:].lstrip("\n"))
    rc, rows, num, err = summary_rows([d])
    rc2, jrows, jnum, err2 = summary_rows([j])
    check(rc == 0 and identities(rows) == {("normal", "before", "randwrite"): 3},
          f"normal output: read by content, one test: {rc} {identities(rows)} {err}")
    got = {r["metric"]: num(r["median"]) for r in rows}
    want = {r["metric"]: jnum(r["median"]) for r in jrows}
    for m, rel, unit in (("iops", 1e-3, 0), ("bw", 5e-3, 0), ("clat_mean", 1e-3, 0.01),
                         ("clat_p50", 1e-3, 1.0), ("clat_p99", 1e-3, 1.0)):
        w = want.get(m)
        close(got.get(m), w, (w or 0) * rel + unit, f"normal output {m} against its JSON")
    rc, out, err = run(["--json", d])
    doc = json.loads(out)
    check(doc["tests"][0]["workload"][0] == {"name": "randwrite", "rw": "randwrite", "bs": "4k",
                                             "iodepth": "4", "ioengine": "libaio"},
          f"normal output: the workload its banner shows, nothing invented: {doc['tests']}")
    check({r["format"] for r in doc["runs"]} == {"normal"}, "normal output: the format")
    # The state that ran first is the baseline, by the date fio printed (the
    # only time normal output has), not by the names' order.
    o = os.path.join(tmp, "normal-order")
    os.makedirs(o)
    fio(f"{o}/zz_before-1.txt", data, fmt="normal")
    # fio prints the date to the second: the next run starts in a later one
    second = int(time.time())
    wait_for(lambda: int(time.time()) > second, timeout=5)
    fio(f"{o}/after-1.txt", data, fmt="normal")
    rc, rows, num, err = summary_rows([o])
    base = {r["state"] for r in rows if r["baseline"] == "yes"}
    check(rc == 0 and base == {"zz_before"},
          f"normal output: the first run's state is the baseline: {base} {err}")



def pile_short_logs(tmp):
    """A run shorter than its log window (log_avg_msec=1000, a 1 MiB write
    done in milliseconds) leaves an empty log: the run counts, the log is no
    rejected input."""
    d = os.path.join(tmp, "short-logs")
    os.makedirs(d)
    data = os.path.join(tmp, "short.dat")
    for r in (1, 2):
        prefix = os.path.join(d, f"before-{r}")
        run_fio([FIO, "--name=seqwrite", f"--filename={data}", "--size=1M",
                 "--rw=write", "--bs=1M", "--ioengine=psync", "--log_avg_msec=1000",
                 f"--write_iops_log={prefix}", "--output-format=json",
                 f"--output={prefix}.json"])
        log = f"{prefix}_iops.1.log"
        check(os.path.exists(log) and os.path.getsize(log) == 0,
              f"short-logs: fio left an empty log: {log}")
    rc, out, err = run(["--csv", "summary", d])
    check(rc == 0 and "rejected" not in err,
          f"short-logs: an empty log of a run shorter than its window is no rejection: {rc} {err}")

def pile_utf8(tmp, data):
    """A job name with bytes that are no UTF-8: valid JSON and CSV anyway."""
    d = os.path.join(tmp, "utf8")
    os.makedirs(d)
    name = b"caf\xe9\xff-job"
    run_fio([FIO.encode(), b"--name=" + name, f"--filename={data}".encode(),
             b"--size=4M", b"--rw=randread", b"--runtime=1", b"--time_based",
             b"--output-format=json", f"--output={d}/base-1.json".encode()])
    with open(f"{d}/base-1.json", "rb") as f:
        raw = f.read()
    check(b"caf\xe9\xff-job" in raw, "fio copied the bytes through")
    rc, out, err = run(["--json", d], raw=True)
    try:
        doc = json.loads(out.decode("utf-8", errors="strict"))
        names = {s["job"] for s in doc["series"]}
        check(names == {"caf\ufffd\ufffd-job"}, f"--json: U+FFFD for the bad bytes: {names}")
    except (UnicodeDecodeError, ValueError) as e:
        check(False, f"--json is valid UTF-8 JSON: {e}")
    for args in (["--csv", "summary"], ["--table"], ["--markdown"]):
        rc, out, err = run(args + [d], raw=True)
        try:
            out.decode("utf-8", errors="strict")
            ok = True
        except UnicodeDecodeError:
            ok = False
        check(rc == 0 and ok, f"{args}: valid UTF-8")


def width_and_formats(tmp, dated, state_round):
    for w in (40, 60, 80, 100):
        for args in (["--table"], ["--compare"], ["--table", "--metrics", "all"]):
            rc, out, err = run(args + ["--width", str(w), dated])
            check(rc == 0, f"{args} --width {w}: exit {rc} {err}")
            lines_fit(out, w, f"{args} --width {w}")
    rc, out, err = run(["--table", dated], env={"COLUMNS": "64"})
    lines_fit(out, 64, "COLUMNS=64")
    check(max(len(l) for l in out.splitlines()) > 50, "COLUMNS=64: the room is used")
    # --csv wide: a column of medians per state
    rc, out, err = run(["--csv", "wide", state_round])
    wide, num = parse_csv(out)
    head = list(wide[0].keys())
    check(head[:3] + head[12:17] == ["test", "job", "job_index", "direction", "metric",
                                     "unit", "before", "after_snapshot"],
          f"--csv wide header: {list(wide[0].keys())}")
    rc, out, err = run(["--csv", "summary", state_round])
    summ, num2 = parse_csv(out)
    for r in summ:
        w = [x for x in wide if x["metric"] == r["metric"] and x["direction"] == r["direction"]]
        close(w and num(w[0][r["state"]]), num2(r["median"]), 1e-9,
              f"--csv wide median {r['state']} {r['metric']}")
    # --pct fraction: the same change as a fraction, columns named change*
    rc, out, err = run(["--csv", "summary", "--pct", "fraction", state_round])
    frac, num3 = parse_csv(out)
    check("change" in frac[0] and "change_pct" not in frac[0] and "round1_change" in frac[0],
          f"--pct fraction columns: {list(frac[0].keys())[18:30]}")
    for p, q in zip(summ, frac):
        if p["change_pct"]:
            close(num3(q["change"]), num2(p["change_pct"]) / 100, 0.0006,
                  f"--pct fraction {p['metric']}")
    # a German spreadsheet
    rc, out, err = run(["--csv", "wide", "--decimal", ",", state_round])
    check(out.startswith("test;job;") and "," in out.splitlines()[1], "--csv wide German")
    # not a terminal and no format asked for: the choice is said
    rc, out, err = run([state_round])
    check("writing --csv summary" in err, f"the chosen format is said: {err}")


def main():
    if not FIO:
        print("fio not found; skipping")
        return 77
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-piles-", dir=base)
    try:
        data = os.path.join(tmp, "test.dat")
        with open(data, "wb") as f:  # written in full, so fio does not lay it out
            f.write(os.urandom(4 << 20))
        # the piles side by side: each in a directory of its own, the runs
        # within a pile one after the other (which ran first matters)
        state_round, dated, *_ = at_once(
            partial(pile_state_round, tmp, data), partial(pile_dated, tmp, data),
            partial(pile_bench_fio, tmp), partial(pile_campaigns, tmp, data),
            partial(pile_contents, tmp, data), partial(pile_workloads, tmp, data),
            partial(pile_normal, tmp, data), partial(pile_short_logs, tmp),
            partial(pile_utf8, tmp, data))
        if state_round and dated:
            width_and_formats(tmp, dated, state_round)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
