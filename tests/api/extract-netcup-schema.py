#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/api/netcup-schema.json: the operations of netcup's SCP REST
API that fiocamp-run and the fake SCP server (tests/fake-scp) know, taken
from netcup's own OpenAPI document (paths, methods, parameters, request
bodies and the answers' schemas, with every $ref resolved), plus the two
Keycloak endpoints of the login, which the OpenAPI document names only as
its openIdConnect scheme.

usage: extract-netcup-schema.py OPENAPI_JSON --source TEXT [-o OUT]

A path fiocamp-run starts to call must be added to CALLS below and the file
made again.
"""

import argparse
import json
import sys

# Every (path below the server URL, method) the provider or the fake handles.
CALLS = [
    ("/api/ping", "get"),
    ("/api/v1/servers", "get"),
    ("/api/v1/servers/{serverId}", "get"),
    ("/api/v1/servers/{serverId}", "patch"),
    ("/api/v1/servers/{serverId}/disks", "get"),
    ("/api/v1/servers/{serverId}/snapshots", "get"),
    ("/api/v1/servers/{serverId}/snapshots", "post"),
    ("/api/v1/servers/{serverId}/snapshots:dryrun", "post"),
    ("/api/v1/servers/{serverId}/snapshots/{name}", "get"),
    ("/api/v1/servers/{serverId}/snapshots/{name}", "delete"),
    ("/api/v1/servers/{serverId}/snapshots/{name}/revert", "post"),
    ("/api/v1/tasks", "get"),
    ("/api/v1/tasks/{uuid}", "get"),
]

KEEP = ("type", "format", "enum", "pattern", "minimum", "maximum", "minLength", "maxLength",
        "nullable", "required", "minItems", "maxItems", "additionalProperties", "readOnly",
        "writeOnly", "default")

# The login: OAuth 2.0 over Keycloak (RFC 6749 section 6, RFC 8628 section
# 3.1 and 3.4), form-encoded, as netcup-scp-api.md section 1 has it.
OAUTH = {
    "/realms/scp/protocol/openid-connect/token": {
        "post": {
            "content_type": "application/x-www-form-urlencoded",
            "grants": {
                "refresh_token": {"required": ["grant_type", "client_id", "refresh_token"],
                                  "optional": ["scope"]},
                "urn:ietf:params:oauth:grant-type:device_code": {
                    "required": ["grant_type", "client_id", "device_code"], "optional": []},
            },
            "client_id": "scp",
            "error": {"type": "object", "required": ["error"],
                      "properties": {"error": {"type": "string"},
                                     "error_description": {"type": "string"}}},
        }
    },
    "/realms/scp/protocol/openid-connect/auth/device": {
        "post": {
            "content_type": "application/x-www-form-urlencoded",
            "form": {"required": ["client_id"], "optional": ["scope"]},
            "client_id": "scp",
            "error": {"type": "object", "required": ["error"],
                      "properties": {"error": {"type": "string"},
                                     "error_description": {"type": "string"}}},
        }
    },
}


def resolve(doc, node, seen=()):
    if isinstance(node, list):
        return [resolve(doc, x, seen) for x in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = node["$ref"]
        if ref in seen:
            return {"$recursive": ref}
        target = doc
        for part in ref.lstrip("#/").split("/"):
            target = target[part]
        out = resolve(doc, target, seen + (ref,))
        out = dict(out)
        out["x-name"] = ref.rsplit("/", 1)[1]
        return out
    out = {}
    for k, v in node.items():
        if k in KEEP:
            out[k] = v
        elif k in ("properties",):
            out[k] = {name: resolve(doc, s, seen) for name, s in v.items()}
        elif k in ("items", "oneOf", "anyOf", "allOf", "not"):
            out[k] = resolve(doc, v, seen)
        elif k == "additionalProperties" and isinstance(v, dict):
            out[k] = resolve(doc, v, seen)
    return out


def operation(doc, path_item, op):
    params = list(path_item.get("parameters", [])) + list(op.get("parameters", []))
    out = {"parameters": []}
    for p in params:
        p = resolve(doc, p) if "$ref" in p else p
        out["parameters"].append({"name": p["name"], "in": p["in"],
                                  "required": bool(p.get("required", False)),
                                  "schema": resolve(doc, p.get("schema", {}))})
    rb = op.get("requestBody")
    if rb:
        out["requestBody"] = {"required": bool(rb.get("required", False)),
                              "content": {ct: resolve(doc, c.get("schema", {}))
                                          for ct, c in rb.get("content", {}).items()}}
    out["responses"] = {}
    for status, r in op.get("responses", {}).items():
        content = {ct: resolve(doc, c.get("schema", {})) for ct, c in r.get("content", {}).items()}
        schemas = list(content.values())
        # json and hal+json carry the same schema: kept once
        out["responses"][status] = {"content_types": sorted(content),
                                    "schema": schemas[0] if schemas else None}
        if any(s != schemas[0] for s in schemas):
            out["responses"][status]["schemas"] = content
    if op.get("description"):
        # the one rule only said in words ("Only one attribute at a time.")
        out["description"] = op["description"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("openapi")
    ap.add_argument("--source", required=True,
                    help="where the OpenAPI document is from (repository, commit, path)")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    doc = json.load(open(a.openapi, encoding="utf-8"))
    schema = {
        "source": {"document": a.source, "openapi": doc.get("openapi"),
                   "version": doc.get("info", {}).get("version"),
                   "servers": [s.get("url") for s in doc.get("servers", [])],
                   "oauth": "netcup-scp-api.md section 1 (RFC 6749 section 6, RFC 8628)"},
        "made_by": "tests/api/extract-netcup-schema.py",
        "paths": {},
        "oauth": OAUTH,
    }
    missing = []
    for path, method in CALLS:
        item = doc["paths"].get(path)
        if not item or method not in item:
            missing.append("%s %s" % (method.upper(), path))
            continue
        schema["paths"].setdefault(path, {})[method.upper()] = operation(doc, item, item[method])
    if missing:
        sys.exit("not in %s: %s" % (a.openapi, ", ".join(missing)))
    text = json.dumps(schema, indent=1) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
