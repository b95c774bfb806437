#!/usr/bin/env python3
"""gpubench-report on the committed H200 JSON, rendered in headless Chromium.

For each report: it opens from disk with no network (no external resources, a CSP that forbids
them), Chromium runs its scripts, and the rendered DOM's status element says that every chart
drew (and painted pixels) and no script error happened; the header, warnings, summary table and
the gate's verdicts are checked in the rendered DOM, and a screenshot is taken. A run cut off
mid-write is rendered with its recovered benchmarks under a banner. Codes (stop_reason,
clock_event_reasons) are shown in words, counted per repetition, never averaged.

Exits 77 (ctest SKIP_RETURN_CODE) with the reason when chromium or Chart.js (Debian's
libjs-chart.js) is missing; .ci/run installs both, and under CI=true a missing one fails it.

usage: check_report.py GPUBENCH_REPORT GPUBENCH_COMPARE DATA_DIR WORK_DIR
"""
import collections
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
FAILURES = []
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


def run(command, timeout=120):
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser, url, extra):
    with tempfile.TemporaryDirectory() as profile:
        return run([browser] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile] + extra + [url],
                   timeout=180)


def render(browser, path, fragment="#all"):
    """The DOM after the page's scripts ran, and the status element's attributes. With #all the
    page draws every chart at once instead of when it scrolls into view."""
    result = chromium(browser, "file://" + os.path.abspath(path) + fragment,
                      ["--virtual-time-budget=20000", "--window-size=1400,900", "--dump-dom"])
    dom = result.stdout
    match = re.search(r'<p id="gpubench-status"([^>]*)>([^<]*)</p>', dom)
    status = dict(re.findall(r'(data-[\w-]+)="([^"]*)"', match.group(1))) if match else {}
    if match:
        status["text"] = html.unescape(match.group(2))
    return dom, status


def check_rendered(label, dom, status, min_charts):
    if not check(status, "%s: no #gpubench-status in the rendered DOM" % label):
        return
    check(status.get("data-state") == "done", "%s: state %r (%s)" % (label, status.get(
        "data-state"), status.get("text")))
    expected = int(status.get("data-charts-expected", "0"))
    drawn = int(status.get("data-charts-drawn", "-1"))
    check(expected >= min_charts, "%s: %d charts expected, at least %d" % (label, expected,
                                                                         min_charts))
    check(drawn == expected, "%s: %d of %d charts drew" % (label, drawn, expected))
    check(status.get("data-charts-blank") == "0", "%s: %s charts stayed blank" %
          (label, status.get("data-charts-blank")))
    check(status.get("data-errors") == "0", "%s: script errors: %s" % (label, status.get("text")))
    check(dom.count("<canvas") == expected, "%s: %d canvases for %d charts" %
          (label, dom.count("<canvas"), expected))
    print("OK: %s rendered: %s" % (label, status.get("text")))


def check_offline(label, text):
    """Nothing in the file asks the network for anything."""
    for pattern in (r"<script[^>]+src=", r"<link\b", r"<img\b", r"@import", r"url\(\s*['\"]?https?:",
                    r"<iframe\b"):
        check(not re.search(pattern, text, re.IGNORECASE), "%s: external resource %s" %
              (label, pattern))
    check("Content-Security-Policy" in text and "default-src 'none'" in text,
          "%s: no CSP forbidding network loads" % label)
    check("Chart.js v" in text and "Released under the MIT License" in text,
          "%s: Chart.js not inlined with its licence header" % label)
    check("<noscript>" in text, "%s: no <noscript> table" % label)


def write_report(exe, args, out):
    return run([exe] + args + ["-o", out])


# The codes' names, written out from include/gpubench/counters.hpp (kStopReasons,
# kClockEventReasons) rather than taken from the tool under test.
STOP_REASONS = {1: "precision", 2: "max_seconds", 3: "minimum", 4: "min_time", 5: "iterations",
                6: "repetition"}
CLOCK_EVENT_BITS = {0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap",
                    0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal_slowdown",
                    0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
                    0x100: "display_clock_setting"}


def counted_in_words(rows, counter):
    """What the report shows for a counter's codes in these GB rows: each name with how many
    repetitions had it, in order of first appearance ("precision \u00d71, repetition \u00d79")."""
    counts = collections.OrderedDict()
    for row in rows:
        if row.get("run_type") != "iteration" or counter not in row:
            continue
        code = int(row[counter])
        if counter == "stop_reason":
            words = STOP_REASONS[code]
        else:
            words = "|".join(n for b, n in sorted(CLOCK_EVENT_BITS.items()) if code & b) or "none"
        counts[words] = counts.get(words, 0) + 1
    return ", ".join("%s \u00d7%d" % item for item in counts.items())


def summary_cells(dom):
    """The summary table's headings and, per row, its name and cells (a colspan counted as that
    many cells, the text of the first)."""
    table = re.search(r'<table id="summary".*?</table>', dom, re.S).group(0)
    headings = [html.unescape(re.sub(r"<[^>]+>", "", h))
                for h in re.findall(r"<th[^>]*>(.*?)</th>", table.split("</thead>")[0], re.S)]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S):
        cells = []
        for attributes, text in re.findall(r"<td([^>]*)>(.*?)</td>", row, re.S):
            span = re.search(r'colspan="(\d+)"', attributes)
            cells += [html.unescape(re.sub(r"<[^>]+>", "", text))] * (int(span.group(1))
                                                                       if span else 1)
        rows[cells[0]] = cells
    return headings, rows


def check_codes(browser, exe, data_dir, work_dir):
    """Codes in words: each benchmark's stop_reason and clock_event_reasons per repetition as the
    JSON's iteration rows have them, never GB's mean or median of them (5.5 of 1 and 6 x 9),
    the rows whole with the extra columns (a missing benchmark, failed ones), none charted."""
    history = sorted(glob.glob(os.path.join(data_dir, "history_gate_v4", "run_*.json")))
    with open(history[1]) as handle:
        contender = json.load(handle)
    check(any(row.get("run_type") == "aggregate" and row.get("stop_reason") == 5.5
              for row in contender["benchmarks"]), "codes: the run has no mean of stop_reason")
    dropped = "Gate_Tiny/manual_time"
    contender["benchmarks"] = [r for r in contender["benchmarks"] if r["run_name"] != dropped]
    contender_path = os.path.join(work_dir, "codes_contender.json")
    with open(contender_path, "w") as handle:
        json.dump(contender, handle)
    cases = [("codes", [contender_path, "--baseline", history[0]], contender["benchmarks"]),
             ("codes of failed benchmarks", [os.path.join(data_dir, "issue37", "faults.json")],
              None),
             ("clock events", [os.path.join(data_dir, "thermal", "run1_none.json")], None)]
    for label, args, rows in cases:
        if rows is None:
            with open(args[0]) as handle:
                rows = json.load(handle)["benchmarks"]
        out = os.path.join(work_dir, label.replace(" ", "_") + ".html")
        result = write_report(exe, args, out)
        if not check(result.returncode == 0, "%s: exit %d %s" % (label, result.returncode,
                                                                  result.stderr)):
            continue
        dom, status = render(browser, out)
        check_rendered(label, dom, status, 1)
        headings, cells = summary_cells(dom)
        for name, row in cells.items():
            check(len(row) == len(headings), "%s: %s has %d cells under %d headings" %
                  (label, name, len(row), len(headings)))
        by_benchmark = collections.defaultdict(list)
        for row in rows:
            by_benchmark[row["run_name"]].append(row)
        for counter, heading in (("stop_reason", "Stopped by"), ("clock_event_reasons",
                                                                  "Clock events")):
            if not any(counter in row for row in rows):
                check(heading not in headings, "%s: a %s column without codes" % (label, heading))
                continue
            if not check(heading in headings, "%s: no %s column" % (label, heading)):
                continue
            column = headings.index(heading)
            for name, benchmark_rows in by_benchmark.items():
                if any(row.get("error_occurred") for row in benchmark_rows):
                    continue
                expected = counted_in_words(benchmark_rows, counter)
                check(cells.get(name, [""] * len(headings))[column] == expected,
                      "%s: %s of %s is %r, expected %r" % (label, heading, name,
                                                            cells.get(name), expected))
        with open(out, encoding="utf-8") as handle:
            text = handle.read()
        chart_data = re.search(r'id="gpubench-data">(.*?)</script>', text, re.S).group(1)
        check("reason" not in chart_data, "%s: codes among the charts' data" % label)
        if label == "codes":
            check(dropped in cells and "in the baseline only" in cells[dropped][1],
                  "codes: the missing benchmark's row %s" % cells.get(dropped))
            page = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", dom)))
            check("repetitions stopped by " + counted_in_words(contender["benchmarks"],
                                                               "stop_reason") in page,
                  "codes: the cost card does not count the run's stop reasons")


def missing(what):
    """A package .ci/run installs is missing: skipped here, a failure under CI=true (a test that CI
    skips is not a passing test)."""
    if os.environ.get("CI") == "true":
        print("FAIL: %s; .ci/run installs it, so CI must have it" % what)
        return 1
    print("SKIP: " + what)
    return SKIP


def main():
    exe, compare, data_dir, work_dir = sys.argv[1:5]
    os.makedirs(work_dir, exist_ok=True)
    browser = chromium_binary()
    if not browser:
        return missing("chromium is not installed (apt-get install chromium)")
    data = lambda name: os.path.join(data_dir, name + ".json")

    # 1. A run against a baseline of the same suite: every gate verdict "same".
    out = os.path.join(work_dir, "examples.html")
    result = write_report(exe, [data("examples_b1"), "--baseline", data("examples_a1")], out)
    if "cannot read Chart.js" in result.stderr:
        return missing(result.stderr.strip())
    if not check(result.returncode == 0, "examples: exit %d %s" % (result.returncode,
                                                                   result.stderr)):
        return finish()
    with open(out, encoding="utf-8") as handle:
        text = handle.read()
    check_offline("examples", text)
    dom, status = render(browser, out)
    # BM_Copy sweeps 2 arguments (time, bandwidth); 6 other benchmarks (time, bandwidth).
    check_rendered("examples", dom, status, 4)
    page = html.unescape(re.sub(r"<[^>]+>", " ", dom))
    for needle in ("NVIDIA H200", "driver 13.0, runtime 13.0, CUPTI API 130001", "rated 1980 MHz",
                   "b4318ba04f6a40f1", "theoretical peak 4.81 TB/s", "gpubench-compare: PASS (exit 0)",
                   "flush (l2_read_evict)", "BM_Copy: GPU time", "BM_Copy: DRAM bandwidth"):
        check(needle in page, "examples: rendered page lacks %r" % needle)
    with open(data("examples_b1")) as handle:
        names = {row["run_name"] for row in json.load(handle)["benchmarks"]}
    rows = re.findall(r'<tr><td class="name">([^<]*)</td>', dom)
    check(sorted(html.unescape(r) for r in rows) == sorted(names),
          "examples: summary rows %s" % rows)
    # Identical reruns: every verdict 'same', but for the short kernels whose 500 ns floor is
    # too wide a threshold to mean anything (one baseline): those are 'undecided'.
    same, undecided = len(re.findall(r">same</td>", dom)), len(re.findall(r">undecided</td>", dom))
    check(same + undecided == len(names) and undecided >= 1,
          "examples: verdicts not 'same' or 'undecided' (%d same, %d undecided)" % (same, undecided))
    check("geometric mean of real_time" in page, "examples: no suite summary")
    # The summary table is hidden only while the page is parsed with scripting on (a reader
    # without JavaScript sees it); the script shows it when it starts.
    check(re.search(r"@media \(scripting: enabled\) \{ \.table-wrap:not\(\.shown\) \{ display: none; \} \}",
                    text), "examples: the table's hiding rule is not limited to scripting")
    check('<div class="table-wrap shown">' in dom, "examples: the script did not show the table")
    # Without #all, charts are drawn as they come into view: the first screen, no errors.
    lazy_dom, lazy = render(browser, out, fragment="")
    check(lazy.get("data-state") == "done" and lazy.get("data-errors") == "0" and
          lazy.get("data-charts-blank") == "0" and int(lazy.get("data-charts-drawn", "0")) >= 1,
          "examples, lazy: %s" % lazy.get("text"))
    check('<div class="table-wrap shown">' in lazy_dom, "examples, lazy: the table was not shown")
    shot = os.path.join(work_dir, "examples.png")
    result = chromium(browser, "file://" + os.path.abspath(out) + "#all",
                      ["--virtual-time-budget=20000", "--window-size=1400,2300",
                       "--screenshot=" + shot])
    check(os.path.exists(shot) and os.path.getsize(shot) > 20000, "examples: no screenshot")

    # 2. The injected 2.4% slowdown of Gate_Fma: the gate's regression in the table.
    out = os.path.join(work_dir, "gate.html")
    result = write_report(exe, [data("gate_inject_time"), "--baseline", data("gate_b1")], out)
    check(result.returncode == 0 and "would exit 1" in result.stdout,
          "gate: exit %d %s %s" % (result.returncode, result.stdout, result.stderr))
    dom, status = render(browser, out)
    check_rendered("gate", dom, status, 4)
    check("gpubench-compare: FAIL (exit 1)" in dom, "gate: no FAIL banner")
    fma = re.search(r'Gate_Fma/2112/manual_time</td>(.*?)</tr>', dom, re.S)
    check(fma and "regression (fails)" in fma.group(1), "gate: Gate_Fma row lacks the regression")
    check(dom.count("(fails)") == 1, "gate: %d failing rows, expected 1" % dom.count("(fails)"))

    # 2b. Reused rows (--gpubench_reuse; tests/data/reuse/): Gate_FmaLong measured, the five
    # others reused from measured.json. Each reused benchmark has the badge, no other one does.
    reuse_dir = os.path.join(os.path.dirname(os.path.abspath(data_dir)), "reuse")
    out = os.path.join(work_dir, "reused.html")
    result = write_report(exe, [os.path.join(reuse_dir, "partly_reused.json"), "--baseline",
                                os.path.join(reuse_dir, "measured.json")], out)
    check(result.returncode == 0, "reused: exit %d %s" % (result.returncode, result.stderr))
    dom, status = render(browser, out)
    check_rendered("reused", dom, status, 4)
    with open(os.path.join(reuse_dir, "partly_reused.json")) as handle:
        reused_rows = [row for row in json.load(handle)["benchmarks"]
                       if row.get("run_type") == "iteration"]
    reused_names = {row["run_name"] for row in reused_rows if row.get("reuse_status") == 1}
    all_names = {row["run_name"] for row in reused_rows}
    check(len(reused_names) == 5, "reused: the fixture has %d reused benchmarks" % len(reused_names))
    marked = set(re.findall(r'<tr class="reused"><td class="name">([^<]*) <span class="badge '
                            r'reused"[^>]*>reused</span></td>', dom))
    check(marked == reused_names, "reused: badges on %s, expected %s" % (sorted(marked),
                                                                       sorted(reused_names)))
    for name in all_names - reused_names:
        check(re.search(r'<tr><td class="name">' + re.escape(name) + r'</td>', dom),
              "reused: the measured %s is not a plain row" % name)
    page = html.unescape(re.sub(r"<[^>]+>", " ", dom))
    check("%d of %d rows (5 benchmark(s)) carry an earlier run's values" % (
        sum(1 for row in reused_rows if row.get("reuse_status") == 1), len(reused_rows)) in page,
        "reused: no line counting the reused rows")
    check(dom.count(">reused</td>") == 5,
          "reused: %d verdict cells 'reused', expected 5" % dom.count(">reused</td>"))
    shot = os.path.join(work_dir, "reused.png")
    chromium(browser, "file://" + os.path.abspath(out) + "#all",
             ["--virtual-time-budget=20000", "--window-size=1400,2300", "--screenshot=" + shot])
    check(os.path.exists(shot) and os.path.getsize(shot) > 20000, "reused: no screenshot")

    # 3. No baseline; a throttled repetition and copied counters become warnings.
    with open(data("gate_a1")) as handle:
        gb = json.load(handle)
    for row in gb["benchmarks"]:
        if row["run_name"].startswith("Gate_Tiny") and row.get("repetition_index") == 3:
            row["sm_clock_throttled"] = 1.0
        if row["run_name"].startswith("Gate_SortPairs") and row.get("repetition_index") == 2:
            row["gpu_shared"] = 1.0
    throttled = os.path.join(work_dir, "throttled.json")
    with open(throttled, "w") as handle:
        json.dump(gb, handle)
    log = os.path.join(work_dir, "run.log")
    # A log holds whatever a process wrote: a NUL and bytes that are no UTF-8 must not make the
    # page invalid UTF-8.
    with open(log, "wb") as handle:
        handle.write(b"gpubench: Gate_Tiny: GB reported the call with 100 iterations (0.0004 s of "
                     b"GPU time), ...; its hardware counters were copied from the same instance's "
                     b"profiled call with 10 iterations [odd bytes: \x00 \xff \xe2\x82]\n")
    out = os.path.join(work_dir, "alone.html")
    result = write_report(exe, [throttled, "--log", log], out)
    check(result.returncode == 0, "alone: exit %d %s" % (result.returncode, result.stderr))
    with open(out, "rb") as handle:
        page = handle.read()
    try:
        page.decode("utf-8")
        check(b"\x00" not in page, "alone: a NUL byte of the log is on the page")
    except UnicodeDecodeError as error:
        check(False, "alone: the page is not UTF-8: %s" % error)
    dom, status = render(browser, out)
    check_rendered("alone", dom, status, 3)
    check("SM clock throttled" in dom and "Gate_Tiny/manual_time (1 of 10 repetitions)" in dom,
          "alone: no throttle warning")
    check("copied counters: gpubench: Gate_Tiny" in html.unescape(dom), "alone: no copied warning")
    check("[odd bytes: \\x00 \ufffd \ufffd\ufffd]" in html.unescape(dom),
          "alone: the log's odd bytes are not shown as \\x00 and U+FFFD")
    check("THROTTLED" in dom, "alone: throttled row not marked")
    check("GPU shared: another process used the GPU during 1 benchmark(s)" in dom and
          "Gate_SortPairs/16777216/manual_time (1 of 10 repetitions)" in dom,
          "alone: no shared-GPU warning")
    check("GPU SHARED" in dom, "alone: shared row not marked")

    # 4. A baseline with other settings: refused like the gate (3), or reported with a warning.
    with open(data("gate_b1")) as handle:
        other = json.load(handle)
    other["context"]["gpubench_cache"] = "keep"
    other["context"]["gpubench_settings_fingerprint"] = "0123456789abcdef"
    other_path = os.path.join(work_dir, "other_settings.json")
    with open(other_path, "w") as handle:
        json.dump(other, handle)
    out = os.path.join(work_dir, "mismatch.html")
    result = write_report(exe, [data("gate_a1"), "--baseline", other_path], out)
    check(result.returncode == 3 and "gpubench_cache" in result.stderr,
          "mismatch: exit %d %s" % (result.returncode, result.stderr))
    result = write_report(exe, [data("gate_a1"), "--baseline", other_path,
                                "--allow-settings-mismatch"], out)
    check(result.returncode == 0, "mismatch allowed: exit %d" % result.returncode)
    with open(out, encoding="utf-8") as handle:
        check("settings differ from the baseline" in html.unescape(handle.read()),
              "mismatch allowed: no warning")

    # 5. A run with --gpubench_metrics=+flops (cuBLAS SGEMM on a two-GPU host): the roofline
    #    chart draws its points under the DRAM and FLOP roofs; without +flops there is none.
    out = os.path.join(work_dir, "roofline.html")
    result = write_report(exe, [data("x2/sgemm")], out)
    check(result.returncode == 0, "roofline: exit %d %s" % (result.returncode, result.stderr))
    dom, status = render(browser, out)
    check_rendered("roofline", dom, status, 3)
    page = html.unescape(re.sub(r"<[^>]+>", " ", dom))
    check("Roofline: FLOP rate against arithmetic intensity" in page, "roofline: no chart title")
    check('id="roofline"' in dom and dom.count("<canvas") == int(status.get(
        "data-charts-expected", "0")), "roofline: canvases %d" % dom.count("<canvas"))
    with open(out, encoding="utf-8") as handle:
        text = handle.read()
    chart_data = json.loads(re.search(r'id="gpubench-data">(.*?)</script>', text, re.S).group(1))
    points = [b for b in chart_data["benchmarks"] if "ai" in b]
    check(len(points) == 3 and all(b["fr"] > 0 and b["fp"] > b["fr"] for b in points),
          "roofline: points %s" % points)
    check("<h2>Roofline</h2><table>" in text, "roofline: no <noscript> table")
    shot = os.path.join(work_dir, "roofline.png")
    chromium(browser, "file://" + os.path.abspath(out) + "#all",
             ["--virtual-time-budget=20000", "--window-size=1400,2300", "--screenshot=" + shot])
    plain = os.path.join(work_dir, "plain.html")
    write_report(exe, [data("gate_a1")], plain)
    with open(plain, encoding="utf-8") as handle:
        check("<h2>Roofline</h2>" not in handle.read(), "a run without +flops has a roofline")

    # 6. A run cut off mid-write (gate_a1.json's first 32 rows, the third benchmark with 4 of its
    #    10 repetitions) against a baseline: the recovered benchmarks drawn under a banner, and the
    #    gate's FAIL (a cut-off run never passes).
    cut = os.path.join(data_dir, "cutoff", "gate_a1_cut_35000.json")
    out = os.path.join(work_dir, "cut_off.html")
    result = write_report(exe, [cut, "--baseline", data("gate_b1")], out)
    check(result.returncode == 0 and "would exit 1" in result.stdout and
          "was cut off mid-write" in result.stderr,
          "cut off: exit %d %s %s" % (result.returncode, result.stdout, result.stderr))
    dom, status = render(browser, out)
    check_rendered("cut off", dom, status, 2)
    page = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", dom)))
    for needle in ("CUT OFF: " + cut + " was cut off mid-write",
                   "32 complete benchmark row(s) of 3 benchmark(s)",
                   "gpubench-compare: FAIL (exit 1)", "this run was cut off mid-write",
                   "declares 10 repetitions but the file has 4"):
        check(needle in page, "cut off: rendered page lacks %r" % needle)
    rows = re.findall(r'<tr><td class="name">([^<]*)</td><td( colspan="7" class="muted">in the '
                      r'baseline only \(this run was cut off mid-write: maybe after the cut\))?',
                      dom)
    check([name for name, missing in rows if not missing] ==
          ["Gate_Fma/2112/manual_time", "Gate_Copy/1048576/manual_time",
           "Gate_Copy/268435456/manual_time"] and
          [name for name, missing in rows if missing] ==
          ["Gate_SortPairs/16777216/manual_time", "Gate_Tiny/manual_time"],
          "cut off: summary rows %s" % rows)

    # 7. Codes in words, never averaged.
    check_codes(browser, exe, data_dir, work_dir)

    # 8. Bad input: exit 2 with gpubench-compare's message.
    bad = os.path.join(work_dir, "bad.json")
    with open(bad, "w") as handle:
        handle.write('{"benchmarks": [ {"name": "a"')
    reported = write_report(exe, [bad], os.path.join(work_dir, "bad.html"))
    compared = run([compare, bad, data("gate_a1")])
    check(reported.returncode == 2 and compared.returncode == 2 and
          reported.stderr.replace("gpubench-report: ", "") ==
          compared.stderr.replace("gpubench-compare: ", ""),
          "bad input: %r vs %r" % (reported.stderr, compared.stderr))

    # 9. Names that would end the page's data script or make the parser read past its end
    #    ("<!--<script>", "</script>"): every chart draws, no script error, the names as text.
    with open(data("gate_a1")) as handle:
        odd = json.load(handle)
    renames = {"Gate_Fma": "Gate<!--<script>Fma", "Gate_Tiny": "Gate</script><b>Tiny"}
    for row in odd["benchmarks"]:
        for old_name, new_name in renames.items():
            for key in ("name", "run_name"):
                if key in row:
                    row[key] = row[key].replace(old_name, new_name)
    odd_path = os.path.join(work_dir, "odd_names.json")
    with open(odd_path, "w") as handle:
        json.dump(odd, handle)
    out = os.path.join(work_dir, "odd_names.html")
    result = write_report(exe, [odd_path], out)
    check(result.returncode == 0, "odd names: exit %d %s" % (result.returncode, result.stderr))
    dom, status = render(browser, out)
    check_rendered("odd names", dom, status, 4)
    page = html.unescape(re.sub(r"<[^>]+>", " ", dom))
    for name in renames.values():
        check(name + "/" in page, "odd names: %r is not on the page as text" % name)
    check("<b>Tiny" not in dom, "odd names: a name's markup reached the DOM")
    return finish()


def finish():
    for failure in FAILURES:
        print("FAIL: " + failure)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
