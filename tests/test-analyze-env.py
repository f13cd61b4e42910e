#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on a campaign's environments and on steady rounds.

Usage: test-analyze-env.py PATH/TO/fiocamp-analyze

The campaign is made here from real fio runs (1 s, the null engine, the
rate held by rate_iops so that the values do not depend on the machine)
in the layout of docs/campaign-directory.md, with a manifest.json written
here: two environments, the second with another kernel and loop0's
scheduler mq-deadline instead of none (and a governor it could not read);
states basis (environment 1, six rounds at 2000 IOPS, with a `steady`
verdict of rounds = until-steady), after (environment 2, six rounds at
2000), trend (environment 1, six rounds rising from 1000 to 3500) and
again (two repetitions of one round, in environments 1 and 2).
Checked: the warnings (stderr, --json, the table, Markdown, HTML), the
facts of the HTML report, --json's environments, the manifest's steady
verdict shown, the analysis's own steady rule per state and test
("steady from round 5", "not steady over 6 rounds"), --steady-window, and
the same rule on a pile of fio output without a manifest.
"""

import json
import os
import shutil
import sys
import tempfile
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import at_once, check, run, run_fio, setup, summary, unwrap  # noqa: E402

setup(sys.argv[1])
FIO = shutil.which("fio")
ROUNDS = 6
PLAN = {
    "basis": (1, [2000] * ROUNDS),
    "after": (2, [2000] * ROUNDS),
    "trend": (1, [1000, 1500, 2000, 2500, 3000, 3500]),
}


def fio(out, rate):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    run_fio([FIO, "--name=rw4k", "--ioengine=null", "--size=64M", "--rw=randwrite",
             "--bs=4k", "--time_based", "--runtime=1", f"--rate_iops={rate}",
             "--output-format=json", f"--output={out}"])


def environment(eid, kernel, scheduler, governor):
    return {"id": eid, "captured": "2026-01-01T00:00:00Z",
            "where": "preflight" if eid == 1 else "state after",
            "host": {"hostname": "vps1", "kernel": kernel, "os": "Debian GNU/Linux 12",
                     "cpu_model": "QEMU", "cpus": 2, "mem_kib": 4015936,
                     "virtualization": "kvm", "fio_version": "fio-3.33", "thp": "madvise",
                     "governor": governor},
            "places": [{"variant": None, "path": "/mnt/x/fiocamp.testfile",
                        "filesystem": {"type": "ext4", "options": "rw,relatime",
                                       "source": "/dev/loop0", "mountpoint": "/mnt/x"},
                        "devices": [{"name": "loop0", "kind": "loop", "model": None,
                                     "size_bytes": 1 << 30, "rotational": False,
                                     "scheduler": scheduler, "nr_requests": 128,
                                     "read_ahead_kb": 128, "write_cache": "write back",
                                     "backing_file": "/var/tmp/x.img", "under": []}]}]}


STEADY = {"reached": True, "round": 5, "rounds": 6, "window": 5, "max": 10,
          "metric": "iops",
          "tests": [{"test": "rw4k", "metric": "iops", "reached": True, "round": 5,
                     "range": 0.01, "slope": 0.005}]}
NOT_STEADY = {"reached": False, "round": None, "rounds": 6, "window": 5, "max": 6,
              "metric": "iops",
              "tests": [{"test": "rw4k", "metric": "iops", "reached": False, "round": None,
                         "range": 0.9, "slope": 0.8}]}


def make_campaign(d, pile):
    jobs = []
    states = []
    for state, (env, rates) in PLAN.items():
        rounds = []
        for k, rate in enumerate(rates, 1):
            rel = f"{state}/r{k}/rw4k.json"
            jobs.append(partial(fio, os.path.join(d, rel), rate))
            jobs.append(partial(fio, os.path.join(pile, f"{state}{k}-rw4k.json"), rate))
            rounds.append({"round": k, "status": "done", "tests": [
                {"test": "rw4k", "status": "done", "exit_status": 0, "json": rel,
                 "logs": []}]})
        st = {"name": state, "status": "done", "before": [], "rounds": rounds,
              "environment": env}
        if state == "basis":
            st["steady"] = STEADY
        if state == "trend":
            st["steady"] = NOT_STEADY
        states.append(st)
    # a repeated state whose second repetition ran in environment 2
    reps = []
    for k in (1, 2):
        rel = f"again/rep{k}/r1/rw4k.json"
        jobs.append(partial(fio, os.path.join(d, rel), 2000))
        reps.append({"repetition": k, "status": "done", "before": [], "environment": k,
                     "rounds": [{"round": 1, "status": "done", "tests": [
                         {"test": "rw4k", "status": "done", "exit_status": 0, "json": rel,
                          "logs": []}]}]})
    states.append({"name": "again", "status": "done", "repeat": 2, "repetitions": reps})
    at_once(*jobs)
    manifest = {"format": "fiocamp-manifest", "version": 1, "campaign": "env",
                "status": "done", "fio_version": "fio-3.33",
                "settings": {"rounds": ROUNDS},
                "environments": [environment(1, "6.1.0-17-amd64", "none", "performance"),
                                 environment(2, "6.1.0-18-amd64", "mq-deadline", None)],
                "states": states}
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


WARN_KERNEL = "state after ran on kernel 6.1.0-18-amd64 where basis ran on 6.1.0-17-amd64"
WARN_SCHED = "state after ran on loop0 scheduler mq-deadline where basis ran on none"
WARN_REP = ("state again repetition 2 ran on kernel 6.1.0-18-amd64 where repetition 1 ran on "
            "6.1.0-17-amd64")


def check_json(camp):
    rc, out, err = run(["--json", camp])
    check(rc == 0, f"json: exit 0, got {rc}: {err}")
    doc = json.loads(out)
    warnings = doc["warnings"]
    check(WARN_KERNEL in warnings and WARN_SCHED in warnings,
          f"json: the kernel and the scheduler that changed: {warnings}")
    check(WARN_REP in warnings, f"json: a repetition in another environment: {warnings}")
    env_warnings = [w for w in warnings if " ran on " in w]
    check(len(env_warnings) == 4, f"json: nothing else changed (the governor is unknown in 2, "
          f"trend ran where basis did): {env_warnings}")
    check("warning: " + WARN_KERNEL in err, f"stderr: the warning: {err}")
    envs = doc["environments"]
    check([e["id"] for e in envs] == [1, 2] and envs[1]["host"]["kernel"] == "6.1.0-18-amd64"
          and envs[0]["campaign"] == "env", f"json: the environments as read: {envs}")
    trans = {t["state"]: t for t in doc["transitions"]}
    check({s: t["environments"] for s, t in trans.items()} ==
          {"basis": [1], "after": [2], "trend": [1], "again": [1, 2]},
          f"json: each state's environment: {trans}")
    check(trans["basis"]["steady"] == STEADY and trans["after"]["steady"] is None,
          f"json: the manifest's steady verdict per state: {trans['basis']['steady']}")
    runs = {(r["state"], r["round"]): r["environment"] for r in doc["runs"]}
    check(runs[("after", 3)] == 2 and runs[("basis", 1)] == 1, f"json: per run: {runs}")
    steady = {s["state"]: s for s in doc["steady"]}
    check("again" not in steady, f"json: two rounds are fewer than the window: {steady}")
    check(doc["steady_window"] == 5, "json: the window")
    check(steady["basis"]["reached"] and steady["basis"]["round"] == 5 and
          steady["after"]["reached"] and steady["after"]["round"] == 5,
          f"json: paced rounds are steady from round 5: {steady}")
    check(not steady["trend"]["reached"] and steady["trend"]["round"] is None and
          steady["trend"]["rounds"] == 6 and steady["trend"]["range"] > 0.2,
          f"json: the trend is not steady: {steady['trend']}")
    check(all(s["test"] == "rw4k" and s["metric"] == "iops" for s in doc["steady"]),
          f"json: per state and test, on IOPS: {doc['steady']}")


def check_text(camp, tmp):
    rc, out, err = run(["-t", "-w", "200", camp])
    check(rc == 0, f"table: exit 0, got {rc}: {err}")
    text = unwrap(out)
    check("environments 1 (basis, trend, again), 2 (after, again)" in text,
          f"table: the header says which state ran where: {out}")
    check("until-steady: basis: steady from round 5 (window 5)" in text and
          "until-steady: trend: not steady over 6 rounds: rw4k range 90 %" in text,
          f"table: the manifest's verdicts: {out}")
    check("steady: rw4k (window 5): basis steady from round 5, after steady from round 5, "
          "trend not steady over 6 rounds" in text, f"table: the analysis's own: {out}")
    check("warning: " + WARN_SCHED in text, f"table: the warning: {out}")
    rc, md, err = run(["-m", camp])
    check(rc == 0 and "- until-steady: basis: steady from round 5 (window 5)" in md and
          "- warning: " + WARN_KERNEL in md, f"markdown: {md}")
    rc, out, err = run(["-t", "-w", "200", "--steady-window", "3", camp])
    check("steady: rw4k (window 3): basis steady from round 3" in unwrap(out),
          f"--steady-window 3: {out}")
    rc, out, err = run(["--steady-window", "1", camp])
    check(rc == 2 and "--steady-window: \"1\" is not a number of rounds from 2 to 1000" in err,
          f"--steady-window 1 refused: {rc} {err}")
    html = os.path.join(tmp, "env.html")
    rc, out, err = run(["--csv", "summary", "--html", html, camp])
    check(rc == 0, f"html: exit 0, got {rc}: {err}")
    with open(html, encoding="utf-8") as f:
        page = f.read()
    check("<th scope=\"row\">environment 2</th><td>state after: kernel 6.1.0-18-amd64, fio "
          "fio-3.33, THP madvise, file system ext4, mount options rw,relatime, loop0 "
          "scheduler mq-deadline, loop0 read-ahead 128 KiB, loop0 write cache write back, "
          "loop0 nr_requests 128; runs of after, again</td>" in page,
          "html: the facts name environment 2 and where it ran")
    check("<th scope=\"row\">until-steady</th><td>trend: not steady over 6 rounds: rw4k "
          "range 90 %" in page and "<th scope=\"row\">steady</th><td>rw4k (window 5): basis "
          "steady from round 5" in page,
          "html: the steady verdicts in the facts")
    check("<p class=\"warn\">warning: " + WARN_KERNEL in page, "html: the warning")


def check_variants(camp, tmp):
    """The same campaign as a second variant whose environment 1 ran on
    another kernel: its basis is compared with the first variant's."""
    other = os.path.join(tmp, "other")
    shutil.copytree(camp, other)
    path = os.path.join(other, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    manifest["campaign"] = "other"
    manifest["environments"][0]["host"]["kernel"] = "6.2.0-1"
    with open(path, "w") as f:
        json.dump(manifest, f)
    rc, out, err = run(["--json", "--label", f"a={camp}", "--label", f"b={other}"])
    check(rc == 0, f"variants: exit 0, got {rc}: {err}")
    doc = json.loads(out)
    want = ("variant b state basis ran on kernel 6.2.0-1 where variant a state basis ran on "
            "6.1.0-17-amd64")
    check(want in doc["warnings"], f"variants: the kernel of b's basis: {doc['warnings']}")
    check(len(doc["environments"]) == 4 and
          {e["campaign"] for e in doc["environments"]} == {"env", "other"},
          f"variants: each campaign's environments: {doc['environments']}")
    rc, out, err = run(["-t", "-w", "300", "--label", f"a={camp}", "--label", f"b={other}"])
    check("environments 1 of env (a basis, a trend, a again), 2 of env (a after, a again), "
          "1 of other (b basis" in unwrap(out), f"variants: the header names the campaigns: {out}")


def check_pile(pile):
    rc, out, err = run(["--json", pile])
    check(rc == 0, f"pile: exit 0, got {rc}: {err}")
    doc = json.loads(out)
    steady = {s["state"]: (s["reached"], s["round"], s["rounds"]) for s in doc["steady"]}
    check(steady == {"basis": (True, 5, 6), "after": (True, 5, 6), "trend": (False, None, 6)},
          f"pile: the same rule without a manifest: {steady}")
    check(doc["environments"] == [] and not [w for w in doc["warnings"] if " ran on " in w],
          f"pile: no environments, no warnings of them: {doc['warnings']}")
    rc, out, err = run(["-t", "-w", "200", "--steady-window", "7", pile])
    check(rc == 0 and "steady:" not in out, f"pile: fewer rounds than the window: no line: {out}")


def main():
    if not FIO:
        print("fio not found; skipping")
        return 77
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-env-", dir=base)
    try:
        camp = os.path.join(tmp, "env")
        pile = os.path.join(tmp, "pile")
        make_campaign(camp, pile)
        at_once(partial(check_json, camp), partial(check_text, camp, tmp),
                partial(check_variants, camp, tmp),
                partial(check_pile, pile))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
