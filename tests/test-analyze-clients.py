#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on runs of fio's client/server mode: each client's share.

Usage: test-analyze-clients.py PATH/TO/fiocamp-analyze PATH/TO/fiocamp-run

The fixtures are real fio 3.33 runs (tests/fixtures/make-client-campaign.py):
tests/fixtures/clients/campaign, a campaign whose runs drove three fio
servers on TCP ports of 127.0.0.1 at once, its manifest's rounds naming
them h1, h2, h3; clients/sock2-rr4k.json, two servers on Unix sockets h1
and h2 given relative to the client's directory (no port: fio's default); and
fio-3.33/client_1server_2jobs_stdout.txt, one server running two jobs.
Checked against the reports themselves: each client's IOPS and MiB/s (the
median over the rounds) and its share of the clients' sum in --csv clients,
--json, the table, Markdown and the HTML report; the hosts named as the
manifest names them (else HOSTNAME:PORT, a socket's path), in that order
whatever order fio finished them in; --compare's headline is the aggregate;
no group_reporting warning for "All clients".  And a campaign of mode =
aggregate that fiocamp-run runs here over three local hosts: every file
used (each client's logs, PREFIX_TYPE.N.log.HOST, with its client's job),
the hosts as the campaign names them.
"""

import json
import re
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import check, parse_csv, run, setup, summary, unwrap  # noqa: E402

setup(sys.argv[1])
FIOCAMP_RUN = os.path.abspath(sys.argv[2])
FIO = shutil.which("fio")
SRC = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
FIX = os.path.join(SRC, "tests", "fixtures")
CAMP = os.path.join(FIX, "clients", "campaign")
SOCK2 = os.path.join(FIX, "clients", "sock2-rr4k.json")
ONE2 = os.path.join(FIX, "fio-3.33", "client_1server_2jobs_stdout.txt")


def report(path):
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("\n{") + 1:] if not text.startswith("{") else text)


def rates(entry):
    """IOPS and MiB/s of a client_stats entry over its directions."""
    iops = sum(entry[d]["iops"] for d in ("read", "write", "trim"))
    mibs = sum(entry[d]["bw_bytes"] for d in ("read", "write", "trim")) / (1 << 20)
    return iops, mibs


def expected(manifest):
    """{(state, test, client): (iops median, MiB/s median)} from the reports,
    each entry named by the manifest's clients."""
    vals = {}
    for st in manifest["states"]:
        for rnd in st["rounds"]:
            names = {(c["hostname"], c["port"]): c["host"] for c in rnd.get("clients", [])}
            for t in rnd["tests"]:
                doc = report(os.path.join(CAMP, t["json"]))
                for e in doc["client_stats"]:
                    name = ("All clients" if e["jobname"] == "All clients"
                            else names.get((e["hostname"], e["port"]),
                                           "%s:%d" % (e["hostname"], e["port"])))
                    vals.setdefault((st["name"], t["test"], name), []).append(rates(e))
    return {k: (statistics.median(i for i, _ in v), statistics.median(m for _, m in v))
            for k, v in vals.items()}


def close(got, want, what, tol=0.01):
    check(got is not None and abs(got - want) <= tol * max(1.0, abs(want)),
          "%s: got %r, want %r" % (what, got, want))


def check_campaign():
    with open(os.path.join(CAMP, "manifest.json")) as f:
        manifest = json.load(f)
    want = expected(manifest)
    rc, out, err = run(["--csv", "clients", CAMP])
    check(rc == 0, "campaign: exit status 0: %d %s" % (rc, err))
    check("group_reporting" not in err, "campaign: no group_reporting warning: %s" % err)
    rows, num = parse_csv(out)
    order = [(r["state"], r["test"], r["client"]) for r in rows]
    check(order == [(s, t, c) for t in ("rr4k", "rw1m") for s in ("basis", "after")
                    for c in ("h1", "h2", "h3", "All clients")],
          "campaign: a row per state, test and client, the hosts in the manifest's order: %s"
          % order)
    for r in rows:
        key = (r["state"], r["test"], r["client"])
        if key not in want:
            check(False, "campaign: %s not in the reports" % (key,))
            continue
        close(num(r["iops_median"]), want[key][0], "campaign: %s IOPS" % (key,))
        close(num(r["bw_mibs_median"]), want[key][1], "campaign: %s MiB/s" % (key,))
        check(r["all_clients"] == ("yes" if r["client"] == "All clients" else "no")
              and r["n"] == "2", "campaign: %s all_clients and n: %s" % (key, r))
    for s in ("basis", "after"):
        for t in ("rr4k", "rw1m"):
            parts = [num(r["share_pct"]) for r in rows
                     if r["state"] == s and r["test"] == t and r["client"] != "All clients"]
            # two rounds: each median is the mean, so the shares add up
            close(sum(parts), 100.0, "campaign: %s %s shares add up" % (s, t), tol=0.002)
            whole = [r for r in rows if r["state"] == s and r["test"] == t
                     and r["client"] == "All clients"]
            check(whole and num(whole[0]["share_pct"]) == 100.0,
                  "campaign: All clients is 100 %")

    rc, out, err = run(["--json", CAMP])
    doc = json.loads(out)
    got = [(c["state"], c["test"], c["client"]) for c in doc["clients"]]
    check(got == order, "campaign: --json's clients as the CSV's: %s" % got)
    series = {(s["test"], s["job_index"]): s["client"] for s in doc["series"]}
    check(series.get(("rr4k", 1)) == "h1" and series.get(("rr4k", 3)) == "h3"
          and series.get(("rr4k", 4)) == "All clients",
          "campaign: each job the same client in every run, the aggregate last: %s" % series)

    rc, out, err = run(["--compare", "--width", "200", CAMP])
    check("rr4k all clients IOPS" in out and "rw1m all clients MiB/s" in out,
          "campaign: --compare's headline is the aggregate: %s" % out[:600])
    base = [l for l in out.splitlines() if l.startswith("basis")]
    agg = "%d" % round(want[("basis", "rr4k", "All clients")][0])
    check(base and base[0].split()[1] == agg,
          "campaign: --compare shows All clients' median %s: %s" % (agg, base))

    rc, out, err = run(["--table", "--width", "160", CAMP])
    text = unwrap(out)
    check("rr4k: each client's share (fio client/server mode)" in text
          and 'rr4k: job 2 "rr4k" on h2, read' in text and 'rr4k: job 4 "All clients", read'
          in text, "campaign: the table's clients and jobs: %s" % text[-2500:])
    lines = [l.split() for l in out.splitlines()]
    h1 = [l for l in lines if l[:2] == ["h1", "IOPS"]]
    check(len(h1) == 2, "campaign: the table has h1's IOPS for each test: %s" % h1)

    rc, out, err = run(["--markdown", CAMP])
    check("**rr4k: each client's share (fio client/server mode)**" in out
          and "| h1 IOPS |" in out, "campaign: Markdown's clients")

    d = tempfile.mkdtemp(prefix="test-analyze-clients-",
                         dir=os.environ.get("FC_BUILDDIR") or tempfile.gettempdir())
    try:
        html = os.path.join(d, "r.html")
        rc, out, err = run(["--html", html, CAMP])
        with open(html, encoding="utf-8") as f:
            page = f.read()
        check('<section id="clients">' in page and '<a href="#clients">Clients</a>' in page
              and '<th scope="row">h3 IOPS</th>' in page,
              "campaign: the HTML report's clients")
        check('<th scope="row">host</th><td>h1: ' in page and "; h3: " in page,
              "campaign: the HTML facts give each host's")

        # without the manifest's clients: as fio reports them, by name
        copy = os.path.join(d, "campaign")
        shutil.copytree(CAMP, copy)
        for st in manifest["states"]:
            for rnd in st["rounds"]:
                rnd.pop("clients", None)
        with open(os.path.join(copy, "manifest.json"), "w") as f:
            json.dump(manifest, f)
        rc, out, err = run(["--csv", "clients", copy])
        rows, _ = parse_csv(out)
        names = [r["client"] for r in rows if r["state"] == "basis" and r["test"] == "rr4k"]
        ports = sorted("127.0.0.1:%d" % c["port"] for c in
                       json.load(open(os.path.join(CAMP, "manifest.json")))["states"][0]
                       ["rounds"][0]["clients"])
        check(names == ports + ["All clients"],
              "campaign without clients: HOSTNAME:PORT in order: %s" % names)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def check_sockets_named():
    """A campaign's round whose clients are sockets named as the hosts (as
    mode = aggregate reaches them: hostname the socket's name, port 8765),
    the hosts called otherwise by the manifest: its names, in its order."""
    d = tempfile.mkdtemp(prefix="test-analyze-clients-",
                         dir=os.environ.get("FC_BUILDDIR") or tempfile.gettempdir())
    try:
        os.makedirs(os.path.join(d, "basis", "r1"))
        shutil.copyfile(SOCK2, os.path.join(d, "basis", "r1", "rr4k.json"))
        clients = [{"host": "beta", "hostname": "h2", "port": 8765},
                   {"host": "alpha", "hostname": "h1", "port": 8765}]
        m = {"format": "fiocamp-manifest", "version": 1, "campaign": "socks",
             "status": "done", "mode": "aggregate",
             "states": [{"name": "basis", "status": "done", "before": [], "rounds": [
                 {"round": 1, "status": "done", "clients": clients, "tests": [
                     {"test": "rr4k", "status": "done", "json": "basis/r1/rr4k.json",
                      "logs": []}]}]}]}
        with open(os.path.join(d, "manifest.json"), "w") as f:
            json.dump(m, f)
        rc, out, err = run(["--csv", "clients", d])
        rows, num = parse_csv(out)
        check(rc == 0 and [r["client"] for r in rows] == ["beta", "alpha", "All clients"],
              "sockets named: the manifest's hosts in its order: %d %s %s"
              % (rc, [r["client"] for r in rows], err))
        doc = report(SOCK2)
        h2 = [e for e in doc["client_stats"] if e["hostname"] == "h2"
              and e["jobname"] != "All clients"][0]
        close(num(rows[0]["iops_median"]), rates(h2)[0], "sockets named: beta is h2's entry")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def check_aggregate_run():
    """fiocamp-run's mode = aggregate over three local hosts, analyzed."""
    if not FIO:
        print("fio not found; the aggregate campaign is not run")
        return
    d = tempfile.mkdtemp(prefix="test-analyze-clients-",
                         dir=os.environ.get("FC_BUILDDIR") or tempfile.gettempdir())
    try:
        ini = os.path.join(d, "ag.ini")
        with open(ini, "w") as f:
            f.write("[campaign]\nhosts = h1 h2 h3\nmode = aggregate\nsuite = rr4k\n"
                    "rounds = 2\npause = 0s\nruntime = 1s\nsize = 8M\nioengine = psync\n"
                    "direct = 0\n")
            for h in ("h1", "h2", "h3"):
                f.write("[host %s]\ndirectory = %s\n" % (h, os.path.join(d, "t-" + h)))
                if h == "h2":
                    f.write("size = 16M\n")
            f.write("[state basis]\n")
        out = os.path.join(d, "A")
        p = subprocess.run([FIOCAMP_RUN, "-q", "-o", out, ini], cwd=d, capture_output=True,
                           text=True, timeout=240)
        check(p.returncode == 0, "aggregate: fiocamp-run: %d %s" % (p.returncode, p.stderr))
        # h2's size is its own: fio's "global options" repeat it once per server,
        # in the order the servers answered; round 2 is made to list them the
        # other way round than round 1, which must not make it another test
        reports = [os.path.join(out, "basis", "r%d" % k, "rr4k.json") for k in (1, 2)]
        texts = []
        for path in reports:
            with open(path) as f:
                texts.append(f.read())

        def sizes(t):
            head = t[:t.index('"client_stats"')]
            return [(m.start(1), m.group(1)) for m in re.finditer(r'"size" : "(\d+)"', head)]
        last = [sizes(t)[-1][1] for t in texts]
        if last[0] == last[1]:
            t, sz = texts[1], sizes(texts[1])
            (p_last, v_last), (p_other, v_other) = sz[-1], [e for e in sz if e[1] != last[1]][-1]
            t = (t[:p_other] + v_last + t[p_other + len(v_other):p_last] + v_other +
                 t[p_last + len(v_last):])
            with open(reports[1], "w") as f:
                f.write(t)
            check(sizes(t)[-1][1] != last[0], "aggregate: round 2 lists the sizes otherwise")
        rc, text, err = run(["--csv", "clients", out])
        check("data sets of" not in err and "different workloads" not in err,
              "aggregate: hosts of different sizes are one test: %s" % err)
        check(rc == 0 and "rejected" not in err,
              "aggregate: every file used, exit status 0: %d %s" % (rc, err))
        rows, num = parse_csv(text)
        check([r["client"] for r in rows] == ["h1", "h2", "h3", "All clients"]
              and all(r["n"] == "2" for r in rows),
              "aggregate: the campaign's hosts: %s" % rows)
        close(sum(num(r["share_pct"]) for r in rows[:3]), 100.0, "aggregate: the shares add up",
              tol=0.002)
        rc, text, err = run(["--json", out])
        doc = json.loads(text)
        logs = [l for r in doc["runs"] for l in r["logs"]]
        check(len(logs) == 2 * 3 * 2 and doc["rejected"] == [],
              "aggregate: each client's iops and bw logs of each round: %s %s"
              % (logs, doc["rejected"]))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def check_piles():
    doc = report(SOCK2)
    socks = sorted(e["hostname"] for e in doc["client_stats"] if e["jobname"] != "All clients")
    check(socks == ["h1", "h2"], "sock2: the report's hostnames: %s" % socks)
    rc, out, err = run(["--csv", "clients", SOCK2])
    rows, num = parse_csv(out)
    check(rc == 0 and [r["client"] for r in rows] == socks + ["All clients"],
          "sock2: the clients by their sockets' names (h1, h2): %s" % [r["client"] for r in rows])
    check("group_reporting" not in err, "sock2: no group_reporting warning: %s" % err)
    for r in rows:
        e = [x for x in doc["client_stats"] if x["hostname"] == r["client"]
             or (r["client"] == "All clients" and x["jobname"] == "All clients")][0]
        close(num(r["iops_median"]), rates(e)[0], "sock2: %s IOPS" % r["client"])
    close(sum(num(r["share_pct"]) for r in rows[:-1]), 100.0, "sock2: the shares add up",
          tol=0.002)

    # one server, two jobs: its share is both, all of it
    rc, out, err = run(["--csv", "clients", ONE2])
    rows, num = parse_csv(out)
    check([(r["client"], num(r["share_pct"])) for r in rows]
          == [("127.0.0.1:18765", 100.0), ("All clients", 100.0)],
          "one server, two jobs: %s" % [(r["client"], r["share_pct"]) for r in rows])


def main():
    check_campaign()
    check_sockets_named()
    check_piles()
    check_aggregate_run()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
