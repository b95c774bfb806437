#include "tools/gate/metric_policy.hpp"

#include <gtest/gtest.h>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::tools {
namespace {

TEST(MetricPolicy, VocabularyDefaults) {
  const PolicyOverrides none;
  MetricPolicy real_time = ResolveMetricPolicy(counter::kRealTime, none);
  EXPECT_EQ(real_time.direction, Direction::kLowerIsBetter);
  EXPECT_EQ(real_time.threshold_percent, 1.75);  // a minimum: noise can raise it
  EXPECT_FALSE(real_time.threshold_from_user);
  EXPECT_EQ(real_time.floor, 500.0);  // ns
  EXPECT_EQ(real_time.gating, Gating::kTime);
  EXPECT_TRUE(real_time.statistical);

  EXPECT_FALSE(ResolveMetricPolicy(counter::kCpuTime, none).threshold_percent.has_value());

  for (const char* bytes :
       {counter::kDramReadBytes, counter::kDramWriteBytes, counter::kBytesMoved}) {
    MetricPolicy policy = ResolveMetricPolicy(bytes, none);
    EXPECT_EQ(policy.direction, Direction::kLowerIsBetter) << bytes;
    EXPECT_EQ(policy.threshold_percent, 1.0) << bytes;
    EXPECT_EQ(policy.floor, 2097152.0) << bytes;  // 2 MiB: the counters' own granularity
    EXPECT_EQ(policy.unit, "bytes") << bytes;
    EXPECT_FALSE(policy.statistical) << bytes;
  }
  // A ratio of counters judged already (bytes_moved, and the time through real_time): reported.
  MetricPolicy bandwidth = ResolveMetricPolicy(counter::kDramBandwidth, none);
  EXPECT_EQ(bandwidth.direction, Direction::kHigherIsBetter);
  EXPECT_FALSE(bandwidth.threshold_percent.has_value());
  EXPECT_EQ(bandwidth.gating, Gating::kReportOnly);
  EXPECT_FALSE(bandwidth.statistical);  // measured once per run: nothing to test

  for (const char* report_only :
       {counter::kSmClockMhz, counter::kSmClockThrottled, counter::kProfilePasses,
        counter::kBytesPerSecond, counter::kItemsPerSecond, "some_counter",
        "kernel_time/CopyKernel"}) {
    EXPECT_FALSE(ResolveMetricPolicy(report_only, none).threshold_percent.has_value())
        << report_only;
  }
  EXPECT_EQ(ResolveMetricPolicy("kernel_time/CopyKernel", none).unit, "s");
}

TEST(MetricPolicy, NoGuessesFromNames) {
  // A counter the vocabulary does not know has no direction unless the file declares one.
  const PolicyOverrides none;
  for (const char* unknown :
       {"l2.per_second", "l2_hit_ratio", "kernel_duration", "l2_bytes_read"}) {
    EXPECT_EQ(ResolveMetricPolicy(unknown, none).direction, Direction::kUnknown) << unknown;
    EXPECT_FALSE(ResolveMetricPolicy(unknown, none).threshold_percent.has_value()) << unknown;
  }
}

TEST(MetricPolicy, FileDeclaredUnitsAndDirections) {
  const DeclaredCounters declared = ParseCounterUnits(
      "dram_read_bytes=bytes:lower;lts__t_sector_hit_rate.pct=%:higher;"
      "smsp__inst_executed.sum=inst:neither;kernel_time/*=s:lower;broken;=x:lower;a=b");
  EXPECT_EQ(declared.size(), 4u);
  const PolicyOverrides none;
  MetricPolicy hit_rate = ResolveMetricPolicy("lts__t_sector_hit_rate.pct", none, declared);
  EXPECT_EQ(hit_rate.direction, Direction::kHigherIsBetter);
  EXPECT_EQ(hit_rate.unit, "%");
  EXPECT_EQ(hit_rate.rule, context_key::kCounterUnits);
  EXPECT_FALSE(hit_rate.threshold_percent.has_value());  // report only unless --threshold
  EXPECT_EQ(ResolveMetricPolicy("smsp__inst_executed.sum", none, declared).direction,
            Direction::kUnknown);
  ASSERT_NE(FindDeclared(declared, "kernel_time/Copy<float>(float const*, float*)"), nullptr);
  EXPECT_EQ(FindDeclared(declared, counter::kKernelTimePrefix), nullptr);
  // The vocabulary wins over a file's declaration of its own counters.
  const DeclaredCounters odd = ParseCounterUnits("real_time=ns:higher");
  EXPECT_EQ(ResolveMetricPolicy(counter::kRealTime, none, odd).direction,
            Direction::kLowerIsBetter);

  PolicyOverrides threshold;
  threshold.thresholds["lts__t_sector_hit_rate.pct"] = 2.0;
  MetricPolicy gated = ResolveMetricPolicy("lts__t_sector_hit_rate.pct", threshold, declared);
  EXPECT_EQ(gated.direction, Direction::kHigherIsBetter);
  EXPECT_EQ(gated.threshold_percent, 2.0);
  EXPECT_TRUE(gated.threshold_from_user);
}

TEST(MetricPolicy, OverridesWin) {
  PolicyOverrides overrides;
  overrides.thresholds[counter::kRealTime] = std::nullopt;  // off
  overrides.thresholds["warps"] = 2.0;
  overrides.thresholds["occupancy"] = 3.0;
  overrides.directions["occupancy"] = Direction::kHigherIsBetter;
  EXPECT_FALSE(ResolveMetricPolicy(counter::kRealTime, overrides).threshold_percent.has_value());
  MetricPolicy warps = ResolveMetricPolicy("warps", overrides);
  EXPECT_EQ(warps.threshold_percent, 2.0);
  EXPECT_EQ(warps.direction, Direction::kLowerIsBetter);  // documented assumption
  MetricPolicy occupancy = ResolveMetricPolicy("occupancy", overrides);
  EXPECT_EQ(occupancy.direction, Direction::kHigherIsBetter);
  EXPECT_EQ(occupancy.threshold_percent, 3.0);
}

TEST(MetricPolicy, ParsesThresholdSpecs) {
  EXPECT_EQ(ParseThresholdSpec("real_time=5%").value(),
            std::make_pair(std::string(counter::kRealTime), std::optional<double>(5.0)));
  EXPECT_EQ(ParseThresholdSpec("dram_write_bytes=0.5").value().second, 0.5);
  EXPECT_FALSE(ParseThresholdSpec("cpu_time=off").value().second.has_value());
  for (const char* bad : {counter::kRealTime, "=5%", "real_time=", "real_time=-1%",
                          "real_time=fast", "real_time=5%%", "real_time=nan",
                          // two specs in one: would set "real_time=5%,cpu_time" to 3%
                          "real_time=5%,cpu_time=3%", "real_time=5%=3%"}) {
    const auto parsed = ParseThresholdSpec(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), gpubench::detail::Status::Code::kInvalidInput) << bad;
  }
  EXPECT_EQ(ParseDirectionSpec("l2=higher").value().second, Direction::kHigherIsBetter);
  EXPECT_FALSE(ParseDirectionSpec("l2=up").ok());
}

// Codes (the vocabulary's units "reason" and "reasons", or a file's declaration) are never tested
// or gated, whatever --threshold and --direction say; quantities of the same table are.
TEST(MetricPolicy, CodesAreNeverTestedOrGated) {
  PolicyOverrides asked;
  ASSERT_TRUE(AddPolicyOverrides({"stop_reason=1%", "clock_event_reasons=5", "gpu_power_w=5"},
                                 {"stop_reason=lower"}, asked)
                  .ok());
  const DeclaredCounters declared = ParseCounterUnits("my_code=reason:neither");
  for (const char* code : {counter::kStopReason, counter::kClockEventReasons, "my_code"}) {
    const MetricPolicy policy = ResolveMetricPolicy(code, asked, declared);
    EXPECT_TRUE(policy.code) << code;
    EXPECT_FALSE(policy.statistical) << code;
    EXPECT_FALSE(policy.threshold_percent.has_value()) << code;
    EXPECT_EQ(policy.gating, Gating::kReportOnly) << code;
    EXPECT_EQ(policy.direction, Direction::kUnknown) << code;
  }
  EXPECT_NE(ResolveMetricPolicy(counter::kStopReason, asked).rule.find("never gated"),
            std::string::npos);
  const MetricPolicy power = ResolveMetricPolicy(counter::kGpuPowerW, asked);
  EXPECT_FALSE(power.code);
  EXPECT_EQ(power.threshold_percent, 5.0);  // a quantity: --threshold gates it
  EXPECT_TRUE(IsCodeUnit("reason"));
  EXPECT_TRUE(IsCodeUnit("reasons"));
  EXPECT_FALSE(IsCodeUnit("count"));
}

}  // namespace
}  // namespace gpubench::tools
