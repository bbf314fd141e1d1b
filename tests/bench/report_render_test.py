"""The bench report as a browser draws it: builds real reports with `floe bench` (a worksheet whose
designs have long names and near-equal figures, a question with long SQL) and `floe demo --scale
0.02`, renders each HTML page and every SVG in Debian's headless Chromium with a script injected
into a copy that measures every SVG <text>'s box, and fails naming any two texts of one chart whose
boxes intersect (by more than a pixel), any text outside its chart, any resource the page fetched,
and any "http" in a page. Screenshots of a page and of a question chart are left in OUT for a
person to look at.

Usage: report_render_test.py FLOE OUT_DIR
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

FLOE, OUT = sys.argv[1], sys.argv[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

WORKSHEET = """\
name: render
description: Designs with long names and near-equal figures, asked a long question.
table: bench.render
source: {generator: events, rows: 20000, seed: 3, writes: 2}
build_rounds: 2
designs:
  - name: unsorted, as the events arrive from the ingestion pipeline (the baseline design)
  - name: sorted by customer_id within each write task, one task per write
    sort_by: customer_id
  - name: sorted by customer_id then event_ts, two tasks per write
    sort_by: customer_id, event_ts
    tasks_per_write: 2
  - name: B
    partition_by: day(event_ts)
questions:
  - name: revenue of a day's busiest customers, with every filter a dashboard adds
    sql: >-
      SELECT customer_id, sum(amount) AS revenue, count(*) AS events, min(event_ts) AS first_seen,
      max(event_ts) AS last_seen FROM {table} WHERE event_ts >= TIMESTAMP '2024-01-01 00:00:00'
      AND event_ts < TIMESTAMP '2024-01-03 00:00:00' AND customer_id BETWEEN 10 AND 100000
      AND amount > 0 GROUP BY customer_id HAVING count(*) >= 1 ORDER BY revenue DESC,
      customer_id LIMIT 25
    daily: 24
  - name: everything
    sql: SELECT count(*), sum(amount) FROM {table}
    daily: 2000
"""

# Collects every SVG text's box, checks pairs within one SVG and each against its SVG, and the
# resources the page fetched; writes the findings into the DOM for --dump-dom.
PROBE = """
<script>
window.addEventListener('load', function () {
  const found = [];
  const svgs = Array.from(document.querySelectorAll('svg'));
  svgs.forEach((svg, si) => {
    const s = svg.getBoundingClientRect();
    const texts = Array.from(svg.querySelectorAll('text')).map(t => {
      const r = t.getBoundingClientRect();
      return {text: t.textContent, l: r.left, t: r.top, r: r.right, b: r.bottom};
    }).filter(x => x.r > x.l && x.b > x.t);
    texts.forEach(a => {
      if (a.l < s.left - 1 || a.t < s.top - 1 || a.r > s.right + 1 || a.b > s.bottom + 1)
        found.push(`chart ${si}: '${a.text}' outside its chart`);
    });
    for (let i = 0; i < texts.length; ++i) {
      for (let j = i + 1; j < texts.length; ++j) {
        const a = texts[i], b = texts[j];
        const w = Math.min(a.r, b.r) - Math.max(a.l, b.l);
        const h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
        if (w > 1 && h > 1) found.push(`chart ${si}: '${a.text}' overlaps '${b.text}'`);
      }
    }
  });
  performance.getEntriesByType('resource').forEach(e => found.push('fetched ' + e.name));
  const count = document.querySelectorAll('svg text').length;
  const out = document.createElement('pre');
  out.id = 'floe-render-result';
  out.textContent = JSON.stringify({svgs: svgs.length, texts: count, problems: found});
  document.body.appendChild(out);
});
</script>
"""


def run(cmd, **kw):
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    print(f"  {os.path.basename(cmd[0])} {cmd[1] if len(cmd) > 1 else ''}: {time.time() - start:.1f} s")
    return p.stdout


def chromium(*args):
    return run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--force-device-scale-factor=1", *args], timeout=120)


def probe(page, name):
    """Renders `page` (HTML text) with the probe; returns its findings."""
    path = os.path.join(OUT, "probe-" + name + ".html")
    with open(path, "w") as f:
        f.write(page.replace("</body>", PROBE + "</body>") if "</body>" in page
                else "<!DOCTYPE html><html><body>" + page + PROBE + "</body></html>")
    dom = chromium("--dump-dom", "file://" + path)
    m = re.search(r'<pre id="floe-render-result">(.*?)</pre>', dom, re.S)
    if not m:
        sys.exit(f"{name}: the probe left no result")
    return json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">")
                      .replace("&quot;", '"').replace("&amp;", "&"))


def check_report(folder, pages, failures):
    for page in pages:
        html = open(os.path.join(folder, page)).read()
        if "http" in html:
            failures.append(f"{page}: contains 'http'")
        if "<script" in html:
            failures.append(f"{page}: contains a script")
        r = probe(html, page)
        print(f"  {page}: {r['svgs']} charts, {r['texts']} texts")
        if r["svgs"] == 0 or r["texts"] == 0:
            failures.append(f"{page}: no charts drawn")
        failures += [f"{page}: {p}" for p in r["problems"]]
    svgs = sorted(f for f in os.listdir(folder) if f.endswith(".svg"))
    body = "".join(f"<div>{open(os.path.join(folder, s)).read()}</div>" for s in svgs)
    r = probe("<!DOCTYPE html><html><body>" + body + "</body></html>",
              os.path.basename(folder) + "-svgs")
    print(f"  {len(svgs)} SVG files: {r['svgs']} charts, {r['texts']} texts")
    if r["svgs"] != len(svgs):
        failures.append(f"{folder}: {len(svgs)} SVG files, {r['svgs']} drawn")
    failures += [f"{svgs[int(p.split()[1].rstrip(':'))]}: {p}" if p.startswith("chart ") else p
                 for p in r["problems"]]
    return svgs


def main():
    if not CHROMIUM:
        sys.exit("chromium is not installed (scripts/setup.sh installs it)")
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    failures = []

    sheet = os.path.join(OUT, "render.yaml")
    with open(sheet, "w") as f:
        f.write(WORKSHEET)
    bench = os.path.join(OUT, "bench")
    out = run([FLOE, "bench", sheet, "--out", bench, "--rounds", "3", "--warmup", "0"])
    if f"report page: {bench}/render.html" not in out:
        failures.append("floe bench did not print the report page's path")
    html = open(os.path.join(bench, "render.html")).read()
    for name in ["unsorted, as the events arrive from the ingestion pipeline (the baseline design)",
                 "sorted by customer_id within each write task, one task per write",
                 "revenue of a day&#39;s busiest customers, with every filter a dashboard adds",
                 "AND amount &gt; 0 GROUP BY customer_id HAVING count(*) &gt;= 1 ORDER BY revenue "
                 "DESC, customer_id LIMIT 25"]:
        if name not in html:
            failures.append(f"render.html lacks {name!r}")
    svgs = check_report(bench, ["render.html"], failures)
    if svgs != ["render-q1.svg", "render-q2.svg", "render-write.svg"]:
        failures.append(f"floe bench wrote {svgs}")
    chromium("--screenshot=" + os.path.join(OUT, "render-html.png"), "--window-size=1280,2600",
             "file://" + os.path.join(bench, "render.html"))
    chromium("--screenshot=" + os.path.join(OUT, "render-q1.png"), "--window-size=1100,900",
             "file://" + os.path.join(bench, "render-q1.svg"))

    demo = os.path.join(OUT, "demo")
    out = run([FLOE, "demo", "--scale", "0.02", "--out", demo, "--rounds", "1", "--warmup", "0"])
    if f"report page: {demo}/report.html" not in out:
        failures.append("floe demo did not print the report page's path")
    # report.html holds every workload's section; the pages beside it hold one each.
    for page in ["events.html", "orders.html", "dimension.html"]:
        if "http" in open(os.path.join(demo, page)).read():
            failures.append(f"{page}: contains 'http'")
    check_report(demo, ["report.html"], failures)
    chromium("--screenshot=" + os.path.join(OUT, "demo-html.png"), "--window-size=1280,3000",
             "file://" + os.path.join(demo, "report.html"))
    chromium("--screenshot=" + os.path.join(OUT, "demo-schedule.png"), "--window-size=900,700",
             "file://" + os.path.join(demo, "orders-schedule.svg"))

    if failures:
        print("\n".join(failures))
        sys.exit(f"{len(failures)} problems in the rendered reports")
    print("rendered reports clean; screenshots in", OUT)


main()
