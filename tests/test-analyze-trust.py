#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on the runs a campaign's telemetry calls disturbed.

Usage: test-analyze-trust.py PATH/TO/fiocamp-analyze

The campaign is made here from real fio 3.33 runs (1 s, the null engine,
its rate held by rate_iops so that the values do not depend on the
machine, within a few percent on a loaded one) in the layout of
docs/campaign-directory.md, and its
manifest.json carries the telemetry summary fiocamp-run writes
(steal, foreign_io, disturbed).  States: quiet (the baseline, 2000 IOPS,
nothing disturbed), noisy (rounds 1-3 disturbed and held at 500 IOPS,
round 4 clean at 2000: its change comes from its disturbed rounds), some
(round 2 disturbed, every round at 2000), slow (1000 IOPS, nothing
disturbed: a change of its own) and flooded (every round disturbed, at 500:
nothing tells its change from the disturbance).  Checked: --json, --csv summary and
rounds, the marks and notes of the table, Markdown and HTML,
--exclude-disturbed, and the note of a change that comes mainly from
disturbed rounds, and (a third campaign) of one that comes from the
baseline's own disturbed rounds.

A second campaign has per-second logs (4 s runs) and .telemetry files
written here in the format of cmd/common/telemetry.h: round 1 of quiet
with no steal and no foreign I/O, of noisy with steal rising by the
second and 80 % foreign I/O, of bare with none, of broken with a file
that is not telemetry; its test rr4k has no telemetry at all.  Checked:
the panels under the profile chart (--svg and --html), a point per
second with its value, no panel for rr4k, a note for the broken file.
"""

import json
import os
import re
import shutil
import sys
import tempfile
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import (at_once, check, close, parse_csv, run, run_fio,  # noqa: E402
                          setup, summary, unwrap)

setup(sys.argv[1])
FIO = shutil.which("fio")
ROUNDS = 4
# state: [(rate_iops, disturbed reason or None) per round]
PLAN = {
    "quiet": [(2000, None)] * ROUNDS,
    "noisy": [(500, "foreign I/O 58.2% > 5%"), (500, "foreign I/O 61.0% > 5%"),
              (500, "steal 7.2% > 5%"), (2000, None)],
    "some": [(2000, None), (2000, "steal 6.1% > 5%"), (2000, None), (2000, None)],
    "slow": [(1000, None)] * ROUNDS,
    "flooded": [(500, "foreign I/O 80.1% > 5%")] * ROUNDS,
}


def fio(out, rate):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    run_fio([FIO, "--name=rw4k", "--ioengine=null", "--size=64M", "--rw=randwrite",
             "--bs=4k", "--time_based", "--runtime=1", f"--rate_iops={rate}",
             "--output-format=json", f"--output={out}"])


def telemetry(state, rnd, why):
    return {"file": f"{state}/r{rnd}/rw4k.telemetry", "samples": 2, "seconds": 1.0,
            "steal": 0.072 if why and why.startswith("steal") else 0.0,
            "iowait": 0.0, "busy": 0.3,
            "foreign_io": 0.582 if why and why.startswith("foreign") else 0.0,
            "device": "loop0", "device_bytes": 1 << 20, "fio_bytes": 1 << 20,
            "psi_io_some": None, "psi_cpu_some": None, "mhz": None,
            "cpus_changed": False, "disturbed": why}


# The baseline's own disturbed rounds: quiet's three held at 500 pull its
# median down, and clean's change (every round clean, at 2000) comes mainly
# from them.
BASE_PLAN = {
    "quiet": [(500, "foreign I/O 58.2% > 5%")] * 3 + [(2000, None)],
    "clean": [(2000, None)] * ROUNDS,
}


def make_campaign(d, states_plan=PLAN):
    jobs = []
    states = []
    for state, plan in states_plan.items():
        rounds = []
        for k, (rate, why) in enumerate(plan, 1):
            rel = f"{state}/r{k}/rw4k.json"
            jobs.append(partial(fio, os.path.join(d, rel), rate))
            rounds.append({"round": k, "status": "done", "tests": [
                {"test": "rw4k", "status": "done", "exit_status": 0, "json": rel,
                 "logs": [], "telemetry": telemetry(state, k, why)}]})
        states.append({"name": state, "status": "done", "before": [], "rounds": rounds})
    at_once(*jobs)
    manifest = {"format": "fiocamp-manifest", "version": 1, "campaign": "trust",
                "status": "done", "fio_version": "fio-3.33",
                "settings": {"rounds": ROUNDS, "disturbed": {"steal": 0.05,
                                                             "foreign_io": 0.05}},
                "states": states}
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


# The profile campaign: state: (rate_iops of round 1, its telemetry:
# None, "broken", or (steal % per second, iowait %, device bytes / fio's)).
TM_SECONDS = 4
TM_PLAN = {
    "quiet": (2000, ([0, 0, 0, 0], 10, 1.0)),
    "noisy": (500, ([2, 4, 6, 8], 20, 5.0)),
    "bare": (2000, None),
    "broken": (2000, "broken"),
}


def fio_logged(out, test, rw, rate):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    stem = out[:-len(".json")]
    run_fio([FIO, f"--name={test}", "--ioengine=null", "--size=64M", f"--rw={rw}",
             "--bs=4k", "--time_based", f"--runtime={TM_SECONDS}", f"--rate_iops={rate}",
             f"--write_iops_log={stem}", "--log_avg_msec=1000",
             "--output-format=json", f"--output={out}"])


def telemetry_text(rate, plan):
    """A sample a second, 2 CPUs (200 ticks a second); the device loop0
    moves fio's bytes times plan's factor."""
    steal, iowait, factor = plan
    lines = ["fiocamp-telemetry 1"]
    user = system = idle = io = st = 0
    sectors = 0
    for k in range(TM_SECONDS + 1):
        lines.append(f"T {k * 1000} {1700000000 + k}.000")
        lines.append(f"cpu 2 {user} 0 {system} {idle} {io} 0 0 {st}")
        lines.append(f"disk loop0 0 0 {sectors // 8} {sectors} 0 0 {k * 900}")
        if k < TM_SECONDS:
            s = 2 * steal[k]
            w = 2 * iowait
            user, system, io, st = user + 40, system + 20, io + w, st + s
            idle += 200 - 60 - w - s
            sectors += int(rate * 4096 * factor) // 512
    return "\n".join(lines) + "\n"


def make_profile_campaign(d):
    jobs = []
    states = []
    for state, (rate1, plan) in TM_PLAN.items():
        rounds = []
        for k in (1, 2):
            tests = []
            for test, rw in (("rw4k", "randwrite"), ("rr4k", "randread")):
                rel = f"{state}/r{k}/{test}"
                rate = rate1 if k == 1 and test == "rw4k" else 2000
                jobs.append(partial(fio_logged, os.path.join(d, rel + ".json"), test, rw, rate))
                entry = {"test": test, "status": "done", "exit_status": 0,
                         "json": rel + ".json", "logs": [rel + "_iops.1.log"],
                         "telemetry": None}
                if k == 1 and test == "rw4k" and plan is not None:
                    os.makedirs(os.path.join(d, state, f"r{k}"), exist_ok=True)
                    with open(os.path.join(d, rel + ".telemetry"), "w") as f:
                        f.write("not telemetry\n" if plan == "broken"
                                else telemetry_text(rate, plan))
                    entry["telemetry"] = {"file": rel + ".telemetry", "device": "loop0",
                                          "steal": 0.0, "foreign_io": 0.0, "disturbed": None}
                tests.append(entry)
            rounds.append({"round": k, "status": "done", "tests": tests})
        states.append({"name": state, "status": "done", "before": [], "rounds": rounds})
    at_once(*jobs)
    manifest = {"format": "fiocamp-manifest", "version": 1, "campaign": "profile",
                "status": "done", "fio_version": "fio-3.33",
                "settings": {"rounds": 2, "disturbed": {"steal": 0.05, "foreign_io": 0.05}},
                "states": states}
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def tm_points(svg, state, kind):
    """The values of a state's markers in the panel of kind, by second."""
    got = {}
    for m in re.finditer(re.escape(state) + r", (\d+)\.\.(\d+) s: " + re.escape(kind) +
                         r" ([0-9.]+) %<", svg):
        got[int(m.group(1))] = float(m.group(3))
    return got


def check_profile_svg(svg, what):
    for title in ("foreign I/O: % of the bytes", "CPU steal: % of all CPU time",
                  "iowait: % of all CPU time"):
        check(title in svg, f"{what}: the panel titled {title!r}")
    quiet, noisy = (tm_points(svg, s, "foreign I/O") for s in ("quiet", "noisy"))
    # fio 3.33 mostly logs no line for a run's last second (then that second
    # has no foreign I/O; its steal and iowait are there), but a loaded
    # machine can end the run late enough for a partial one: seconds 0..2
    # are checked, a point at 3 only for being a share
    full = {k: v for k, v in quiet.items() if k < 3}, {k: v for k, v in noisy.items() if k < 3}
    check(sorted(full[0]) == [0, 1, 2] and sorted(full[1]) == [0, 1, 2] and
          set(quiet) | set(noisy) <= {0, 1, 2, 3} and
          all(0 <= v <= 100 for v in list(quiet.values()) + list(noisy.values())),
          f"{what}: a foreign I/O point a logged second: {quiet} {noisy}")
    # the telemetry moves the paced rate's bytes each second; fio, held by
    # rate_iops, may fall a few % behind in a second of a loaded machine
    check(all(v < 10.0 for v in full[0].values()), f"{what}: quiet's foreign I/O ~0 %: {quiet}")
    check(all(abs(v - 80.0) < 10.0 for v in full[1].values()),
          f"{what}: noisy's foreign I/O ~80 %: {noisy}")
    steal = tm_points(svg, "noisy", "CPU steal")
    check(steal == {0: 2.0, 1: 4.0, 2: 6.0, 3: 8.0}, f"{what}: noisy's steal per second: {steal}")
    check(tm_points(svg, "quiet", "CPU steal") == {0: 0.0, 1: 0.0, 2: 0.0, 3: 0.0},
          f"{what}: quiet's steal")
    iow = tm_points(svg, "noisy", "iowait")
    check(iow == {k: 20.0 for k in range(4)}, f"{what}: noisy's iowait: {iow}")
    for s in ("bare", "broken"):
        check(not tm_points(svg, s, "CPU steal") and "no telemetry: bare, broken<" in svg,
              f"{what}: {s} has no telemetry line, and the legend says so")


def check_profile(camp, tmp):
    svgdir = os.path.join(tmp, "svg")
    html = os.path.join(tmp, "profile.html")
    rc, out, err = run(["--svg", svgdir, "--html", html, camp])
    check(rc == 0, f"profile: exit 0, got {rc}: {err}")
    check(re.search(r"broken/r1/rw4k\.telemetry: the run's telemetry is not shown: line 1",
                    err), f"profile: a note for the broken file: {err}")
    files = sorted(os.listdir(svgdir)) if os.path.isdir(svgdir) else []
    rw = [f for f in files if f.startswith("profile-rw4k")]
    rr = [f for f in files if f.startswith("profile-rr4k")]
    check(len(rw) == 1 and len(rr) == 1, f"profile: one profile chart per test: {files}")
    if rw:
        with open(os.path.join(svgdir, rw[0]), encoding="utf-8") as f:
            check_profile_svg(f.read(), "svg")
    if rr:
        with open(os.path.join(svgdir, rr[0]), encoding="utf-8") as f:
            svg = f.read()
        check("CPU steal" not in svg and "foreign I/O" not in svg and "no telemetry" not in svg,
              "svg: no panel under the profile of a test without telemetry")
    with open(html, encoding="utf-8") as f:
        page = f.read()
    check_profile_svg(page, "html")


def cell(doc, state, metric="iops"):
    for s in doc["series"]:
        if s["test"] == "rw4k" and s["metric"] == metric and s["direction"] == "write":
            for c in s["cells"]:
                if c["state"] == state:
                    return c
    return None


def check_json(camp):
    rc, out, err = run(["--json", camp])
    check(rc == 0, f"json: exit 0, got {rc}: {err}")
    doc = json.loads(out)
    noisy, some, quiet = cell(doc, "noisy"), cell(doc, "some"), cell(doc, "quiet")
    check(noisy and noisy["disturbed_n"] == 3, f"json: noisy has 3 disturbed rounds: {noisy}")
    check(some and some["disturbed_n"] == 1, f"json: some has 1 disturbed round: {some}")
    check(quiet and quiet["disturbed_n"] == 0, f"json: quiet has none: {quiet}")
    if noisy:
        why = {r["round"]: r["disturbed"] for r in noisy["rounds"]}
        check(why == {1: "foreign I/O 58.2% > 5%", 2: "foreign I/O 61.0% > 5%",
                      3: "steal 7.2% > 5%", 4: None}, f"json: each round's reason: {why}")
        clean = noisy["without_disturbed"]
        check(clean and clean["n"] == 1, f"json: noisy without its disturbed rounds: {clean}")
        if clean:
            close(clean["change_pct"], 0.0, 10.0, "json: noisy's change without them")
        close(noisy["change_pct"], -75.0, 5.0, "json: noisy's change")
    slow = cell(doc, "slow")
    check(slow and slow["without_disturbed"] is None,
          f"json: slow has nothing disturbed to leave out: {slow}")
    runs = [r for r in doc["runs"] if r["state"] == "noisy" and r["round"] == 3]
    check(runs and runs[0]["disturbed"] == "steal 7.2% > 5%" and
          abs(runs[0]["steal"] - 0.072) < 1e-9 and runs[0]["foreign_io"] == 0.0,
          f"json: the run carries its telemetry: {runs}")
    check(doc["disturbed_excluded"] == 0, "json: nothing excluded without the option")
    check(doc["variants"][0]["disturbed_when"] == "steal above 5 %, foreign I/O above 5 %",
          f"json: the campaign's thresholds in words: {doc['variants']}")
    notes = doc["notes"]
    check("disturbed: state noisy, round 1, test rw4k: foreign I/O 58.2% > 5%" in notes,
          f"json: a note names each disturbed run: {notes}")
    mainly = [n for n in notes if "comes mainly from" in n]
    check(len(mainly) == 1 and mainly[0].startswith("noisy rw4k: the change against quiet ("),
          f"json: one mainly-disturbed note, of noisy: {mainly}")
    if mainly:
        m = re.search(r"mainly from (\d+) disturbed round\(s\) \(without them: ([-+][0-9.]+) %\)",
                      mainly[0])
        check(m and m.group(1) == "3" and abs(float(m.group(2))) < 10.0,
              f"json: the note's count and change without them: {mainly[0]}")
    flooded = [n for n in notes if n.startswith("flooded rw4k: the change against quiet (")]
    check(len(flooded) == 1 and flooded[0].endswith(
        "cannot be told from the disturbance: every round of flooded is disturbed"),
        f"json: flooded's change cannot be told from its disturbance: {notes}")


def check_csv(camp):
    rc, out, err = run(["--csv", "summary", camp])
    check(rc == 0, f"csv summary: exit 0, got {rc}: {err}")
    rows, num = parse_csv(out)
    iops = {r["state"]: r for r in rows if r["metric"] == "iops"}
    check({s: iops[s]["disturbed_n"] for s in iops} ==
          {"quiet": "0", "noisy": "3", "some": "1", "slow": "0", "flooded": "4"},
          f"csv summary: disturbed_n: { {s: iops[s]['disturbed_n'] for s in iops} }")
    check(iops["slow"]["undisturbed_change_pct"] == "",
          "csv summary: no change without disturbed rounds where there are none")
    close(num(iops["noisy"]["undisturbed_change_pct"]), 0.0, 10.0,
          "csv summary: noisy's change without its disturbed rounds")
    rc, _, err = run(["--csv", "summary", "--verbose", camp])
    check(re.search(r": read \S+/noisy/r3/rw4k\.json: fio JSON fio-3\.33, variant trust, state "
                    r"noisy, round 3, test rw4k; disturbed: steal 7\.2% > 5%\n", err),
          f"--verbose: the read line says why the run is disturbed: {err}")
    rc, out, err = run(["--explain", camp])
    check(rc == 0 and re.search(r"  some/r2/rw4k\.json: .*; read by the manifest; disturbed: "
                                r"steal 6\.1% > 5%\n", out),
          f"--explain: the reading says why the run is disturbed: {out}")
    rc, out, err = run(["--explain", "--json", camp])
    runs = {(r["state"], r["round"]): r["disturbed"] for r in json.loads(out)["runs"]}
    check(runs.get(("some", 2)) == "steal 6.1% > 5%" and runs.get(("some", 1), "") is None,
          f"--explain --json: disturbed per run: {runs}")
    rc, out, err = run(["--csv", "rounds", camp])
    check(rc == 0, f"csv rounds: exit 0, got {rc}: {err}")
    rows, _ = parse_csv(out)
    got = {(r["state"], r["round"]): r["disturbed"] for r in rows if r["metric"] == "iops"}
    check(got[("noisy", "3")] == "steal 7.2% > 5%" and got[("noisy", "4")] == "" and
          got[("some", "2")] == "steal 6.1% > 5%" and got[("quiet", "1")] == "",
          f"csv rounds: the disturbed column: {got}")


def median_row(out):
    return [l for l in out.splitlines() if l.startswith("IOPS median")]


def check_table(camp, tmp):
    rc, out, err = run(["-t", "-w", "200", camp])
    check(rc == 0, f"table: exit 0, got {rc}: {err}")
    row = median_row(out)
    check(len(row) == 1, f"table: one IOPS median row: {row}")
    if row:
        cells = row[0].split()[2:]
        # quiet (base), noisy, some, slow
        check(len(cells) >= 6 and not cells[0].endswith("!") and cells[2].endswith("!!") and
              cells[4].endswith("!") and not cells[4].endswith("!!") and
              not cells[6].endswith("!"),
              f"table: !! on noisy (most rounds), ! on some, none on quiet and slow: {row}")
    text = unwrap(out)
    check("!! = most of them" in " ".join(text.split()), f"table: the legend says the marks: {out}")
    check("note: disturbed: state some, round 2, test rw4k: steal 6.1% > 5%" in text,
          f"table: the note names the disturbed round: {out}")
    check("note: noisy rw4k: the change against quiet" in text, "table: the mainly-disturbed note")
    rc, md, err = run(["-m", camp])
    check(rc == 0 and re.search(r"\| [0-9.k]+ -7[0-9.]+%\\\*!! \|", md),
          f"markdown: noisy's median marked !!: {md}")
    rc, cmp, err = run(["--compare", "-w", "200", camp])
    rows = {l.split()[0]: l for l in cmp.splitlines() if l.split()}
    check(rc == 0 and rows.get("noisy", "").endswith("%*!!") and
          rows.get("some", "").rstrip("*").endswith("!") and
          not rows.get("some", "").endswith("!!") and "!" not in rows.get("slow", "!"),
          f"compare: the same marks: {cmp}")
    html = os.path.join(tmp, "trust.html")
    rc, out, err = run(["--csv", "summary", "--html", html, camp])
    check(rc == 0, f"html: exit 0, got {rc}: {err}")
    with open(html, encoding="utf-8") as f:
        page = f.read()
    check("<th scope=\"row\">disturbed when</th><td>steal above 5 %, foreign I/O above 5 %</td>"
          in page and "<td>8 of 20 used, marked ! and named in the notes</td>" in page,
          "html: the facts say the thresholds and how many runs were disturbed")
    check("%*!!<" in page and "comes mainly from 3 disturbed round(s)" in page,
          "html: the marks and the note")
    check("disturbed (telemetry)" in page and
          re.search(r"round 3: [0-9.]+ IO/s, -7\d\.\d%; disturbed: steal 7\.2% &gt; 5%", page),
          "html: the rounds chart rings the disturbed rounds and says why: "
          f"{re.findall(r'round 3: [^<]*', page)}")


def check_base_disturbed(camp):
    rc, out, err = run(["--json", camp])
    check(rc == 0, f"baseline disturbed: exit 0, got {rc}: {err}")
    mainly = [n for n in json.loads(out)["notes"] if "comes mainly from" in n]
    check(len(mainly) == 1 and re.search(
        r"^clean rw4k: the change against quiet \(\+[0-9.]+ % write IOPS\) comes mainly from "
        r"3 disturbed round\(s\) of quiet \(without them: [-+][0-9.]+ %\)$", mainly[0]),
        f"baseline disturbed: the note names the baseline's rounds only: {mainly}")


def check_exclude(camp):
    rc, out, err = run(["--json", "--exclude-disturbed", camp])
    check(rc == 0, f"exclude: exit 0, got {rc}: {err}")
    check("note: --exclude-disturbed: 8 disturbed run(s) left out of the medians and tests"
          in err, f"exclude: stderr says how many it left out: {err}")
    check("note: state flooded: no usable runs (its disturbed runs left out by "
          "--exclude-disturbed)" in err, f"exclude: flooded has none left: {err}")
    check("skipped 8 files: disturbed (its telemetry in manifest.json), left out by "
          "--exclude-disturbed" in err, f"exclude: the runs listed as skipped: {err}")
    doc = json.loads(out)
    check(doc["disturbed_excluded"] == 8, "exclude: json counts them")
    noisy, some = cell(doc, "noisy"), cell(doc, "some")
    check(noisy and noisy["n"] == 1 and noisy["disturbed_n"] == 0,
          f"exclude: noisy keeps its one clean round: {noisy}")
    if noisy:
        close(noisy["change_pct"], 0.0, 10.0, "exclude: noisy's change without its disturbed")
        check(noisy["mann_whitney"] is not None and noisy["mann_whitney"]["p"] > 0.05,
              f"exclude: no significant change left: {noisy['mann_whitney']}")
    check(some and some["n"] == 3, f"exclude: some keeps 3 rounds: {some}")
    check(not [n for n in doc["notes"] if "comes mainly from" in n or n.startswith("disturbed:")],
          f"exclude: no disturbed run left to name: {doc['notes']}")
    slow = cell(doc, "slow")
    if slow:
        close(slow["change_pct"], -50.0, 5.0, "exclude: slow's own change stays")


def main():
    if not FIO:
        print("fio not found; skipping")
        return 77
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-trust-", dir=base)
    try:
        camp = os.path.join(tmp, "trust")
        prof = os.path.join(tmp, "profile")
        based = os.path.join(tmp, "base-disturbed")
        at_once(partial(make_campaign, camp), partial(make_profile_campaign, prof),
                partial(make_campaign, based, BASE_PLAN))
        at_once(partial(check_json, camp), partial(check_csv, camp),
                partial(check_base_disturbed, based),
                partial(check_table, camp, tmp), partial(check_exclude, camp),
                partial(check_profile, prof, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
