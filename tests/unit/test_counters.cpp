// The counter vocabulary (schema/counter_table.hpp, with the gate's rules of
// tools/gate/gate_tuning.hpp) against what reads and shows it: the user guide's counter table, the
// context block's gpubench_counter_units, the default metrics.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "config/metric_groups.hpp"
#include "frontend/setup/context.hpp"
#include "gpubench/counters.hpp"
#include "measure/profiling/metrics.hpp"
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
  static_assert(FindCounter("dram_read_bytes")->measured == Measured::kPerRun);
  static_assert(GateRuleOf(FindCounter("dram_read_bytes")->name).gating == Gating::kBytes);
  EXPECT_NE(FindCounter("kernel_time/CopyKernel(float const*, float*)"), nullptr);
  EXPECT_EQ(FindCounter("kernel_time/"), nullptr);
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
  EXPECT_EQ(units["dram_read_bytes"], "bytes:lower");
  EXPECT_EQ(units["bytes_moved"], "bytes:lower");
  EXPECT_EQ(units["dram_bandwidth"], "bytes/s:higher");
  EXPECT_EQ(units["gpu_duration"], "s:lower");
  EXPECT_EQ(units["sm_clock_mhz"], "MHz:higher");
  EXPECT_EQ(units["sm_clock_throttled"], "flag:lower");
  EXPECT_EQ(units["lts__t_sector_hit_rate.pct"], "%:neither");  // CUPTI's unit
  EXPECT_EQ(units["smsp__inst_executed.sum"], "-:neither");     // CUPTI named none
  EXPECT_EQ(units.count("real_time"), 0u);                      // GB's field, not a counter
  EXPECT_EQ(units.count("dram__bytes_read.sum"), 0u);           // written as dram_read_bytes
  EXPECT_EQ(units.count("kernel_time/*"), 0u);                  // timer=events

  settings.timer = Timer::kCupti;
  settings.profile_iterations = 0;  // profiling off: no metric counters
  units = UnitsEntries(CounterUnits(settings, {}));
  EXPECT_EQ(units["kernel_time/*"], "s:lower");
  EXPECT_EQ(units["sm_clock_mhz"], "MHz:higher");
  EXPECT_EQ(units.count("dram_read_bytes"), 0u);
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
  EXPECT_DOUBLE_EQ(counters.at("gpu_duration"), 2e-6);
  EXPECT_DOUBLE_EQ(counters.at("profiled_sm_clock_mhz"), 1980);
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
  EXPECT_EQ(units.count("flop_rate"), 0u);
  EXPECT_EQ(units.count("l2_hit_rate"), 0u);
  EXPECT_EQ(units["declared_bytes"], "bytes:neither");
  EXPECT_EQ(units["dram_traffic_ratio"], "ratio:lower");
  for (const char* group : {"flops", "l2"}) {
    for (const auto& metric : FindMetricGroup(group)->metrics) settings.metrics.push_back(metric);
  }
  units = UnitsEntries(CounterUnits(settings, {{"lts__t_sector_hit_rate.pct", "%"}}));
  EXPECT_EQ(units["flop_count_fp32"], "FLOP:neither");
  EXPECT_EQ(units["flop_rate"], "FLOP/s:higher");
  EXPECT_EQ(units["arithmetic_intensity"], "FLOP/byte:neither");
  EXPECT_EQ(units["l2_hit_rate"], "%:higher");
  EXPECT_EQ(units["l2_read_bytes"], "bytes:neither");
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

// Each counter's writer (schema/counter_table.hpp Writer) and the files that may write it: the
// library's writes of a counter by name, as source text, against the table.
struct CounterWrite {
  std::string name;  // the literal; a prefix where the name is built ("kernel_time/" + kernel)
  bool built;
  int line;
};

std::vector<CounterWrite> CounterWritesIn(const std::string& text) {
  // counters["name"] = ..., (*counters)["name"] = ..., run->counters["prefix/" + kernel] = ...
  static const std::regex write(R"re(counters\)?\["([^"]+)"(\s*\+[^\]]*)?\]\s*=[^=])re");
  std::vector<CounterWrite> writes;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), write);
       it != std::sregex_iterator(); ++it) {
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + it->position(), '\n'));
    writes.push_back({(*it)[1].str(), (*it)[2].matched, line});
  }
  return writes;
}

TEST(Counters, TheSourceScanFindsEachFormOfWrite) {
  const auto writes = CounterWritesIn(
      "state.counters[\"gpu_shared\"] = 1;\n(*counters)[\"flop_count\"] = total;\n"
      "run->counters[\"kernel_time/\" + kernel] = seconds;\nif (counters[\"x\"] == 1) {}\n");
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[0].name, "gpu_shared");
  EXPECT_EQ(writes[1].name, "flop_count");
  EXPECT_EQ(writes[2].name, "kernel_time/");
  EXPECT_FALSE(writes[1].built);
  EXPECT_TRUE(writes[2].built);
  EXPECT_EQ(writes[2].line, 3);
}

TEST(Counters, EveryNameWrittenInTheSourcesIsInTheTableWithItsWriter) {
  const std::map<std::string, std::set<Writer>> writers_of_file = {
      {"src/measure/publish/publish.cpp", {Writer::kCallEnd, Writer::kRowCost}},
      {"src/measure/profiling/metrics.cpp", {Writer::kCallEnd}},
      {"src/measure/stages/phases.cpp", {Writer::kCallEnd}},
      {"src/measure/publish/declared_work.cpp", {Writer::kFunctionEnd, Writer::kRowCost}},
      {"src/frontend/hooks/paused_rows.cpp", {Writer::kReporter}},
      {"include/gpubench/loop.hpp", {Writer::kBenchmarkFunction}},
  };
  const std::string root = GPUBENCH_SOURCE_DIR;
  size_t found = 0;
  std::set<std::string> files_seen;
  for (const char* folder :
       {"src/common", "src/config", "src/gpu", "src/measure", "src/frontend", "include/gpubench"}) {
    // Recursive: the layers have sub-folders (src/measure/publish/, ...).
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root + "/" + folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string relative = std::filesystem::relative(entry.path(), root).generic_string();
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      for (const CounterWrite& write : CounterWritesIn(text.str())) {
        ++found;
        files_seen.insert(relative);
        const std::string where = relative + ":" + std::to_string(write.line);
        // A name built from a prefix ("kernel_time/" + kernel) is one of the table's prefix
        // counters; other built names would escape this check, so they are refused.
        const CounterInfo* counter = FindCounter(write.built ? write.name + "x" : write.name);
        ASSERT_TRUE(!write.built || write.name.back() == '/')
            << where << " builds a counter name from '" << write.name
            << "': name it in schema/counter_table.hpp (counter::k...) instead";
        ASSERT_NE(counter, nullptr)
            << where << " writes counter '" << write.name << (write.built ? "...'" : "'")
            << ", which is not in schema/counter_table.hpp kCounters";
        const auto allowed = writers_of_file.find(relative);
        ASSERT_NE(allowed, writers_of_file.end())
            << where << " writes counter '" << write.name
            << "', but no counter's writer is that file (counter_table.hpp Writer)";
        EXPECT_EQ(allowed->second.count(counter->writer), 1u)
            << where << " writes counter '" << write.name
            << "', whose writer in counter_table.hpp is another (Writer "
            << static_cast<int>(counter->writer) << ")";
      }
    }
  }
  // The scan reads what it should: every writer's file, dozens of writes.
  EXPECT_GT(found, 40u);
  for (const auto& [file, writers] : writers_of_file) {
    EXPECT_EQ(files_seen.count(file), 1u) << file << " writes no counter any more: update the map";
  }
}

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
  EXPECT_EQ(GateRuleOf("dram_bandwidth").gating, Gating::kReportOnly);
  EXPECT_EQ(GateRuleOf("bytes_moved").gating, Gating::kBytes);
  EXPECT_EQ(GateRuleOf("real_time").gating, Gating::kTime);
  // The busy measurement comes from the profiling child too.
  EXPECT_EQ(FindCounter("gpu_busy_time")->measured, Measured::kPerRun);
  EXPECT_EQ(FindCounter("precision_pct")->measured, Measured::kPerRepetition);
  // Every stop_reason code has a name.
  for (int code = 1; code <= 6; ++code) EXPECT_FALSE(StopReasonNameOf(code).empty()) << code;
  EXPECT_TRUE(StopReasonNameOf(7).empty());
}

}  // namespace
}  // namespace gpubench
