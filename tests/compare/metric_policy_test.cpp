#include "compare/metric_policy.hpp"

#include <gtest/gtest.h>

namespace gpubench::compare {
namespace {

TEST(MetricPolicy, BuiltInDefaults) {
  const PolicyOverrides none;
  MetricPolicy real_time = ResolveMetricPolicy("real_time", none);
  EXPECT_EQ(real_time.direction, Direction::kLowerIsBetter);
  EXPECT_EQ(real_time.threshold_percent, 5.0);
  EXPECT_TRUE(real_time.statistical);

  EXPECT_FALSE(ResolveMetricPolicy("cpu_time", none).threshold_percent.has_value());

  for (const char* bytes : {"dram_read_bytes", "dram_write_bytes", "bytes_moved"}) {
    MetricPolicy policy = ResolveMetricPolicy(bytes, none);
    EXPECT_EQ(policy.direction, Direction::kLowerIsBetter) << bytes;
    EXPECT_EQ(policy.threshold_percent, 1.0) << bytes;
    EXPECT_FALSE(policy.statistical) << bytes;
  }
  MetricPolicy bandwidth = ResolveMetricPolicy("dram_bandwidth", none);
  EXPECT_EQ(bandwidth.direction, Direction::kHigherIsBetter);
  EXPECT_EQ(bandwidth.threshold_percent, 5.0);

  for (const char* report_only : {"sm_clock_mhz", "sm_clock_throttled", "profile_passes",
                                  "bytes_per_second", "items_per_second", "some_counter"}) {
    EXPECT_FALSE(ResolveMetricPolicy(report_only, none).threshold_percent.has_value())
        << report_only;
  }
}

TEST(MetricPolicy, NameRules) {
  const PolicyOverrides none;
  for (const char* higher : {"l2.per_second", "tiles_per_second", "l2_hit_rate", "l1.hit_rate.pct",
                             "smem_throughput", "nvlink_bandwidth_pct"}) {
    EXPECT_EQ(ResolveMetricPolicy(higher, none).direction, Direction::kHigherIsBetter) << higher;
  }
  for (const char* lower : {"kernel_duration", "launch_time", "l2_read_bytes"}) {
    EXPECT_EQ(ResolveMetricPolicy(lower, none).direction, Direction::kLowerIsBetter) << lower;
  }
  EXPECT_FALSE(ResolveMetricPolicy("l2_read_bytes", none).statistical);
  EXPECT_EQ(ResolveMetricPolicy("warps", none).direction, Direction::kUnknown);
}

TEST(MetricPolicy, OverridesWin) {
  PolicyOverrides overrides;
  overrides.thresholds["real_time"] = std::nullopt;  // off
  overrides.thresholds["warps"] = 2.0;
  overrides.thresholds["occupancy"] = 3.0;
  overrides.directions["occupancy"] = Direction::kHigherIsBetter;
  EXPECT_FALSE(ResolveMetricPolicy("real_time", overrides).threshold_percent.has_value());
  MetricPolicy warps = ResolveMetricPolicy("warps", overrides);
  EXPECT_EQ(warps.threshold_percent, 2.0);
  EXPECT_EQ(warps.direction, Direction::kLowerIsBetter);  // documented assumption
  MetricPolicy occupancy = ResolveMetricPolicy("occupancy", overrides);
  EXPECT_EQ(occupancy.direction, Direction::kHigherIsBetter);
  EXPECT_EQ(occupancy.threshold_percent, 3.0);
}

TEST(MetricPolicy, ParsesThresholdSpecs) {
  EXPECT_EQ(ParseThresholdSpec("real_time=5%"),
            std::make_pair(std::string("real_time"), std::optional<double>(5.0)));
  EXPECT_EQ(ParseThresholdSpec("dram_write_bytes=0.5").second, 0.5);
  EXPECT_FALSE(ParseThresholdSpec("cpu_time=off").second.has_value());
  for (const char* bad : {"real_time", "=5%", "real_time=", "real_time=-1%", "real_time=fast",
                          "real_time=5%%", "real_time=nan"}) {
    EXPECT_THROW(ParseThresholdSpec(bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(ParseDirectionSpec("l2=higher").second, Direction::kHigherIsBetter);
  EXPECT_THROW(ParseDirectionSpec("l2=up"), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench::compare
