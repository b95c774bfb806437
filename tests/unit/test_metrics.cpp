#include <gtest/gtest.h>

#include <cmath>

#include "config/metric_groups.hpp"
#include "measure/profiling/metrics.hpp"
#include "measure/profiling/range_parts.hpp"
#include "measure/publish/declared_work.hpp"
#include "schema/counter_table.hpp"
#include "support/fake_device.hpp"

namespace gpubench::detail {
namespace {

TEST(Metrics, AverageOverRanges) {
  auto mean = AverageRanges({{{"a", 1.0}, {"b", 10.0}}, {{"a", 3.0}}, {{"a", 5.0}, {"b", 20.0}}});
  EXPECT_DOUBLE_EQ(mean["a"], 3.0);
  EXPECT_DOUBLE_EQ(mean["b"], 15.0);
}

TEST(Metrics, DefaultMetricsBecomeTheDocumentedCounters) {
  std::map<std::string, double> averaged = {
      {"dram__bytes_read.sum", 536870912.0},         {"dram__bytes_write.sum", 268435456.0},
      {"gpu__time_duration.sum", 233000.0},  // ns
      {"sm__cycles_elapsed.avg.per_second", 1.98e9}, {"lts__t_sector_hit_rate.pct", 12.5},
  };
  auto counters = DeriveMetricCounters(averaged, testing::FakeH200());
  EXPECT_DOUBLE_EQ(counters[counter::kDramReadBytes], 536870912.0);
  EXPECT_DOUBLE_EQ(counters[counter::kDramWriteBytes], 268435456.0);
  EXPECT_DOUBLE_EQ(counters[counter::kBytesMoved], 805306368.0);
  EXPECT_DOUBLE_EQ(counters[counter::kGpuDuration], 233e-6);
  EXPECT_DOUBLE_EQ(counters[counter::kProfiledSmClockMhz], 1980.0);
  // Literals computed by hand: 805306368 B / 233 us; peak 2 x 3201 MHz x 6144 bit / 8.
  EXPECT_NEAR(counters[counter::kDramBandwidth], 3456250506437.768, 1e-3);
  EXPECT_NEAR(counters[counter::kDramBandwidthPct], 70.2956291824041, 1e-9);
  EXPECT_DOUBLE_EQ(counters["lts__t_sector_hit_rate.pct"], 12.5);
  // The renamed metrics do not appear twice.
  EXPECT_EQ(counters.count("dram__bytes_read.sum"), 0u);
  EXPECT_EQ(counters.count("gpu__time_duration.sum"), 0u);
}

TEST(Metrics, DerivedCountersNeedTheirInputs) {
  auto counters = DeriveMetricCounters({{"dram__bytes_read.sum", 100.0}}, testing::FakeH200());
  EXPECT_EQ(counters.count(counter::kBytesMoved), 0u);
  EXPECT_EQ(counters.count(counter::kDramBandwidth), 0u);
  auto zero_time = DeriveMetricCounters({{"dram__bytes_read.sum", 1.0},
                                         {"dram__bytes_write.sum", 1.0},
                                         {"gpu__time_duration.sum", 0.0}},
                                        testing::FakeH200());
  EXPECT_EQ(zero_time.count(counter::kDramBandwidth), 0u);  // no division by zero
}

TEST(Metrics, ClockCountersFlagRunsBelowNinetyPercentOfRated) {
  auto full = ClockCounters(1975.0, testing::FakeH200());
  EXPECT_DOUBLE_EQ(full[counter::kSmClockMhz], 1975.0);
  EXPECT_DOUBLE_EQ(full[counter::kSmClockRatedMhz], 1980.0);
  EXPECT_DOUBLE_EQ(full[counter::kSmClockThrottled], 0.0);
  EXPECT_DOUBLE_EQ(ClockCounters(1783.0, testing::FakeH200())[counter::kSmClockThrottled],
                   0.0);  // 90.05%
  EXPECT_DOUBLE_EQ(ClockCounters(1781.0, testing::FakeH200())[counter::kSmClockThrottled],
                   1.0);  // 89.9%
  EXPECT_DOUBLE_EQ(ClockCounters(345.0, testing::FakeH200())[counter::kSmClockThrottled], 1.0);
}

TEST(Metrics, SuggestionsForUnknownMetrics) {
  // CUPTI lists some base metrics under more than one type: each is suggested once.
  const std::vector<std::string> bases = {"dram__bytes_read", "dram__bytes_write",
                                          "lts__t_sector_hit_rate", "gpu__time_duration",
                                          "dram__bytes_read"};
  const std::string typo = SuggestMetrics("dram__byte_read.sum", bases, {});
  EXPECT_EQ(typo,
            "did you mean: dram__bytes_read.sum, dram__bytes_write.sum, "
            "gpu__time_duration.sum")
      << typo;
  const std::string form =
      SuggestMetrics("dram__bytes_read.total", bases, {".sum", ".avg", ".max"});
  EXPECT_NE(form.find("dram__bytes_read.sum"), std::string::npos) << form;
  EXPECT_NE(form.find("exists"), std::string::npos) << form;
}

// Made-up CUPTI values of one profiled iteration with both groups' metrics: an FP32 kernel with
// some FP64 and FP16 work, on an H200-like chip (132 SMs x 128 FP32 / 64 FP64 / 256 FP16 lanes).
std::map<std::string, double> WithGroups() {
  std::map<std::string, double> averaged = {
      {"dram__bytes_read.sum", 3e6},
      {"dram__bytes_write.sum", 1e6},
      {"gpu__time_duration.sum", 100000.0},  // 100 us
      {"sm__cycles_elapsed.avg.per_second", 2e9},
      {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 1000},
      {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 2000},
      {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", 4e9},
      {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 16896},
      {"sm__sass_thread_inst_executed_op_dadd_pred_on.sum", 10},
      {"sm__sass_thread_inst_executed_op_dmul_pred_on.sum", 20},
      {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum", 1e6},
      {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", 8448},
      {"sm__sass_thread_inst_executed_op_hadd_pred_on.sum", 0},
      {"sm__sass_thread_inst_executed_op_hmul_pred_on.sum", 0},
      {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum", 0},
      {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", 33792},
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", 0.5},
      {"lts__t_sector_hit_rate.pct", 37.5},
      {"lts__t_sectors_srcunit_tex_op_read.sum", 125000},
      {"lts__t_sectors_srcunit_tex_op_write.sum", 31250},
  };
  return averaged;
}

TEST(Metrics, FlopsGroupCountsAddMulAndTwiceFmaPerPrecision) {
  auto counters = DeriveMetricCounters(WithGroups(), testing::FakeH200());
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopCountFp32), 1000 + 2000 + 2 * 4e9);
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopCountFp64), 10 + 20 + 2 * 1e6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopCountFp16),
                   0);  // written: no FP16 work is information
  const double total = 8e9 + 3000 + 2e6 + 30;
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopCount), total);
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopRate), total / 100e-6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kArithmeticIntensity), total / 4e6);
  // Peaks at the measured 2 GHz: FP32 2 x 16896 x 2e9, FP64 2 x 8448 x 2e9 FLOP/s; the mix's
  // peak weighs each precision's FLOPs with its own peak.
  const double fp32_peak = 2 * 16896 * 2e9, fp64_peak = 2 * 8448 * 2e9;
  const double seconds_at_peak = (8e9 + 3000) / fp32_peak + (2e6 + 30) / fp64_peak;
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopRatePeak), total / seconds_at_peak);
  EXPECT_NEAR(counters.at(counter::kFlopRatePct), 100 * seconds_at_peak / 100e-6, 1e-9);
  EXPECT_DOUBLE_EQ(counters.at(counter::kTensorPipePct), 0.5);
  // The group's metrics become its counters, not columns of their own.
  for (const auto& metric : FindMetricGroup("flops")->metrics) {
    EXPECT_EQ(counters.count(metric), 0u) << metric;
  }
}

TEST(Metrics, FlopRatePctOfOnePrecisionIsAgainstThatPrecisionsPeak) {
  std::map<std::string, double> counters = {{counter::kGpuDuration, 1e-3},
                                            {counter::kBytesMoved, 1e6}};
  std::map<std::string, double> averaged = {
      {"sm__cycles_elapsed.avg.per_second", 1.98e9},
      {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", 16896 * 1.98e6 / 2},  // half of 1 ms
      {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 16896},
      {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", 8448}};
  AddFlopCounters(averaged, &counters);
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopRatePeak), 2 * 16896 * 1.98e9);  // 66.9 TFLOP/s
  EXPECT_NEAR(counters.at(counter::kFlopRatePct), 50.0, 1e-9);
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopCountFp64), 0);

  // No FP work: 0% of FP32's peak, the usual roof.
  std::map<std::string, double> idle = {{counter::kGpuDuration, 1e-3}};
  averaged.erase("sm__sass_thread_inst_executed_op_ffma_pred_on.sum");
  AddFlopCounters(averaged, &idle);
  EXPECT_DOUBLE_EQ(idle.at(counter::kFlopRatePct), 0);
  EXPECT_DOUBLE_EQ(idle.at(counter::kFlopRatePeak), 2 * 16896 * 1.98e9);
  EXPECT_EQ(idle.count(counter::kArithmeticIntensity), 0u);  // no bytes_moved: no division
}

TEST(Metrics, L2GroupGivesHitRateAndBytesBetweenSmsAndL2) {
  auto counters = DeriveMetricCounters(WithGroups(), testing::FakeH200());
  EXPECT_DOUBLE_EQ(counters.at(counter::kL2HitRate), 37.5);
  EXPECT_DOUBLE_EQ(counters.at(counter::kL2ReadBytes), 125000 * 32.0);
  EXPECT_DOUBLE_EQ(counters.at(counter::kL2WriteBytes), 31250 * 32.0);
  EXPECT_EQ(counters.count("lts__t_sector_hit_rate.pct"), 0u);
}

TEST(Metrics, AGroupsMetricNamedAloneKeepsItsNameAndAddsNoGroupCounter) {
  auto counters = DeriveMetricCounters({{"lts__t_sector_hit_rate.pct", 12.5},
                                        {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", 8}},
                                       testing::FakeH200());
  EXPECT_DOUBLE_EQ(counters.at("lts__t_sector_hit_rate.pct"), 12.5);
  EXPECT_DOUBLE_EQ(counters.at("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"), 8);
  EXPECT_EQ(counters.count(counter::kL2HitRate), 0u);
  EXPECT_EQ(counters.count(counter::kFlopCountFp32), 0u);
}

TEST(Metrics, DeclaredCountersArePerIterationAndRatiosOfTheMeasuredOnes) {
  // SetBytesProcessed(4 x 1 MB) and SetFlopsProcessed(4 x 2 MFLOP) over 4 iterations.
  auto counters = DeclaredCounters({{counter::kBytesPerSecond, 4e6},
                                    {counter::kFlopsPerSecond, 8e6},
                                    {counter::kBytesMoved, 1.01e6},
                                    {counter::kFlopCount, 2e6}},
                                   4);
  EXPECT_DOUBLE_EQ(counters.at(counter::kDeclaredBytes), 1e6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kDramTrafficRatio), 1.01);
  EXPECT_DOUBLE_EQ(counters.at(counter::kDeclaredFlop), 2e6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopCountRatio), 1.0);
  // Without measurements (profiling off) only what was declared.
  auto declared_only = DeclaredCounters({{counter::kBytesPerSecond, 4e6}}, 4);
  EXPECT_EQ(declared_only.size(), 1u);
  EXPECT_DOUBLE_EQ(declared_only.at(counter::kDeclaredBytes), 1e6);
  EXPECT_TRUE(DeclaredCounters({{counter::kBytesMoved, 1e6}}, 4).empty());  // nothing declared
  EXPECT_TRUE(DeclaredCounters({{counter::kBytesPerSecond, 4e6}}, 0).empty());
}

// --- an iteration's parts around gpubench::UntimedScope (range_parts.hpp) ----------------------

TEST(RangeParts, EachMetricsRuleFollowsTheLastPartOfItsName) {
  EXPECT_EQ(PartsRuleOf("dram__bytes_read.sum"), PartsRule::kSum);
  EXPECT_EQ(PartsRuleOf("gpu__time_duration.sum"), PartsRule::kSum);
  EXPECT_EQ(PartsRuleOf("sm__cycles_elapsed.avg"), PartsRule::kSum);
  EXPECT_EQ(PartsRuleOf("sm__cycles_elapsed.avg.per_second"), PartsRule::kRate);
  EXPECT_EQ(PartsRuleOf("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"),
            PartsRule::kSame);
  for (const char* metric :
       {"lts__t_sector_hit_rate.pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "dram__bytes.max",
        "dram__bytes.min", "smsp__average_warp_latency.ratio", "dram__bytes.sum.per_cycle_elapsed",
        "dram__bytes.sum.peak_sustained_elapsed", "no_rollup"}) {
    EXPECT_EQ(PartsRuleOf(metric), PartsRule::kNone) << metric;
  }
}

std::vector<PushedRange> TwoIterationsOfTwoParts() {
  return {{"B/profiled:0", 0}, {"B/profiled:0.1", 0}, {"B/profiled:1", 1}, {"B/profiled:1.1", 1}};
}

// Sums add up, a rate is weighted by each part's duration, a chip constant stays, a share is
// left out of every iteration.
TEST(RangeParts, PartsAreSummedRatesWeightedAndSharesLeftOut) {
  std::vector<ProfiledRange> ranges;
  for (int iteration = 0; iteration < 2; ++iteration) {
    const std::string name = "B/profiled:" + std::to_string(iteration);
    ranges.push_back({name,
                      {{"dram__bytes_read.sum", 10.0},
                       {"gpu__time_duration.sum", 1000.0},
                       {"sm__cycles_elapsed.avg.per_second", 1e9},
                       {"x.sum.peak_sustained", 64.0},
                       {"lts__t_sector_hit_rate.pct", 90.0}}});
    ranges.push_back({name + ".1",
                      {{"dram__bytes_read.sum", 1000.0 * (iteration + 1)},
                       {"gpu__time_duration.sum", 3000.0},
                       {"sm__cycles_elapsed.avg.per_second", 2e9},
                       {"x.sum.peak_sustained", 64.0},
                       {"lts__t_sector_hit_rate.pct", 10.0}}});
  }
  const Result<IterationValues> values = CombineRangeParts(ranges, TwoIterationsOfTwoParts());
  ASSERT_TRUE(values.ok()) << values.status().message();
  const auto& iterations = values.value().iterations;
  ASSERT_EQ(iterations.size(), 2u);
  EXPECT_DOUBLE_EQ(iterations[0].at("dram__bytes_read.sum"), 1010.0);
  EXPECT_DOUBLE_EQ(iterations[1].at("dram__bytes_read.sum"), 2010.0);
  EXPECT_DOUBLE_EQ(iterations[0].at("gpu__time_duration.sum"), 4000.0);
  EXPECT_DOUBLE_EQ(iterations[0].at("sm__cycles_elapsed.avg.per_second"), 1.75e9);
  EXPECT_DOUBLE_EQ(iterations[0].at("x.sum.peak_sustained"), 64.0);
  EXPECT_EQ(iterations[0].count("lts__t_sector_hit_rate.pct"), 0u);
  EXPECT_EQ(values.value().left_out, std::set<std::string>{"lts__t_sector_hit_rate.pct"});
  const std::string note = LeftOutNote(values.value().left_out);
  EXPECT_NE(note.find("lts__t_sector_hit_rate.pct (l2_hit_rate)"), std::string::npos) << note;
  EXPECT_NE(note.find("gpubench::UntimedScope"), std::string::npos) << note;
  EXPECT_EQ(LeftOutNote({}), "");
}

// One part per iteration (no scope, or the profiler left an empty part out): nothing to put
// together, every metric stays.
TEST(RangeParts, OnePartPerIterationKeepsEveryMetric) {
  const std::vector<ProfiledRange> ranges = {
      {"B/profiled:0.1", {{"dram__bytes_read.sum", 5.0}, {"lts__t_sector_hit_rate.pct", 50.0}}},
      {"B/profiled:1.1", {{"dram__bytes_read.sum", 7.0}, {"lts__t_sector_hit_rate.pct", 70.0}}}};
  const Result<IterationValues> values = CombineRangeParts(ranges, TwoIterationsOfTwoParts());
  ASSERT_TRUE(values.ok()) << values.status().message();
  ASSERT_EQ(values.value().iterations.size(), 2u);
  EXPECT_DOUBLE_EQ(values.value().iterations[1].at("lts__t_sector_hit_rate.pct"), 70.0);
  EXPECT_TRUE(values.value().left_out.empty());
}

// A part with no GPU work lasts ~0 and may read 0/0 for a rate: it weighs nothing.
TEST(RangeParts, AnEmptyPartWeighsNothingInARate) {
  const std::vector<ProfiledRange> ranges = {{"B/profiled:0",
                                              {{"gpu__time_duration.sum", 0.0},
                                               {"sm__cycles_elapsed.avg.per_second", std::nan("")},
                                               {"x.sum.peak_sustained", std::nan("")}}},
                                             {"B/profiled:0.1",
                                              {{"gpu__time_duration.sum", 2000.0},
                                               {"sm__cycles_elapsed.avg.per_second", 1.5e9},
                                               {"x.sum.peak_sustained", 64.0}}}};
  const Result<IterationValues> values =
      CombineRangeParts(ranges, {{"B/profiled:0", 0}, {"B/profiled:0.1", 0}});
  ASSERT_TRUE(values.ok());
  EXPECT_DOUBLE_EQ(values.value().iterations[0].at("sm__cycles_elapsed.avg.per_second"), 1.5e9);
  EXPECT_DOUBLE_EQ(values.value().iterations[0].at("x.sum.peak_sustained"), 64.0);
  EXPECT_TRUE(values.value().left_out.empty());
}

TEST(RangeParts, ARateWithoutDurationsIsLeftOut) {
  const std::vector<ProfiledRange> ranges = {
      {"B/profiled:0", {{"sm__cycles_elapsed.avg.per_second", 1e9}}},
      {"B/profiled:0.1", {{"sm__cycles_elapsed.avg.per_second", 2e9}}}};
  const Result<IterationValues> values =
      CombineRangeParts(ranges, {{"B/profiled:0", 0}, {"B/profiled:0.1", 0}});
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(values.value().left_out, std::set<std::string>{"sm__cycles_elapsed.avg.per_second"});
}

// Names the profiler gives that gpubench did not push: by position where the counts agree, else
// the session fails, naming one.
TEST(RangeParts, ARangeNoOnePushedGoesByPositionOrFailsTheSession) {
  const Result<IterationValues> failed =
      CombineRangeParts({{"B/profiled:7", {}}}, TwoIterationsOfTwoParts());
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("returned 1 ranges for the 4 gpubench pushed"),
            std::string::npos)
      << failed.status().message();
  EXPECT_NE(failed.status().message().find("named 'B/profiled:7', not a pushed name"),
            std::string::npos)
      << failed.status().message();
  std::vector<ProfiledRange> renamed;
  for (double bytes : {1.0, 2.0, 3.0, 4.0}) {
    renamed.push_back({"/B/x" + std::to_string(bytes), {{"dram__bytes_read.sum", bytes}}});
  }
  const Result<IterationValues> placed = CombineRangeParts(renamed, TwoIterationsOfTwoParts());
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_DOUBLE_EQ(placed.value().iterations[0].at("dram__bytes_read.sum"), 3.0);
}

// Unnamed ranges go by position: with parts only when the counts agree; with one range per
// iteration in order whatever came back, as before iterations had parts.
TEST(RangeParts, UnnamedRangesGoByPosition) {
  const std::vector<ProfiledRange> four = {{"", {{"dram__bytes_read.sum", 1.0}}},
                                           {"", {{"dram__bytes_read.sum", 2.0}}},
                                           {"", {{"dram__bytes_read.sum", 3.0}}},
                                           {"", {{"dram__bytes_read.sum", 4.0}}}};
  const Result<IterationValues> values = CombineRangeParts(four, TwoIterationsOfTwoParts());
  ASSERT_TRUE(values.ok());
  ASSERT_EQ(values.value().iterations.size(), 2u);
  EXPECT_DOUBLE_EQ(values.value().iterations[1].at("dram__bytes_read.sum"), 7.0);

  const std::vector<ProfiledRange> three(four.begin(), four.begin() + 3);
  const Result<IterationValues> short_by_one = CombineRangeParts(three, TwoIterationsOfTwoParts());
  ASSERT_FALSE(short_by_one.ok());
  EXPECT_NE(short_by_one.status().message().find("returned 3 ranges for the 4 gpubench pushed"),
            std::string::npos)
      << short_by_one.status().message();
  EXPECT_NE(short_by_one.status().message().find("unnamed"), std::string::npos);

  const Result<IterationValues> whole = CombineRangeParts(
      three, {{"B/profiled:0", 0}, {"B/profiled:1", 1}, {"B/profiled:2", 2}, {"B/profiled:3", 3}});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole.value().iterations.size(), 3u);
}

// A group stays on when one of its metrics is left out; only the counter read from that metric
// goes (l2_hit_rate, tensor_pipe_pct), the others mean what they say over the timed parts.
TEST(RangeParts, GroupsKeepTheCountersTheirPartsGive) {
  std::map<std::string, double> averaged = WithGroups();
  const std::set<std::string> left_out = {
      "lts__t_sector_hit_rate.pct",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"};
  for (const std::string& metric : left_out) averaged.erase(metric);
  auto counters = DeriveMetricCounters(averaged, testing::FakeH200(), left_out);
  EXPECT_EQ(counters.count(counter::kL2HitRate), 0u);
  EXPECT_EQ(counters.count(counter::kTensorPipePct), 0u);
  EXPECT_DOUBLE_EQ(counters.at(counter::kL2ReadBytes), 125000 * 32.0);
  EXPECT_DOUBLE_EQ(counters.at(counter::kFlopRate), (8e9 + 3000 + 2e6 + 30) / 100e-6);
  EXPECT_EQ(counters.count(counter::kFlopRatePct), 1u);
  for (const std::string& metric : left_out) EXPECT_EQ(counters.count(metric), 0u) << metric;
  // Without left_out the groups would be off and their metrics written under their own names.
  EXPECT_EQ(DeriveMetricCounters(averaged, testing::FakeH200()).count(counter::kL2ReadBytes), 0u);
}

}  // namespace
}  // namespace gpubench::detail
