#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on what real fio reports hold at the edges.

Usage: test-analyze-edges.py PATH/TO/fiocamp-analyze PATH/TO/fiocamp-run

Every pile is made here from real fio 3.33 runs (1 s, 4 MiB files, in a
temporary directory below the build directory): 1 s runs whose logs are
empty, runs of two fio versions, a group_reporting entry of two different
jobs, the workload as spreadsheet columns, and the baseline options' errors;
and a campaign of fiocamp-run interrupted and resumed.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import (at_once, check, parse_csv, rejects, run, run_fio,  # noqa: E402
                          setup, summary)

setup(sys.argv[1])
SRC = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
FIOCAMP_RUN = os.path.abspath(sys.argv[2])
FIO = shutil.which("fio")


def fio(out, data, name="randread", rw="randread", extra=()):
    """One 1 s fio run of 4k blocks at iodepth 4, its JSON report written to `out`."""
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cmd = [FIO, f"--name={name}", f"--filename={data}", "--size=4M", f"--rw={rw}",
           "--bs=4k", "--ioengine=libaio", "--iodepth=4", "--direct=1", "--runtime=1",
           "--time_based", "--output-format=json", f"--output={out}"]
    run_fio(cmd + list(extra))


def one_second_logs(tmp, data):
    """1 s runs with log_avg_msec=1000: fio's runtime is 1001 ms and it may
    write no log line at all; the runs count, no log is rejected, the exit
    status is 0 and the HTML has no "Inputs rejected"."""
    d = os.path.join(tmp, "one-second")
    prefixes = [os.path.join(d, f"randread_rep{r}") for r in (1, 2, 3)]
    at_once(*(partial(fio, f"{p}.json", data, extra=[f"--write_iops_log={p}",
                                                    "--log_avg_msec=1000"]) for p in prefixes))
    html = os.path.join(tmp, "one-second.html")
    rc, out, err = run(["--csv", "summary", "--html", html, d])
    check(rc == 0 and not rejects(err),
          f"one-second: no log rejected, exit status 0: {rc} {err}")
    rows, num = parse_csv(out)
    iops = [r for r in rows if r["metric"] == "iops"]
    check(len(iops) == 1 and iops[0]["n"] == "3", f"one-second: the 3 runs count: {iops}")
    with open(html, encoding="utf-8") as f:
        page = f.read()
    check("Inputs rejected" not in page, "one-second: no \"Inputs rejected\" in the HTML")


def fio_versions(tmp, data):
    """Runs of fio 3.28 in one state and 3.33 in the other (the reports of
    fio 3.33 runs, their version changed): both versions are named where they
    ran, in the header, the HTML and the JSON, with a warning."""
    d = os.path.join(tmp, "versions")
    for st in ("before", "after"):  # the rounds of a state at once
        at_once(*(partial(fio, f"{d}/{st}-{r}.json", data) for r in (1, 2)))
    for r in (1, 2):
        path = f"{d}/before-{r}.json"
        with open(path, encoding="utf-8") as f:
            text = f.read()
        check('"fio version" : "fio-3.33"' in text, f"versions: fio 3.33 ran: {path}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace('"fio version" : "fio-3.33"', '"fio version" : "fio-3.28"'))
    said = "fio-3.28 (state before), fio-3.33 (state after)"
    rc, out, err = run(["--table", "--width", "200", d])
    head = out.splitlines()[0] if out else ""
    check(rc == 0 and f"fio versions {said}" in head, f"versions: the header: {head!r} {err}")
    check(f"warning: the runs compared ran on 2 fio versions: {said}" in err,
          f"versions: the warning: {err}")
    html = os.path.join(tmp, "versions.html")
    rc, out, err = run(["--json", "--html", html, d])
    doc = json.loads(out)
    got = [(e["state"], e["fio_version"], e["runs"]) for e in doc["fio_versions"]]
    check(got == [("before", "fio-3.28", 2), ("after", "fio-3.33", 2)],
          f"versions: --json fio_versions: {got}")
    check(doc["fio_version"] is None, f"versions: no one fio_version: {doc['fio_version']}")
    with open(html, encoding="utf-8") as f:
        page = f.read()
    check(f"fio versions</th><td>{said}</td>" in page, "versions: the HTML's facts")
    # two hosts, one version each: the variants are named
    for host, st in (("host-a", "before"), ("host-b", "after")):
        os.makedirs(os.path.join(tmp, host))
        for r in (1, 2):
            shutil.copy(f"{d}/{st}-{r}.json", os.path.join(tmp, host, f"base-{r}.json"))
    rc, out, err = run(["--table", "--width", "200"] +
                       [os.path.join(tmp, h) for h in ("host-a", "host-b")])
    check("fio versions fio-3.28 (host-a), fio-3.33 (host-b)" in out.splitlines()[0],
          f"versions: by variant: {out.splitlines()[:1]} {err}")
    # one version: said once, no warning
    rc, out, err = run(["--table", "--width", "200", os.path.join(tmp, "host-b")])
    check(", fio-3.33" in out.splitlines()[0] and "fio versions" not in err,
          f"versions: one version: {out.splitlines()[:1]} {err}")


def merged_group(tmp, data):
    """A group_reporting entry of a reader at iodepth 16 and a writer at
    iodepth 4: fio's JSON lists the writer's options under the reader's name,
    its normal output the reader's banner.  The workload is described as
    merged, never as one job's, with a warning; numjobs clones of one job in
    one group are no merge."""
    d = os.path.join(tmp, "merged")
    os.makedirs(d)
    job = os.path.join(tmp, "merged.fio")
    with open(job, "w", encoding="utf-8") as f:
        f.write(f"[global]\nfilename={data}\nsize=4M\nruntime=1\ntime_based\n"
                "group_reporting\nioengine=libaio\ndirect=1\nbs=4k\n"
                "[reader]\nrw=randread\niodepth=16\n[writer]\nrw=randwrite\niodepth=4\n")
    for fmt, ext in (("json", "json"), ("normal", "txt")):
        run_fio([FIO, job, f"--output-format={fmt}", f"--output={d}/base-1.{ext}"])
        rc, out, err = run(["--json", f"{d}/base-1.{ext}"])
        doc = json.loads(out) if out else {"tests": []}
        names = [t["name"] for t in doc["tests"]]
        # fio's JSON names the first job only and has its rw; normal output
        # has every job's banner
        want = ("reader (group_reporting: 2 jobs of different rw merged)" if fmt == "json"
                else "reader+writer (group_reporting: 2 jobs of different rw, iodepth merged)")
        check(names == [want], f"merged {fmt}: the test is named as merged: {names}")
        wl = doc["tests"][0]["workload"] if doc["tests"] else ""
        check("randwrite" not in wl and "randread" not in wl and "iodepth" not in wl,
              f"merged {fmt}: no job's rw or iodepth as the entry's: {wl}")
        check("a group_reporting entry sums jobs of different options" in err,
              f"merged {fmt}: the warning: {err}")
    # numjobs=2 of one job in one group: one workload, no warning
    run_fio([FIO, "--name=clones", f"--filename={data}", "--size=4M", "--rw=randread",
             "--numjobs=2", "--group_reporting", "--runtime=1", "--time_based",
             "--output-format=json", f"--output={tmp}/clones-1.json"])
    rc, out, err = run(["--json", f"{tmp}/clones-1.json"])
    doc = json.loads(out)
    check([t["name"] for t in doc["tests"]] == ["clones"] and "group_reporting" not in err,
          f"merged: numjobs clones are no merge: {[t['name'] for t in doc['tests']]} {err}")


def journal(d):
    """The events of a campaign's journal; a line being written is left out."""
    events = []
    try:
        with open(os.path.join(d, "journal.jsonl"), encoding="utf-8") as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return events


def wait_for_event(d, pred, proc, timeout=120):
    """The first event of the journal that pred takes, once it is written."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        for e in journal(d):
            if pred(e):
                return e
        time.sleep(0.05)
    return None


def resumed_first_round(tmp):
    """Ctrl-C in round 1 after a transition, then --resume: fiocamp-run runs
    round 1 again in session 2 without the transition.  That round is marked,
    kept out of the round-1 statistics (round1_n 0) with a note naming it,
    and counts with the later rounds."""
    ini = os.path.join(tmp, "resume.ini")
    with open(ini, "w", encoding="utf-8") as f:
        f.write(f"[campaign]\ndirectory = {tmp}/target\nsize = 4M\nruntime = 2s\n"
                "suite = rw4k\nrounds = 2\npause = 0s\n[state basis]\n"
                "[state after]\nbefore = run true\n")
    d = os.path.join(tmp, "camp")
    env = dict(os.environ, FIOCAMP_ANALYZE="builtin")
    p = subprocess.Popen([FIOCAMP_RUN, "-q", "-o", d, ini], cwd=tmp, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    e = wait_for_event(d, lambda e: e["event"] == "fio-start" and e.get("state") == "after"
                       and e.get("round") == 1, p)
    check(e is not None, "resume: fio started in round 1 of after")
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=120)
    check(p.returncode == 130, f"resume: Ctrl-C ends the session: {p.returncode}")
    r = subprocess.run([FIOCAMP_RUN, "-q", "--resume", d], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"resume: the campaign ends: {r.returncode} {r.stderr}")
    ev = journal(d)
    starts = [e["session"] for e in ev if e["event"] == "round-start" and
              e.get("state") == "after" and e.get("round") == 1]
    actions = [e["session"] for e in ev if e["event"] == "action-end" and
               e.get("state") == "after"]
    check(starts == [1, 2] and actions == [1],
          f"resume: round 1 again in session 2, the transition in session 1 only: "
          f"{starts} {actions}")
    rc, out, err = run(["--csv", "summary", d])
    rows, num = parse_csv(out)
    after = [r for r in rows if r["state"] == "after" and r["metric"] == "iops"]
    check(rc == 0 and len(after) == 1 and after[0]["n"] == "2" and
          after[0]["round1_n"] == "0" and after[0]["round1"] == "" and
          after[0]["rest_n"] == "2", f"resume: round 1 of after is no round 1: {after}")
    basis = [r for r in rows if r["state"] == "basis" and r["metric"] == "iops"]
    check(basis and basis[0]["round1_n"] == "1", f"resume: basis keeps its round 1: {basis}")
    check(f"note: {d}/after/r1/rw4k.json: state after round 1 ran in session 2 (after "
          "--resume), its transition in session 1" in err, f"resume: the note: {err}")


WL_COLUMNS = ["rw", "rwmixread", "bs", "iodepth", "numjobs", "ioengine", "direct", "size",
              "runtime"]


def ods_first_rows(path):
    """The header and first row of an .ods file's first sheet: (type, text)
    of each cell, type "float" for a number."""
    t = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
    o = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    root = ET.fromstring(zipfile.ZipFile(path).read("content.xml"))
    rows = []
    for r in root.iter(f"{{{t}}}table-row"):
        cells = []
        for c in r.findall(f"{{{t}}}table-cell"):
            n = min(int(c.get(f"{{{t}}}number-columns-repeated", "1")), 100)
            cells += [(c.get(f"{{{o}}}value-type"), "".join(c.itertext()))] * n
        rows.append(cells)
        if len(rows) == 2:
            break
    return rows


def workload_columns(tmp, data):
    """A sweep over iodepth 1 and 8: --csv summary, wide and rounds and the
    JSON's series carry the workload as columns (empty or null when
    unknown), --csv rounds the repetition and the round within it; and
    LibreOffice reads the CSV's numbers as numbers."""
    d = os.path.join(tmp, "sweep")
    at_once(*(partial(fio, f"{d}/qd{qd}_{r}.json", data, extra=[f"--iodepth={qd}"])
              for qd in (1, 8) for r in (1, 2)))
    pile = ["--pattern", "{test}_{round}.json", d]
    want = {"qd1": {"rw": "randread", "rwmixread": "", "bs": "4k", "iodepth": "1",
                    "numjobs": "1", "ioengine": "libaio", "direct": "1", "size": "4m",
                    "runtime": "1s"}}
    want["qd8"] = dict(want["qd1"], iodepth="8")
    for kind in ("summary", "wide", "rounds"):
        rc, out, err = run(["--csv", kind] + pile)
        rows, num = parse_csv(out)
        head = list(rows[0].keys()) if rows else []
        check(rc == 0 and all(c in head for c in WL_COLUMNS),
              f"columns: --csv {kind} has the workload columns: {head} {err}")
        got = {r["test"]: {c: r.get(c) for c in WL_COLUMNS} for r in rows}
        check(got == want, f"columns: --csv {kind} workload: {got}")
        if kind == "rounds":
            reps = sorted({(r["test"], r["round"], r["repetition"], r["repetition_round"])
                           for r in rows})
            check(reps == [("qd1", "1", "1", "1"), ("qd1", "2", "1", "2"),
                           ("qd8", "1", "1", "1"), ("qd8", "2", "1", "2")],
                  f"columns: --csv rounds repetition and its round: {reps}")
    rc, out, err = run(["--json"] + pile)
    doc = json.loads(out)
    s8 = [s for s in doc["series"] if s["test"] == "qd8"]
    check(s8 and s8[0]["iodepth"] == 8 and s8[0]["rwmixread"] is None and
          s8[0]["bs"] == "4k", f"columns: --json series carry the workload: {s8[:1]}")
    check(all(r["repetition"] == 1 and r["repetition_round"] == r["round"]
              for r in doc["runs"]), "columns: --json runs' repetition and its round")
    soffice = shutil.which("soffice")
    if not soffice:
        print("soffice not found: the spreadsheet check is skipped", file=sys.stderr)
        return
    rc, out, err = run(["--csv", "summary"] + pile)
    csv_path = os.path.join(tmp, "summary.csv")
    with open(csv_path, "w", encoding="utf-8", newline="") as f:
        f.write(out)
    profile = os.path.join(tmp, "lo-profile")
    subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless",
                    "--convert-to", "ods", "--outdir", tmp, csv_path],
                   check=True, capture_output=True, timeout=180)
    head, first = ods_first_rows(os.path.join(tmp, "summary.ods"))
    cells = dict(zip([h[1] for h in head], first))
    check(all(cells.get(c, (None,))[0] == "float"
              for c in ("iodepth", "numjobs", "direct", "n", "median")) and
          cells.get("bs", (None,))[0] == "string",
          f"columns: LibreOffice reads the numbers as numbers: {cells}")


def baselines_said():
    """--baseline, --baseline-variant and --state-order name the states or
    variants there are; the per-second round 1 rows say what their change
    is against, the base column's too (tests/fixtures/sample-campaign)."""
    camp = os.path.join(SRC, "tests", "fixtures", "sample-campaign")
    for opt, what in (("--baseline", "states"), ("--baseline-variant", "variants"),
                      ("--state-order", "states")):
        rc, out, err = run([opt, "nope", "--csv", "summary", camp])
        names = ('"warm", "evicted", "control"' if what == "states" else '"sample-campaign"')
        check(rc == 2 and f'called "nope" (the {what} with runs: {names})' in err,
              f"baselines: {opt} names the {what}: {rc} {err}")
    rc, out, err = run(["--table", "--width", "200", camp])
    row = [l for l in out.splitlines() if l.startswith("  round 1, 1st second")]
    check(row and row[0].split()[5].endswith("%"),
          f"baselines: the base column's 1st second has its change: {row}")
    check("round 1, 1st second, slowest and last second: round 1's, each against the "
          "baseline's median of that second over all its rounds" in " ".join(out.split()),
          "baselines: the legend says what the per-second round 1 rows compare with")


def main():
    if not FIO:
        print("fio not found; skipping")
        return 77
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-edges-", dir=base)
    try:
        data = os.path.join(tmp, "test.dat")
        with open(data, "wb") as f:  # written in full, so fio does not lay it out
            f.write(os.urandom(4 << 20))
        # side by side, each in files of its own
        at_once(partial(one_second_logs, tmp, data), partial(fio_versions, tmp, data),
                partial(merged_group, tmp, data), partial(resumed_first_round, tmp),
                partial(workload_columns, tmp, data), baselines_said)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
