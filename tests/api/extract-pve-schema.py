#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/api/proxmox-schema.json: the interface facts (paths,
methods, parameter names, types, formats, patterns, enums, limits, whether
optional, and the shape of what comes back) of the Proxmox VE API calls
that fiocamp-run and the fake node (tests/fake-pve) know, taken from the
schema Proxmox publishes with its documentation: api-viewer/apidata.js in
the proxmox/pve-docs repository.

usage: extract-pve-schema.py APIDATA_JS --commit ID [--version V] [-o OUT]

Only names and types are kept: no description text.  A path fiocamp-run
starts to call must be added to CALLS below and the file made again.
"""

import argparse
import json
import sys

# Every (path template, method) the provider or the fake node handles.
CALLS = [
    ("/version", "GET"),
    ("/nodes", "GET"),
    ("/nodes/{node}/version", "GET"),
    ("/nodes/{node}/status", "GET"),
    ("/nodes/{node}/certificates/info", "GET"),
    ("/cluster/resources", "GET"),
    ("/cluster/ha/resources", "GET"),
    ("/access/permissions", "GET"),
    ("/nodes/{node}/qemu", "GET"),
    ("/nodes/{node}/qemu", "POST"),
    ("/nodes/{node}/qemu/{vmid}/status/current", "GET"),
    ("/nodes/{node}/qemu/{vmid}/config", "GET"),
    ("/nodes/{node}/qemu/{vmid}/status/start", "POST"),
    ("/nodes/{node}/qemu/{vmid}/status/stop", "POST"),
    ("/nodes/{node}/qemu/{vmid}/status/shutdown", "POST"),
    ("/nodes/{node}/qemu/{vmid}/status/reboot", "POST"),
    ("/nodes/{node}/qemu/{vmid}/status/reset", "POST"),
    ("/nodes/{node}/qemu/{vmid}/status/suspend", "POST"),
    ("/nodes/{node}/qemu/{vmid}/status/resume", "POST"),
    ("/nodes/{node}/qemu/{vmid}/snapshot", "GET"),
    ("/nodes/{node}/qemu/{vmid}/snapshot", "POST"),
    ("/nodes/{node}/qemu/{vmid}/snapshot/{snapname}", "GET"),
    ("/nodes/{node}/qemu/{vmid}/snapshot/{snapname}", "DELETE"),
    ("/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config", "GET"),
    ("/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback", "POST"),
    ("/nodes/{node}/vzdump", "POST"),
    ("/nodes/{node}/storage", "GET"),
    ("/nodes/{node}/storage/{storage}/content", "GET"),
    ("/nodes/{node}/storage/{storage}/content/{volume}", "DELETE"),
    ("/nodes/{node}/tasks", "GET"),
    ("/nodes/{node}/tasks/{upid}", "DELETE"),
    ("/nodes/{node}/tasks/{upid}/status", "GET"),
    ("/nodes/{node}/tasks/{upid}/log", "GET"),
]

# What a parameter's entry keeps (JSONSchema.pm's checks and the flags
# around them); descriptions and renderers are left out.
PARAM_KEYS = ("type", "format", "pattern", "enum", "optional", "minimum", "maximum",
              "minLength", "maxLength", "default", "alias", "requires", "format_description")
RETURN_KEYS = ("type", "format", "enum", "optional", "pattern")


def load(path):
    text = open(path, encoding="utf-8").read()
    # "const apiSchema = [ ... ];": the array is JSON
    start, end = text.index("["), text.rindex("]")
    return json.loads(text[start:end + 1])


def index(nodes, out):
    for n in nodes:
        out[n["path"]] = n
        index(n.get("children", []), out)
    return out


def reduce_format(f):
    if isinstance(f, dict):  # a property string: its keys and their types
        return {"property-string": {k: reduce_param(v) for k, v in sorted(f.items())}}
    return f


def reduce_param(p):
    out = {}
    for k in PARAM_KEYS:
        if k in p and k != "format_description":
            out[k] = reduce_format(p[k]) if k == "format" else p[k]
    for k in ("items",):
        if k in p:
            out[k] = reduce_param(p[k])
    return out


def reduce_returns(r, depth=0):
    if not isinstance(r, dict):
        return r
    out = {k: r[k] for k in RETURN_KEYS if k in r}
    if depth < 3 and isinstance(r.get("properties"), dict):
        out["properties"] = {k: reduce_returns(v, depth + 1)
                             for k, v in sorted(r["properties"].items())}
    if depth < 3 and isinstance(r.get("items"), dict):
        out["items"] = reduce_returns(r["items"], depth + 1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("apidata")
    ap.add_argument("--commit", required=True, help="the pve-docs commit the file is from")
    ap.add_argument("--version", default=None, help="the pve-docs version at that commit")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    paths = index(load(a.apidata), {})
    schema = {
        "source": {
            "repository": "https://github.com/proxmox/pve-docs",
            "commit": a.commit,
            "version": a.version,
            "file": "api-viewer/apidata.js",
            "note": "interface facts only (names, types, formats, limits); no text of it",
        },
        "made_by": "tests/api/extract-pve-schema.py",
        "paths": {},
    }
    missing = []
    for path, method in CALLS:
        info = paths.get(path, {}).get("info", {}).get(method)
        if info is None:
            missing.append("%s %s" % (method, path))
            continue
        params = info.get("parameters", {})
        entry = {
            "parameters": {k: reduce_param(v)
                           for k, v in sorted(params.get("properties", {}).items())},
            "additionalProperties": bool(params.get("additionalProperties", 1)),
            "returns": reduce_returns(info.get("returns", {})),
        }
        for k in ("allowtoken", "protected", "proxyto", "download"):
            if k in info:
                entry[k] = info[k]
        schema["paths"].setdefault(path, {})[method] = entry
    if missing:
        sys.exit("not in %s: %s" % (a.apidata, ", ".join(missing)))
    text = json.dumps(schema, indent=1, sort_keys=False) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
