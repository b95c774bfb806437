// Number formats and table cells shared by the sections of gpubench-report's page.
#include "tools/report/html_cells.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/format.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/report/html_report.hpp"

namespace gpubench::tools::internal {

std::string FormatBandwidth(double bytes_per_second) {
  if (!std::isfinite(bytes_per_second)) return "-";
  if (bytes_per_second >= 1e12) return Printf("%.3g TB/s", bytes_per_second / 1e12);
  if (bytes_per_second >= 1e9) return Printf("%.3g GB/s", bytes_per_second / 1e9);
  if (bytes_per_second >= 1e6) return Printf("%.3g MB/s", bytes_per_second / 1e6);
  return Printf("%.3g kB/s", bytes_per_second / 1e3);
}

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes)) return "-";
  if (bytes >= 1 << 30) return Printf("%.4g GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return Printf("%.4g MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return Printf("%.4g KiB", bytes / (1 << 10));
  return Printf("%.0f B", bytes);
}

std::string FormatTime(double ns) { return std::isfinite(ns) ? FormatTimeNs(ns) : "-"; }

std::string FormatPercentValue(double percent, const char* format) {
  return std::isfinite(percent) ? Printf(format, percent) : "-";
}

double MedianOf(const BenchmarkRecord& record, std::string_view metric) {
  const MetricSeries* series = record.FindMetric(metric);
  if (!series || series->values.empty()) return NAN;
  const Spread spread = Summarize(series->values);
  return spread.median;
}

std::string CodeInWords(std::string_view metric, double value) {
  const CounterInfo* info = FindCounter(metric);
  const std::optional<std::string> words =
      gpubench::detail::CodeInWords(info != nullptr ? info->unit : std::string_view(), value);
  return words ? *words : Printf("%g", value);  // not a code this version names: the number
}

std::string CountedCodes(const std::vector<const BenchmarkRecord*>& records,
                         std::string_view metric) {
  std::vector<std::pair<std::string, std::size_t>> counts;  // in order of first appearance
  for (const BenchmarkRecord* record : records) {
    const MetricSeries* series = record->aggregates_only ? nullptr : record->FindMetric(metric);
    if (series == nullptr) continue;
    for (double value : series->values) {
      const std::string words = CodeInWords(metric, value);
      auto it = counts.begin();
      while (it != counts.end() && it->first != words) ++it;
      if (it == counts.end()) {
        counts.emplace_back(words, 1);
      } else {
        ++it->second;
      }
    }
  }
  std::string text;
  for (const auto& [words, count] : counts) {
    text += (text.empty() ? "" : ", ") + words + " \u00d7" + std::to_string(count);
  }
  return text;
}

std::string Cell(const std::string& text, double sort_value, const std::string& css) {
  std::string cell = "<td class=\"" + css + "\" data-v=\"";
  cell += std::isfinite(sort_value) ? Printf("%.9g", sort_value) : "";
  return cell + "\">" + HtmlEscape(text) + "</td>";
}

std::string TextCell(const std::string& text, const std::string& css) {
  return "<td" + (css.empty() ? std::string() : " class=\"" + css + "\"") + ">" + HtmlEscape(text) +
         "</td>";
}

}  // namespace gpubench::tools::internal
