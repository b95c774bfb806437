#!/usr/bin/env python3
"""gpubench-report --history: the section "History" (issue #50), rendered in headless Chromium.

On the committed H200 series of GPU-8f0dca1c (tests/data/h200/series_gpu_8f0dca1c/README.md):
history = the 12 plain reruns and bytes1_1..3 (Gate_Copy/268435456 copies 2% more from bytes1_1
on, commit y1), the run = bytes1_4. The rendered DOM must show the section, a table row and a
marker for Gate_Copy/268435456/manual_time's real_time and bytes_moved at bytes1_1.json with
commit y1, and no change of any other benchmark; the runs in date order (their file names sort
bytes1_* first); each point the median real_time of its run's repetitions, recomputed here from
the files. On the plain reruns of GPU-84ba34e4 alone: the section says there is no change. One
baseline: no section. GPU-84ba34e4's reruns then GPU-8f0dca1c's: changes of kind gpu at the
second GPU's first run, and the section says so. A screenshot of the section goes to
WORK_DIR/history.png.

Exits 77 (ctest SKIP_RETURN_CODE) when chromium or Chart.js is missing, as check_report.py.

usage: check_report_history.py GPUBENCH_REPORT DATA_DIR WORK_DIR
"""
import glob
import html
import json
import os
import re
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report  # noqa: E402  (chromium, render, check_rendered, check, missing)

from check_report import check  # noqa: E402

COPY = "Gate_Copy/268435456/manual_time"


def history_folder(work_dir, name, files):
    """A fresh folder holding copies of `files` (gpubench-report --history DIR)."""
    folder = os.path.join(work_dir, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for path in files:
        shutil.copy(path, folder)
    return folder


def run_medians(path):
    """Per benchmark, the median real_time (ns) of the file's iteration rows."""
    with open(path) as handle:
        rows = json.load(handle)["benchmarks"]
    values = {}
    for row in rows:
        if row.get("run_type") != "iteration":
            continue
        check(row.get("time_unit") == "ns", "%s: time_unit %s" % (path, row.get("time_unit")))
        values.setdefault(row["run_name"], []).append(row["real_time"])
    return {name: statistics.median(v) for name, v in values.items()}


def chart_data(report):
    with open(report, encoding="utf-8") as handle:
        text = handle.read()
    return json.loads(re.search(r'id="gpubench-data">(.*?)</script>', text, re.S).group(1))


def history_of(dom):
    match = re.search(r'<section id="history">.*?</section>', dom, re.S)
    return match.group(0) if match else ""


def attributes(tag):
    return {k: html.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag)}


def table_rows(section):
    table = re.search(r'<table id="series-changes".*?</table>', section, re.S)
    return [attributes(tag) for tag in re.findall(r"<tr (data-benchmark=[^>]*)>",
                                                  table.group(0))] if table else []


def cards(section):
    """Each chart card of the section: its attributes and the markers listed under it."""
    found = []
    for start in re.finditer(r'<div class="chart series"([^>]*)>', section):
        end = section.find('<div class="chart series"', start.end())
        body = section[start.end():end if end >= 0 else len(section)]
        marks = [attributes(tag) for tag in re.findall(r"<li ([^>]*data-metric[^>]*)>", body)]
        found.append((attributes(start.group(1)), marks))
    return found


def screenshot(browser, report, work_dir):
    """The section alone (a copy of the page whose other parts are hidden), drawn whole."""
    with open(report, encoding="utf-8") as handle:
        text = handle.read()
    only = os.path.join(work_dir, "history_only.html")
    with open(only, "w", encoding="utf-8") as handle:
        handle.write(text.replace("</head>", "<style>body > *:not(#history) { display: none; }"
                                             "</style></head>", 1))
    shot = os.path.join(work_dir, "history.png")
    if os.path.exists(shot):
        os.remove(shot)
    check_report.chromium(browser, "file://" + os.path.abspath(only) + "#all",
                          ["--virtual-time-budget=20000", "--window-size=1300,1100",
                           "--screenshot=" + shot])
    check(os.path.exists(shot) and os.path.getsize(shot) > 20000, "history: no screenshot")


def check_changes(browser, exe, data_dir, work_dir):
    series = os.path.join(data_dir, "series_gpu_8f0dca1c")
    history = sorted(glob.glob(os.path.join(series, "plain_*.json"))) + [
        os.path.join(series, "bytes1_%d.json" % i) for i in (1, 2, 3)]
    run = os.path.join(series, "bytes1_4.json")
    folder = history_folder(work_dir, "history_8f0dca1c", history)
    out = os.path.join(work_dir, "history.html")
    result = check_report.write_report(exe, [run, "--history", folder], out)
    if "cannot read Chart.js" in result.stderr:
        return check_report.missing(result.stderr.strip())
    if not check(result.returncode == 0, "history: exit %d %s" % (result.returncode,
                                                                  result.stderr)):
        return None
    # The series in date order, the run last; each point the run's median real_time.
    data = chart_data(out)["history"]
    files = [os.path.basename(p) for p in history] + ["bytes1_4.json"]
    check([r["f"] for r in data["runs"]] == files, "history: runs in the order %s" %
          [r["f"] for r in data["runs"]])
    check([r["c"] for r in data["runs"]][12:] == ["y1", "y2", "y3", "y4"],
          "history: commits %s" % [r["c"] for r in data["runs"]])
    medians = [run_medians(path) for path in history + [run]]
    for item in data["changed"] + data["collapsed"]:
        expected = [m.get(item["n"]) for m in medians]
        check(len(item["v"]) == len(expected) and
              all(abs(a - b) <= 1e-6 * b for a, b in zip(item["v"], expected)),
              "history: %s drawn %s, medians %s" % (item["n"], item["v"], expected))
    check([item["n"] for item in data["changed"]] == [COPY],
          "history: benchmarks with a change %s" % [item["n"] for item in data["changed"]])

    dom, status = check_report.render(browser, out)
    check_report.check_rendered("history", dom, status, 6)
    section = history_of(dom)
    if not check(section, "history: no section id=history in the rendered DOM"):
        return None
    page = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", section)))
    check("History: change points" in page and "in 1 benchmark(s) over the series of 16 runs"
          in page, "history: the section says %r" % page[:600])
    rows = table_rows(section)
    metrics = {row["data-metric"] for row in rows}
    check({"real_time", "bytes_moved"} <= metrics, "history: table rows of metrics %s" % metrics)
    for row in rows:
        check(row["data-benchmark"] == COPY and row["data-run"] == "bytes1_1.json" and
              row["data-commit"] == "y1" and row["data-kind"] == "step",
              "history: table row %s" % row)
    drawn = cards(section)
    check(len(drawn) == 6, "history: %d charts of series, 6 benchmarks" % len(drawn))
    for card, marks in drawn:
        if card.get("data-benchmark") == COPY:
            check(card.get("data-changes") == str(len(rows)) and
                  {m["data-metric"] for m in marks} == metrics,
                  "history: %s's markers %s" % (COPY, marks))
            check(any(m["data-metric"] == "real_time" and m["data-run"] == "bytes1_1.json" and
                      m["data-commit"] == "y1" and m["data-kind"] == "step" for m in marks),
                  "history: no real_time marker at bytes1_1.json (y1): %s" % marks)
        else:
            check(card.get("data-changes") == "0" and not marks,
                  "history: %s has markers %s" % (card.get("data-benchmark"), marks))
    # Drawn as it scrolls into view too, without errors.
    _, lazy = check_report.render(browser, out, fragment="")
    check(lazy.get("data-state") == "done" and lazy.get("data-errors") == "0" and
          lazy.get("data-charts-blank") == "0", "history, lazy: %s" % lazy.get("text"))
    screenshot(browser, out, work_dir)
    print("OK: history: %d change row(s) of %s at bytes1_1.json (y1)" % (len(rows), COPY))
    return None


def check_no_change(browser, exe, data_dir, work_dir):
    series = os.path.join(data_dir, "series_gpu_84ba34e4")
    plain = sorted(glob.glob(os.path.join(series, "plain_*.json")))
    folder = history_folder(work_dir, "history_84ba34e4", plain[:-1])
    out = os.path.join(work_dir, "history_plain.html")
    result = check_report.write_report(exe, [plain[-1], "--history", folder], out)
    if not check(result.returncode == 0, "no change: exit %d %s" % (result.returncode,
                                                                    result.stderr)):
        return
    dom, status = check_report.render(browser, out)
    check_report.check_rendered("no change", dom, status, 6)
    section = history_of(dom)
    page = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", section)))
    check("No practical change in the series of 12 runs" in page,
          "no change: the section says %r" % page[:600])
    check('id="series-changes"' not in section, "no change: a table of changes")
    drawn = cards(section)
    check(len(drawn) == 6 and all(c.get("data-changes") == "0" and not m for c, m in drawn),
          "no change: charts %s" % drawn)
    # One baseline is no history: no section.
    single = os.path.join(work_dir, "single_baseline.html")
    result = check_report.write_report(exe, [plain[-1], "--baseline", plain[0]], single)
    with open(single, encoding="utf-8") as handle:
        check(result.returncode == 0 and 'id="history"' not in handle.read(),
              "one baseline: a history section")
    print("OK: no change: %s" % page[page.find("No practical"):][:90])


def check_gpu_change(browser, exe, data_dir, work_dir):
    """GPU-84ba34e4's 12 reruns, then GPU-8f0dca1c's 11 (renamed b_*), the run its 12th: the
    copy's -2.03% offset is a change of kind gpu at b_plain_01.json (commit g1), not a step, and
    the section says the runs come from two GPUs."""
    first = sorted(glob.glob(os.path.join(data_dir, "series_gpu_84ba34e4", "plain_*.json")))
    second = sorted(glob.glob(os.path.join(data_dir, "series_gpu_8f0dca1c", "plain_*.json")))
    folder = history_folder(work_dir, "history_two_gpus", first)
    for path in second[:-1]:
        shutil.copy(path, os.path.join(folder, "b_" + os.path.basename(path)))
    out = os.path.join(work_dir, "history_two_gpus.html")
    result = check_report.write_report(exe, [second[-1], "--history", folder], out)
    if not check(result.returncode == 0, "two GPUs: exit %d %s" % (result.returncode,
                                                                   result.stderr)):
        return
    dom, status = check_report.render(browser, out)
    check_report.check_rendered("two GPUs", dom, status, 6)
    section = history_of(dom)
    page = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", section)))
    check("physical GPUs" in page and "3 of them GPU changes" in page and
          'class="gate warn"' in section,
          "two GPUs: the section does not say so: %r" % page[:800])
    rows = table_rows(section)
    check(rows and all(row["data-kind"] == "gpu" and row["data-run"] == "b_plain_01.json" and
                       row["data-commit"] == "g1" for row in rows),
          "two GPUs: rows %s" % rows)
    check(any(row["data-benchmark"] == COPY and row["data-metric"] == "real_time" for row in rows),
          "two GPUs: no gpu row of %s real_time: %s" % (COPY, rows))
    marks = [m for card, ms in cards(section) if card.get("data-benchmark") == COPY for m in ms]
    check(any(m["data-kind"] == "gpu" and m["data-run"] == "b_plain_01.json" for m in marks),
          "two GPUs: no gpu marker on %s: %s" % (COPY, marks))
    print("OK: two GPUs: %d gpu change row(s) at b_plain_01.json (g1)" % len(rows))


def main():
    exe, data_dir, work_dir = sys.argv[1:4]
    os.makedirs(work_dir, exist_ok=True)
    browser = check_report.chromium_binary()
    if not browser:
        return check_report.missing("chromium is not installed (apt-get install chromium)")
    skipped = check_changes(browser, exe, data_dir, work_dir)
    if skipped is not None:
        return skipped
    check_no_change(browser, exe, data_dir, work_dir)
    check_gpu_change(browser, exe, data_dir, work_dir)
    return check_report.finish()


if __name__ == "__main__":
    sys.exit(main())
