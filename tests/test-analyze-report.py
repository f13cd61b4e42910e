#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-analyze --html and --svg: the charts and the report.

Usage: test-analyze-report.py AREA PATH/TO/fiocamp-analyze
  AREA svg     golden SVG files, well-formed XML, escaping, the locale, a
               24-hour log, the options and their errors
  AREA render  the HTML in headless Chromium: the page asks for nothing
               outside the file (Chromium's NetLog; its proxy is a closed
               port, so nothing leaves the machine either), every chart is in
               the DOM, the screenshot is not blank (skipped, exit 77,
               without Chromium)

The golden files are tests/golden/analyze-report/INPUT/NAME.svg, made from
the fixtures of tests/fixtures.  After a deliberate change of the charts,
regenerate them and read the diff:

  FC_REGEN_GOLDEN=1 meson test -C build analyze-report-svg
  git diff --stat tests/golden

FC_KEEP=DIR keeps the HTML files and screenshots of the render check in
DIR (to look at them).
"""

import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import xml.dom.minidom
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze_util import check, run, setup, summary  # noqa: E402

SRC = os.environ.get("FC_SRCDIR") or os.path.join(os.path.dirname(__file__), "..")
SRC = os.path.abspath(SRC)
GOLDEN = os.path.join(SRC, "tests", "golden", "analyze-report")
# input (relative to the source tree) -> the charts kept as golden files (None: all)
GOLDEN_SETS = {
    "sample-campaign": None,
    "netcup-campaign": ["transitions.svg", "profile-rw4k-write.svg"],
    "bench-fio": ["compare.svg", "rounds-randread-bs-4k-iodepth-1-numjobs-1-read-iops.svg"],
}
XMLLINT = shutil.which("xmllint")


def well_formed(path, what):
    """Python's parser always, xmllint when it is installed."""
    try:
        xml.dom.minidom.parse(path)
        ok = True
    except Exception as e:  # noqa: BLE001 - any parse error is the finding
        ok = False
        print(f"{path}: {e}", file=sys.stderr)
    check(ok, f"{what}: well-formed XML (Python)")
    if XMLLINT:
        p = subprocess.run([XMLLINT, "--noout", path], capture_output=True, text=True)
        check(p.returncode == 0 and not p.stderr, f"{what}: xmllint --noout: {p.stderr[:500]}")


def external_refs(text):
    """Every reference to something outside the document."""
    refs = re.findall(r'\b(?:src|href|xlink:href|action|data)\s*=\s*"([^"]*)"', text)
    refs = [r for r in refs if not r.startswith("#")]
    refs += re.findall(r"url\s*\(", text)
    refs += re.findall(r"@import|<script|<link|<img|<iframe|<object|<embed", text, re.I)
    return refs


def svg_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".svg"))


# ---- area svg ---------------------------------------------------------------

def check_svg_file(path, name):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")
    well_formed(path, name)
    head = re.search(r"<svg [^>]*>", text)
    check(head is not None, f"{name}: has an <svg> element")
    if head:
        h = head.group(0)
        for attr in ('xmlns="http://www.w3.org/2000/svg"', "viewBox=", "width=", "height=",
                     "font-family="):
            check(attr in h, f"{name}: {attr} on the svg element")
    check(text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n'), f"{name}: XML declaration")
    check("<title>" in text, f"{name}: hover texts")
    check(external_refs(text) == [], f"{name}: refers to nothing outside: {external_refs(text)}")
    # numbers in the C locale's form: no decimal commas inside coordinates
    check(not re.search(r'="-?\d+,\d', text), f"{name}: no decimal comma in an attribute")


def golden(tmp):
    regen = os.environ.get("FC_REGEN_GOLDEN")
    for inp, keep in GOLDEN_SETS.items():
        out = os.path.join(tmp, "golden-" + inp)
        # relative input path, run from the source tree: the same bytes anywhere
        rc, _, err = run(["--svg", out, os.path.join("tests", "fixtures", inp)], cwd=SRC)
        check(rc == 0, f"--svg {inp}: exit status {rc}: {err}")
        names = svg_files(out)
        for n in names:
            check_svg_file(os.path.join(out, n), f"{inp}/{n}")
        want_dir = os.path.join(GOLDEN, inp)
        chosen = names if keep is None else keep
        if regen:
            shutil.rmtree(want_dir, ignore_errors=True)
            os.makedirs(want_dir)
            for n in chosen:
                shutil.copy(os.path.join(out, n), os.path.join(want_dir, n))
            print(f"regenerated {len(chosen)} golden files of {inp}")
            continue
        if keep is None:
            check(names == svg_files(want_dir),
                  f"{inp}: the chart files {names} are the golden ones {svg_files(want_dir)}")
        for n in chosen:
            got = os.path.join(out, n)
            want = os.path.join(want_dir, n)
            if not os.path.exists(got) or not os.path.exists(want):
                check(False, f"{inp}/{n}: made and golden")
                continue
            with open(got, "rb") as f1, open(want, "rb") as f2:
                same = f1.read() == f2.read()
            check(same, f"{inp}/{n} equals tests/golden/analyze-report/{inp}/{n} "
                        f"(diff -u {want} {got}; FC_REGEN_GOLDEN=1 regenerates)")
        # twice the same: nothing depends on time or addresses
        out2 = out + "-again"
        run(["--svg", out2, os.path.join("tests", "fixtures", inp)], cwd=SRC)
        for n in names:
            with open(os.path.join(out, n), "rb") as f1, open(os.path.join(out2, n), "rb") as f2:
                check(f1.read() == f2.read(), f"{inp}/{n}: the same bytes on a second run")


def check_html(path, what, charts):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    well_formed(path, what)
    check(text.startswith("<!DOCTYPE html>\n"), f"{what}: HTML5 doctype")
    check(external_refs(text) == [], f"{what}: refers to nothing outside: {external_refs(text)}")
    check("Content-Security-Policy" in text and "default-src 'none'" in text,
          f"{what}: a policy that forbids fetching")
    check(text.count("<svg ") == charts, f"{what}: {charts} charts inline, "
                                         f"found {text.count('<svg ')}")
    ids = re.findall(r' id="([^"]*)"', text)
    check(len(ids) == len(set(ids)), f"{what}: ids are unique")
    return text


def html_reports(tmp):
    for inp in GOLDEN_SETS:
        d = os.path.join(tmp, "html-" + inp)
        html = os.path.join(tmp, inp + ".html")
        rc, out, err = run(["--html", html, "--svg", d, os.path.join(SRC, "tests", "fixtures", inp)])
        check(rc == 0 and out == "", f"--html {inp}: exit {rc}, nothing on stdout: {out[:200]}")
        text = check_html(html, inp + ".html", len(svg_files(d)))
        # the facts and the tables the terminal shows
        rc, table, _ = run(["--table", "--width", "200",
                            os.path.join(SRC, "tests", "fixtures", inp)])
        for line in table.splitlines():
            m = re.match(r"^\s*(IOPS median|runs|downtime s)\s+(.*)$", line)
            if m:
                first = m.group(2).split()[0]
                check(f"<td>{first}</td>" in text or f"<td>{first} " in text,
                      f"{inp}: the table's '{m.group(1)}' value {first} is in the HTML")
        check("fio-3.33" in text, f"{inp}: the fio version")
        for n in svg_files(d):
            check(f'id="chart-{n[:-4]}"' in text, f"{inp}: chart {n} in the page")
    with open(os.path.join(tmp, "sample-campaign.html"), encoding="utf-8") as f:
        text = f.read()
    for fact in ("campaign", "vm, kernel", "2 CPUs", "states", "warm, evicted, control",
                 "baseline warm"):
        check(fact in text, f"sample: the fact {fact!r}")
    with open(os.path.join(tmp, "netcup-campaign.html"), encoding="utf-8") as f:
        text = f.read()
    check("data back" in text and "provider task" in text and "downtime" in text,
          "netcup: the transitions chart's rows")


def weird_names(tmp):
    """Names from files and job names with control characters and bytes that
    are no UTF-8 still give well-formed XML."""
    d = os.path.join(tmp, "weird")
    os.makedirs(d)
    with open(os.path.join(SRC, "tests/fixtures/sample-campaign/warm/r1/direct4k.json"), "rb") as f:
        doc = f.read()
    job = b'"jobname" : "direct4k"'
    assert job in doc
    for state, n in ((b"caf\xe9", 1), (b"caf\xe9", 2), (b"b\x07<&>'\"", 1), (b"b\x07<&>'\"", 2)):
        body = doc.replace(job, b'"jobname" : "d\\u0001]]>\x7f\\u00e9&x"')
        with open(os.path.join(d.encode(), state + b"-%d.json" % n), "wb") as f:
            f.write(body)
    out = os.path.join(tmp, "weird-svg")
    html = os.path.join(tmp, "weird.html")
    rc, _, err = run(["--svg", out, "--html", html, d])
    check(rc == 0, f"weird names: exit {rc}: {err}")
    names = svg_files(out) if os.path.isdir(out) else []
    check(len(names) >= 4, f"weird names: charts {names}")
    for n in names:
        check(re.fullmatch(r"[A-Za-z0-9._-]+\.svg", n) is not None, f"file name {n!r} is plain")
        well_formed(os.path.join(out, n), "weird " + n)
    well_formed(html, "weird.html")
    with open(html, encoding="utf-8") as f:
        text = f.read()
    check("caf\ufffd" in text, "an invalid byte of a name shows as U+FFFD")
    check("b\ufffd&lt;&amp;&gt;&#39;&quot;" in text, "markup in a name is escaped")


def locale_free(tmp):
    """The same bytes whatever the locale says about decimal marks."""
    inp = os.path.join(SRC, "tests", "fixtures", "sample-campaign")
    outs = []
    for env in ({"LC_ALL": "C"}, {"LC_ALL": "de_DE.UTF-8", "LC_NUMERIC": "de_DE.UTF-8",
                                  "LANG": "de_DE.UTF-8"}):
        html = os.path.join(tmp, "locale-%d.html" % len(outs))
        rc, _, err = run(["--html", html, inp], env=env)
        check(rc == 0, f"--html with {env}: {rc} {err}")
        with open(html, "rb") as f:
            outs.append(f.read())
    check(outs[0] == outs[1], "the report does not depend on the locale")


def long_log(tmp):
    """A 24-hour per-second log: drawn as min/max per pixel column, its
    spike and its dip kept, the time axis in hours."""
    d = os.path.join(tmp, "day")
    os.makedirs(d)
    shutil.copy(os.path.join(SRC, "tests/fixtures/sample-campaign/warm/r1/direct4k.json"),
                os.path.join(d, "day-1.json"))
    with open(os.path.join(d, "day-1_iops.1.log"), "w") as f:
        for i in range(86400):
            v = 50000 if i == 40000 else 0 if i == 60001 else 8000 + (i % 97) * 10
            f.write(f"{(i + 1) * 1000}, {v}, 0, 0, 0\n")
    out = os.path.join(tmp, "day-svg")
    rc, _, err = run(["--svg", out, d])
    check(rc == 0, f"24-hour log: {rc} {err}")
    path = os.path.join(out, "profile-direct4k-read.svg")
    with open(path) as f:
        text = f.read()
    well_formed(path, "24-hour profile")
    m = re.search(r'<path fill="none"[^>]* d="([^"]*)"', text)
    check(m is not None, "24-hour profile: the line")
    if not m:
        return
    pts = re.findall(r"[ML](-?[\d.]+) (-?[\d.]+)", m.group(1))
    ys = [float(y) for _, y in pts]
    check(len(pts) <= 2 * 566 + 2, f"24-hour profile: decimated to {len(pts)} points")
    # the axis tops at 50k: the spike reaches the plot's top, the dip its bottom
    top = re.search(r'<line x1="[\d.]+" y1="([\d.]+)" x2="[\d.]+" y2="[\d.]+" '
                    r'stroke="#d9d9d9"/>\n<text[^>]*>50k</text>', text)
    check(top is not None and min(ys) == float(top.group(1)),
          f"24-hour profile: the spike reaches 50k ({min(ys)})")
    check(max(ys) == 270, f"24-hour profile: the dip reaches 0 ({max(ys)})")
    check("hours since the start of the run" in text, "24-hour profile: hours")
    check(">24</text>" in text and ">25</text>" not in text, "24-hour profile: 0..24 h")
    check(len(text) < 40000, f"24-hour profile: {len(text)} bytes")


def options(tmp):
    inp = os.path.join(SRC, "tests", "fixtures", "sample-campaign")
    afile = os.path.join(tmp, "a-file")
    with open(afile, "w") as f:
        f.write("x")
    rc, out, err = run(["--svg", afile, inp])
    check(rc == 2 and f"fiocamp-analyze: {afile}: not a directory" in err,
          f"--svg onto a file: {rc} {err}")
    missing = os.path.join(tmp, "no", "such", "dir")
    rc, out, err = run(["--svg", missing, inp])
    check(rc == 2 and missing in err and "cannot make the directory" in err,
          f"--svg below a missing directory: {rc} {err}")
    rc, out, err = run(["--html", os.path.join(missing, "r.html"), inp])
    check(rc == 2 and f"{missing}/r.html: No such file or directory" in err,
          f"--html below a missing directory: {rc} {err}")
    if os.path.exists("/dev/full"):
        rc, out, err = run(["--html", "/dev/full", inp])
        check(rc == 2 and "fiocamp-analyze: /dev/full: write error" in err,
              f"--html onto a full disk: {rc} {err}")
    rc, out, err = run(["--html", "-", "--table", inp])
    check(rc == 2 and "--html - and the other output both go to stdout" in err,
          f"--html - with --table: {rc} {err}")
    rc, out, err = run(["--html", "-", inp])
    check(rc == 0 and out.startswith("<!DOCTYPE html>") and out.endswith("</html>\n"),
          f"--html - writes the page to stdout: {rc} {err}")
    html = os.path.join(tmp, "beside.html")
    rc, out, err = run(["--html", html, "--table", "--metrics", "iops", inp])
    check(rc == 0 and out.startswith("campaign sample") and os.path.getsize(html) > 1000,
          f"--html beside --table: {rc} {out[:80]}")
    with open(html) as f:
        text = f.read()
    check("rounds-cached4k-read-iops" in text and "rounds-cached4k-read-bw" not in text,
          "--metrics chooses the charts of every round")
    # a rejected input is listed in the report, and the exit status says so
    d = os.path.join(tmp, "with-reject")
    shutil.copytree(inp, d)
    with open(os.path.join(d, "warm", "r2", "cached4k.json"), "w") as f:
        f.write('{"fio version": "fio-3.33", "jobs": [')
    html = os.path.join(tmp, "reject.html")
    rc, out, err = run(["--html", html, d])
    with open(html) as f:
        text = f.read()
    check(rc == 1 and "Inputs rejected (1)" in text and "warm/r2/cached4k.json" in text,
          f"a rejected input in the report: {rc} {err}")
    check("fiocamp-analyze: rejected" in err, "and on stderr")
    help_rc, help_out, _ = run(["--help"])
    check("--html FILE" in help_out and "--svg DIR" in help_out, "--help lists the options")
    # every chart kind (as the report lists them) is in the man page
    with open(os.path.join(SRC, "docs", "fiocamp-analyze.1")) as f:
        man = f.read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "") \
            .replace("\\fI", "")
    kinds = re.findall(r"<li><code>([^<]+)</code>", text)
    # the kinds this report has (no compare.svg without variants); every
    # kind there is in the man page and the README
    check(kinds == ["rounds-TEST[-jobN]-DIRECTION-METRIC.svg",
                    "profile-TEST[-jobN]-DIRECTION[-VARIANT].svg",
                    "transitions[-CAMPAIGN[-HOST]].svg"],
          f"the report lists the 3 kinds of chart it has: {kinds}")
    for k in kinds + ["compare.svg"]:
        check(k in man, f"the man page lists the chart {k}")
        check(k in open(os.path.join(SRC, "README.md")).read(), f"the README names {k}")


def area_svg(tmp):
    golden(tmp)
    if os.environ.get("FC_REGEN_GOLDEN"):
        return
    html_reports(tmp)
    weird_names(tmp)
    locale_free(tmp)
    long_log(tmp)
    options(tmp)
    if not XMLLINT:
        print("xmllint not found (Debian's libxml2-utils): XML checked with Python's parser only")


# ---- area render --------------------------------------------------------------

def closed_port():
    """A port on 127.0.0.1 that nothing listens on: Chromium's proxy, so that
    no request can leave the machine."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def chromium(binary, tmp, url, extra):
    """Runs Chromium on url; returns the process and the URLs the page asked
    for, from Chromium's NetLog: the requests whose network isolation key is
    the page's file:// site.  The browser's own requests (network time, its
    component updater) carry another key and are no part of the page."""
    profile = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    netlog = os.path.join(profile, "netlog.json")
    args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", "--hide-scrollbars",
            f"--user-data-dir={profile}", f"--proxy-server=http://127.0.0.1:{closed_port()}",
            f"--log-net-log={netlog}"] + extra + [url]
    p = subprocess.run(args, capture_output=True, timeout=120)
    asked = []
    try:
        with open(netlog) as f:
            log = json.load(f)
        start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
        for e in log["events"]:
            params = e.get("params") or {}
            if e["type"] == start and "url" in params and \
                    params.get("network_isolation_key", "").startswith("file://"):
                asked.append(params["url"])
    except (OSError, ValueError, KeyError) as e:
        check(False, f"Chromium's NetLog of {url}: {e}")
    shutil.rmtree(profile, ignore_errors=True)
    return p, asked


def png_pixels(path):
    """Width, height and the RGB pixels of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    check(depth == 8 and ctype in (2, 6), f"{path}: 8-bit RGB(A), got {depth}/{ctype}")
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    pixels = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        for x in range(0, stride, bpp):
            pixels.append((line[x], line[x + 1], line[x + 2]))
        prev = line
    return w, h, pixels


def area_render(tmp):
    binary = os.environ.get("FC_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    if not binary:
        print("SKIP: Chromium is not installed (Debian: apt-get install chromium); "
              "the render check of the HTML report needs it")
        return 77
    keep = os.environ.get("FC_KEEP")
    # the detector itself: a page that asks for a picture and a style sheet
    probe = os.path.join(tmp, "probe.html")
    with open(probe, "w") as f:
        f.write('<!DOCTYPE html><html><body><img src="http://fiocamp.invalid/x.png"/>'
                '<link rel="stylesheet" href="https://fiocamp.invalid/font.css"/></body></html>')
    _, asked = chromium(binary, tmp, "file://" + probe, ["--dump-dom"])
    check(sorted(asked) == ["http://fiocamp.invalid/x.png", "https://fiocamp.invalid/font.css"],
          f"the NetLog shows what a page asks for: {asked}")
    for inp in GOLDEN_SETS:
        d = os.path.join(tmp, "svg-" + inp)
        html = os.path.join(tmp, inp + ".html")
        rc, _, err = run(["--html", html, "--svg", d, os.path.join(SRC, "tests", "fixtures", inp)])
        check(rc == 0, f"--html {inp}: {rc} {err}")
        charts = len(svg_files(d))
        p, asked = chromium(binary, tmp, "file://" + html, ["--dump-dom"])
        dom = p.stdout.decode("utf-8", "replace")
        check(p.returncode == 0 and "</html>" in dom,
              f"{inp}: Chromium loads the page: {p.returncode} {p.stderr[-500:]!r}")
        check(asked == [], f"{inp}: the page asks for nothing: {asked}")
        check(dom.count("<svg ") == charts, f"{inp}: {charts} charts in the DOM, "
                                            f"{dom.count('<svg ')} found")
        check(external_refs(dom) == [], f"{inp}: the DOM refers to nothing outside: "
                                        f"{external_refs(dom)[:5]}")
        check("What was measured" in dom and "<table" in dom, f"{inp}: facts and tables")
        png = os.path.join(tmp, inp + ".png")
        p, asked = chromium(binary, tmp, "file://" + html,
                            [f"--screenshot={png}", "--window-size=1300,1800",
                             "--force-device-scale-factor=0.5"])
        check(p.returncode == 0 and os.path.exists(png), f"{inp}: a screenshot")
        check(asked == [], f"{inp}: the page asks for nothing while drawn: {asked}")
        if not os.path.exists(png):
            continue
        w, h, px = png_pixels(png)
        colours = len(set(px))
        check(colours >= 64, f"{inp}: the screenshot is not blank ({colours} colours)")
        # the charts' colours are drawn, not only text: Okabe-Ito blue or vermillion
        drawn = sum(1 for r, g, b in px if (b > r + 80 and abs(g - 114) < 40) or
                    (r > 150 and g < 120 and b < 60))
        check(drawn >= 200, f"{inp}: {drawn} pixels of the charts' blue and vermillion")
        white = sum(1 for c in px if c == (255, 255, 255))
        check(white < len(px) * 0.97, f"{inp}: not all white ({white} of {len(px)})")
        print(f"{inp}: {charts} charts, screenshot {w}x{h}, {colours} colours, "
              f"{drawn} pixels in the charts' colours")
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(png, keep)
            shutil.copy(html, keep)
    return 0


def main():
    area, binary = sys.argv[1], sys.argv[2]
    setup(binary)
    base = os.environ.get("FC_BUILDDIR") or tempfile.gettempdir()
    tmp = tempfile.mkdtemp(prefix=f"test-analyze-report-{area}-", dir=base)
    try:
        if area == "svg":
            area_svg(tmp)
        elif area == "render":
            if area_render(tmp) == 77:
                return 77
        else:
            print(f"unknown area {area}", file=sys.stderr)
            return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
