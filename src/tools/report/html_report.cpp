// gpubench-report's page as a whole: its head and stylesheet, the sections in order, the chart
// data, the inlined Chart.js and the page's script; and HtmlEscape, which every section uses.
#include "tools/report/html_report.hpp"

#include <string>
#include <string_view>

#include "schema/context_keys.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/report/html_sections.hpp"
#include "tools/report/web_assets.hpp"

namespace gpubench::tools {

std::string HtmlEscape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string RenderHtmlReport(const ReportInputs& inputs) {
  const BenchmarkFile& run = *inputs.run;
  const double peak = ContextNumber(run, context_key::kGpuDramBandwidthTheoretical).value_or(0);
  const std::string data = internal::ChartDataJson(inputs, peak);
  std::string html;
  html.reserve(inputs.chart_js.size() + data.size() * 3 + 65536);
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n";
  html += "<title>gpubench report: " + HtmlEscape(run.path) + "</title>\n<style>" +
          std::string(kReportStyle) + "</style>\n</head><body>\n";
  html += internal::Header(inputs);
  html += internal::SummaryTable(inputs, peak);
  html += internal::HistorySection(inputs);
  html +=
      "<section><h2>Sweeps</h2><p class=\"muted\">Per benchmark family, over its last "
      "numeric argument (log2 axis): the median of every instance as a line and each "
      "repetition as a point" +
      std::string(inputs.baseline ? "; the baseline in gray (dashed), beside the run" : "") +
      ". Bandwidth is drawn against the GPU's theoretical DRAM peak.</p>"
      "<div id=\"sweeps\" class=\"charts\"></div></section>\n";
  html +=
      "<section><h2>Other benchmarks</h2><p class=\"muted\">Benchmarks that are not part of a "
      "sweep: each repetition as a point, the median as a bar.</p>"
      "<div id=\"others\" class=\"charts\"></div></section>\n";
  if (internal::HasRoofline(run)) {
    html +=
        "<section><h2>Roofline</h2><p class=\"muted\">Benchmarks profiled with "
        "<code>--gpubench_metrics=+flops</code>: FLOP rate against arithmetic intensity (FLOP per "
        "DRAM byte), medians over the repetitions, log&ndash;log, under the DRAM roof (the "
        "theoretical DRAM bandwidth &times; intensity) and the FLOP roof (the highest "
        "<code>flop_rate_peak</code> of the rows: 2 &times; the FMA peak per cycle &times; the "
        "profiled clock, for the rows' precision mix). Rows whose tensor pipe was busy are marked: "
        "counters give no FLOP count for tensor-core work, so their points lie too low.</p>"
        "<div id=\"roofline\" class=\"charts\"></div></section>\n";
  }
  html += internal::NoScriptTables(inputs);
  html += "<p id=\"gpubench-status\" data-state=\"loading\">Charts need JavaScript.</p>\n";
  html += "<script type=\"application/json\" id=\"gpubench-data\">" + data + "</script>\n";
  html += "<!-- Chart.js, inlined from " + HtmlEscape(inputs.chart_js_source) +
          " (Debian package libjs-chart.js); its licence header follows. -->\n<script>\n" +
          inputs.chart_js + "\n</script>\n";
  html += "<script>" + std::string(kReportSeriesScript) + "</script>\n";
  html += "<script>" + std::string(kReportScript) + "</script>\n</body></html>\n";
  return html;
}

}  // namespace gpubench::tools
