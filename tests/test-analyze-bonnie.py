#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze on bonnie++ results, alone and beside fio runs.

Usage: test-analyze-bonnie.py PATH/TO/fiocamp-analyze

- The real bonnie++ 2.00a rows of tests/fixtures/bonnie/bonnie-2.00a come out
  with the values bonnie++ printed (K/sec as MiB/s, seeks/s, files/s, %CP,
  the latency as the slowest operation), "+++++" as too fast, never a value,
  and an empty field as no run at all; the hand-made rows of the older
  releases likewise.
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import check, close, parse_csv, rejects, run, setup, summary  # noqa: E402

setup(sys.argv[1])
SRC = os.environ.get("FC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
REAL = os.path.join(SRC, "tests", "fixtures", "bonnie", "bonnie-2.00a")
HAND = os.path.join(SRC, "tests", "fixtures", "bonnie", "handmade")

IO_TESTS = ["putc", "put_block", "rewrite", "getc", "get_block", "seeks"]
FILE_TESTS = ["seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"]
# where a test's rate goes: (direction, metric); bandwidths from KiB/s
PLACE = {"putc": ("write", "bw"), "put_block": ("write", "bw"), "rewrite": ("read", "bw"),
         "getc": ("read", "bw"), "get_block": ("read", "bw"), "seeks": ("read", "iops")}
for t in FILE_TESTS:
    PLACE[t] = ("read" if t.endswith("stat") else "write", "files")


def latency_us(text):
    for unit, scale in (("us", 1), ("ms", 1e3), ("s", 1e6)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise ValueError(text)


def rows_1_98(path):
    """Each 1.98 row of a file as {test: (rate text, cpu text, latency text)}."""
    out = []
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split(",")
            if fields[0] != "1.98":
                continue
            tests = {}
            for i, t in enumerate(IO_TESTS):
                tests[t] = (fields[9 + 2 * i], fields[10 + 2 * i], fields[38 + i])
            for i, t in enumerate(FILE_TESTS):
                tests[t] = (fields[26 + 2 * i], fields[27 + 2 * i], fields[44 + i])
            out.append(tests)
    return out


def rounds_rows(args):
    rc, out, err = run(["--csv", "rounds"] + args)
    rows, num = parse_csv(out)
    return rc, rows, num, err


def by_key(rows, num):
    """{(test base, row, metric, direction): (value, note)}; the test without
    its split ("put_block size=256m" is put_block), the row the rank of its
    round (a file name's trailing number is its round: bonnie-..._n128)."""
    rounds = sorted({int(r["round"]) for r in rows})
    got = {}
    for r in rows:
        base = r["test"].split(" ")[0]
        rank = rounds.index(int(r["round"])) + 1
        got[(base, rank, r["metric"], r["direction"])] = (num(r["value"]), r["note"])
    return got


def check_row_values(what, tests, got, rnd):
    """A bonnie++ row's tests against what the analyzer made of them."""
    for t, (rate, cpu, lat) in tests.items():
        d, metric = PLACE[t]
        key = (t, rnd, metric, d)
        if rate == "":
            check(not any(k[0] == t and k[1] == rnd for k in got),
                  f"{what} {t}: not run, so no run at all")
            continue
        if rate == "+++++":
            v, note = got.get(key, (0, ""))
            check(v is None and note.startswith("too fast to measure (bonnie++ +++++)"),
                  f"{what} {t}: +++++ is too fast, no value: {got.get(key)}")
        else:
            want = float(rate) / 1024 if metric == "bw" else float(rate)
            close(got.get(key, (None,))[0], want, 5e-4, f"{what} {t} {metric}")
        cpu_got = got.get((t, rnd, "cpu", d))
        if cpu in ("", "+++"):
            check(cpu_got is None or cpu_got[0] is None, f"{what} {t}: no CPU: {cpu_got}")
        else:
            close(cpu_got and cpu_got[0], float(cpu), 1e-9, f"{what} {t} CPU %")
        if lat:
            close(got.get((t, rnd, "lat_max", d), (None,))[0], latency_us(lat), 5e-4,
                  f"{what} {t}: latency is the slowest operation, lat_max")


def check_real():
    """Every real 2.00a sample: the values bonnie++ printed."""
    for name in sorted(os.listdir(REAL)):
        if not name.endswith((".csv", "_stdout.txt")):
            continue
        path = os.path.join(REAL, name)
        rows = rows_1_98(path)
        rc, out_rows, num, err = rounds_rows([path])
        check(rc == 0, f"{name}: exit {rc} {err}")
        got = by_key(out_rows, num)
        for i, tests in enumerate(rows, 1):
            check_row_values(f"{name} row {i}", tests, got, i)
        check(not any(v[0] == 0 for v in got.values()), f"{name}: no zero anywhere")
    # The text tables beside the CSV are skipped, not rejected; the rows of
    # -x 2 (one seed) are rounds 1 and 2.
    rc, out, err = run(["--csv", "summary", "--verbose", REAL])
    sk = rejects(err)
    check(rc == 0 and sk.get("bonnie-2.00a_q_s256_n1.stderr.txt") ==
          "skipped: bonnie++'s text table, not its CSV rows", f"text tables skipped: {rc} {sk}")
    rows, num = parse_csv(out)
    hdr = [r for r in rows if r["state"] == "q_x2_header" and r["metric"] == "lat_max" and
           r["test"].startswith("put_block")]
    check(len(hdr) == 1 and hdr[0]["n"] == "2" and num(hdr[0]["median"]) == (15458 + 250) / 2,
          f"-x 2: two rounds of one file: {hdr}")
    tf = [r for r in rows if r["state"] == "q_x2_header" and r["metric"] == "bw" and
          r["test"].startswith("put_block")]
    check(len(tf) == 1 and tf[0]["n"] == "0" and tf[0]["too_fast"] == "2" and
          num(tf[0]["too_fast_above"]) == 256.0 and tf[0]["median"] == "",
          f"+++++ twice: counted, above 128 MiB / 0.5 s, no median: {tf}")
    # Named on the command line, a text table is bonnie++'s without a row.
    rc, out, err = run(["--csv", "summary", REAL + "/bonnie-2.00a_q_s256_n1.stderr.txt"])
    check(rc == 2 and "rejected " + REAL + "/bonnie-2.00a_q_s256_n1.stderr.txt: not "
          "bonnie++ output: bonnie++'s text table, but no CSV row" in err,
          f"a text table named: {rc} {err}")


def check_handmade():
    """The older releases' rows (made by make-fixtures.py from their source)."""
    rc, out, err = run(["--csv", "rounds", "--pattern", "bonnie-{state}.csv", HAND])
    rows, num = parse_csv(out)
    check(rc == 0, f"handmade: exit {rc} {err}")
    # several names in one file: each is a variant
    got = {(r["variant"], r["state"], r["test"].split(" ")[0], r["metric"], int(r["round"])):
           num(r["value"]) for r in rows}
    # 1.97's slow-zvol: 6912 K/sec, seeks 456.7, latencies in ms and s
    close(got.get(("slow-zvol", "1.97_x3", "put_block", "bw", 1)), 6912 / 1024, 5e-4,
          "1.97 put_block")
    close(got.get(("slow-zvol", "1.97_x3", "seeks", "iops", 1)), 456.7, 5e-4,
          "1.97 seeks %.1f")
    close(got.get(("slow-zvol", "1.97_x3", "rewrite", "lat_max", 1)), 101e6, 1e-3,
          "1.97 rewrite latency 101s")
    close(got.get(("slow-zvol", "1.97_x3", "put_block", "lat_max", 1)), 2317e3, 1e-3,
          "1.97 put_block latency 2317ms")
    # 1.0x: no latency, seeks %.1f, the file tests
    close(got.get(("gen-4g", "1.03e_x3", "seeks", "iops", 1)), 4724.0, 5e-4,
          "1.03e seeks")
    close(got.get(("gen-4g", "1.03e_x3", "seq_create", "files", 1)), 50980, 5e-4,
          "1.03e files/s")
    check(("gen-4g", "1.03e_x3", "put_block", "lat_max", 1) not in got or
          got[("gen-4g", "1.03e_x3", "put_block", "lat_max", 1)] is None,
          "1.0x prints no latency")
    # 1.00's CPU beside +++++ is no rate: the rate is too fast all the same
    tf = [r for r in rows if r["variant"] == "gen-4g" and r["state"] == "1.00" and
          r["test"].startswith("get_block") and r["metric"] == "bw"]
    check(len(tf) == 1 and tf[0]["value"] == "" and "above 4096.000 MiB/s" in tf[0]["note"],
          f"1.00: +++++ below 1 s, so above 4096 MiB/s: {tf}")
    check("each name is a variant" in err, f"names as variants, said: {err}")


def main():
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix="test-analyze-bonnie-", dir=base)
    try:
        check_real()
        check_handmade()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
