#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Holds the fake Proxmox VE node's route table (tests/fake-pve) against
proxmox-schema.json: every route a published path and method, every
parameter the fake takes documented there with the same type, optional
flag, enum and limits.  Path parameters are left out (a path always has
them).  Documented parameters the fake does not model are listed, not
refused: the fake answers them 400, which fiocamp-run never meets as long
as its own requests hold (check-requests.py).

usage: check-fake-routes.py FAKE_PVE_PY
"""

import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIMITS = ("enum", "maxLength", "minimum", "maximum")


def load_fake(path):
    spec = importlib.util.spec_from_file_location("fake_pve", path)
    mod = importlib.util.module_from_spec(spec)
    argv, sys.argv = sys.argv, [path]
    try:
        spec.loader.exec_module(mod)  # the route table is built at import
    finally:
        sys.argv = argv
    return mod


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    fake = load_fake(sys.argv[1])
    with open(os.path.join(HERE, "proxmox-schema.json"), encoding="utf-8") as f:
        paths = json.load(f)["paths"]
    problems, unmodelled = [], 0
    for r in fake.R:
        what = "%s %s" % (r["method"], r["pattern"])
        pub = paths.get(r["pattern"], {}).get(r["method"])
        if pub is None:
            problems.append("%s: not in proxmox-schema.json" % what)
            continue
        doc = pub["parameters"]
        in_path = set(re.findall(r"\{(\w+)\}", r["pattern"]))
        for k, s in sorted(r["schema"].items()):
            if k in in_path:
                continue
            q = doc.get(k)
            if q is None:
                problems.append("%s: the fake takes %s, which is not documented" % (what, k))
                continue
            diffs = []
            if bool(s.get("optional")) != bool(q.get("optional")):
                diffs.append("optional: fake %s, schema %s" % (
                    bool(s.get("optional")), bool(q.get("optional"))))
            if s["type"] != q.get("type", "string"):
                diffs.append("type: fake %s, schema %s" % (s["type"], q.get("type")))
            for key in LIMITS:
                a, b = s.get(key), q.get(key)
                if key == "enum" and a is not None and b is not None:
                    a, b = sorted(map(str, a)), sorted(map(str, b))
                elif key != "enum" and a is not None and b is not None:
                    a, b = float(a), float(b)  # apidata.js has "minimum": "0" too
                if a != b:
                    diffs.append("%s: fake %s, schema %s" % (key, a, b))
            if diffs:
                problems.append("%s: %s: %s" % (what, k, "; ".join(diffs)))
        missing = sorted(k for k in doc if k not in r["schema"] and k not in in_path)
        if missing:
            unmodelled += len(missing)
            print("not modelled by the fake: %s: %s" % (what, " ".join(missing)))
    for p in problems:
        print("FAIL: " + p)
    print("%d routes of the fake, %d differences from the schema, %d documented "
          "parameters not modelled" % (len(fake.R), len(problems), unmodelled))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
