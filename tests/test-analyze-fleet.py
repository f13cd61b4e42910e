#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on fleet directories (docs/campaign-directory.md).

Usage: test-analyze-fleet.py PATH/TO/fiocamp-analyze PATH/TO/fiocamp-run

Each host's campaign directory is what fiocamp-run writes for a small local
fleet campaign file with `--host NAME -o DIR/hosts/NAME`, as the fleet's
supervisor runs each host (1 s runs, 8 MiB files, every host at once):
fleet F has hosts h1 (done) and h2, whose state `after` fails in its
transition (h2's copy of the file runs `false` there), and h3, which the fleet manifest lists as failed
before it wrote a directory; fleet G has hosts g1 and g2 whose campaigns
have variants a and b of their own (one state).  The
fleet manifests are written here as the supervisor writes them, with a
member this reader does not know.  Checked: the hosts as variants in the
CSV, --compare, --json and the HTML report; the failed hosts said; the
barrier waits; HOST/VARIANT; a host's own directory alone as before; the
fleet manifest given as a file; a fleet manifest without its host list;
two fleets side by side.  And a fleet that fiocamp-run's supervisor runs
over three local hosts, one of which fails in its preflight: its manifest
and directories as they are.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import at_once, check, parse_csv, run, setup, summary, unwrap  # noqa: E402

setup(sys.argv[1])
FIOCAMP_RUN = os.path.abspath(sys.argv[2])
FIO = shutil.which("fio")


def fleet_ini(d, fleet, hosts, tmp, variants=None, host=None, fail=False,
              states=("basis", "after")):
    """The fleet's campaign file d/FLEET.ini (the file's name is the
    campaign's): `hosts =` and a [host NAME] with a directory of its own
    each, or the variants' directories below tmp (FLEET-HOST-VARIANT: the
    file of `host`, so that the hosts can run at once); state after's
    transition fails with `fail` (one file for the host that fails)."""
    text = ("[campaign]\n"
            "hosts     = %s\n"
            "suite     = rw4k\n"
            "rounds    = 2\n"
            "pause     = 0s\n"
            "runtime   = 1s\n"
            "size      = 8M\n"
            "ioengine  = psync\n"
            "direct    = 0\n") % " ".join(hosts)
    if variants:
        text += "variants  = %s\n" % " ".join(variants)
        for v in variants:
            text += "[variant %s]\ndirectory = %s\n" % (
                v, os.path.join(tmp, "%s-%s-%s" % (fleet, host, v)))
    else:
        for h in hosts:
            text += "[host %s]\ndirectory = %s\n" % (h, os.path.join(tmp, "target-" + h))
    for st in states:
        text += "[state %s]\n" % st
        if st == "after":
            text += "before = run %s\n" % ("false" if fail else "true")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, fleet + ".ini")
    with open(path, "w") as f:
        f.write(text)
    return path


def host_run(tmp, ini, fleet, host, fail=False):
    """fiocamp-run --host HOST of the fleet's file into FLEET/hosts/HOST, as
    the fleet's supervisor runs each host; it fails with `fail`."""
    out = os.path.join(tmp, fleet, "hosts", host)
    p = subprocess.run([FIOCAMP_RUN, "-q", "--host", host, "-o", out, ini], cwd=tmp,
                       capture_output=True, text=True, timeout=240)
    check((p.returncode == 0) != fail,
          "fiocamp-run --host %s of %s: exit status %d: %s" % (host, fleet, p.returncode,
                                                               p.stderr))


def fleet_manifest(d, ini, name, hosts, barriers, with_hosts=True):
    m = {"format": "fiocamp-fleet", "version": 1, "campaign": name, "mode": "fleet",
         "sync": "states", "status": "failed" if any(h[1] != "done" for h in hosts) else "done",
         "created": "2026-12-02T19:00:00.000Z", "updated": "2026-12-02T19:01:00.000Z",
         "supervisor": {"pid": 1234},  # a member this reader does not need
         "barriers": barriers}
    if with_hosts:
        m["hosts"] = [{"name": n, "directory": "hosts/" + n, "status": st, "reason": why,
                       "exit_status": es} for n, st, why, es in hosts]
    shutil.copyfile(ini, os.path.join(d, "campaign.ini"))
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(m, f, indent=1)


F_HOSTS = [("h1", "done", None, 0),
           ("h2", "failed", "run false: exit status 1\n", 1),
           ("h3", "failed", "preflight: fio not found on the target", 2)]
F_BARRIERS = [{"seq": 1, "state": "basis", "repetition": 1, "released": "x",
               "waits": {"h1": 0.0, "h2": 1.5}, "left": ["h3"]},
              {"seq": 2, "state": "after", "repetition": 1, "released": "x",
               "waits": {"h1": 2.25, "h2": 0.0}, "left": []}]


def variants_of(rows):
    return sorted({r["variant"] for r in rows})


def check_fleet_f(tmp):
    f = os.path.join(tmp, "F")
    rc, out, err = run(["--csv", "summary", f])
    check(rc == 0, "F: exit status 0: %d %s" % (rc, err))
    rows, _ = parse_csv(out)
    check(variants_of(rows) == ["h1", "h2"], "F: the hosts are the variants: %s"
          % variants_of(rows))
    h2 = {r["state"] for r in rows if r["variant"] == "h2" and r["metric"] == "iops"}
    check(h2 == {"basis"}, "F: h2's completed state counts, the failed one has no runs: %s" % h2)
    check("warning: %s/manifest.json: host h2 failed (exit status 1): run false: exit status 1; "
          "the 2 runs it completed are analyzed" % f in err, "F: h2's failure said: %s" % err)
    check("warning: %s/manifest.json: host h3 failed (exit status 2): preflight: fio not found "
          "on the target, before it wrote its campaign directory" % f in err,
          "F: h3's failure said: %s" % err)
    check("a fleet of 3 hosts (h1, h2, h3), sync states: the hosts are compared as variants"
          in err, "F: the fleet said: %s" % err)
    check("waits at the 2 barriers, each host's in all: h1 2.2 s (longest 2.2 s), h2 1.5 s "
          "(longest 1.5 s)" in err, "F: the barrier waits said: %s" % err)
    check("compared as variants" in err and "runs in 2 directories" not in err,
          "F: no note of directories compared: %s" % err)

    rc, out, err = run(["--compare", "--width", "200", f])
    text = unwrap(out)
    check(text.startswith("fleet F (%s/manifest.json): 3 hosts, h1 (base), h2 (host failed) "
                          "and h3 (host failed), " % f) and "baseline host h1, baseline state basis" in text,
          "F: --compare's header: %s" % text[:300])
    lines = [l.split("  ")[0] for l in out.splitlines() if l.startswith("h") and " / " in l]
    check(lines[:3] == ["h1 / basis (base)", "h1 / after (base)", "h2 / basis"],
          "F: --compare's rows: %s" % lines)
    check("h2 / after (failed)" in out, "F: h2's failed state marked: %s" % out)
    rc, out, err = run(["--table", "--width", "200", f])
    check("h2 / after: failed; FAILED: failed" in out,
          "F: the failed transition named with its host: %s" % out[:800])

    rc, out, err = run(["--json", f])
    doc = json.loads(out)
    fl = doc["fleets"]
    check(len(fl) == 1 and fl[0]["campaign"] == "F" and fl[0]["barriers"] == 2,
          "F: --json's fleet: %s" % fl)
    hosts = {h["name"]: h for h in fl[0]["hosts"]}
    check(list(hosts) == ["h1", "h2", "h3"], "F: --json's hosts in order: %s" % list(hosts))
    check(hosts["h1"]["status"] == "done" and hosts["h1"]["variants"] == ["h1"]
          and hosts["h1"]["waited_s"] == 2.25, "F: --json h1: %s" % hosts["h1"])
    check(hosts["h2"]["status"] == "failed" and hosts["h2"]["reason"] == F_HOSTS[1][2].strip()
          and hosts["h2"]["exit_status"] == 1 and hosts["h2"]["waited_s"] == 1.5,
          "F: --json h2: %s" % hosts["h2"])
    check(hosts["h3"]["manifest"] is None and hosts["h3"]["variants"] == []
          and hosts["h3"]["barriers"] == 0 and hosts["h3"]["waited_s"] is None,
          "F: --json h3: %s" % hosts["h3"])
    vs = {v["name"]: (v["host"], v["host_status"]) for v in doc["variants"]}
    check(vs == {"h1": ("h1", "done"), "h2": ("h2", "failed")}, "F: --json's variants: %s" % vs)
    check(any("host h2 failed" in w for w in doc["warnings"]), "F: --json's warnings")

    html = os.path.join(tmp, "F.html")
    rc, out, err = run(["--html", html, f])
    with open(html, encoding="utf-8") as fh:
        page = fh.read()
    check("<h3>Hosts of fleet F</h3>" in page, "F: the HTML report lists the hosts")
    check('<tr><th scope="row">h3</th><td>failed</td><td>preflight: fio not found on the '
          'target</td><td>-</td><td>none: no campaign directory</td>' in page,
          "F: the HTML report's h3")
    check('<tr><th scope="row">h1</th><td>done</td><td></td><td>2.2 s at 2 (longest 2.2 s)'
          '</td><td>h1</td>' in page, "F: the HTML report's h1")
    check("campaign of host h2" in page, "F: the HTML facts name each host's campaign")
    check('<tr><th scope="row">hosts</th><td>h1, h2 (baseline h1)</td></tr>' in page,
          "F: the HTML facts call the fleet's variants hosts")
    check('<section id="compare">' in page, "F: the HTML report compares the hosts")
    check("<h1>fleet F: 3 hosts, h1, h2 and h3</h1>" in page,
          "F: the HTML report's title names the fleet and its hosts: %s"
          % page[page.find("<h1>"):page.find("</h1>") + 5])
    check("baseline basis; baseline host h1; " in page, "F: the HTML report's baseline host")
    for h in ("h1", "h2"):
        check("<title>State transitions of host %s: seconds per action</title>" % h in page
              and "transitions-F-%s.svg</figcaption>" % h in page,
              "F: host %s's transitions chart titled and named by the host" % h)

    # the fleet manifest given as a file reads the same fleet
    rc, out2, err = run(["--csv", "summary", os.path.join(f, "manifest.json")])
    rows2, _ = parse_csv(out2)
    check(rc == 0 and variants_of(rows2) == ["h1", "h2"],
          "F/manifest.json: the same hosts: %d %s" % (rc, variants_of(rows2)))

    # a host's own directory alone, as before: no fleet, its name the variant
    rc, out, err = run(["--json", os.path.join(f, "hosts", "h1")])
    doc = json.loads(out)
    check(rc == 0 and doc["fleets"] == [] and [v["name"] for v in doc["variants"]] == ["h1"]
          and doc["variants"][0]["host"] is None and "fleet" not in err,
          "F/hosts/h1 alone: %d %s %s" % (rc, doc["variants"], err))

    # a fleet manifest without its host list: the directories below hosts/
    g = os.path.join(tmp, "Fbare")
    shutil.copytree(f, g)
    fleet_manifest(g, os.path.join(f, "campaign.ini"), "F", F_HOSTS, F_BARRIERS,
                   with_hosts=False)
    rc, out, err = run(["--csv", "summary", g])
    rows, _ = parse_csv(out)
    check(rc == 0 and variants_of(rows) == ["h1", "h2"]
          and "lists no hosts; read the 2 directories below %s/hosts" % g in err,
          "Fbare: the hosts found below hosts/: %d %s %s" % (rc, variants_of(rows), err))

    # two fleets side by side: each host below its fleet's name
    rc, out, err = run(["--csv", "summary", f, g])
    rows, _ = parse_csv(out)
    check(variants_of(rows) == ["F/h1", "F/h2", "Fbare/h1", "Fbare/h2"],
          "F and Fbare: %s" % variants_of(rows))
    svg = os.path.join(tmp, "svg-F-Fbare")
    rc, out, err = run(["--svg", svg, f, g])
    got = sorted(n for n in os.listdir(svg) if n.startswith("transitions")) if rc == 0 else rc
    check(got == ["transitions-F-h1.svg", "transitions-F-h2.svg", "transitions-Fbare-h1.svg",
                  "transitions-Fbare-h2.svg"], "F and Fbare: each host's transitions: %s" % got)
    with open(os.path.join(svg, "transitions-Fbare-h1.svg"), encoding="utf-8") as fh:
        check("<title>State transitions of host Fbare/h1: seconds per action</title>"
              in fh.read(), "F and Fbare: the chart titled by the host as its variant")


def check_fleet_g(tmp):
    g = os.path.join(tmp, "G")
    rc, out, err = run(["--csv", "summary", g])
    check(rc == 0, "G: exit status 0: %d %s" % (rc, err))
    rows, _ = parse_csv(out)
    check(variants_of(rows) == ["g1/a", "g1/b", "g2/a", "g2/b"],
          "G: the hosts' variants as HOST/VARIANT: %s" % variants_of(rows))
    rc, out, err = run(["--json", g])
    doc = json.loads(out)
    hosts = {h["name"]: h["variants"] for h in doc["fleets"][0]["hosts"]}
    check(hosts == {"g1": ["g1/a", "g1/b"], "g2": ["g2/a", "g2/b"]},
          "G: each host's variants in --json: %s" % hosts)
    check("barriers" not in " ".join(doc["notes"]), "G: no barrier waits, none said")


def run_supervised(tmp):
    """fiocamp-run FLEET.ini (its supervisor): h1 and h2 in step, h3's
    directory one it cannot make."""
    ini = os.path.join(tmp, "R.ini")
    with open(ini, "w") as f:
        f.write("[campaign]\nhosts = h1 h2 h3\nsuite = rw4k\nrounds = 2\npause = 0s\n"
                "runtime = 1s\nsize = 8M\nioengine = psync\ndirect = 0\n"
                "[host h1]\ndirectory = %s\n[host h2]\ndirectory = %s\n"
                "[host h3]\ndirectory = /proc/no/such\n[state basis]\n[state after]\n"
                % (os.path.join(tmp, "r-h1"), os.path.join(tmp, "r-h2")))
    r = os.path.join(tmp, "R")
    p = subprocess.run([FIOCAMP_RUN, "-q", "-o", r, ini], cwd=tmp, capture_output=True,
                       text=True, timeout=240)
    check(p.returncode != 0, "R: the fleet fails with h3: %d %s" % (p.returncode, p.stderr))


def check_supervised(tmp):
    r = os.path.join(tmp, "R")
    rc, out, err = run(["--json", r])
    doc = json.loads(out)
    check(rc == 0, "R: exit status 0: %d %s" % (rc, err))
    check([v["name"] for v in doc["variants"] if v["runs"]] == ["h1", "h2"],
          "R: h1 and h2 are the variants with runs: %s" % doc["variants"])
    check(any(w.startswith("%s/manifest.json: host h3 failed (exit status " % r)
              and "preflight" in w and w.endswith("; it completed no run")
              for w in doc["warnings"]), "R: h3's failure said: %s" % doc["warnings"])
    fl = doc["fleets"][0]
    hosts = {h["name"]: h for h in fl["hosts"]}
    check(fl["barriers"] == 2 and hosts["h1"]["barriers"] == 2 and hosts["h2"]["barriers"] == 2
          and hosts["h3"]["barriers"] == 0 and hosts["h1"]["waited_s"] is not None,
          "R: the supervisor's barriers, each host's waits: %s" % fl)
    check(hosts["h3"]["reason"] and "\n" not in hosts["h3"]["reason"],
          "R: h3's reason on one line: %r" % hosts["h3"]["reason"])
    rc, out, err = run(["--csv", "summary", r])
    rows, _ = parse_csv(out)
    check(variants_of(rows) == ["h1", "h2"]
          and {r["state"] for r in rows} == {"basis", "after"},
          "R: the CSV's variants and states: %s" % variants_of(rows))


def check_escape(tmp):
    """A host directory that leaves the fleet's is not followed: said, with
    the manifest and the host, and the host read at hosts/NAME instead."""
    f = os.path.join(tmp, "F")
    esc = os.path.join(tmp, "F-escape")
    shutil.copytree(f, esc, symlinks=True)
    path = os.path.join(esc, "manifest.json")
    with open(path) as fp:
        m = json.load(fp)
    m["hosts"][0]["directory"] = "../F/hosts/h1"
    with open(path, "w") as fp:
        json.dump(m, fp)
    rc, out, err = run(["--csv", "summary", esc])
    check(rc == 0, "F-escape: exit status 0: %d %s" % (rc, err))
    check('%s: host h1: "../F/hosts/h1" is not a directory inside the fleet\'s; read hosts/h1'
          % path in err, "F-escape: the escaping directory said: %s" % err)
    rows, _ = parse_csv(out)
    check(variants_of(rows) == ["h1", "h2"], "F-escape: h1 read at hosts/h1: %s"
          % variants_of(rows))


def main():
    if not FIO:
        print("fio not found; skipping")
        return 77
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-fleet-", dir=base)
    try:
        # every host's campaign at once (each has its files, and its
        # campaign file where they differ), the supervised fleet beside
        f_ini = fleet_ini(tmp, "F", ["h1", "h2", "h3"], tmp)
        f_fail = fleet_ini(os.path.join(tmp, "F-h2"), "F", ["h1", "h2", "h3"], tmp, fail=True)
        # G: the hosts' own variants, one state is enough
        g_ini = {h: fleet_ini(os.path.join(tmp, "G-" + h), "G", ["g1", "g2"], tmp,
                              variants=["a", "b"], host=h, states=["basis"])
                 for h in ("g1", "g2")}
        at_once(lambda: host_run(tmp, f_ini, "F", "h1"),
                lambda: host_run(tmp, f_fail, "F", "h2", fail=True),
                lambda: host_run(tmp, g_ini["g1"], "G", "g1"),
                lambda: host_run(tmp, g_ini["g2"], "G", "g2"),
                lambda: run_supervised(tmp))
        fleet_manifest(os.path.join(tmp, "F"), f_ini, "F", F_HOSTS, F_BARRIERS)
        fleet_manifest(os.path.join(tmp, "G"), g_ini["g1"], "G",
                       [("g1", "done", None, 0), ("g2", "done", None, 0)], [])
        at_once(lambda: check_fleet_f(tmp), lambda: check_fleet_g(tmp),
                lambda: check_supervised(tmp), lambda: check_escape(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
