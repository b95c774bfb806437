// What gpubench-export and gpubench-report read from one gpubench run: the files of the run
// (loaded with gpubench-compare's loader, settings checked with the gate's CheckSettings),
// per-metric statistics over the repetitions, and the context facts both tools show.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/metric_policy.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// Explains a fingerprint mismatch found by CheckSettings: both fingerprints and every
/// fingerprinted setting that differs, e.g. `gpubench_cache: "flush" in a.json, "keep" in b.json`.
std::string DescribeSettingsMismatch(const SettingsCheck& check, const std::string& first_path,
                                     const std::string& second_path);

// Loads the files of one run (usually one file; several when a run was split into shards) with
// LoadBenchmarkFile and merges them into one BenchmarkFile whose context is the first file's.
/// Fails with kInvalidInput (exit 2) for bad input or a benchmark that appears in two files, and
/// kSettingsMismatch (exit 3) when the files' settings fingerprints differ.
detail::Result<BenchmarkFile> LoadRun(const std::vector<std::string>& paths);

/// Statistics of one metric over the repetitions of one benchmark. With no values every number
/// is NaN; stddev and cv need 2 values.
struct Spread {
  std::size_t count = 0;
  bool finite = true;  ///< every value finite (otherwise the numbers below are NaN)
  double median, min, max, mean, stddev, cv_percent;
};
Spread Summarize(const std::vector<double>& values);

/// The context value of `key`, or `fallback` when the file does not have it.
std::string ContextOr(const BenchmarkFile& file, std::string_view key, std::string_view fallback);
/// The context value of `key` as a number, when it is one.
std::optional<double> ContextNumber(const BenchmarkFile& file, std::string_view key);

/// Unit and direction of a metric as gpubench-compare resolves them: the counter vocabulary,
/// then the file's gpubench_counter_units, then --direction.
struct MetricDescription {
  std::string name;
  std::string unit;  ///< "ns" for real_time and cpu_time; "" when nothing says
  Direction direction = Direction::kUnknown;
  bool gated = false;  ///< the vocabulary gates it (time, bytes, rate)
  bool known = false;  ///< the vocabulary or the file's gpubench_counter_units has it
};
MetricDescription DescribeMetric(std::string_view metric, const BenchmarkFile& file,
                                 const PolicyOverrides& overrides = {});

/// The metrics exported and reported by default: time plus the vocabulary's gated counters and
/// dram_bandwidth (reported: its inputs are gated), in the vocabulary's order.
std::vector<std::string> DefaultGatedMetrics();

/// True when sm_clock_throttled was 1 in at least one repetition; `count` gets how many.
bool Throttled(const BenchmarkRecord& record, std::size_t* count = nullptr);
/// True when gpu_shared was 1 (another process used the GPU) in at least one repetition.
bool Shared(const BenchmarkRecord& record, std::size_t* count = nullptr);

/// True when launch_held was 0 (cache=flush: the body waits for the GPU, or another process
/// used it) in at least one repetition; *count: in how many.
bool NotHeld(const BenchmarkRecord& record, std::size_t* count = nullptr);

/// The heat or power clock-event reasons (sw_power_cap, thermal and hardware slowdowns) seen in
/// any repetition's clock_event_reasons, by name joined with ", "; "" when none (or no counter).
/// *count: in how many repetitions.
std::string HeatOrPowerReasons(const BenchmarkRecord& record, std::size_t* count = nullptr);

/// True when timing_paused was 1 (the body paused GB's timer with state.PauseTiming(), whose GPU
/// work stays in the GPU time) in at least one row; *count: in how many.
bool TimingPaused(const BenchmarkRecord& record, std::size_t* count = nullptr);

}  // namespace gpubench::tools
