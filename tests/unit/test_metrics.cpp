#include <gtest/gtest.h>

#include "config/metric_groups.hpp"
#include "measure/profiling/metrics.hpp"
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

}  // namespace
}  // namespace gpubench::detail
