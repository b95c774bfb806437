// What gpubench-report's charts draw: benchmarks split into family and argument, their values as
// JSON for the page's script, and the same values as tables for readers without JavaScript.
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/report/html_cells.hpp"
#include "tools/report/html_report.hpp"
#include "tools/report/html_sections.hpp"

namespace gpubench::tools {
namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsNumber(std::string_view text, double* value) {
  if (text.empty() || text.size() > 40) return false;
  const std::string copy(text);
  char* end = nullptr;
  *value = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && std::isfinite(*value) &&
         (std::isdigit(static_cast<unsigned char>(copy[0])) || copy[0] == '-');
}

}  // namespace

FamilyArgument SplitFamily(std::string_view name) {
  // GB appends these to the instance name; they are not arguments.
  static constexpr std::string_view kSuffixes[] = {"/manual_time", "/real_time", "/process_time"};
  static constexpr std::string_view kKeyedSuffixes[] = {
      "/iterations:", "/repeats:", "/threads:", "/min_time:", "/min_warmup_time:"};
  bool stripped = true;
  while (stripped) {
    stripped = false;
    for (std::string_view suffix : kSuffixes) {
      if (EndsWith(name, suffix)) {
        name.remove_suffix(suffix.size());
        stripped = true;
      }
    }
    const std::size_t slash = name.rfind('/');
    if (slash != std::string_view::npos) {
      for (std::string_view key : kKeyedSuffixes) {
        if (name.compare(slash, key.size(), key) == 0) {
          name = name.substr(0, slash);
          stripped = true;
          break;
        }
      }
    }
  }
  FamilyArgument result;
  const std::size_t slash = name.rfind('/');
  if (slash != std::string_view::npos && slash > 0) {
    std::string_view last = name.substr(slash + 1);
    const std::size_t colon = last.find(':');
    const std::string_view number = colon == std::string_view::npos ? last : last.substr(colon + 1);
    double value = 0;
    if (IsNumber(number, &value)) {
      result.family = std::string(name.substr(0, slash));
      result.argument = value;
      result.argument_text = std::string(last);
      return result;
    }
  }
  result.family = std::string(name);
  return result;
}

namespace internal {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Six significant digits are plenty for a chart and keep the embedded data small.
double Round6(double value) {
  if (!std::isfinite(value) || value == 0) return value;
  return std::strtod(Printf("%.6g", value).c_str(), nullptr);
}

OrderedJson NumberOrNull(double value) {
  return std::isfinite(value) ? OrderedJson(Round6(value)) : OrderedJson(nullptr);
}

OrderedJson Values(const MetricSeries* series) {
  OrderedJson values = OrderedJson::array();
  if (series) {
    for (double value : series->values) values.push_back(NumberOrNull(value));
  }
  return values;
}

// The medians a roofline point needs (--gpubench_metrics=+flops): arithmetic intensity, FLOP
// rate, the FLOP peak of the row's precision mix, the tensor pipe's share. Rows without them
// get none.
void AddRooflinePoint(const BenchmarkRecord& record, OrderedJson* benchmark) {
  const double intensity = MedianOf(record, counter::kArithmeticIntensity);
  const double rate = MedianOf(record, counter::kFlopRate);
  if (!(intensity > 0) || !(rate > 0)) return;
  (*benchmark)["ai"] = intensity;
  (*benchmark)["fr"] = rate;
  (*benchmark)["fp"] = NumberOrNull(MedianOf(record, counter::kFlopRatePeak));
  (*benchmark)["tp"] = NumberOrNull(MedianOf(record, counter::kTensorPipePct));
}

// The data the page's script draws: per benchmark, its family, argument and the per-repetition
// values of time and bandwidth (and the baseline's).
OrderedJson ChartData(const ReportInputs& inputs, double peak) {
  const BenchmarkFile& run = *inputs.run;
  OrderedJson data;
  data["peak"] = peak > 0 ? OrderedJson(peak) : OrderedJson(nullptr);
  data["baseline"] = inputs.baseline != nullptr;
  OrderedJson benchmarks = OrderedJson::array();
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.failed) continue;
    const FamilyArgument split = SplitFamily(record.name);
    OrderedJson benchmark;
    benchmark["n"] = record.name;
    benchmark["f"] = split.family;
    benchmark["a"] = split.argument ? OrderedJson(*split.argument) : OrderedJson(nullptr);
    benchmark["t"] = Values(record.FindMetric(counter::kRealTime));
    const MetricSeries* bandwidth = record.FindMetric(counter::kDramBandwidth);
    if (bandwidth) benchmark["b"] = Values(bandwidth);
    AddRooflinePoint(record, &benchmark);
    if (inputs.baseline) {
      if (const BenchmarkRecord* base = inputs.baseline->Find(record.name); base && !base->failed) {
        benchmark["bt"] = Values(base->FindMetric(counter::kRealTime));
        if (const MetricSeries* base_bandwidth = base->FindMetric(counter::kDramBandwidth)) {
          benchmark["bb"] = Values(base_bandwidth);
        }
      }
    }
    benchmarks.push_back(std::move(benchmark));
  }
  data["benchmarks"] = std::move(benchmarks);
  AddHistoryData(inputs, &data);
  return data;
}

}  // namespace

std::string ChartDataJson(const ReportInputs& inputs, double peak) {
  const std::string dumped = ChartData(inputs, peak).dump();
  // Inside <script>, "</script" ends the element early and "<!--" changes how the parser reads
  // the rest of it; "<" appears in JSON only inside strings, where "\u003c" means the same.
  std::string data;
  data.reserve(dumped.size());
  for (const char c : dumped) {
    if (c == '<') {
      data += "\\u003c";
    } else {
      data += c;
    }
  }
  return data;
}

bool HasRoofline(const BenchmarkFile& run) {
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (!record.failed && record.FindMetric(counter::kArithmeticIntensity) &&
        record.FindMetric(counter::kFlopRate)) {
      return true;
    }
  }
  return false;
}

std::string NoScriptTables(const ReportInputs& inputs) {
  const BenchmarkFile& run = *inputs.run;
  std::string html =
      "<noscript><section><h2>Repetitions</h2><p>The charts need JavaScript; these are the "
      "values they draw (GPU time per iteration and DRAM bandwidth of every repetition).</p>"
      "<table><thead><tr><th>Benchmark</th><th>Family</th><th>Argument</th>"
      "<th>GPU time per repetition</th><th>DRAM bandwidth per repetition</th>";
  if (inputs.baseline) html += "<th>Baseline GPU time per repetition</th>";
  html += "</tr></thead><tbody>\n";
  const auto list = [](const MetricSeries* series, bool time) {
    if (!series) return std::string("-");
    std::string text;
    for (double value : series->values) {
      if (!text.empty()) text += ", ";
      text += time ? FormatTime(value) : FormatBandwidth(value);
    }
    return text;
  };
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.failed) continue;
    const FamilyArgument split = SplitFamily(record.name);
    html += "<tr>" + TextCell(record.name) + TextCell(split.family) +
            TextCell(split.argument ? split.argument_text : "-") +
            TextCell(list(record.FindMetric(counter::kRealTime), true)) +
            TextCell(list(record.FindMetric(counter::kDramBandwidth), false));
    if (inputs.baseline) {
      const BenchmarkRecord* base = inputs.baseline->Find(record.name);
      html += TextCell(base ? list(base->FindMetric(counter::kRealTime), true) : "-");
    }
    html += "</tr>\n";
  }
  html += "</tbody></table></section>\n";
  if (HasRoofline(run)) {
    html +=
        "<section><h2>Roofline</h2><table><thead><tr><th>Benchmark</th><th>Arithmetic "
        "intensity (FLOP/byte)</th><th>FLOP rate</th><th>FLOP peak</th><th>Tensor pipe</th>"
        "</tr></thead><tbody>\n";
    for (const BenchmarkRecord& record : run.benchmarks) {
      if (record.failed || !record.FindMetric(counter::kArithmeticIntensity)) continue;
      html += "<tr>" + TextCell(record.name) +
              TextCell(Printf("%.4g", MedianOf(record, counter::kArithmeticIntensity))) +
              TextCell(Printf("%.4g FLOP/s", MedianOf(record, counter::kFlopRate))) +
              TextCell(Printf("%.4g FLOP/s", MedianOf(record, counter::kFlopRatePeak))) +
              TextCell(FormatPercentValue(MedianOf(record, counter::kTensorPipePct))) + "</tr>\n";
    }
    html += "</tbody></table></section>\n";
  }
  return html + "</noscript>\n";
}

}  // namespace internal
}  // namespace gpubench::tools
