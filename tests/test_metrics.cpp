#include <gtest/gtest.h>

#include "metrics.hpp"

namespace gpubench::detail {
namespace {

DeviceFacts H200() {
  DeviceFacts facts;
  facts.available = true;
  facts.sm_clock_rated_mhz = 1980;
  facts.memory_clock_rated_mhz = 3201;
  facts.memory_bus_width_bits = 6144;
  return facts;
}

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
  auto counters = DeriveMetricCounters(averaged, H200());
  EXPECT_DOUBLE_EQ(counters["dram_read_bytes"], 536870912.0);
  EXPECT_DOUBLE_EQ(counters["dram_write_bytes"], 268435456.0);
  EXPECT_DOUBLE_EQ(counters["bytes_moved"], 805306368.0);
  EXPECT_DOUBLE_EQ(counters["gpu_duration"], 233e-6);
  EXPECT_DOUBLE_EQ(counters["profiled_sm_clock_mhz"], 1980.0);
  // Literals computed by hand: 805306368 B / 233 us; peak 2 x 3201 MHz x 6144 bit / 8.
  EXPECT_NEAR(counters["dram_bandwidth"], 3456250506437.768, 1e-3);
  EXPECT_NEAR(counters["dram_bandwidth_pct"], 70.2956291824041, 1e-9);
  EXPECT_DOUBLE_EQ(counters["lts__t_sector_hit_rate.pct"], 12.5);
  // The renamed metrics do not appear twice.
  EXPECT_EQ(counters.count("dram__bytes_read.sum"), 0u);
  EXPECT_EQ(counters.count("gpu__time_duration.sum"), 0u);
}

TEST(Metrics, DerivedCountersNeedTheirInputs) {
  auto counters = DeriveMetricCounters({{"dram__bytes_read.sum", 100.0}}, H200());
  EXPECT_EQ(counters.count("bytes_moved"), 0u);
  EXPECT_EQ(counters.count("dram_bandwidth"), 0u);
  auto zero_time = DeriveMetricCounters({{"dram__bytes_read.sum", 1.0},
                                         {"dram__bytes_write.sum", 1.0},
                                         {"gpu__time_duration.sum", 0.0}},
                                        H200());
  EXPECT_EQ(zero_time.count("dram_bandwidth"), 0u);  // no division by zero
}

TEST(Metrics, ClockCountersFlagRunsBelowNinetyPercentOfRated) {
  auto full = ClockCounters(1975.0, H200());
  EXPECT_DOUBLE_EQ(full["sm_clock_mhz"], 1975.0);
  EXPECT_DOUBLE_EQ(full["sm_clock_rated_mhz"], 1980.0);
  EXPECT_DOUBLE_EQ(full["sm_clock_throttled"], 0.0);
  EXPECT_DOUBLE_EQ(ClockCounters(1783.0, H200())["sm_clock_throttled"], 0.0);  // 90.05%
  EXPECT_DOUBLE_EQ(ClockCounters(1781.0, H200())["sm_clock_throttled"], 1.0);  // 89.9%
  EXPECT_DOUBLE_EQ(ClockCounters(345.0, H200())["sm_clock_throttled"], 1.0);
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

}  // namespace
}  // namespace gpubench::detail
