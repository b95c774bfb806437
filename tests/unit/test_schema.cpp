// The vocabulary's tables (src/schema/) against what the library writes: every context key the
// context block holds is in kContextKeys with its writer, and neither table names a thing twice.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/metric_groups.hpp"
#include "config/settings_table.hpp"
#include "frontend/setup/context.hpp"
#include "measure/profiling/counter_route.hpp"
#include "measure/profiling/profiling_pass.hpp"
#include "measure/profiling/profiling_policy.hpp"
#include "measure/publish/profile_log.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "support/fake_device.hpp"

namespace gpubench::detail {
namespace {

// Settings that between them make BuildContext write every key it can.
std::vector<Settings> SettingsVariants() {
  Settings defaults;
  defaults.metrics = DefaultMetrics();
  std::vector<Settings> variants = {defaults};
  Settings flops = defaults;
  for (const auto& metric : FindMetricGroup("flops")->metrics) flops.metrics.push_back(metric);
  variants.push_back(flops);
  Settings others = defaults;
  others.timer = Timer::kCupti;
  others.cache = CachePolicy::kKeep;
  others.thermal = Thermal::kWait;
  others.device_order = DeviceOrder::kAllAtOnce;
  others.stopping = Stopping::kGb;
  others.stopping_note = "--benchmark_min_time was given";
  others.profile_process = ProfileProcess::kSame;
  variants.push_back(others);
  Settings off = defaults;
  off.profile_iterations = 0;
  variants.push_back(off);
  return variants;
}

// Every key the context block gets for a fake device: BuildContext (one device, a device of a
// --gpubench_devices run, no device), BusyContext and ThermalContext.
std::set<std::string> WrittenKeys() {
  std::set<std::string> keys;
  const auto add = [&](const KeyValues& context) {
    for (const auto& entry : context) keys.insert(entry.first);
  };
  for (const Settings& settings : SettingsVariants()) {
    add(BuildContext(settings, testing::FakeH200(), "on: test"));
    add(BuildContext(settings, testing::FakeH200(), "on: test", {}, "unknown: not checked", 1,
                     "another CUPTI client"));
    add(BuildContext(settings, DeviceFacts(), "unavailable: no usable CUDA device"));
    ProfilingPass pass;
    ProfilingPolicy policy;
    ProfileLog log;
    for (ProfilingRole role : {ProfilingRole::kNone, ProfilingRole::kInProcess,
                               ProfilingRole::kParent, ProfilingRole::kChild}) {
      add(MakeCounterRoute(role, {pass, policy, log, settings})->BusyContext("on: test"));
    }
  }
  ReuseState reuse;
  add(SignatureContext(reuse, "", true));
  reuse.on = true;
  reuse.source_error = "no such file";
  add(SignatureContext(reuse, "", true));
  ThermalSample unknown;
  unknown.unknown_reason = "no NVML";
  add(ThermalContext(unknown));
  ThermalSample known;
  known.known = true;
  known.temperature_c = 34;
  add(ThermalContext(known));
  return keys;
}

TEST(Schema, ContextKeysAreUnique) {
  std::set<std::string_view> keys;
  for (const ContextKeyInfo& info : kContextKeys) {
    EXPECT_TRUE(keys.insert(info.key).second) << info.key << " is in kContextKeys twice";
    EXPECT_FALSE(info.meaning.empty()) << info.key;
    EXPECT_EQ(FindContextKey(info.key), &info) << info.key;
  }
}

TEST(Schema, CounterNamesAreUniqueAndNoneIsAContextKey) {
  std::set<std::string_view> names;
  for (const CounterInfo& counter : kCounters) {
    EXPECT_TRUE(names.insert(counter.name).second) << counter.name << " is in kCounters twice";
    EXPECT_EQ(FindContextKey(counter.name), nullptr) << counter.name;
  }
}

TEST(Schema, EveryKeyTheContextBlockWritesIsInTheTable) {
  const std::set<std::string> written = WrittenKeys();
  // The device facts twice (gpu_1_*), the tagged device, the flop method, the stopping note.
  EXPECT_GT(written.size(), 60u);
  for (const std::string& key : written) {
    EXPECT_NE(FindContextKey(key), nullptr)
        << key << " is written to the context block but not in schema/context_keys.hpp";
  }
  // And the table holds nothing the library no longer writes (gpubench_devices of the merged
  // file is written by devices.cpp too, and here by a device's own run).
  for (const ContextKeyInfo& info : kContextKeys) {
    EXPECT_EQ(written.count(std::string(info.key)), 1u)
        << info.key << " is in schema/context_keys.hpp but no context of this test has it";
  }
}

TEST(Schema, DeviceKeysOfOneDeviceOfSeveralAreFoundAsTheirGpuKey) {
  ASSERT_NE(FindContextKey("gpu_1_name"), nullptr);
  EXPECT_EQ(FindContextKey("gpu_1_name")->key, context_key::kGpuName);
  EXPECT_EQ(FindContextKey("gpu_12_pci_bus_id")->key, context_key::kGpuPciBusId);
  EXPECT_EQ(FindContextKey("gpu_1_"), nullptr);
  EXPECT_EQ(FindContextKey("gpu_x_name"), nullptr);
  EXPECT_EQ(FindContextKey("gpubench_no_such_key"), nullptr);
}

TEST(Schema, SettingsKeysAreTheSettingsTables) {
  std::set<std::string> from_settings;
  for (const Settings& settings : SettingsVariants()) {
    for (const auto& [key, value] : FingerprintedSettings(settings)) from_settings.insert(key);
  }
  for (const SettingRow& row : SettingRows()) {
    if (row.in_context) from_settings.insert(context_key::kGpubenchPrefix + std::string(row.name));
  }
  for (const std::string& key : from_settings) {
    const ContextKeyInfo* info = FindContextKey(key);
    ASSERT_NE(info, nullptr) << key;
    EXPECT_EQ(info->writer, ContextWriter::kSettingsTable) << key;
  }
  for (const ContextKeyInfo& info : kContextKeys) {
    if (info.writer == ContextWriter::kSettingsTable) {
      EXPECT_EQ(from_settings.count(std::string(info.key)), 1u)
          << info.key << ": its writer is the settings table, which does not write it";
    }
  }
}

TEST(Schema, EveryKeyHasOneOfThePrefixes) {
  for (const ContextKeyInfo& info : kContextKeys) {
    const bool prefixed = info.key.rfind(context_key::kGpubenchPrefix, 0) == 0 ||
                          info.key.rfind(context_key::kGpuPrefix, 0) == 0 ||
                          info.key.rfind(context_key::kCudaPrefix, 0) == 0;
    EXPECT_TRUE(prefixed) << info.key;
  }
}

}  // namespace
}  // namespace gpubench::detail
