#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Holds every request a fake provider API recorded (FAKE_API_RECORD) against
the vendor's published schema, and every answer the fake gave against the
answers that schema and the references document.

usage: check-requests.py [--operations] RECORD...
       check-requests.py --self-test

A record is JSON lines as tests/fake-pve and tests/fake-scp write them
("api": "pve" or "netcup").  Proxmox VE requests are held against
proxmox-schema.json (from pve-docs' api-viewer/apidata.js), netcup's
against netcup-schema.json (from netcup's OpenAPI document); both sit
beside this script and say where they come from.

For each request: the path is a documented path template and the method
one of its methods; every parameter sent (query, form or JSON body, and
the path's own) is documented, of its type, format, pattern, enum and
limits; every required one is there; the body is encoded as the API takes
it (Proxmox: form or JSON, and none on GET and DELETE; netcup: the
documented content type and the request body's schema, one attribute per
PATCH); the credential is sent.  For each answer: the envelope and error
shapes (Proxmox: {"data": ...} and {"data": null, "message": ...,
"errors": {...}} with the message's first line as the reason phrase;
netcup: the documented response schema, ResponseError for the codes the
spec leaves out, OAuth's {"error": ...}).

Prints one line per finding (RECORD:LINE: METHOD PATH: what), with
--operations the number of requests per method and path template, and a
count per API; exits 1 if there is a finding, 2 if a record holds no request.
"""

import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- Proxmox VE -------------------------------------------------------------------

PVE_API = "/api2/json"

# The formats of JSONSchema.pm (pve-common) and pve-storage that the calls in
# proxmox-schema.json use for what fiocamp-run sends: name -> check(value)
# returning an error text or None.  A parameter of a format not here is a
# finding: the checker must learn it before it can say the value is right.
NODE_RE = re.compile(r"^[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?$")
VMID_RE = re.compile(r"^[1-9][0-9]{2,8}$")
CONFIGID_RE = re.compile(r"^[a-z][a-z0-9_-]+$", re.I)
STORAGE_ID_RE = re.compile(r"^[a-z][a-z0-9\-_.]*[a-z0-9]$", re.I)
STORAGE_CONTENT = {"images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import"}
TASK_STATUS_RE = re.compile(r"^(ok|error|warning|unknown)$", re.I)


def _re_format(rx, what):
    return lambda v: None if rx.match(v) else "'%s' is not a valid %s" % (v, what)


PVE_FORMATS = {
    "pve-node": _re_format(NODE_RE, "node name"),
    "pve-vmid": _re_format(VMID_RE, "VM ID"),
    "pve-configid": _re_format(CONFIGID_RE, "configuration ID"),
    "pve-storage-id": lambda v: (None if len(v) >= 2 and STORAGE_ID_RE.match(v)
                                 else "'%s' is not a valid storage ID" % v),
    "pve-storage-content": lambda v: (None if v in STORAGE_CONTENT
                                      else "invalid content type '%s'" % v),
    "pve-task-status-type": _re_format(TASK_STATUS_RE, "task status type"),
}


def split_list(v):
    # ParseUtils.pm split_list
    if "\0" in v:
        return v.split("\0")
    return re.sub(r"[,;]", " ", v).split()


def pve_format(fmt, v):
    if isinstance(fmt, dict):
        return "a property string: the checker does not read those"
    m = re.match(r"^(.*?)(?:-(list|opt))?$", fmt)
    name, kind = m.group(1), m.group(2)
    check = PVE_FORMATS.get(name if kind else fmt) or PVE_FORMATS.get(fmt)
    if check is None:
        return "format '%s' is not known to the checker" % fmt
    if kind == "list":
        for item in split_list(v):
            e = check(item)
            if e:
                return e
        return None
    if kind == "opt" and not v:
        return None
    return check(v)


def perl_pattern(p):
    # a Perl qr// as apidata.js prints it: (?^:...) is (?:...); matched whole
    return re.compile("^(?:" + p.replace("(?^:", "(?:") + ")$")


def pve_value(v, spec, is_json):
    """JSONSchema.pm check_type and check_prop for one parameter: an error or None."""
    t = spec.get("type", "string")
    if isinstance(v, (list, dict)):
        if t == "array" or (t == "string" and isinstance(v, list) and "-list" in
                            str(spec.get("format", ""))):
            return None
        return "type check ('%s') failed - got %s" % (t, type(v).__name__)
    if isinstance(v, bool):
        return None if t == "boolean" else "type check ('%s') failed - got a JSON boolean" % t
    if isinstance(v, (int, float)):
        if not is_json:
            return "internal: a number in a form"
        if t == "string":
            return "type check ('string') failed - got a JSON number"
        v = str(int(v)) if float(v) == int(v) else str(v)
    if v is None:
        return None
    if t == "boolean" and v not in ("0", "1"):
        return "type check ('boolean') failed - got '%s' (a form boolean is 0 or 1)" % v
    if t == "integer" and not re.match(r"^[+-]?\d+$", v):
        return "type check ('integer') failed - got '%s'" % v
    if t == "number" and not re.match(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$", v):
        return "type check ('number') failed - got '%s'" % v
    if "format" in spec:
        e = pve_format(spec["format"], v)
        if e:
            return "invalid format - %s" % e
    if "pattern" in spec and not perl_pattern(spec["pattern"]).match(v):
        return "value does not match the regex pattern %s" % spec["pattern"]
    if "maxLength" in spec and len(v) > spec["maxLength"]:
        return "value may only be %d characters long" % spec["maxLength"]
    if "minLength" in spec and len(v) < spec["minLength"]:
        return "value must be at least %d characters long" % spec["minLength"]
    if t in ("integer", "number"):
        n = float(v)
        # apidata.js has some limits as strings ("minimum": "0")
        if "minimum" in spec and n < float(spec["minimum"]):
            return "value must have a minimum value of %s" % spec["minimum"]
        if "maximum" in spec and n > float(spec["maximum"]):
            return "value must have a maximum value of %s" % spec["maximum"]
    if "enum" in spec and v not in [str(x) for x in spec["enum"]]:
        return "value %s does not have a value in the enumeration '%s'" % (
            short(v), ", ".join(str(x) for x in spec["enum"]))
    return None


def decode_urlencoded(data):
    # AnyEvent.pm decode_urlencoded: pairs split on & and ;, a repeated key
    # becomes a list, a key without '=' is undef
    res = {}
    for kv in re.split(r"[&;]", data or ""):
        if not kv:
            continue
        parts = kv.split("=")
        k = urllib.parse.unquote_plus(parts[0])
        v = urllib.parse.unquote_plus(parts[1]) if len(parts) > 1 else None
        if k in res and res[k] is not None and v is not None:
            old = res[k]
            v = (old if isinstance(old, list) else [old]) + [v]
        res[k] = v
    return res


def template_rx(template):
    return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)",
                                   re.escape(template)) + "$")


def match_template(paths, path):
    """(template, {param: value}) for an unescaped relative path, or (None, None)."""
    # pve-storage Content.pm: the rest of a content path is the volume, '/'s and all
    m = re.match(r"^(/nodes/[^/]+/storage/[^/]+/content/)(.+)$", path)
    if m and "/" in m.group(2):
        path = m.group(1) + m.group(2).replace("/", "\0")
    for template in paths:
        mm = template_rx(template).match(path)
        if mm:
            return template, {k: v.replace("\0", "/") for k, v in mm.groupdict().items()}
    return None, None


def param_spec(params, name):
    if name in params:
        return params[name]
    for k, spec in params.items():  # net[n] is net0, net1, ...
        if k.endswith("[n]") and re.match("^" + re.escape(k[:-3]) + r"\d+$", name):
            return spec
    return None


def short(v, n=60):
    t = repr(v)
    return t if len(t) <= n else t[:n] + "...(%d characters)" % len(t)


class Findings:
    def __init__(self):
        self.items = []

    def add(self, where, rec, text):
        self.items.append("%s: %s %s: %s" % (where, rec.get("method"), rec.get("path"), text))


def check_pve_request(schema, rec, where, out):
    method = rec.get("method", "")
    raw = rec.get("path", "")
    path = urllib.parse.unquote(raw)
    if not (path == PVE_API or path.startswith(PVE_API + "/")):
        out.add(where, rec, "not below %s" % PVE_API)
        return None
    rel = "/" + "/".join(x for x in path[len(PVE_API):].split("/") if x)
    template, uri = match_template(schema["paths"], rel)
    if template is None:
        out.add(where, rec, "no such path in proxmox-schema.json (%s)" % rel)
        return None
    ops = schema["paths"][template]
    if method not in ops:
        out.add(where, rec, "%s has no method %s (it has %s)" % (
            template, method, ", ".join(sorted(ops))))
        return None
    op = ops[method]
    headers = rec.get("headers", {})
    auth = headers.get("authorization", "")
    if not auth.startswith("PVEAPIToken=") or "<not a token id>" in auth:
        out.add(where, rec, "no API token in the Authorization header (%s)" % (auth or "none"))
    if op.get("allowtoken") == 0:
        out.add(where, rec, "the call is not open to API tokens (allowtoken 0)")
    body = rec.get("body", "")
    ctype = (headers.get("content-type") or "").split(";")[0].strip().lower()
    is_json = False
    params = {}
    if body:
        if method not in ("POST", "PUT"):
            out.add(where, rec, "a body on %s (Proxmox answers 501 Unexpected content)" % method)
        elif ctype == "application/json":
            is_json = True
            try:
                doc = json.loads(body)
            except ValueError:
                doc = None
            if not isinstance(doc, dict):
                out.add(where, rec, "the JSON body is not an object")
            else:
                params.update(doc)
        elif ctype in ("application/x-www-form-urlencoded", ""):
            params.update(decode_urlencoded(body))
        else:
            out.add(where, rec, "body of Content-Type '%s' (Proxmox takes form or JSON)" % ctype)
    for k, v in decode_urlencoded(rec.get("query", "")).items():
        params[k] = v  # the query string over the body
    spec = op["parameters"]
    merged = dict(uri)
    for k, v in params.items():
        if k in uri and str(uri[k]) != str(v):
            out.add(where, rec, "%s: duplicate parameter (already defined in URI) with "
                    "conflicting values" % k)
        merged[k] = v
    for k, v in sorted(merged.items(), key=lambda kv: kv[0]):
        s = param_spec(spec, k)
        if s is None:
            if not op.get("additionalProperties"):
                out.add(where, rec, "%s: parameter not in the schema of %s %s" % (
                    short(k), method, template))
            continue
        if v is None:
            continue  # undef: as if absent
        e = pve_value(v, s, is_json and k not in uri)
        if e:
            out.add(where, rec, "%s=%s: %s" % (k, short(v), e))
    for k, s in spec.items():
        if not s.get("optional") and k not in merged and not k.endswith("[n]"):
            out.add(where, rec, "%s: required parameter missing" % k)
    return op


def json_type_ok(v, t):
    return {"string": isinstance(v, str),
            "integer": isinstance(v, int) and not isinstance(v, bool),
            "number": isinstance(v, (int, float)) and not isinstance(v, bool),
            "boolean": isinstance(v, bool) or v in (0, 1),
            "object": isinstance(v, dict), "array": isinstance(v, list),
            "null": v is None, "any": True}.get(t, True)


def check_pve_returns(value, spec, path, errs, depth=0):
    t = spec.get("type")
    if value is None:
        if t not in (None, "null", "any") and not spec.get("optional"):
            errs.append("%s: null, the schema says %s" % (path or "data", t))
        return
    if isinstance(t, str) and not json_type_ok(value, t):
        errs.append("%s: %s, the schema says %s" % (path or "data", type(value).__name__, t))
        return
    if isinstance(value, dict) and isinstance(spec.get("properties"), dict):
        for k, s in spec["properties"].items():
            if k in value:
                check_pve_returns(value[k], s, "%s.%s" % (path or "data", k), errs, depth + 1)
            elif not s.get("optional"):
                errs.append("%s.%s: missing, the schema does not mark it optional" % (
                    path or "data", k))
    if isinstance(value, list) and isinstance(spec.get("items"), dict):
        for i, x in enumerate(value[:50]):
            check_pve_returns(x, spec["items"], "%s[%d]" % (path or "data", i), errs, depth + 1)
    if "enum" in spec and isinstance(value, str) and value not in spec["enum"]:
        errs.append("%s: '%s' is not one of %s" % (path or "data", value, spec["enum"]))


def check_pve_reply(op, rec, where, out):
    r = rec.get("reply")
    if not r:
        return
    status, reason, ctype = r.get("status"), r.get("reason") or "", r.get("content_type") or ""
    body = r.get("body") or ""
    if not ctype.startswith("application/json"):
        if status == 200 and op is not None and not op.get("download") and \
                "download" not in decode_urlencoded(rec.get("query", "")):
            out.add(where, rec, "answer 200 of type '%s', not JSON" % ctype)
        return
    try:
        doc = json.loads(body)
    except ValueError:
        out.add(where, rec, "answer %s: its JSON body does not parse" % status)
        return
    if not isinstance(doc, dict) or "data" not in doc:
        out.add(where, rec, "answer %s: not Proxmox's {\"data\": ...} envelope" % status)
        return
    if status >= 400:
        # Formatter/Standard.pm prepare_response_data; AnyEvent.pm's reason phrase
        if doc["data"] is not None:
            out.add(where, rec, "error %s: data is not null" % status)
        if not isinstance(doc.get("message"), str):
            out.add(where, rec, "error %s: no message" % status)
        elif reason != doc["message"].split("\n")[0]:
            out.add(where, rec, "error %s: reason phrase %r is not the message's first line %r"
                    % (status, reason, doc["message"].split("\n")[0]))
        errors = doc.get("errors")
        if errors is not None and not (isinstance(errors, dict) and all(
                isinstance(v, str) for v in errors.values())):
            out.add(where, rec, "error %s: errors is not a map of parameter to message" % status)
        if status == 400 and reason == "Parameter verification failed." and not errors:
            out.add(where, rec, "error 400 of parameter verification without errors")
        extra = set(doc) - {"data", "message", "errors"}
        if extra:
            out.add(where, rec, "error %s: keys %s beside data, message, errors" % (
                status, sorted(extra)))
        return
    extra = set(doc) - {"data", "total", "changes", "success"}
    if extra:
        out.add(where, rec, "answer %s: keys %s beside data" % (status, sorted(extra)))
    if op is not None:
        errs = []
        check_pve_returns(doc["data"], op.get("returns", {}), "", errs)
        for e in errs[:5]:
            out.add(where, rec, "answer: " + e)


# ---- netcup ------------------------------------------------------------------------

def openapi_errors(v, s, path, strict, errs):
    """A small OpenAPI 3.0 schema check: type, nullable, enum, required,
    properties (strict: none beside them), items, oneOf, limits."""
    if s is None:
        return
    if "oneOf" in s:
        ok = []
        for alt in s["oneOf"]:
            e = []
            openapi_errors(v, alt, path, strict, e)
            if not e:
                ok.append(alt.get("x-name", "?"))
        if len(ok) != 1:
            errs.append("%s: matches %s of the oneOf alternatives, not exactly one" % (
                path or "body", ok or "none"))
        return
    if v is None:
        # strict (what we send): null only where the spec says nullable; in
        # answers anywhere, since the live answers the reference recorded have
        # null where the spec does not say so (finishedAt, responseError of a
        # fresh task, netcup-scp-api.md section 6)
        if strict and not s.get("nullable") and s.get("type"):
            errs.append("%s: null, not nullable" % (path or "body"))
        return
    t = s.get("type")
    if t and not json_type_ok(v, t) or (t == "boolean" and not isinstance(v, bool)):
        errs.append("%s: %s, the schema says %s" % (path or "body", type(v).__name__, t))
        return
    if "enum" in s and v not in s["enum"]:
        errs.append("%s: %r is not one of %s" % (path or "body", v, s["enum"]))
    if isinstance(v, str):
        if "maxLength" in s and len(v) > s["maxLength"]:
            errs.append("%s: longer than %d" % (path or "body", s["maxLength"]))
        if "minLength" in s and len(v) < s["minLength"]:
            errs.append("%s: shorter than %d" % (path or "body", s["minLength"]))
        if "pattern" in s and not re.search(s["pattern"], v):
            errs.append("%s: does not match %s" % (path or "body", s["pattern"]))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            errs.append("%s: below %s" % (path or "body", s["minimum"]))
        if "maximum" in s and v > s["maximum"]:
            errs.append("%s: above %s" % (path or "body", s["maximum"]))
    if isinstance(v, dict):
        props = s.get("properties", {})
        for k in s.get("required", []):
            # in answers a required key the schema does not define is the
            # spec's slip (Site requires "name" and defines id and city only;
            # the reference has site{id,city})
            if k not in v and (strict or k in props or not props):
                errs.append("%s.%s: required, missing" % (path or "body", k))
        for k, x in v.items():
            if k in props:
                openapi_errors(x, props[k], "%s.%s" % (path or "body", k), strict, errs)
            elif strict and props:
                errs.append("%s.%s: not in the schema %s" % (
                    path or "body", k, s.get("x-name", "")))
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v[:50]):
            openapi_errors(x, s["items"], "%s[%d]" % (path or "body", i), strict, errs)


def query_value(name, raw, s):
    """A query or path parameter's text against its schema: an error or None."""
    t = s.get("type")
    if t == "integer":
        if not re.match(r"^-?\d+$", raw):
            return "'%s' is not an integer" % raw
        v = int(raw)
        if s.get("format") == "int32" and not -2**31 <= v < 2**31:
            return "%d is outside int32" % v
    elif t == "boolean":
        if raw not in ("true", "false"):
            return "'%s' is not true or false" % raw
        v = raw == "true"
    else:
        v = raw
    e = []
    openapi_errors(v, s, name, True, e)
    return "; ".join(e) or None


def netcup_base(schema):
    return (schema["source"].get("servers") or [""])[0]


def check_netcup_oauth(schema, rec, where, out):
    method, path = rec.get("method"), rec.get("path")
    op = schema["oauth"][path].get(method.lower())
    if op is None:
        out.add(where, rec, "the login endpoint takes %s only" % ", ".join(
            m.upper() for m in schema["oauth"][path]))
        return
    ctype = (rec.get("headers", {}).get("content-type") or "").split(";")[0].strip().lower()
    if ctype != op["content_type"]:
        out.add(where, rec, "Content-Type '%s', not %s" % (ctype, op["content_type"]))
    form = urllib.parse.parse_qs(rec.get("body", ""), keep_blank_values=True)
    for k, v in form.items():
        if len(v) > 1:
            out.add(where, rec, "%s: sent %d times" % (k, len(v)))
    f = {k: v[0] for k, v in form.items()}
    if f.get("client_id") != op["client_id"]:
        out.add(where, rec, "client_id %r, not %r" % (f.get("client_id"), op["client_id"]))
    if "grants" in op:
        g = op["grants"].get(f.get("grant_type"))
        if g is None:
            out.add(where, rec, "grant_type %r is none of %s" % (
                f.get("grant_type"), sorted(op["grants"])))
            return
    else:
        g = op["form"]
    for k in g["required"]:
        if not f.get(k):
            out.add(where, rec, "%s: required, missing" % k)
    for k in f:
        if k not in g["required"] and k not in g["optional"]:
            out.add(where, rec, "%s: not a field of this request" % k)


def check_netcup_request(schema, rec, where, out):
    method, raw = rec.get("method", ""), rec.get("path", "")
    headers = rec.get("headers", {})
    if raw in schema["oauth"]:
        check_netcup_oauth(schema, rec, where, out)
        return None, None
    base = netcup_base(schema)
    if not raw.startswith(base + "/"):
        out.add(where, rec, "neither below %s nor a login endpoint" % base)
        return None, None
    rel = raw[len(base):]
    template = uri = None
    for t in schema["paths"]:
        m = template_rx(t).match(rel)
        if m:
            template, uri = t, {k: urllib.parse.unquote(v) for k, v in m.groupdict().items()}
            break
    if template is None:
        out.add(where, rec, "no such path in netcup-schema.json (%s)" % rel)
        return None, None
    ops = schema["paths"][template]
    if method not in ops:
        out.add(where, rec, "%s has no method %s (it has %s)" % (
            template, method, ", ".join(sorted(ops))))
        return None, None
    op = ops[method]
    params = {(p["in"], p["name"]): p for p in op["parameters"]}
    for name, v in uri.items():
        p = params.get(("path", name))
        e = query_value(name, v, p["schema"]) if p else "not a path parameter"
        if e:
            out.add(where, rec, "path parameter %s: %s" % (name, e))
    query = urllib.parse.parse_qs(rec.get("query", ""), keep_blank_values=True)
    for name, vals in query.items():
        p = params.get(("query", name))
        if p is None:
            out.add(where, rec, "query parameter %s: not in the schema of %s %s" % (
                name, method, template))
            continue
        for v in vals:
            e = query_value(name, v, p["schema"])
            if e:
                out.add(where, rec, "query parameter %s: %s" % (name, e))
    for (where_in, name), p in params.items():
        if p["required"] and where_in == "query" and name not in query:
            out.add(where, rec, "query parameter %s: required, missing" % name)
    if rel.startswith("/api/v1/"):
        auth = headers.get("authorization", "")
        if not auth.startswith("Bearer "):
            out.add(where, rec, "no Bearer token in the Authorization header")
    accept = headers.get("accept", "*/*")
    types = set()
    for r in op["responses"].values():
        types.update(r.get("content_types", []))
    if types and "*/*" not in accept and not any(t in accept for t in types):
        out.add(where, rec, "Accept '%s' takes none of %s" % (accept, sorted(types)))
    body = rec.get("body", "")
    ctype = (headers.get("content-type") or "").split(";")[0].strip().lower()
    rb = op.get("requestBody")
    if rb is None:
        if body:
            out.add(where, rec, "a body, but the operation takes none")
        # netcup-scp-api.md section 2: a Content-Type on every write, even bodiless
        if method in ("POST", "PUT", "PATCH") and not ctype:
            out.add(where, rec, "no Content-Type on a %s (netcup answers 400 "
                    "error.content.type.invalid)" % method)
        return op, template
    if ctype not in rb["content"]:
        out.add(where, rec, "Content-Type '%s', the operation takes %s" % (
            ctype, ", ".join(sorted(rb["content"]))))
        return op, template
    if not body:
        if rb.get("required"):
            out.add(where, rec, "no body, the operation requires one")
        return op, template
    try:
        doc = json.loads(body)
    except ValueError:
        out.add(where, rec, "the body is not JSON")
        return op, template
    errs = []
    openapi_errors(doc, rb["content"][ctype], "", True, errs)
    for e in errs:
        out.add(where, rec, e)
    if op.get("description") == "Only one attribute at a time." and \
            isinstance(doc, dict) and len(doc) != 1:
        out.add(where, rec, "body: %d attributes, the operation takes one at a time" % len(doc))
    # the spec says it of stateOption in words: ON takes POWERCYCLE or RESET,
    # OFF takes POWEROFF, only with a state patch
    opt = (query.get("stateOption") or [None])[0]
    if opt is not None:
        state = doc.get("state") if isinstance(doc, dict) else None
        allowed = {"ON": ("POWERCYCLE", "RESET"), "OFF": ("POWEROFF",)}.get(state, ())
        if opt not in allowed:
            out.add(where, rec, "stateOption=%s with %s (the spec: ON takes POWERCYCLE or "
                    "RESET, OFF takes POWEROFF)" % (opt, json.dumps(doc)))
    return op, template


RESPONSE_ERROR = {"type": "object", "required": ["code", "message"], "x-name": "ResponseError",
                  "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}


def check_netcup_reply(schema, op, rec, where, out):
    r = rec.get("reply")
    if not r:
        return
    status, body = r.get("status"), r.get("body")
    path = rec.get("path")
    if path in schema["oauth"]:
        # RFC 6749 section 5.2: the error answers are 400 and 401 (a 5xx is
        # whatever stands in front of Keycloak)
        if status in (400, 401):
            errs = []
            openapi_errors(body, schema["oauth"][path]["post"]["error"], "", False, errs)
            for e in errs:
                out.add(where, rec, "OAuth error %s: %s" % (status, e))
        return
    if op is None:
        return
    doc = op["responses"].get(str(status))
    if doc is None:
        # codes netcup-scp-api.md section 4 has seen but the spec leaves out
        if status == 401 or status == 406:
            if body not in (None, ""):
                out.add(where, rec, "answer %s with a body" % status)
        elif status >= 400:
            errs = []
            openapi_errors(body, RESPONSE_ERROR, "", False, errs)
            for e in errs:
                out.add(where, rec, "answer %s (not in the spec): %s" % (status, e))
        elif not (status == 200 and "202" in op["responses"]):
            out.add(where, rec, "answer %s: not a status the spec gives this operation (%s)"
                    % (status, ", ".join(sorted(op["responses"]))))
        return
    if doc.get("schema") is None:
        if body not in (None, ""):
            out.add(where, rec, "answer %s: a body, the spec gives it none" % status)
        return
    if status == 400 and isinstance(body, dict) and body.get("code") == \
            "error.content.type.invalid":
        # refused before the operation: netcup-scp-api.md section 2, not in the spec
        errs = []
        openapi_errors(body, RESPONSE_ERROR, "", True, errs)
        for e in errs:
            out.add(where, rec, "answer 400: %s" % e)
        return
    if status >= 400 and isinstance(body, dict):
        # an error object: code and message (ValidationError adds errors), nothing else
        errs = []
        shape = dict(doc["schema"], required=["message"])
        openapi_errors(body, shape, "", True, errs)
        for e in errs:
            out.add(where, rec, "answer %s: %s" % (status, e))
        return
    if r.get("content_type") and r["content_type"] not in doc["content_types"]:
        out.add(where, rec, "answer %s of type %s, the spec says %s" % (
            status, r["content_type"], doc["content_types"]))
    errs = []
    openapi_errors(body, doc["schema"], "", False, errs)
    for e in errs[:5]:
        out.add(where, rec, "answer %s: %s" % (status, e))


# ---- the records ---------------------------------------------------------------------

def load_schema(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


def operation_of(rec, pve, netcup):
    """The path template a record's request is for, or its path."""
    path = urllib.parse.unquote(rec.get("path", ""))
    if rec.get("api") == "pve":
        rel = "/" + "/".join(x for x in path[len(PVE_API):].split("/") if x)
        t, _ = match_template((pve or load_schema("proxmox-schema.json"))["paths"], rel)
        return t or path
    schema = netcup or load_schema("netcup-schema.json")
    rel = rec.get("path", "")[len(netcup_base(schema)):]
    for t in schema["paths"]:
        if template_rx(t).match(rel):
            return t
    return rec.get("path", "")


def check_records(records, pve=None, netcup=None, operations=None):
    """[(where, record)] -> (Findings, {api: count}); operations, a dict,
    gets the number of requests per API, method and path template."""
    out = Findings()
    counts = {"pve": 0, "netcup": 0, "probe": 0}
    for where, rec in records:
        api = rec.get("api")
        if operations is not None and api in ("pve", "netcup") and not rec.get("probe"):
            key = "%s %s %s" % (api, rec.get("method"), operation_of(rec, pve, netcup))
            operations[key] = operations.get(key, 0) + 1
        if api == "pve":
            pve = pve or load_schema("proxmox-schema.json")
            # a probe (a test's request, wrong on purpose): only its answer counts
            op = check_pve_request(pve, rec, where, Findings() if rec.get("probe") else out)
            check_pve_reply(op, rec, where, out)
            if rec.get("probe"):
                counts["probe"] += 1
                continue
        elif api == "netcup":
            netcup = netcup or load_schema("netcup-schema.json")
            # a probe (a test's request, wrong on purpose): only its answer counts
            op, _ = check_netcup_request(netcup, rec, where,
                                         Findings() if rec.get("probe") else out)
            check_netcup_reply(netcup, op, rec, where, out)
            if rec.get("probe"):
                counts["probe"] += 1
                continue
        else:
            out.items.append("%s: no \"api\" in the record" % where)
            continue
        counts[api] += 1
    return out, counts


def read_records(path):
    recs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                recs.append(("%s:%d" % (path, n), json.loads(line)))
    return recs


def self_test():
    """Requests that must be refused, and the ones beside them that must pass."""
    pve = load_schema("proxmox-schema.json")
    netcup = load_schema("netcup-schema.json")
    auth = {"authorization": "PVEAPIToken=root@pam!bench=<secret>"}
    form = dict(auth, **{"content-type": "application/x-www-form-urlencoded"})
    q = PVE_API + "/nodes/pve1/qemu/100"

    def p(method, path, query="", body="", headers=None, reply=None):
        r = {"api": "pve", "method": method, "path": path, "query": query, "body": body,
             "headers": headers if headers is not None else (form if body else auth)}
        if reply:
            r["reply"] = reply
        return r

    def ok_reply(data):
        return {"status": 200, "reason": "OK", "content_type": "application/json;charset=UTF-8",
                "body": json.dumps({"data": data})}

    bearer = {"authorization": "Bearer <access-1>", "accept": "application/json"}
    mp = dict(bearer, **{"content-type": "application/merge-patch+json"})
    js = dict(bearer, **{"content-type": "application/json"})
    srv = "/scp-core/api/v1/servers/111007"

    def n(method, path, query="", body="", headers=None, reply=None):
        r = {"api": "netcup", "method": method, "path": path, "query": query, "body": body,
             "headers": headers if headers is not None else bearer}
        if reply:
            r["reply"] = reply
        return r

    upid = "UPID:pve1:00001234:00005678:65000000:qmsnapshot:100:root@pam!bench:"
    task = {"uuid": "u", "name": "ServerStateChangeTask", "state": "PENDING",
            "startedAt": "2026-01-01T00:00:00Z", "finishedAt": None, "message": None,
            "taskProgress": {"expectedFinishedAt": "2026-01-01T00:00:01Z",
                             "progressInPercent": 0.0}}
    good = [
        p("GET", q + "/status/current",
          reply=ok_reply({"status": "running", "vmid": 100, "ha": {"managed": 0}})),
        p("POST", q + "/snapshot", body="snapname=grenzlast-1&description=fiocamp&vmstate=1",
          reply=ok_reply(upid)),
        p("POST", q + "/snapshot", body='{"snapname":"s1","vmstate":true}',
          headers=dict(auth, **{"content-type": "application/json"})),
        p("DELETE", q + "/snapshot/grenzlast-1"),
        p("POST", q + "/snapshot/grenzlast-1/rollback", body="start=0"),
        p("POST", q + "/status/stop", body=""),
        p("GET", PVE_API + "/nodes/pve1/tasks",
          "vmid=100&typefilter=qmrollback&source=all&limit=50"),
        p("GET", PVE_API + "/nodes/pve1/tasks/" + urllib.parse.quote(upid, safe="") + "/log",
          "start=0&limit=500"),
        p("POST", PVE_API + "/nodes/pve1/vzdump",
          body="vmid=100&storage=local&mode=snapshot&compress=zstd&remove=0"),
        p("POST", PVE_API + "/nodes/pve1/qemu",
          body="vmid=100&archive=local%3Abackup%2Fvzdump-qemu-100.vma.zst&force=1"),
        p("GET", PVE_API + "/nodes/pve1/storage/local/content", "content=backup&vmid=100"),
        p("GET", q + "/snapshot", reply={
            "status": 500, "reason": "VM is locked (backup)", "content_type":
            "application/json;charset=UTF-8",
            "body": json.dumps({"data": None, "message": "VM is locked (backup)\n"})}),
        n("PATCH", srv, "stateOption=POWEROFF", '{"state":"OFF"}', mp, reply={
            "status": 202, "content_type": "application/json", "body": task}),
        n("PATCH", srv, "", '{"state":"ON"}', mp),
        n("POST", srv + "/snapshots", "", '{"name":"grenzlast-1","onlineSnapshot":false}', js),
        n("POST", srv + "/snapshots:dryrun", "", '{"onlineSnapshot":true}', js),
        n("POST", srv + "/snapshots/grenzlast-1/revert", "", "", js),
        n("DELETE", srv + "/snapshots/grenzlast-1"),
        n("GET", "/scp-core/api/v1/tasks", "serverId=111007&limit=20"),
        n("GET", srv, reply={"status": 409, "content_type": "application/json", "body": {
            "code": "server.lock.error", "message": "Write operation for server is currently "
            "running."}}),
        n("POST", "/realms/scp/protocol/openid-connect/token", "",
          "client_id=scp&refresh_token=<refresh>&grant_type=refresh_token",
          {"content-type": "application/x-www-form-urlencoded"}),
        # a probe: wrong on purpose, refused as Proxmox refuses it
        dict(p("POST", q + "/snapshot", body="snapname=s1&ram=1", reply={
            "status": 400, "reason": "Parameter verification failed.",
            "content_type": "application/json;charset=UTF-8",
            "body": json.dumps({"data": None, "message": "Parameter verification failed.\n",
                                "errors": {"ram": "property is not defined in schema and "
                                           "the schema does not allow additional "
                                           "properties"}})}), probe=True),
    ]
    bad = [
        ("an undocumented parameter", p("POST", q + "/snapshot", body="snapname=s1&ram=1")),
        ("a wrong enum", p("GET", PVE_API + "/nodes/pve1/tasks", "source=finished")),
        ("a wrong path", p("GET", q + "/snapshots")),
        ("a wrong method", p("PUT", q + "/status/start", body="")),
        ("not below /api2/json", p("GET", "/api2/extjs/version")),
        ("a form boolean spelt true", p("POST", q + "/snapshot", body="snapname=s1&vmstate=true")),
        ("a snapshot name of the wrong format", p("POST", q + "/snapshot", body="snapname=1st")),
        ("a snapshot name too long", p("POST", q + "/snapshot", body="snapname=" + "a" * 41)),
        ("a required parameter missing", p("POST", q + "/snapshot", body="description=x")),
        ("a body on DELETE", p("DELETE", q + "/snapshot/s1", body="force=1")),
        ("a vmid below 100", p("GET", PVE_API + "/nodes/pve1/qemu/99/status/current")),
        ("no token", p("GET", q + "/status/current", headers={})),
        ("an integer that is not", p("GET", PVE_API + "/nodes/pve1/tasks", "limit=fifty")),
        ("a body of another type", p("POST", q + "/snapshot", body="snapname=s1",
                                     headers=dict(auth, **{"content-type": "text/plain"}))),
        ("a conflicting path parameter", p("POST", q + "/snapshot/s1/rollback",
                                           body="snapname=s2")),
        ("an error without the envelope", p("GET", q + "/status/current", reply={
            "status": 500, "reason": "boom", "content_type": "application/json",
            "body": json.dumps({"message": "boom\n"})})),
        ("an error whose reason is not its message", p("GET", q + "/status/current", reply={
            "status": 500, "reason": "Internal Server Error", "content_type":
            "application/json", "body": json.dumps({"data": None, "message": "boom\n"})})),
        ("an answer of the wrong shape", p("GET", q + "/snapshot", reply=ok_reply({"a": 1}))),
        ("netcup: an undocumented query parameter", n("GET", srv, "live=1")),
        ("netcup: a wrong enum in the body", n("PATCH", srv, "", '{"state":"REBOOT"}', mp)),
        ("netcup: a wrong path", n("GET", srv + "/snapshot")),
        ("netcup: a wrong method", n("PUT", srv + "/snapshots/s1", "", "", js)),
        ("netcup: PATCH as plain JSON", n("PATCH", srv, "", '{"state":"ON"}', js)),
        ("netcup: two attributes in one PATCH",
         n("PATCH", srv, "", '{"state":"ON","autostart":true}', mp)),
        ("netcup: an undocumented body property",
         n("POST", srv + "/snapshots", "", '{"name":"s1","memory":true}', js)),
        ("netcup: a required body property missing",
         n("POST", srv + "/snapshots", "", '{"onlineSnapshot":true}', js)),
        ("netcup: a stateOption the state does not take",
         n("PATCH", srv, "stateOption=POWEROFF", '{"state":"ON"}', mp)),
        ("netcup: a server id that is not an integer", n("GET", "/scp-core/api/v1/servers/abc")),
        ("netcup: no token", n("GET", srv, headers={"accept": "application/json"})),
        ("netcup: a bodiless POST without Content-Type",
         n("POST", srv + "/snapshots/s1/revert", "", "", bearer)),
        ("netcup: a wrong task state filter", n("GET", "/scp-core/api/v1/tasks", "state=DONE")),
        ("netcup: the login as JSON", n("POST", "/realms/scp/protocol/openid-connect/token", "",
                                        '{"grant_type":"refresh_token"}', js)),
        ("a probe answered with an error of the wrong shape", dict(p(
            "POST", q + "/snapshot", body="snapname=s1&ram=1", reply={
                "status": 400, "reason": "Parameter verification failed.",
                "content_type": "application/json", "body": json.dumps(
                    {"data": None, "message": "Parameter verification failed.\n"})}),
            probe=True)),
        ("netcup: an error body of the wrong shape", n("GET", srv, reply={
            "status": 404, "content_type": "application/json", "body": {"error": "nope"}})),
        ("netcup: a task answer of the wrong shape", n("PATCH", srv, "", '{"state":"ON"}', mp,
                                                       reply={"status": 202, "body": {
                                                           "state": "DONE"}})),
    ]
    failed = 0
    out, counts = check_records([("good[%d]" % i, r) for i, r in enumerate(good)], pve, netcup)
    for line in out.items:
        print("FAIL: refused a good request: " + line)
        failed += 1
    for what, r in bad:
        out, _ = check_records([(what, r)], pve, netcup)
        if not out.items:
            print("FAIL: let through %s: %s %s" % (what, r["method"], r["path"]))
            failed += 1
        else:
            print("ok: refused %s (%s)" % (what, out.items[0].split(": ", 1)[1]))
    print("%d good requests, %d bad ones, %d failures" % (len(good), len(bad), failed))
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    ops = {} if "--operations" in argv else None
    paths = [a for a in argv[1:] if a != "--operations"]
    if not paths:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    records = []
    for p in paths:
        records += read_records(p)
    out, counts = check_records(records, operations=ops)
    for line in out.items:
        print(line)
    for k in sorted(ops or {}):
        print("%6d %s" % (ops[k], k))
    print("checked %d Proxmox VE and %d netcup requests%s: %d findings" % (
        counts["pve"], counts["netcup"],
        " (and the answers to %d probes)" % counts["probe"] if counts["probe"] else "",
        len(out.items)))
    if not records:
        return 2
    return 1 if out.items else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
