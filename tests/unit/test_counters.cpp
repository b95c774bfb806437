// The counter vocabulary (schema/counter_table.hpp, with the gate's rules of
// tools/gate/gate_tuning.hpp) against what reads and shows it: the user guide's counter table, the
// context block's gpubench_counter_units, the default metrics.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "config/metric_groups.hpp"
#include "frontend/setup/context.hpp"
#include "gpubench/counters.hpp"
#include "measure/profiling/metrics.hpp"
#include "schema/counter_sink.hpp"
#include "schema/counter_table.hpp"
#include "support/guide_table.hpp"
#include "tools/gate/gate_tuning.hpp"

namespace gpubench::detail {
namespace {

// Rows of the user guide's counter table: name -> {unit, better, gate}.
std::map<std::string, std::vector<std::string>> ReadmeCounterRows() {
  std::map<std::string, std::vector<std::string>> rows;
  for (const auto& cells : testing::GuideTable("| counter | unit | better | gate | meaning |")) {
    if (cells.size() >= 4) rows[cells[0]] = {cells[1], cells[2], cells[3]};
  }
  return rows;
}

std::string ReadmeName(const CounterInfo& counter) {
  const std::string name(counter.name);
  return name.back() == '/' ? name + "<kernel>" : name;
}

TEST(Counters, UserGuideTableMatchesTheVocabulary) {
  auto rows = ReadmeCounterRows();
  ASSERT_FALSE(rows.empty()) << "docs/user_guide.md has no counter table";
  for (const CounterInfo& counter : kCounters) {
    const std::string name = ReadmeName(counter);
    auto row = rows.find(name);
    ASSERT_NE(row, rows.end()) << name << " is in kCounters but not in the user guide's table";
    EXPECT_EQ(row->second[0], counter.unit) << name;
    EXPECT_EQ(row->second[1], BetterName(counter.better)) << name;
    const std::string gate = row->second[2];
    const GateRule rule = GateRuleOf(counter.name);
    switch (rule.gating) {
      case Gating::kReportOnly:
        EXPECT_EQ(gate, "report") << name;
        break;
      case Gating::kFlag:
        EXPECT_EQ(gate, "flag") << name;
        break;
      case Gating::kTime:
      case Gating::kRate:
      case Gating::kBytes: {
        char minimum[32];
        std::snprintf(minimum, sizeof minimum, "≥ %g%%", rule.min_threshold_percent);
        EXPECT_NE(gate.find(minimum), std::string::npos) << name << ": " << gate;
        break;
      }
    }
    rows.erase(row);
  }
  rows.erase("*metric name*");
  for (const auto& [name, cells] : rows)
    ADD_FAILURE() << name << " is in the user guide but not in kCounters";
}

TEST(Counters, NamesAreUniqueAndFindable) {
  std::set<std::string_view> names;
  for (const CounterInfo& counter : kCounters) {
    EXPECT_TRUE(names.insert(counter.name).second) << counter.name;
    EXPECT_FALSE(counter.meaning.empty()) << counter.name;
  }
  // Usable at compile time (a pointer comparison is not, under gcc's UBSan).
  static_assert(FindCounter(counter::kDramReadBytes)->measured == Measured::kPerRun);
  static_assert(GateRuleOf(FindCounter(counter::kDramReadBytes)->name).gating == Gating::kBytes);
  EXPECT_NE(FindCounter("kernel_time/CopyKernel(float const*, float*)"), nullptr);
  EXPECT_EQ(FindCounter(counter::kKernelTimePrefix), nullptr);
  EXPECT_EQ(FindCounter("lts__t_sector_hit_rate.pct"), nullptr);
}

TEST(Counters, DefaultMetricsAreTheVocabularySources) {
  EXPECT_EQ(DefaultMetrics(), (std::vector<std::string>{
                                  "dram__bytes_read.sum", "dram__bytes_write.sum",
                                  "gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second"}));
}

std::map<std::string, std::string> UnitsEntries(const std::string& text) {
  std::map<std::string, std::string> entries;
  std::stringstream stream(text);
  std::string entry;
  while (std::getline(stream, entry, ';')) {
    const auto equals = entry.find('=');
    EXPECT_NE(equals, std::string::npos) << entry;
    entries[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return entries;
}

TEST(Counters, ContextNamesTheUnitOfEveryCounterTheRunCanWrite) {
  Settings settings;
  settings.metrics = DefaultMetrics();
  settings.metrics.push_back("lts__t_sector_hit_rate.pct");
  settings.metrics.push_back("smsp__inst_executed.sum");
  auto units = UnitsEntries(CounterUnits(settings, {{"lts__t_sector_hit_rate.pct", "%"}}));
  EXPECT_EQ(units[counter::kDramReadBytes], "bytes:lower");
  EXPECT_EQ(units[counter::kBytesMoved], "bytes:lower");
  EXPECT_EQ(units[counter::kDramBandwidth], "bytes/s:higher");
  EXPECT_EQ(units[counter::kGpuDuration], "s:lower");
  EXPECT_EQ(units[counter::kSmClockMhz], "MHz:higher");
  EXPECT_EQ(units[counter::kSmClockThrottled], "flag:lower");
  EXPECT_EQ(units["lts__t_sector_hit_rate.pct"], "%:neither");  // CUPTI's unit
  EXPECT_EQ(units["smsp__inst_executed.sum"], "-:neither");     // CUPTI named none
  EXPECT_EQ(units.count(counter::kRealTime), 0u);               // GB's field, not a counter
  EXPECT_EQ(units.count("dram__bytes_read.sum"), 0u);           // written as dram_read_bytes
  EXPECT_EQ(units.count("kernel_time/*"), 0u);                  // timer=events

  settings.timer = Timer::kCupti;
  settings.profile_iterations = 0;  // profiling off: no metric counters
  units = UnitsEntries(CounterUnits(settings, {}));
  EXPECT_EQ(units["kernel_time/*"], "s:lower");
  EXPECT_EQ(units[counter::kSmClockMhz], "MHz:higher");
  EXPECT_EQ(units.count(counter::kDramReadBytes), 0u);
  EXPECT_EQ(units.count("lts__t_sector_hit_rate.pct"), 0u);
}

TEST(Counters, DerivedCountersAreTheVocabularyNames) {
  DeviceFacts facts;
  facts.memory_clock_rated_mhz = 3201;
  facts.memory_bus_width_bits = 6144;
  const auto counters = DeriveMetricCounters({{"dram__bytes_read.sum", 1000.0},
                                              {"dram__bytes_write.sum", 500.0},
                                              {"gpu__time_duration.sum", 2000.0},
                                              {"sm__cycles_elapsed.avg.per_second", 1.98e9},
                                              {"lts__t_sector_hit_rate.pct", 50.0}},
                                             facts);
  for (const auto& [name, value] : counters) {
    EXPECT_TRUE(FindCounter(name) != nullptr || name == "lts__t_sector_hit_rate.pct") << name;
  }
  EXPECT_DOUBLE_EQ(counters.at(counter::kGpuDuration), 2e-6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kProfiledSmClockMhz), 1980);
}

TEST(Counters, GroupCountersNameATableGroupAndReadItsMetrics) {
  for (const CounterInfo& counter : kCounters) {
    if (counter.group.empty()) continue;
    const MetricGroup* group = FindMetricGroup(counter.group);
    ASSERT_NE(group, nullptr) << counter.name << ": group " << counter.group;
    if (counter.source_metric.empty()) continue;
    EXPECT_NE(
        std::find(group->metrics.begin(), group->metrics.end(), std::string(counter.source_metric)),
        group->metrics.end())
        << counter.name;
  }
  // The defaults stay the four of the default counters: groups come only when asked for.
  EXPECT_EQ(DefaultMetrics().size(), 4u);
}

TEST(Counters, ContextListsAGroupsCountersOnlyWhenItIsOn) {
  Settings settings;
  settings.metrics = DefaultMetrics();
  auto units = UnitsEntries(CounterUnits(settings, {}));
  EXPECT_EQ(units.count(counter::kFlopRate), 0u);
  EXPECT_EQ(units.count(counter::kL2HitRate), 0u);
  EXPECT_EQ(units[counter::kDeclaredBytes], "bytes:neither");
  EXPECT_EQ(units[counter::kDramTrafficRatio], "ratio:lower");
  for (const char* group : {"flops", "l2"}) {
    for (const auto& metric : FindMetricGroup(group)->metrics) settings.metrics.push_back(metric);
  }
  units = UnitsEntries(CounterUnits(settings, {{"lts__t_sector_hit_rate.pct", "%"}}));
  EXPECT_EQ(units[counter::kFlopCountFp32], "FLOP:neither");
  EXPECT_EQ(units[counter::kFlopRate], "FLOP/s:higher");
  EXPECT_EQ(units[counter::kArithmeticIntensity], "FLOP/byte:neither");
  EXPECT_EQ(units[counter::kL2HitRate], "%:higher");
  EXPECT_EQ(units[counter::kL2ReadBytes], "bytes:neither");
  // The groups' metrics are written as the groups' counters only.
  EXPECT_EQ(units.count("lts__t_sector_hit_rate.pct"), 0u);
  EXPECT_EQ(units.count("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"), 0u);
  // Every counter DeriveMetricCounters can write with both groups is listed.
  DeviceFacts facts;
  std::map<std::string, double> averaged;
  for (const auto& metric : settings.metrics) averaged[metric] = 1;
  for (const auto& [name, value] : DeriveMetricCounters(averaged, facts)) {
    EXPECT_EQ(units.count(name), 1u) << name;
  }
}

// The library writes counters through CounterSink (schema/counter_sink.hpp): which writer owns
// a counter is checked at compile time there (tests/unit/compile_fail, ctest
// counter_writes_refused); these check what a write does at run time.
TEST(Counters, ASinkWritesUnderTheTableName) {
  std::map<std::string, double> values;
  CounterSink<Writer::kCallEnd> out(values);
  out.Set<counter::kGpuShared>(1);
  out.SetUnder<counter::kKernelTimePrefix>("copy", 2);
  out.SetFromTable(counter::kFlopCountFp32, 3);
  out.SetMetric("sm__cycles_elapsed.max", 4);
  const std::map<std::string, double> expected = {{counter::kGpuShared, 1},
                                                  {"kernel_time/copy", 2},
                                                  {counter::kFlopCountFp32, 3},
                                                  {"sm__cycles_elapsed.max", 4}};
  EXPECT_EQ(values, expected);
  // A second write replaces the value, as the map's operator[] did.
  out.Set<counter::kGpuShared>(0);
  EXPECT_EQ(values.at(counter::kGpuShared), 0);
}

TEST(Counters, ASinkOverGbCountersWritesAPlainCounter) {
  benchmark::UserCounters counters;
  counters[counter::kWallTime] = benchmark::Counter(5, benchmark::Counter::kIsRate);
  CounterSink<Writer::kRowCost> cost(counters);
  cost.Set<counter::kWallTime>(1.5);
  ASSERT_EQ(counters.count(counter::kWallTime), 1u);
  EXPECT_EQ(counters.at(counter::kWallTime).value, 1.5);
  // Replaced with GB's default flags, as `counters[name] = value` did.
  EXPECT_EQ(counters.at(counter::kWallTime).flags, benchmark::Counter::kDefaults);
}

// The compile-time lookup the sink's static_asserts use.
static_assert(CounterRowOf(counter::kRealTime) == 0, "real_time is the table's first row");
static_assert(CounterRowOf("gpu_sharedx") < 0, "a name not in the table has no row");
static_assert(CounterRowOf("kernel_time/copy") < 0, "a prefix row is found by its prefix only");
static_assert(IsPrefixName(counter::kKernelTimePrefix) && !IsPrefixName(counter::kGpuShared),
              "a prefix name ends in '/'");

}  // namespace
}  // namespace gpubench::detail

namespace gpubench {
namespace {

// The gate's decisions per kind of counter (issue #36; docs/compare.md "A suite").
TEST(CounterGating, EachCounterIsGatedByWhatItIs) {
  for (const CounterInfo& counter : kCounters) {
    // What the profiler measures serves every repetition: measured once per run.
    if (!counter.source_metric.empty()) {
      EXPECT_EQ(counter.measured, Measured::kPerRun) << counter.name;
    }
    // Byte counts are measured once per run and judged by their medians and floors.
    const GateRule rule = GateRuleOf(counter.name);
    if (rule.gating == Gating::kBytes) {
      EXPECT_EQ(counter.measured, Measured::kPerRun) << counter.name;
      EXPECT_EQ(rule.floor, kGateByteFloor) << counter.name;
    }
    // A time gated against its repetitions' noise is measured per repetition.
    if (rule.gating == Gating::kTime) {
      EXPECT_EQ(counter.measured, Measured::kPerRepetition) << counter.name;
    }
  }
  // A ratio of gated inputs is reported, not gated a second time.
  EXPECT_EQ(GateRuleOf(counter::kDramBandwidth).gating, Gating::kReportOnly);
  EXPECT_EQ(GateRuleOf(counter::kBytesMoved).gating, Gating::kBytes);
  EXPECT_EQ(GateRuleOf(counter::kRealTime).gating, Gating::kTime);
  // The busy measurement comes from the profiling child too.
  EXPECT_EQ(FindCounter(counter::kGpuBusyTime)->measured, Measured::kPerRun);
  EXPECT_EQ(FindCounter(counter::kPrecisionPct)->measured, Measured::kPerRepetition);
  // Every stop_reason code has a name.
  for (int code = 1; code <= 6; ++code) EXPECT_FALSE(StopReasonNameOf(code).empty()) << code;
  EXPECT_TRUE(StopReasonNameOf(7).empty());
}

}  // namespace
}  // namespace gpubench
