// Number formats and table cells shared by the sections of gpubench-report's page.
#include "tools/report/html_cells.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpubench/counters.hpp"
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
  const std::string_view unit = info != nullptr ? info->unit : std::string_view();
  // Codes are small whole numbers; anything else is shown as the number it is.
  const bool whole = std::isfinite(value) && value >= 0 && value < 9007199254740992.0 &&
                     value == std::floor(value);
  if (whole && unit == "reason") {
    const std::string_view name = StopReasonNameOf(static_cast<int>(value));
    if (!name.empty()) return std::string(name);
  }
  if (whole && unit == "reasons") {
    const auto bits = static_cast<std::uint64_t>(value);
    std::string text;
    std::uint64_t named = 0;
    for (const ClockEventReason& reason : kClockEventReasons) {
      named |= reason.bit;
      if ((bits & reason.bit) != 0) text += (text.empty() ? "" : "|") + std::string(reason.name);
    }
    for (int bit = 0; bit < 64; ++bit) {
      const std::uint64_t mask = std::uint64_t{1} << bit;
      if ((bits & mask) == 0 || (named & mask) != 0) continue;
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(mask));
      text += (text.empty() ? "" : "|") + std::string(hex);
    }
    return text.empty() ? "none" : text;
  }
  return Printf("%g", value);
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
