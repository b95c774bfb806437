// --gpubench_devices without a GPU: the child processes' command lines, the merge of their JSON
// files, the names, and the settings. The whole path (children, merge, failures) runs in the
// devices_each_in_turn ctest; the H200 runs are in docs/accuracy.md.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include <string>
#include <vector>

#include "config/settings_parse.hpp"
#include "frontend/setup/devices.hpp"
#include "frontend/setup/profiling_run.hpp"
#include "gpubench/main.hpp"
#include "measure/process/process_state.hpp"
#include "schema/context_keys.hpp"

namespace gpubench::detail {
namespace {

// As GB 1.7-1.9 write it, bare NaN included.
std::string GbJson(int device, const std::string& fingerprint, const std::string& name) {
  const std::string d = std::to_string(device);
  return "{\n  \"context\": {\n    \"date\": \"2026-11-29\",\n    \"gpu_name\": \"NVIDIA H200\",\n"
         "    \"gpu_pci_bus_id\": \"0000:0" +
         d + ":00.0\",\n    \"gpu_" + d + "_name\": \"NVIDIA H200\",\n    \"gpu_" + d +
         "_pci_bus_id\": \"0000:0" + d + ":00.0\",\n    \"gpubench_devices\": \"" + d +
         "\",\n    \"gpubench_settings_fingerprint\": \"" + fingerprint +
         "\"\n  },\n  \"benchmarks\": [\n    {\n      \"name\": \"" + name + "/gpu:" + d +
         "/manual_time\",\n      \"real_time\": NaN\n    }\n  ]\n}\n";
}

nlohmann::json Parse(std::string text) {
  for (size_t at = text.find("NaN"); at != std::string::npos; at = text.find("NaN", at)) {
    text.replace(at, 3, "null");
  }
  return nlohmann::json::parse(text);
}

TEST(Devices, NamesGetTheDeviceAsTheirLastPart) {
  EXPECT_EQ(DeviceTag(1), "gpu:1");
  EXPECT_EQ(TagInstanceName("BM_Copy/1048576", 1), "BM_Copy/1048576/gpu:1");
  EXPECT_EQ(TagInstanceName("BM_Tiny", 0), "BM_Tiny/gpu:0");
}

TEST(Devices, ChildRunsOneDeviceAndWritesItsOwnFile) {
  const std::vector<std::string> args = {"./bench",
                                         "--gpubench_devices=all",
                                         "--benchmark_out=r.json",
                                         "--benchmark_out_format=json",
                                         "--benchmark_filter=Copy",
                                         "--gpubench_devices",
                                         "0,1",
                                         "--gpubench_cache=keep"};
  EXPECT_EQ(ChildArgs(args, 1, "r.json.gpu1.part"),
            (std::vector<std::string>{"./bench", "--benchmark_filter=Copy", "--gpubench_cache=keep",
                                      "--gpubench_devices=1", "--benchmark_out=r.json.gpu1.part",
                                      "--benchmark_out_format=json"}));
  EXPECT_EQ(ChildArgs({"./bench", "--gpubench_devices=0,1"}, 0, ""),
            (std::vector<std::string>{"./bench", "--gpubench_devices=0"}));
}

TEST(Devices, MergeKeepsEveryDevicesRowsAndFactsInOrder) {
  Result<std::string> merged = MergeDeviceResults({{0, GbJson(0, "b4318ba04f6a40f1", "BM_Copy")},
                                                   {1, GbJson(1, "b4318ba04f6a40f1", "BM_Copy")}});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_NE(merged.value().find("\"real_time\": NaN"), std::string::npos);  // spliced as written
  const nlohmann::json document = Parse(merged.value());
  const nlohmann::json& context = document["context"];
  EXPECT_EQ(context[context_key::kDevices], "0,1");
  EXPECT_EQ(context["gpu_0_pci_bus_id"], "0000:00:00.0");
  EXPECT_EQ(context["gpu_1_pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(context[context_key::kGpuPciBusId], "0000:00:00.0");  // the first device's
  ASSERT_EQ(document["benchmarks"].size(), 2u);
  EXPECT_EQ(document["benchmarks"][0]["name"], "BM_Copy/gpu:0/manual_time");
  EXPECT_EQ(document["benchmarks"][1]["name"], "BM_Copy/gpu:1/manual_time");
}

TEST(Devices, MergeRefusesOtherSettingsAndNamesABrokenFile) {
  Result<std::string> mixed = MergeDeviceResults({{0, GbJson(0, "b4318ba04f6a40f1", "BM_Copy")},
                                                  {1, GbJson(1, "0123456789abcdef", "BM_Copy")}});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().code(), Status::Code::kSettingsMismatch);
  Result<std::string> broken =
      MergeDeviceResults({{0, GbJson(0, "b4318ba04f6a40f1", "BM_Copy")}, {2, "{\"context\": {"}});
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("device 2"), std::string::npos)
      << broken.status().message();
  EXPECT_FALSE(MergeDeviceResults({}).ok());
}

TEST(Devices, MergeOfADeviceWithoutRowsStaysValidJson) {
  std::string empty = GbJson(1, "b4318ba04f6a40f1", "BM_Copy");
  empty = empty.substr(0, empty.find("\"benchmarks\": [") + 15) + "\n  ]\n}\n";
  Result<std::string> merged =
      MergeDeviceResults({{0, GbJson(0, "b4318ba04f6a40f1", "BM_Copy")}, {1, empty}});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(Parse(merged.value())["benchmarks"].size(), 1u);
}

ParseResult ParseArgs(std::vector<std::string> args, Environment env = {}) {
  args.insert(args.begin(), "bench");
  return ParseCommandLine(args, env);
}

TEST(Devices, SettingTakesAllOrAListOfOrdinals) {
  ParseResult all = ParseArgs({"--gpubench_devices=all"});
  ASSERT_TRUE(all.ok) << all.error;
  EXPECT_TRUE(all.command_line.all_devices);
  ParseResult list = ParseArgs({"--gpubench_devices=2,0"});
  ASSERT_TRUE(list.ok) << list.error;
  EXPECT_EQ(list.command_line.devices, (std::vector<int>{2, 0}));
  EXPECT_EQ(ResolveDevices(list.command_line), (std::vector<int>{2, 0}));
  EXPECT_TRUE(ParseArgs({}).command_line.devices.empty());
  for (const char* bad : {"--gpubench_devices=", "--gpubench_devices=0,,1", "--gpubench_devices=x",
                          "--gpubench_devices=1,1"}) {
    EXPECT_FALSE(ParseArgs({bad}).ok) << bad;
  }
}

TEST(Devices, OneDeviceSettingAtATime) {
  ParseResult both = ParseArgs({"--gpubench_devices=0,1", "--gpubench_device=1"});
  ASSERT_FALSE(both.ok);
  EXPECT_NE(both.error.find("not both"), std::string::npos) << both.error;
  EXPECT_FALSE(ParseArgs({}, {{"GPUBENCH_DEVICE", "1"}, {"GPUBENCH_DEVICES", "all"}}).ok);
  // A flag wins over the other setting's variable.
  ParseResult flag = ParseArgs({"--gpubench_device=1"}, {{"GPUBENCH_DEVICES", "all"}});
  ASSERT_TRUE(flag.ok) << flag.error;
  EXPECT_FALSE(flag.command_line.all_devices);
  EXPECT_EQ(flag.command_line.settings.device, 1);
  ParseResult list = ParseArgs({"--gpubench_devices=0,1"}, {{"GPUBENCH_DEVICE", "1"}});
  ASSERT_TRUE(list.ok) << list.error;
  EXPECT_EQ(list.command_line.devices, (std::vector<int>{0, 1}));
}

// The devices' children, faked: each "runs" when started, writing its console output (to the
// file it was given, else the console stream's stand-in) and its JSON file unless it fails.
class FakeChildren : public ChildProcesses {
 public:
  int Start(const std::vector<std::string>& args, const ChildSetup& setup) override {
    const int device = DeviceOf(args);
    events.push_back("start " + std::to_string(device));
    // At once: told so in its environment, its error stream kept apart too.
    at_once_env.push_back(!setup.set_env.empty() &&
                          setup.set_env[0].first == kDevicesAtOnceVariable &&
                          !setup.stderr_file.empty());
    const std::string console = "BM_Copy/gpu:" + std::to_string(device) + " row\n";
    if (!setup.stdout_file.empty()) {
      std::ofstream(setup.stdout_file) << console;
    } else {
      straight_to_console += console;
    }
    const std::string out = OutOf(args);
    if (!out.empty() && failing.count(device) == 0) {
      std::ofstream(out) << GbJson(device, "b4318ba04f6a40f1", "BM_Copy");
    }
    return device;
  }
  int Wait(int handle) override {
    events.push_back("wait " + std::to_string(handle));
    return failing.count(handle) ? 134 : 0;
  }

  std::vector<std::string> events;
  std::vector<bool> at_once_env;
  std::string straight_to_console;
  std::set<int> failing;

 private:
  static int DeviceOf(const std::vector<std::string>& args) {
    for (const std::string& arg : args) {
      if (arg.rfind("--gpubench_devices=", 0) == 0) return std::stoi(arg.substr(19));
    }
    return -1;
  }
  static std::string OutOf(const std::vector<std::string>& args) {
    for (const std::string& arg : args) {
      if (arg.rfind("--benchmark_out=", 0) == 0) return arg.substr(16);
    }
    return "";
  }
};

std::string TempOut(const std::string& name) {
  return testing::TempDir() + "/gpubench_devices_" + std::to_string(::getpid()) + "_" + name;
}

TEST(DeviceOrder, OneAtATimeWaitsForEachDeviceBeforeTheNext) {
  FakeChildren children;
  std::ostringstream console;
  const std::string out = TempOut("serial.json");
  const int code =
      RunOnEachDevice({"./bench", "--gpubench_devices=0,1,2"}, {0, 1, 2}, GbOutput{"", out, ""},
                      DeviceOrder::kOneAtATime, children, console);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(children.events, (std::vector<std::string>{"start 0", "wait 0", "start 1", "wait 1",
                                                       "start 2", "wait 2"}));
  EXPECT_EQ(children.at_once_env, (std::vector<bool>{false, false, false}));
  // The children print straight to the console, as before the setting existed.
  EXPECT_EQ(console.str(), "");
  EXPECT_EQ(children.straight_to_console,
            "BM_Copy/gpu:0 row\nBM_Copy/gpu:1 row\nBM_Copy/gpu:2 row\n");
  std::ifstream in(out);
  const nlohmann::json merged = Parse(std::string(std::istreambuf_iterator<char>(in), {}));
  EXPECT_EQ(merged["context"][context_key::kDevices], "0,1,2");
  std::remove(out.c_str());
}

TEST(DeviceOrder, AllAtOnceStartsEveryDeviceFirstAndPrintsEachOneWhole) {
  FakeChildren children;
  std::ostringstream console;
  const std::string out = TempOut("parallel.json");
  const int code =
      RunOnEachDevice({"./bench", "--gpubench_devices=all"}, {0, 1, 2}, GbOutput{"", out, ""},
                      DeviceOrder::kAllAtOnce, children, console);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(children.events, (std::vector<std::string>{"start 0", "start 1", "start 2", "wait 0",
                                                       "wait 1", "wait 2"}));
  EXPECT_EQ(children.at_once_env, (std::vector<bool>{true, true, true}));
  // Each child's output went to a file of its own, printed in device order once it was done.
  EXPECT_EQ(children.straight_to_console, "");
  const std::string text = console.str();
  EXPECT_NE(text.find("3 devices at once"), std::string::npos) << text;
  EXPECT_NE(text.find("BM_Copy/gpu:0 row\nBM_Copy/gpu:1 row\nBM_Copy/gpu:2 row\n"),
            std::string::npos)
      << text;
  std::ifstream in(out);
  const nlohmann::json merged = Parse(std::string(std::istreambuf_iterator<char>(in), {}));
  ASSERT_EQ(merged["benchmarks"].size(), 3u);
  for (int device = 0; device < 3; ++device) {
    EXPECT_EQ(merged["benchmarks"][device]["name"],
              "BM_Copy/gpu:" + std::to_string(device) + "/manual_time");
  }
  std::remove(out.c_str());
}

TEST(DeviceOrder, AFailedDeviceAtOnceKeepsTheOthersRowsAndItsExitCode) {
  FakeChildren children;
  children.failing = {1};
  std::ostringstream console;
  const std::string out = TempOut("failed.json");
  const int code =
      RunOnEachDevice({"./bench", "--gpubench_devices=0,1,2"}, {0, 1, 2}, GbOutput{"", out, ""},
                      DeviceOrder::kAllAtOnce, children, console);
  EXPECT_EQ(code, 134);
  std::ifstream in(out);
  const nlohmann::json merged = Parse(std::string(std::istreambuf_iterator<char>(in), {}));
  EXPECT_EQ(merged["context"][context_key::kDevices], "0,2");
  ASSERT_EQ(merged["benchmarks"].size(), 2u);
  EXPECT_EQ(merged["benchmarks"][1]["name"], "BM_Copy/gpu:2/manual_time");
  std::remove(out.c_str());
}

TEST(DeviceOrder, SettingIsFingerprintedOnlyWhenDevicesRanAtOnce) {
  ParseResult parsed = ParseArgs({"--gpubench_device_order=all_at_once"});
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_EQ(parsed.command_line.settings.device_order, DeviceOrder::kAllAtOnce);
  Settings serial;
  Settings at_once;
  at_once.device_order = DeviceOrder::kAllAtOnce;
  // The default adds no entry (fingerprints of runs made before the setting stay valid, as
  // test_context's pinned fingerprint checks); all_at_once adds one.
  const KeyValues serial_entries = FingerprintedSettings(serial);
  const KeyValues at_once_entries = FingerprintedSettings(at_once);
  const auto has_order = [](const KeyValues& entries) {
    return std::any_of(entries.begin(), entries.end(),
                       [](const auto& entry) { return entry.first == context_key::kDeviceOrder; });
  };
  EXPECT_FALSE(has_order(serial_entries));
  EXPECT_TRUE(has_order(at_once_entries));
  EXPECT_EQ(at_once_entries.size(), serial_entries.size() + 1);
  EXPECT_NE(SettingsFingerprint(serial), SettingsFingerprint(at_once));
  const ParseResult bad = ParseArgs({"--gpubench_device_order=parallel"});
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("one_at_a_time|all_at_once"), std::string::npos) << bad.error;
}

// Records what it is given.
class CapturingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override {
    width = context.name_field_width;
    return true;
  }
  void ReportRuns(const std::vector<Run>& reports) override {
    for (const Run& run : reports) names.push_back(run.benchmark_name());
  }
  size_t width = 0;
  std::vector<std::string> names;
};

TEST(Devices, TagReporterNamesEveryRowAfterTheDevice) {
  CapturingReporter inner;
  ForwardingReporter tagged(&inner, 2);
  benchmark::BenchmarkReporter::Run with_args, without_args, aggregate;
  with_args.run_name.function_name = "BM_Copy";
  with_args.run_name.args = "1024";
  with_args.run_name.time_type = "manual_time";
  without_args.run_name.function_name = "BM_Tiny";
  without_args.run_name.time_type = "manual_time";
  aggregate = with_args;
  aggregate.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
  aggregate.aggregate_name = "median";
  tagged.ReportRuns({with_args, without_args, aggregate});
  EXPECT_EQ(inner.names,
            (std::vector<std::string>{"BM_Copy/1024/gpu:2/manual_time", "BM_Tiny/gpu:2/manual_time",
                                      "BM_Copy/1024/gpu:2/manual_time_median"}));
}

// A run killed part way (a CI timeout) keeps every benchmark that finished: the rows are on disk
// as soon as they are reported, not when GB's file stream fills its buffer or closes.
TEST(Devices, ForwardingReporterPutsEachBenchmarksRowsOnDiskAtOnce) {
  const std::string path =
      ::testing::TempDir() + "gpubench-forwarding-" + std::to_string(::getpid()) + ".json";
  std::ofstream file(path);
  benchmark::JSONReporter json;
  ForwardingReporter forwarding(&json, std::nullopt);
  forwarding.SetOutputStream(&file);
  forwarding.SetErrorStream(&file);
  ASSERT_TRUE(forwarding.ReportContext(benchmark::BenchmarkReporter::Context()));
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = "BM_Finished";
  run.run_name.time_type = "manual_time";
  run.iterations = 10;
  forwarding.ReportRuns({run});
  std::ifstream on_disk(path);
  const std::string text((std::istreambuf_iterator<char>(on_disk)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"name\": \"BM_Finished/manual_time\""), std::string::npos) << text;
  EXPECT_EQ(text.back(), '}') << "the file ends with the last complete row";
  std::remove(path.c_str());
}

// The profiling child runs with the parent's arguments but writes no results file of GB's.
TEST(ProfilingChild, ArgsKeepEverythingButGbsFileOutput) {
  const std::vector<std::string> args = {"bench",
                                         "--benchmark_filter=BM_A",
                                         "--benchmark_out=r.json",
                                         "--benchmark_out_format=json",
                                         "--gpubench_metrics=+l2",
                                         "--gpubench_devices=1"};
  EXPECT_EQ(ProfilingChildArgs(args),
            (std::vector<std::string>{"bench", "--benchmark_filter=BM_A", "--gpubench_metrics=+l2",
                                      "--gpubench_devices=1"}));
}

// The child runs main again from the start: it gets the command line main got, whatever a main
// of its own handed Initialize.
TEST(ProfilingChild, RunsWithTheCommandLineTheProcessStartedWith) {
  const std::vector<std::string> args = OwnCommandLine({"not", "read"});
  ASSERT_FALSE(args.empty());
  EXPECT_NE(args[0], "not");
  EXPECT_NE(args[0].find("gpubench_unit_tests"), std::string::npos) << args[0];
  EXPECT_EQ(OwnCommandLine({"fallback"}).size(), args.size());
}

// The child's marker must pass gpubench's own check of GPUBENCH_* variables (an H200 run refused
// a GPUBENCH_-prefixed one, and the child ended before profiling anything).
TEST(ProfilingChild, ItsEnvironmentVariableIsNotRefusedAsAGpubenchSetting) {
  const ParseResult parsed =
      ParseCommandLine({"bench"}, {{kProfilingChildVariable, "/tmp/gpubench-profiling-x"}});
  EXPECT_TRUE(parsed.ok) << parsed.error;
}

// Only gpubench's main can name GB's rows per device; a main of one's own is told so.
TEST(Devices, InitializeOutsideGpubenchMainRefusesTheFlag) {
  std::vector<std::string> flags = {"bench", "--gpubench_devices=0"};
  std::vector<char*> argv;
  for (auto& flag : flags) argv.push_back(flag.data());
  argv.push_back(nullptr);
  int argc = 2;
  ::testing::internal::CaptureStderr();
  const InitResult init = gpubench::Initialize(&argc, argv.data());
  const std::string said = ::testing::internal::GetCapturedStderr();
  ProcessState::Get().ResetForTesting();
  EXPECT_FALSE(init.run_benchmarks);
  EXPECT_EQ(init.exit_code, 2);
  EXPECT_NE(said.find("needs GPUBENCH_MAIN() or gpubench::Main"), std::string::npos) << said;
}

}  // namespace
}  // namespace gpubench::detail
