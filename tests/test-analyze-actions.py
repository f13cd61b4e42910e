#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze's actions over the repetitions of a state.

Usage: test-analyze-actions.py PATH/TO/fiocamp-analyze

The campaigns are written by tests/fixtures/make-repeat-campaigns.py in the
layout of docs/campaign-directory.md: a Proxmox one of transitions only
(rounds = 0) with the published measurement's task seconds, one with a
mismatch, a failed repetition and a manifest without data_back_s, and a
netcup one without repeat; plus the netcup campaign that fiocamp-run wrote
(tests/fixtures/netcup-campaign).  Terminal, Markdown, CSV, JSON and HTML
must show the same numbers.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import check, close, parse_csv, run, setup, summary  # noqa: E402

setup(sys.argv[1])
SRC = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
FIX = os.path.join(SRC, "tests", "fixtures")

work = tempfile.mkdtemp(prefix="test-analyze-actions-", dir=os.environ.get("FC_BUILDDIR"))
subprocess.run([sys.executable, os.path.join(FIX, "make-repeat-campaigns.py"), work],
               check=True)
ART = os.path.join(work, "pve-article")
FAULTS = os.path.join(work, "pve-faults")
ONE = os.path.join(work, "netcup-one")
NETCUP = os.path.join(FIX, "netcup-campaign")


def rows_of(csv_text, **want):
    rows, _ = parse_csv(csv_text)
    return [r for r in rows if all(r.get(k) == v for k, v in want.items())]


def trans(doc, state):
    for t in doc["transitions"]:
        if t["state"] == state:
            return t
    return None


# ---- a campaign of transitions only: the published measurement ---------------
rc, out, err = run(["-t", "-w", "300", ART])
check(rc == 0, f"transitions only: exit 0, got {rc}: {err}")
check("no fio output found" not in err and "nothing to analyze" not in err,
      f"transitions only: no complaint about fio output: {err}")
check("rollback: 5 repetitions, 5 done" in out, "table: rollback's repetitions")
check("2, 2, 2, 2, 2 (the node's clock)" in out, "table: rollback task seconds and clock")
check("21, 21, 22, 21, 21 (the node's clock)" in out, "table: backup task seconds")
check(re.search(r"53, 57, 69, 100 \(the node's clock\) +63 ", out),
      "table: restore task seconds, median 63")
check("data back 107.3 s (79.9, 91.8, 122.9, 127.5)" in out, "table: restore data back")
check("data back 26.2 s (26.2, 26.4, 25.8, 26.9, 26.0)" in out, "table: rollback data back")
check("sha256 5 of 5 matched" in out and "sha256 4 of 4 matched" in out,
      "table: every hash matched")
check("2.6 s (2.5..2.7)" in out, "table: rollback's stopwatch median (min..max)")
check("Mann-Whitney" not in out, "table: no legend of the fio statistics without runs")

rc, md, err = run(["-m", ART])
check(rc == 0, f"markdown: exit 0, got {rc}: {err}")
check("| path | what the task did | task seconds (each; median) | our stopwatch | data back "
      "| sha256 |" in md, "markdown: the article's header")
check("| rollback (5 repetitions) | revert fc-base: qmrollback | 2, 2, 2, 2, 2 (median 2; the "
      "node's clock) | 2.6 s (2.5..2.7) | 26.2 s (26.2, 26.4, 25.8, 26.9, 26.0) | 5 of 5 "
      "matched |" in md, "markdown: the rollback row")
check("| backup (5 repetitions) | backup storage local mode snapshot compress zstd: vzdump | "
      "21, 21, 22, 21, 21 (median 21; the node's clock) | 21.6 s (21.4..22.5) | - | - |" in md,
      "markdown: the backup row")
check("| restore (4 repetitions) | restore last-backup: qmrestore | 53, 57, 69, 100 (median "
      "63; the node's clock) | 63.5 s (53.8..100.7) | 107.3 s (79.9, 91.8, 122.9, 127.5) | "
      "4 of 4 matched |" in md, "markdown: the restore row")
check("| restore | power-on: qmstart |" in md, "markdown: the restore's start, its own row")

rc, csv_text, err = run(["--csv", "actions", ART])
check(rc == 0, f"csv actions: exit 0, got {rc}: {err}")
rows, _ = parse_csv(csv_text)
check(len(rows) == 3 + 5 * 4 + 5 + 4 * 4, f"csv actions: one row per action and repetition, "
      f"got {len(rows)}")
rb = rows_of(csv_text, state="rollback", action="revert")
check([r["repetition"] for r in rb] == ["1", "2", "3", "4", "5"], "csv: rollback repetitions")
check([float(r["task_s"]) for r in rb] == [2] * 5, "csv: rollback task seconds")
check(all(r["task_clock"] == "node" and r["repeat"] == "5" for r in rb), "csv: clock, repeat")
rs = rows_of(csv_text, state="restore", action="restore")
check([float(r["task_s"]) for r in rs] == [53, 57, 69, 100], "csv: restore task seconds")
check([float(r["data_back_s"]) for r in rs] == [79.9, 91.8, 122.9, 127.5],
      "csv: restore data back per repetition")
check(all(r["data_back_from"] == "manifest" for r in rs), "csv: data back from the manifest")
vh = rows_of(csv_text, state="restore", action="verify-hash")
check([r["hash"] for r in vh] == ["matched"] * 4, "csv: restore hashes")

# the transitions CSV names the repetition of each row, and the action's
# place in that repetition's list
rc, csv_text, err = run(["--csv", "transitions", ART])
check(rc == 0, f"csv transitions: exit 0, got {rc}: {err}")
rs = rows_of(csv_text, state="restore")
check([(r["repetition"], r["action_index"]) for r in rs] ==
      [(str(k), str(i)) for k in range(1, 5) for i in range(1, 5)],
      f"csv transitions: restore's rows by repetition and place: "
      f"{[(r['repetition'], r['action_index'], r['action']) for r in rs]}")
check([float(r["task_duration_s"]) for r in rs if r["action"] == "restore"] == [53, 57, 69, 100],
      "csv transitions: restore task seconds in the order of the repetitions")

rc, js, err = run(["--json", ART])
check(rc == 0, f"json: exit 0, got {rc}: {err}")
doc = json.loads(js)
t = trans(doc, "restore")
check(t is not None and t["repeat"] == 4 and len(t["repetitions"]) == 4, "json: restore x 4")
pa = t["per_action"][0] if t else {}
check(pa.get("task_s", {}).get("values") == [53, 57, 69, 100], "json: restore task seconds")
close(pa.get("task_s", {}).get("median"), 63, 1e-9, "json: restore task median")
check(pa.get("task_clock") == "node", "json: restore task clock")
close((t or {}).get("data_back", {}).get("median"), 107.35, 1e-9, "json: restore data back")
t = trans(doc, "rollback")
vh = [x for x in (t or {}).get("per_action", []) if x["action"] == "verify-hash"]
check(vh and vh[0]["hash"] == {"checked": 5, "matched": 5}, "json: rollback 5 of 5 matched")

# the HTML report's chart takes the same samples
html = os.path.join(work, "article.html")
rc, _, err = run(["--html", html, ART])
check(rc == 0, f"html: exit 0, got {rc}: {err}")
text = open(html, encoding="utf-8").read() if os.path.exists(html) else ""
check("restore, data back: 107.3 s (79.9..127.5, n = 4)" in text, "html: restore data back")
check("53, 57, 69, 100" in text, "html: the actions table in the transitions section")
check('<div class="actions">' in text and text.find('<div class="actions">') <
      text.find("53, 57, 69, 100"), "html: the states' actions a row of their own")
check("<td>none: no fio runs, the transitions alone</td>" in text,
      "html: the facts say there are no tests, not the variant's name")

# ---- a mismatch, a failed repetition, data back computed --------------------
rc, out, err = run(["-t", "-w", "300", FAULTS])
check(rc == 0, f"faults: exit 0 (a failed state is shown, not rejected), got {rc}: {err}")
check("rollback: 3 repetitions, 2 done; FAILED: repetition 2 failed" in out,
      "faults: the failed repetition named in the state's line")
check("sha256 2 of 3 matched, DIFFERS" in out, "faults: the mismatch is not hidden")
check("2 of 3 matched, DIFFERS: repetition 2: data differs" in out,
      "faults: the verify-hash row names the repetition")
check("repetition 2: failed: TASK ERROR: job errors" in out, "faults: the failed backup named")
check("21 (the node's clock)" in out, "faults: the failed task's seconds left out")
check("data back 26.2 s (26.1, 26.4)" in out,
      "faults: the repetition whose data differs has no data back")
check("data back 85.8 s (79.8, 91.7)" in out,
      "faults: data back computed when the manifest has none")
rc, md, err = run(["-m", FAULTS])
check("| rollback (3 repetitions) FAILED: repetition 2 failed |" in md,
      "faults markdown: the failed state marked")
check("2 of 3 matched, DIFFERS (repetition 2: data differs) |" in md,
      "faults markdown: the mismatch and its repetition")
check("(repetition 2: failed: TASK ERROR: job errors) | 21 (median 21; the node's clock)" in md,
      "faults markdown: the failed backup named, its seconds left out")
rc, csv_text, err = run(["--csv", "actions", FAULTS])
rs = rows_of(csv_text, state="restore", action="restore")
check([r["data_back_from"] for r in rs] == ["computed"] * 2, "faults csv: data back computed")
bad = rows_of(csv_text, state="rollback", repetition="2", action="verify-hash")
check(bad and bad[0]["hash"] == "differs" and bad[0]["data_back_s"] == "" and
      bad[0]["repetition_status"] == "failed", "faults csv: the mismatch's row")
fb = rows_of(csv_text, state="backup", repetition="2")
check(fb and fb[0]["status"] == "failed" and "job errors" in fb[0]["error"],
      "faults csv: the failed backup")
# fio after each of two repetitions: the runs of both are the state's
rc, csv_text, err = run(["--csv", "summary", FAULTS])
after = rows_of(csv_text, state="after", metric="iops")
check(after and after[0]["n"] == "2", f"faults: a run from each repetition, got {after[:1]}")
rc, js, err = run(["--json", FAULTS])
t = trans(json.loads(js), "backup")
check(t and t["failed"] and t["per_action"][0]["failed"] == 1 and
      "repetition 2" in t["per_action"][0]["problems"], "faults json: the failed backup")

# ---- without repeat: today's shape ---------------------------------------------
rc, out, err = run(["-t", "-w", "300", ONE])
check(rc == 0, f"netcup-one: exit 0, got {rc}: {err}")
check("reverted: done; downtime 15.5 s; data back 17.6 s; sha256 1 of 1 matched" in out,
      "netcup-one: data back from the manifest, not computed (17.4)")
check("3.1 (netcup's clock)" in out, "netcup-one: the provider's clock named")
rc, out, err = run(["-t", "-w", "300", NETCUP])
check(rc == 0, f"netcup campaign: exit 0, got {rc}: {err}")
check("reverted: done; downtime 3.8 s; data back 3.8 s; sha256 1 of 1 matched" in out,
      "netcup campaign: data back computed as before")
check(not re.search(r"\d repetitions?,", out), "netcup campaign: no repetitions shown without repeat")
rc, csv_text, err = run(["--csv", "actions", NETCUP])
rv = rows_of(csv_text, state="reverted", action="revert")
check(rv and rv[0]["task_clock"] == "provider" and rv[0]["repeat"] == "1",
      "netcup campaign csv: the revert")

# ---- what a manifest may get wrong: capped and named, never a crash ------------
bad = os.path.join(work, "bad")
os.makedirs(bad)
act = {"action": "settle", "text": "settle 1s", "status": "done", "duration_s": 1.0}
with open(os.path.join(bad, "manifest.json"), "w") as f:
    json.dump({"format": "fiocamp-manifest", "version": 1, "campaign": "bad", "states": [
        {"name": "odd", "status": "done", "repeat": 5000, "repetitions": [
            {"repetition": 0, "status": "done", "before": [act]},
            {"repetition": "2", "status": "done", "before": [act]},
            {"repetition": 1, "status": "done", "before": [act]}]},
        {"name": "many", "status": "done", "repeat": 1000, "repetitions": [
            {"repetition": k + 1, "status": "done", "before": [act]} for k in range(1001)]},
        {"name": "odd", "status": "done", "before": [act, act]}]}, f)
rc, out, err = run(["-t", "-w", "300", bad])
check(rc == 0, f"bad manifest: exit 0 with notes, got {rc}: {err}")
check('state odd: "repeat" is not a number 1..1000, read as 1' in out,
      f"bad manifest: the repeat out of range named: {out}")
check("state odd: a repetition without a valid number (1..1000), skipped" in out,
      "bad manifest: a repetition without a number named")
check("state many: more than 1000 repetitions; the rest are not read" in out,
      "bad manifest: the repetitions capped")
check("many: 1000 repetitions, 1000 done" in out, "bad manifest: 1000 repetitions read")
check("state odd is listed twice; its first transition is used" in out,
      "bad manifest: a state listed twice named")
check("odd: done" in out and "odd: 1 repetition" not in out,
      "bad manifest: the first listing's one repetition")

# ---- timings cut by an interrupt: shown apart, never samples --------------------
# the second restore cut by an interrupt and resumed (as fiocamp-run marks it:
# the action "cut", its repetition "downtime_cut" and "data_back_cut")
CUT = os.path.join(work, "pve-cut")
shutil.copytree(ART, CUT)
with open(os.path.join(CUT, "manifest.json")) as f:
    m = json.load(f)
rs = [x for x in m["states"] if x["name"] == "restore"][0]["repetitions"]
rs[1].update(downtime_s=812.3, data_back_s=815.0, downtime_cut=True, data_back_cut=True)
rs[1]["before"][0].update(cut=True, duration_s=0.4)
with open(os.path.join(CUT, "manifest.json"), "w") as f:
    json.dump(m, f)
rc, out, err = run(["-t", "-w", "300", CUT])
check(rc == 0, f"cut: exit 0, got {rc}: {err}")
check("cut by an interrupt, not in the samples: repetition 2: downtime 812.3 s, data back "
      "815.0 s" in out, f"cut: the table says which timings are cut:\n{out}")
check("downtime 120.9 s (77.9, 120.9, 125.0)" in out and
      "data back 122.9 s (79.9, 122.9, 127.5)" in out,
      f"cut: the medians leave the cut repetition out:\n{out}")
check(re.search(r"53, 57, 69, 100 \(the node's clock\) +63 ", out),
      f"cut: the node's task seconds stay samples:\n{out}")
check(re.search(r"63 +69\.5 s \(53\.8\.\.100\.7\)", out),
      f"cut: the resumed attempt's stopwatch (0.4 s) is no sample:\n{out}")
rc, out, err = run(["--json", CUT])
doc = json.loads(out)
t = trans(doc, "restore")
check(t is not None and t.get("cut_repetitions", "").startswith("repetition 2:")
      and t["downtime"]["n"] == 3 and t["data_back"]["n"] == 3,
      f"cut: JSON keeps them out and names them: {t and (t.get('cut_repetitions'), t['downtime'])}")
check(t is not None and [r["downtime_cut"] for r in t["repetitions"]] ==
      [False, True, False, False], "cut: JSON marks the repetition")
rc, out, err = run(["--csv", "actions", CUT])
rows = rows_of(out, state="restore", repetition="2")
check(rows and all(r["repetition_cut"] == "yes" for r in rows) and
      rows_of(out, state="restore", repetition="2", action_index="1")[0]["action_cut"] == "yes",
      "cut: CSV marks the repetition and the action")
rc, md, err = run(["-m", CUT])
check("| restore (4 repetitions) (cut by an interrupt, not in the samples: repetition 2: "
      "downtime 812.3 s, data back 815.0 s) |" in md and "| 122.9 s (79.9, 122.9, 127.5) |" in md,
      f"cut: the Markdown path names them, its data back leaves them out:\n{md}")
html = os.path.join(work, "cut.html")
rc, _, err = run(["--html", html, CUT])
text = open(html, encoding="utf-8").read() if os.path.exists(html) else ""
check("cut by an interrupt, not drawn: repetition 2: downtime 812.3 s" in text and
      "restore, downtime: 120.9 s (77.9..125.0, n = 3)" in text and
      "restore, data back: 122.9 s (79.9..127.5, n = 3)" in text,
      "cut: the transitions chart says so and draws the other three")

shutil.rmtree(work, ignore_errors=True)
sys.exit(summary())
