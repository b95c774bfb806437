#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "config/metric_groups.hpp"
#include "frontend/setup/context.hpp"
#include "schema/context_keys.hpp"
#include "support/fake_device.hpp"

namespace gpubench::detail {
namespace {

Settings Defaults() {
  Settings settings;
  settings.metrics = DefaultMetrics();
  return settings;
}

std::map<std::string, std::string> AsMap(const KeyValues& context) {
  std::map<std::string, std::string> map;
  for (const auto& [key, value] : context) {
    EXPECT_TRUE(map.emplace(key, value).second) << "duplicate key " << key;
  }
  return map;
}

TEST(Context, CarriesEverySettingAndDeviceFact) {
  auto context = AsMap(BuildContext(Defaults(), testing::FakeH200(), "on: test"));
  const std::map<std::string, std::string> expected = {
      {context_key::kTimer, "events"},
      {context_key::kCache, "flush"},
      {context_key::kFlushMethod, "l2_read_evict"},
      {context_key::kClockControl, "none"},
      {context_key::kProfileIterations, "3"},
      {context_key::kProfileRuns, "reported"},
      {context_key::kProfiling, "on"},
      {context_key::kDevice, "0"},
      {context_key::kProfiler, "on: test"},
      {context_key::kGpuName, "NVIDIA H200"},
      {context_key::kGpuStatus, "ok"},
      {context_key::kGpuComputeCapability, "9.0"},
      {context_key::kGpuSmCount, "132"},
      {context_key::kGpuL2Bytes, "62914560"},
      {context_key::kGpuSmClockRatedMhz, "1980"},
      {context_key::kGpuMemoryClockRatedMhz, "3201"},
      {context_key::kGpuMemoryBusWidthBits, "6144"},
      {context_key::kGpuDramBandwidthTheoretical, "4916736000000"},
      {context_key::kGpuEcc, "on"},
      {context_key::kCudaDriverVersion, "13.0"},
      {context_key::kCudaRuntimeVersion, "13.0"},
      {context_key::kCudaCuptiApiVersion, "130001"},
      {context_key::kGpuPciBusId, "00000000:19:00.0"},
      {context_key::kGpuUuid, "GPU-5f3c2d1e-8a7b-4c6d-9e0f-1a2b3c4d5e6f"},
      {context_key::kGpuSerial, "1654123456789"},
      {context_key::kGpuVbiosVersion, "96.00.AF.00.01"},
      {context_key::kGpuDriverVersion, "580.95.05"},
  };
  for (const auto& [key, value] : expected) {
    ASSERT_TRUE(context.count(key)) << key;
    EXPECT_EQ(context[key], value) << key;
  }
  EXPECT_EQ(context[context_key::kMetrics],
            "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
            "sm__cycles_elapsed.avg.per_second");
  EXPECT_NE(context[context_key::kFlushDescription].find("125829120 bytes"), std::string::npos);
  EXPECT_EQ(context[context_key::kSettingsFingerprint], SettingsFingerprint(Defaults()));
}

// The stream hold comes with cache=flush only, and the context says how each run was timed.
TEST(Context, StatesTheLaunchHoldOfTheCachePolicy) {
  auto flush = AsMap(BuildContext(Defaults(), testing::FakeH200(), "on"));
  EXPECT_EQ(flush[context_key::kMethodVersion], "6");
  EXPECT_EQ(flush[context_key::kLaunchHold], "hold_kernel");
  EXPECT_EQ(flush[context_key::kWarmupIterations], "2 (1 for a body that waits for the GPU)");
  EXPECT_NE(flush[context_key::kLaunchHoldDescription].find("launch_held=0"), std::string::npos);
  EXPECT_NE(flush[context_key::kFingerprintKeys].find(context_key::kLaunchHold), std::string::npos);
  Settings keep_settings = Defaults();
  keep_settings.cache = CachePolicy::kKeep;
  auto keep = AsMap(BuildContext(keep_settings, testing::FakeH200(), "on"));
  EXPECT_EQ(keep[context_key::kLaunchHold], "none");
  EXPECT_EQ(keep[context_key::kWarmupIterations], "1");
  EXPECT_EQ(keep[context_key::kLaunchHoldDescription].rfind("none", 0), 0u);
}

TEST(Context, NamesTheMetricGroupsAndTheFlopMethod) {
  auto defaults = AsMap(BuildContext(Defaults(), testing::FakeH200(), "on"));
  EXPECT_EQ(defaults[context_key::kMetricGroups], "none");
  EXPECT_EQ(defaults.count(context_key::kFlopMethod), 0u);
  Settings flops = Defaults();
  for (const auto& metric : FindMetricGroup("flops")->metrics) flops.metrics.push_back(metric);
  auto context = AsMap(BuildContext(flops, testing::FakeH200(), "on"));
  EXPECT_EQ(context[context_key::kMetricGroups], "flops");
  EXPECT_NE(context[context_key::kFlopMethod].find("peak_sustained"), std::string::npos);
  flops.profile_iterations = 0;
  EXPECT_EQ(AsMap(BuildContext(flops, testing::FakeH200(), "off"))[context_key::kMetricGroups],
            "none");
}

TEST(Context, KeysAreSnakeCaseWithTheDocumentedPrefixes) {
  for (const auto& [key, value] : BuildContext(Defaults(), testing::FakeH200(), "on")) {
    const bool prefixed = key.rfind(context_key::kGpubenchPrefix, 0) == 0 ||
                          key.rfind(context_key::kGpuPrefix, 0) == 0 ||
                          key.rfind(context_key::kCudaPrefix, 0) == 0;
    EXPECT_TRUE(prefixed) << key;
    for (char c : key) EXPECT_TRUE(std::islower(c) || std::isdigit(c) || c == '_') << key;
  }
}

TEST(Context, SaysWhenThereIsNoDevice) {
  DeviceFacts none;
  none.unavailable_reason = "cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device)";
  auto context = AsMap(BuildContext(Defaults(), none, "unavailable: no usable CUDA device"));
  EXPECT_EQ(context[context_key::kGpuName], "none");
  EXPECT_EQ(context[context_key::kGpuStatus], "unavailable: " + none.unavailable_reason);
  EXPECT_EQ(context[context_key::kCudaDriverVersion], "none");
}

// A value NVML did not give says why; without a device there is no identity at all.
TEST(Context, IdentityValuesSayWhyTheyAreUnknown) {
  DeviceFacts facts = testing::FakeH200();
  facts.identity.serial = {"", "nvmlDeviceGetSerial: not supported"};
  facts.identity.vbios_version = {"", "libnvidia-ml.so.1 (the driver's NVML) not found"};
  facts.identity.driver_version = {};  // never read
  auto context = AsMap(BuildContext(Defaults(), facts, "on"));
  EXPECT_EQ(context[context_key::kGpuUuid], facts.identity.uuid.value);
  EXPECT_EQ(context[context_key::kGpuSerial], "unknown: nvmlDeviceGetSerial: not supported");
  EXPECT_EQ(context[context_key::kGpuVbiosVersion],
            "unknown: libnvidia-ml.so.1 (the driver's NVML) not found");
  EXPECT_EQ(context[context_key::kGpuDriverVersion], "unknown: not read");
  DeviceFacts none;
  none.unavailable_reason = "cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device)";
  auto without = AsMap(BuildContext(Defaults(), none, "unavailable: no usable CUDA device"));
  for (const char* key : {context_key::kGpuUuid, context_key::kGpuSerial,
                          context_key::kGpuVbiosVersion, context_key::kGpuDriverVersion}) {
    EXPECT_EQ(without.count(key), 0u) << key;
  }
}

// A device of a --gpubench_devices run writes its identity under its ordinal too, so the merged
// file tells each device's GPU apart.
TEST(Context, IdentityIsRepeatedUnderTheDevicesOrdinal) {
  auto context =
      AsMap(BuildContext(Defaults(), testing::FakeH200(), "on", {}, "unknown: not checked", 1));
  EXPECT_EQ(context["gpu_1_uuid"], "GPU-5f3c2d1e-8a7b-4c6d-9e0f-1a2b3c4d5e6f");
  EXPECT_EQ(context["gpu_1_serial"], "1654123456789");
  EXPECT_EQ(context["gpu_1_vbios_version"], "96.00.AF.00.01");
  EXPECT_EQ(context["gpu_1_driver_version"], "580.95.05");
}

// Identity is not a setting: another GPU of the same kind, with another VBIOS and driver, gives
// the same settings fingerprint and the same fingerprinted keys, so gpubench-compare compares the
// runs (and says that they ran on different GPUs) instead of refusing them.
TEST(Context, IdentityIsNotPartOfTheSettingsFingerprint) {
  DeviceFacts other = testing::FakeH200();
  other.cuda_uuid = "GPU-99999999-8888-7777-6666-555555555555";
  other.identity.uuid = {other.cuda_uuid, ""};
  other.identity.serial = {"1654999999999", ""};
  other.identity.vbios_version = {"96.00.74.00.11", ""};
  other.identity.driver_version = {"570.172.08", ""};
  auto first = AsMap(BuildContext(Defaults(), testing::FakeH200(), "on"));
  auto second = AsMap(BuildContext(Defaults(), other, "on"));
  ASSERT_NE(first[context_key::kGpuUuid], second[context_key::kGpuUuid]);
  ASSERT_NE(first[context_key::kGpuDriverVersion], second[context_key::kGpuDriverVersion]);
  EXPECT_EQ(first[context_key::kSettingsFingerprint], second[context_key::kSettingsFingerprint]);
  EXPECT_EQ(first[context_key::kFingerprintKeys], second[context_key::kFingerprintKeys]);
  EXPECT_EQ(first[context_key::kSettingsFingerprint], "2729e867923fc251");  // as before
  for (const char* key : {context_key::kGpuUuid, context_key::kGpuSerial,
                          context_key::kGpuVbiosVersion, context_key::kGpuDriverVersion}) {
    EXPECT_EQ(first[context_key::kFingerprintKeys].find(key), std::string::npos) << key;
  }
}

TEST(Context, FingerprintKeysNameExactlyTheHashedSettings) {
  auto context = AsMap(BuildContext(Defaults(), testing::FakeH200(), "on"));
  std::string keys;
  for (const auto& [key, value] : FingerprintedSettings(Defaults())) {
    keys += (keys.empty() ? "" : ",") + key;
    EXPECT_EQ(context[key], value) << "context value differs from the hashed one: " << key;
  }
  EXPECT_EQ(context[context_key::kFingerprintKeys], keys);
}

// The flush reads twice the L2 (so no line of the previous iteration can survive it), and at
// least 8 MiB on small-L2 GPUs.
TEST(Flush, SizeIsTwiceTheL2AndAtLeastEightMiB) {
  EXPECT_EQ(FlushBytes(62914560), 125829120);  // H200: 60 MiB L2 -> 120 MiB
  EXPECT_EQ(FlushBytes(50331648), 100663296);  // H100 PCIe: 48 MiB
  EXPECT_EQ(FlushBytes(6291456), 12582912);    // 6 MiB
  EXPECT_EQ(FlushBytes(1048576), 8388608);     // 1 MiB -> the 8 MiB minimum
  EXPECT_EQ(FlushBytes(0), 8388608);           // unknown L2
}

TEST(Fingerprint, IsStableAndHexadecimal) {
  const std::string first = SettingsFingerprint(Defaults());
  EXPECT_EQ(first, SettingsFingerprint(Defaults()));
  EXPECT_EQ(first.size(), 16u);
  EXPECT_EQ(first.find_first_not_of("0123456789abcdef"), std::string::npos);
}

// Every stored baseline taken with default settings since method version 6 carries this value
// (method version 5 carried f95d79d94ab94df0, method version 4 64d283589ed33714, method version 3
// ba500b7f76709202, method version 2 48342d814c636132, the files in tests/data/h200 from method
// version 1 b4318ba04f6a40f1). A change to the hash, the key format or a default makes every CI
// baseline "different settings" (gpubench-compare exit 3): do it only together with a
// gpubench_method_version bump, when the numbers' meaning really changed (docs/user_guide.md,
// Context block).
TEST(Fingerprint, DefaultSettingsValueIsPinned) {
  EXPECT_EQ(SettingsFingerprint(Defaults()), "2729e867923fc251");
}

// FNV-1a 64 written out here, over the documented "key=value\n" lines in sorted key order.
TEST(Fingerprint, RecomputedIndependentlyFromTheDocumentedRule) {
  const char* const lines[] = {
      "gpubench_cache=flush\n",
      "gpubench_clock_control=none\n",
      "gpubench_flush_method=l2_read_evict\n",
      "gpubench_launch_hold=hold_kernel\n",
      "gpubench_method_version=6\n",
      "gpubench_metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
      "sm__cycles_elapsed.avg.per_second\n",
      "gpubench_profile_process=child\n",
      "gpubench_profiling=on\n",
      "gpubench_stopping_rule=precision:0.2%,min_samples=10,min_seconds=0.1,max_seconds=0.5\n",
      "gpubench_timer=events\n",
  };
  unsigned long long hash = 14695981039346656037ull;
  for (const char* line : lines) {
    for (const char* c = line; *c != '\0'; ++c) {
      hash ^= static_cast<unsigned char>(*c);
      hash *= 1099511628211ull;
    }
  }
  char expected[17];
  std::snprintf(expected, sizeof expected, "%016llx", hash);
  EXPECT_EQ(SettingsFingerprint(Defaults()), expected);
}

TEST(Fingerprint, ChangesWithEverySettingThatChangesMeaning) {
  const std::string base = SettingsFingerprint(Defaults());
  Settings timer = Defaults();
  timer.timer = Timer::kCupti;
  Settings cache = Defaults();
  cache.cache = CachePolicy::kKeep;
  Settings metrics = Defaults();
  metrics.metrics.push_back("lts__t_sector_hit_rate.pct");
  Settings off = Defaults();
  off.profile_iterations = 0;
  Settings group = Defaults();  // a group changes the fingerprint through its metric names
  group.metrics.insert(group.metrics.end(), FindMetricGroup("l2")->metrics.begin(),
                       FindMetricGroup("l2")->metrics.end());
  Settings same_process = Defaults();  // the profiler in the timed process slows short kernels
  same_process.profile_process = ProfileProcess::kSame;
  // How many samples a repetition takes: the rule and each of its settings.
  Settings gb_rule = Defaults(), precision = Defaults(), min_samples = Defaults(),
           min_seconds = Defaults(), max_seconds = Defaults();
  gb_rule.stopping = Stopping::kGb;
  precision.precision_percent = 0.5;
  min_samples.min_samples = 20;
  min_seconds.min_seconds = 0.2;
  max_seconds.max_seconds = 2;
  for (const Settings* changed : {&timer, &cache, &metrics, &off, &group, &same_process, &gb_rule,
                                  &precision, &min_samples, &min_seconds, &max_seconds}) {
    EXPECT_NE(SettingsFingerprint(*changed), base);
  }
  EXPECT_NE(SettingsFingerprint(timer), SettingsFingerprint(cache));
}

TEST(Fingerprint, IgnoresWhatDoesNotChangeMeaning) {
  const std::string base = SettingsFingerprint(Defaults());
  Settings device = Defaults();
  device.device = 3;
  Settings more_iterations = Defaults();
  more_iterations.profile_iterations = 10;
  Settings reordered = Defaults();
  std::reverse(reordered.metrics.begin(), reordered.metrics.end());
  Settings every_call = Defaults();  // the counters of reported calls mean the same
  every_call.profile_runs = ProfileRuns::kAll;
  EXPECT_EQ(SettingsFingerprint(every_call), base);
  // Metrics off: no profiler anywhere, wherever it would have run.
  Settings off_child = Defaults(), off_same = Defaults();
  off_child.profile_iterations = off_same.profile_iterations = 0;
  off_same.profile_process = ProfileProcess::kSame;
  EXPECT_EQ(SettingsFingerprint(off_child), SettingsFingerprint(off_same));
  EXPECT_EQ(SettingsFingerprint(device), base);
  EXPECT_EQ(SettingsFingerprint(more_iterations), base);
  EXPECT_EQ(SettingsFingerprint(reordered), base);
}

}  // namespace
}  // namespace gpubench::detail
