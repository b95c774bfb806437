// The GPU's temperature, power and clock events around a call: the summary of NVML's readings,
// the sampling thread, the wait for a cool GPU, their names and units, the setting.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "config/settings_parse.hpp"
#include "config/settings_table.hpp"
#include "frontend/setup/context.hpp"
#include "measure/checks/thermal_watch.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "support/fakes.hpp"

namespace gpubench::detail {
namespace {

using testing::ThermalReading;

// Plays back `readings`, repeating the last one.
class ScriptedMonitor : public ThermalMonitor {
 public:
  explicit ScriptedMonitor(std::vector<ThermalSample> readings) : readings_(std::move(readings)) {}
  ThermalSample Sample() override {
    const size_t at = std::min(calls_.fetch_add(1), readings_.size() - 1);
    return readings_[at];
  }
  size_t calls() const { return calls_.load(); }

 private:
  std::vector<ThermalSample> readings_;
  std::atomic<size_t> calls_{0};
};

TEST(SummarizeThermal, StartEndMaximumReasonsAndEnergyPower) {
  const std::vector<ThermalSample> samples = {
      ThermalReading(40, 100, 1000.0, kClockEventGpuIdle),
      ThermalReading(55, 650, 1030.0, kClockEventSwPowerCap),
      ThermalReading(53, 640, 1066.0, kClockEventSwThermalSlowdown | kClockEventGpuIdle),
  };
  const ThermalSummary summary = SummarizeThermal(samples, 0.1);
  ASSERT_TRUE(summary.known);
  EXPECT_EQ(summary.samples, 3);
  EXPECT_EQ(summary.temperature_start_c, 40);
  EXPECT_EQ(summary.temperature_end_c, 53);
  EXPECT_EQ(summary.temperature_max_c, 55);
  // gpu_idle is the moment between iterations, not why a clock dropped.
  EXPECT_EQ(summary.clock_event_reasons, kClockEventSwPowerCap | kClockEventSwThermalSlowdown);
  EXPECT_DOUBLE_EQ(summary.power_w, 660.0);  // 66 J over 0.1 s
}

TEST(SummarizeThermal, ShortSpansAverageThePowerReadings) {
  const ThermalSummary summary = SummarizeThermal(
      {ThermalReading(40, 100, 1000.0, 0), ThermalReading(41, 300, 1000.0, 0)}, 0.01);
  EXPECT_DOUBLE_EQ(summary.power_w, 200.0);
  ThermalSample no_power = ThermalReading(40, -1, -1, 0);
  no_power.reasons_known = false;
  const ThermalSummary unknown = SummarizeThermal({no_power}, 0.01);
  EXPECT_EQ(unknown.power_w, -1);
  EXPECT_FALSE(unknown.reasons_known);
}

TEST(SummarizeThermal, WithoutNvmlItSaysWhy) {
  ThermalSample sample;
  sample.unknown_reason = "libnvidia-ml.so.1 (the driver's NVML) not found";
  const ThermalSummary summary = SummarizeThermal({sample, sample}, 1.0);
  EXPECT_FALSE(summary.known);
  EXPECT_EQ(summary.unknown_reason, sample.unknown_reason);
}

TEST(ThermalWatch, ReadsAtBothEndsAndOnItsThreadInBetween) {
  ScriptedMonitor monitor({ThermalReading(40, 100, 10.0, 0),
                           ThermalReading(45, 500, 10.5, kClockEventSwPowerCap),
                           ThermalReading(47, 500, 11.0, 0)});
  ThermalWatch watch(monitor, std::chrono::milliseconds(2));
  watch.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  const ThermalSummary summary = watch.Stop();
  ASSERT_TRUE(summary.known);
  EXPECT_GE(summary.samples, 3);
  EXPECT_EQ(static_cast<size_t>(summary.samples), monitor.calls());
  EXPECT_EQ(summary.temperature_start_c, 40);
  EXPECT_EQ(summary.temperature_end_c, 47);
  EXPECT_EQ(summary.clock_event_reasons, kClockEventSwPowerCap);
  EXPECT_GT(summary.read_seconds, 0);
}

TEST(ThermalWatch, WithoutNvmlStartsNoThread) {
  ThermalSample unknown;
  unknown.unknown_reason = "not read (test)";
  ScriptedMonitor monitor({unknown});
  ThermalWatch watch(monitor, std::chrono::milliseconds(1));
  watch.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const ThermalSummary summary = watch.Stop();
  EXPECT_FALSE(summary.known);
  EXPECT_EQ(monitor.calls(), 1u);
}

double g_slept = 0;
void FakeSleep(std::chrono::duration<double> seconds) { g_slept += seconds.count(); }

TEST(WaitForCoolGpu, WaitsUntilNearTheCoolestAndNoHeatOrPowerReason) {
  g_slept = 0;
  ScriptedMonitor monitor(
      {ThermalReading(70, 90, -1, kClockEventSwThermalSlowdown), ThermalReading(50, 90, -1, 0),
       ThermalReading(38, 90, -1, kClockEventSwPowerCap),
       ThermalReading(38, 90, -1, kClockEventGpuIdle), ThermalReading(30, 90, -1, 0)});
  double reference = 35;  // read at the start of the run
  const ThermalWait wait = WaitForCoolGpu(monitor, 5, &reference, std::chrono::seconds(120),
                                          std::chrono::milliseconds(250), FakeSleep);
  ASSERT_TRUE(wait.known);
  EXPECT_FALSE(wait.timed_out);
  EXPECT_EQ(wait.target_c, 40);
  EXPECT_EQ(wait.temperature_c, 38);  // gpu_idle does not hold the wait
  EXPECT_DOUBLE_EQ(wait.waited_seconds, 0.75);
  EXPECT_DOUBLE_EQ(g_slept, 0.75);
  EXPECT_EQ(reference, 35);  // not cooler than the start
}

TEST(WaitForCoolGpu, TimesOutWithTheLastReadingAndLowersTheReferenceWhenCooler) {
  ScriptedMonitor hot({ThermalReading(80, 600, -1, kClockEventSwThermalSlowdown)});
  double reference = 35;
  const ThermalWait wait = WaitForCoolGpu(hot, 5, &reference, std::chrono::seconds(2),
                                          std::chrono::milliseconds(500), FakeSleep);
  EXPECT_TRUE(wait.timed_out);
  EXPECT_DOUBLE_EQ(wait.waited_seconds, 2.0);
  EXPECT_EQ(wait.temperature_c, 80);
  EXPECT_EQ(wait.clock_event_reasons, kClockEventSwThermalSlowdown);

  ScriptedMonitor cool({ThermalReading(31, 70, -1, 0)});
  double first = -1;  // no reading yet: the first one is the reference
  EXPECT_FALSE(WaitForCoolGpu(cool, 5, &first, std::chrono::seconds(2),
                              std::chrono::milliseconds(500), FakeSleep)
                   .timed_out);
  EXPECT_EQ(first, 31);
  EXPECT_EQ(WaitForCoolGpu(cool, 5, &reference, std::chrono::seconds(2),
                           std::chrono::milliseconds(500), FakeSleep)
                .waited_seconds,
            0);
  EXPECT_EQ(reference, 31);
}

TEST(WaitForCoolGpu, WithoutNvmlItDoesNotWait) {
  ThermalSample unknown;
  unknown.unknown_reason = "NVML error 3";
  ScriptedMonitor monitor({unknown});
  double reference = -1;
  const ThermalWait wait = WaitForCoolGpu(monitor, 5, &reference, std::chrono::seconds(2),
                                          std::chrono::milliseconds(500), FakeSleep);
  EXPECT_FALSE(wait.known);
  EXPECT_EQ(wait.unknown_reason, "NVML error 3");
  EXPECT_EQ(wait.waited_seconds, 0);
}

TEST(ClockEventReasons, NamedInBitOrderWithUnknownBitsInHex) {
  EXPECT_EQ(DescribeClockEventReasons(0), "none");
  EXPECT_EQ(DescribeClockEventReasons(kClockEventSwPowerCap | kClockEventHwThermalSlowdown),
            "sw_power_cap, hw_thermal_slowdown");
  EXPECT_EQ(DescribeClockEventReasons(0x4 | 0x1000, "|"), "sw_power_cap|0x1000");
  EXPECT_EQ(FormatValue(0x24, UnitOfCounter(counter::kClockEventReasons)),
            "sw_power_cap|sw_thermal_slowdown");
  EXPECT_EQ(FormatValue(0, UnitOfCounter(counter::kClockEventReasons)), "none");
  EXPECT_EQ(FormatValue(41.0, UnitOfCounter(counter::kGpuTempEndC)), "41 C");
  EXPECT_EQ(FormatValue(312.4, UnitOfCounter(counter::kGpuPowerW)), "312 W");
}

ParseResult Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  return ParseCommandLine(args, {});
}

TEST(ThermalSetting, NoneWaitAndAMarginWithClearErrors) {
  ParseResult none = Parse({});
  ASSERT_TRUE(none.ok);
  EXPECT_EQ(none.command_line.settings.thermal, Thermal::kNone);
  ParseResult wait = Parse({"--gpubench_thermal=wait"});
  ASSERT_TRUE(wait.ok) << wait.error;
  EXPECT_EQ(wait.command_line.settings.thermal, Thermal::kWait);
  EXPECT_EQ(wait.command_line.settings.thermal_margin_c, 5);
  ParseResult margin = Parse({"--gpubench_thermal=wait:8"});
  ASSERT_TRUE(margin.ok) << margin.error;
  EXPECT_EQ(margin.command_line.settings.thermal_margin_c, 8);
  for (const char* bad : {"--gpubench_thermal=cool", "--gpubench_thermal=wait:0",
                          "--gpubench_thermal=wait:x", "--gpubench_thermal=waiting"}) {
    ParseResult result = Parse({bad});
    EXPECT_FALSE(result.ok) << bad;
    EXPECT_NE(result.error.find("--gpubench_thermal"), std::string::npos) << result.error;
    EXPECT_NE(result.error.find("wait"), std::string::npos) << result.error;
  }
}

// none leaves the fingerprint as it was before the setting existed; wait changes it.
TEST(ThermalSetting, OnlyWaitIsFingerprinted) {
  Settings settings;
  settings.metrics = DefaultMetrics();
  const std::string plain = SettingsFingerprint(settings);
  for (const auto& [key, value] : FingerprintedSettings(settings)) {
    EXPECT_NE(key, context_key::kThermal);
  }
  settings.thermal = Thermal::kWait;
  EXPECT_NE(SettingsFingerprint(settings), plain);
  settings.thermal_margin_c = 10;
  const std::string ten = SettingsFingerprint(settings);
  settings.thermal_margin_c = 5;
  EXPECT_NE(SettingsFingerprint(settings), ten);
}

TEST(ThermalContext, SaysHowItReadsOrWhyItCannot) {
  const auto known = ThermalContext(ThermalReading(34, 72.4, 5.0, kClockEventGpuIdle));
  ASSERT_EQ(known.size(), 1u);
  EXPECT_EQ(known[0].first, context_key::kGpuThermal);
  EXPECT_NE(known[0].second.find("every 100 ms"), std::string::npos);
  EXPECT_NE(known[0].second.find("at start 34 C, 72 W, clock-event reasons gpu_idle"),
            std::string::npos)
      << known[0].second;
  ThermalSample unknown;
  unknown.unknown_reason = "libnvidia-ml.so.1 (the driver's NVML) not found";
  EXPECT_EQ(ThermalContext(unknown)[0].second.rfind("unavailable: libnvidia-ml.so.1", 0), 0u);
}

}  // namespace
}  // namespace gpubench::detail
