# SPDX-License-Identifier: MIT
"""What the end-to-end tests of fiocamp-analyze share: checks that count and
go on (tests/harness.py's), running the program, running parts of a test at
once, and reading its CSV."""

import concurrent.futures
import csv
import io
import os
import subprocess
import threading
import traceback

from harness import check, summary  # noqa: F401 (the tests take them from here)

ANALYZE = None


def setup(binary):
    global ANALYZE
    ANALYZE = os.path.abspath(binary)


def at_once(*calls, workers=10):
    """Runs the calls (functions of no arguments) at the same time, at most
    `workers` of them, and waits for them all; returns their results in
    order.  A test's parts wait for time_based fio runs (about 0.3 s of CPU
    in a 1 s run) far more than they use a core, and each part has files of
    its own.  A call that raises is a failed check (its result None)."""
    def guarded(call):
        try:
            return call()
        except Exception:
            check(False, f"{getattr(call, '__name__', call)} raised:\n{traceback.format_exc()}")
            return None
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(guarded, calls))


FIO_SLOTS = threading.BoundedSemaphore(6)  # fio runs of a test at the same time


def run_fio(cmd, **kw):
    """subprocess.run(cmd) for a fio command line (check=True, output
    captured unless kw says otherwise), in one of FIO_SLOTS: parts run at
    once never start more than 6 fio runs together on a shared machine."""
    kw.setdefault("check", True)
    kw.setdefault("capture_output", True)
    with FIO_SLOTS:
        return subprocess.run(cmd, **kw)


def close(got, want, tol, what):
    ok = got is not None and want is not None and abs(got - want) <= tol
    check(ok, f"{what}: got {got!r}, want {want!r} (tolerance {tol})")


def run(args, cwd=None, env=None, raw=False):
    """Runs fiocamp-analyze without the caller's $COLUMNS (unless env sets
    it): exit status, stdout, stderr (bytes with raw)."""
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    e.update(env or {})
    p = subprocess.run([ANALYZE] + args, cwd=cwd, capture_output=True, timeout=120, env=e)
    if raw:
        return p.returncode, p.stdout, p.stderr
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def unwrap(text):
    """The table's notes and legend as single lines (they wrap at --width)."""
    return text.replace("\n      ", " ").replace("\n         ", " ")


def drop_column(csv_text, name):
    """CSV text without one column (the variant, which names the input)."""
    rows = list(csv.reader(io.StringIO(csv_text, newline="")))
    if not rows or name not in rows[0]:
        return csv_text
    k = rows[0].index(name)
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\r\n").writerows([r[:k] + r[k + 1:] for r in rows])
    return out.getvalue()


def parse_csv(text, sep=",", decimal="."):
    """Rows as dicts, and a function reading a number of the dialect."""
    check(text.endswith("\r\n"), "CSV lines end with CRLF (RFC 4180)")
    rows = list(csv.DictReader(io.StringIO(text, newline=""), delimiter=sep))

    def num(s):
        if s == "":
            return None
        if decimal == ",":
            check("." not in s, f"no '.' in a German-dialect number: {s!r}")
            s = s.replace(",", ".")
        return float(s)

    return rows, num


def rejects(err):
    """{file name: "rejected: why" or "skipped: why"} from stderr."""
    out = {}
    for line in err.splitlines():
        for what in ("rejected", "skipped"):
            head = f"fiocamp-analyze: {what} "
            if line.startswith(head):
                path, _, why = line[len(head):].partition(": ")
                out[os.path.basename(path)] = what + ": " + why
    return out
