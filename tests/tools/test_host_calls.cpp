// gpubench_host_calls (the loop body's CUDA runtime calls per instance) and the warnings about
// rows whose GPU was busy for well under their GPU time.
#include "common/busy_text.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/gate/host_calls.hpp"
#include "tools/load/loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpubench::tools {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr const char* kExample =
    "BM_Sync/20480000=cudaMallocHost:1:0.0021,cudaDeviceSynchronize:1:0.0009,cudaMalloc:1:0.0003,"
    "cudaMemcpy:2:0.0002;BM_Other/8=cudaLaunchKernel:1:2.5e-06";

TEST(HostCalls, ParsesTheSpecExample) {
  const HostCallsContext parsed = ParseHostCalls(kExample);
  EXPECT_TRUE((parsed.problems).empty());
  ASSERT_THAT(parsed.instances, SizeIs(2));
  const InstanceHostCalls& sync = parsed.instances.at("BM_Sync/20480000");
  EXPECT_FALSE(sync.malformed);
  ASSERT_THAT(sync.calls, SizeIs(4));
  EXPECT_EQ(sync.calls[0].name, "cudaMallocHost");
  EXPECT_EQ(sync.calls[0].count, 1);
  EXPECT_DOUBLE_EQ(sync.calls[0].seconds, 0.0021);
  EXPECT_EQ(sync.calls[3].name, "cudaMemcpy");
  EXPECT_EQ(sync.calls[3].count, 2);
  EXPECT_DOUBLE_EQ(parsed.instances.at("BM_Other/8").calls.at(0).seconds, 2.5e-06);
}

TEST(HostCalls, NoneAndFractionalCountsAreFine) {
  EXPECT_TRUE((ParseHostCalls("none").instances).empty());
  EXPECT_TRUE((ParseHostCalls("none").problems).empty());
  EXPECT_TRUE(ParseHostCalls("none").recorded);
  const HostCallsContext not_measured = ParseHostCalls("not measured");
  EXPECT_FALSE(not_measured.recorded);
  EXPECT_TRUE((not_measured.problems).empty());
  const HostCallsContext parsed = ParseHostCalls(" BM_A = cudaFree:0.25:1e-6 ");
  EXPECT_TRUE((parsed.problems).empty());
  EXPECT_EQ(parsed.instances.at("BM_A").calls.at(0).count, 0.25);
  // Instance names may hold ':' and ',' (named arguments, template arguments).
  const HostCallsContext named = ParseHostCalls("BM_T<int, 2>/n:8=cudaMemset:1:3e-07");
  EXPECT_TRUE((named.problems).empty());
  EXPECT_EQ(named.instances.count("BM_T<int, 2>/n:8"), 1u);
}

TEST(HostCalls, MatchesTheLongestInstanceThatIsARowNamePrefix) {
  const HostCallsContext parsed = ParseHostCalls(
      "BM_Copy=cudaMalloc:1:1e-3;BM_Copy/1024=cudaMemcpy:1:1e-6;BM_Copy/1=cudaFree:1:1e-6");
  ASSERT_TRUE((parsed.problems).empty());
  EXPECT_EQ(parsed.Match("BM_Copy/1024/manual_time")->calls.at(0).name, "cudaMemcpy");
  EXPECT_EQ(parsed.Match("BM_Copy/1024")->calls.at(0).name, "cudaMemcpy");
  EXPECT_EQ(parsed.Match("BM_Copy/1/manual_time")->calls.at(0).name, "cudaFree");
  // "BM_Copy/10" is not BM_Copy/1 followed by '/': the family's own entry.
  EXPECT_EQ(parsed.Match("BM_Copy/10/manual_time")->calls.at(0).name, "cudaMalloc");
  EXPECT_EQ(parsed.Match("BM_CopyAsync/1/manual_time"), nullptr);
  EXPECT_EQ(ParseHostCalls("none").Match("BM_Copy/1024"), nullptr);
}

// Each malformed entry is said (which entry, what is wrong) and left out; the rest is kept.
TEST(HostCalls, MalformedEntriesAreSaidAndLeftOut) {
  struct Case {
    const char* value;
    const char* problem;
  };
  const Case cases[] = {
      {"", "the value is empty"},
      {"BM_A=cudaMalloc:1:1e-3;;BM_B=cudaFree:1:1e-6", "entry 2 is empty"},
      {"BM_A=cudaMalloc:1:1e-3;", "entry 2 is empty"},
      {"BM_A cudaMalloc:1:1e-3", "entry 1 (\"BM_A cudaMalloc:1:1e-3\") has no '='"},
      {"=cudaMalloc:1:1e-3", "names no instance before '='"},
      {"BM_A=", "entry 1 (\"BM_A\"): lists no calls after '='"},
      {"BM_A=cudaMalloc:1", "call 1 (\"cudaMalloc:1\") is not NAME:COUNT:SECONDS"},
      {"BM_A=cudaMalloc:1:2:3", "call 1 (\"cudaMalloc:1:2:3\") is not NAME:COUNT:SECONDS"},
      {"BM_A=cudaFree:1:1e-6,,", "call 2 (\"\") is not NAME:COUNT:SECONDS"},
      {"BM_A=cuda Malloc:1:1e-3", "the name \"cuda Malloc\" is not a function name"},
      {"BM_A=cudaMalloc:two:1e-3", "the count \"two\" is not a number >= 0"},
      {"BM_A=cudaMalloc:-1:1e-3", "the count \"-1\" is not a number >= 0"},
      {"BM_A=cudaMalloc:1:nan", "the host time \"nan\" is not a number of seconds >= 0"},
      {"BM_A=cudaMalloc:1:1e999", "the host time \"1e999\" is not a number of seconds >= 0"},
      {"BM_A=cudaMalloc:1:0x10", "the host time \"0x10\""},
      {"BM_A=cudaMalloc:1:1e-3;BM_A=cudaFree:1:1e-6", "the instance \"BM_A\" is listed a second"},
  };
  for (const Case& c : cases) {
    const HostCallsContext parsed = ParseHostCalls(c.value);
    ASSERT_THAT(parsed.problems, SizeIs(1)) << c.value;
    EXPECT_THAT(parsed.problems[0], HasSubstr(c.problem)) << c.value;
  }
  const HostCallsContext mixed = ParseHostCalls("BM_A=cudaMalloc:x:1;BM_B=cudaFree:1:1e-6");
  EXPECT_TRUE(mixed.instances.at("BM_A").malformed);
  EXPECT_TRUE((mixed.instances.at("BM_A").calls).empty());
  EXPECT_EQ(mixed.instances.at("BM_B").calls.at(0).name, "cudaFree");
  // A long entry is quoted cut short.
  const std::string long_entry(500, 'a');
  EXPECT_THAT(ParseHostCalls(long_entry).problems.at(0), HasSubstr(std::string(60, 'a') + "...\""));
}

TEST(HostCalls, DescribesAtMostFourCallsWithCountsOtherThanOne) {
  const HostCallsContext parsed = ParseHostCalls(
      "BM_A=cudaMallocHost:1:0.0021,cudaDeviceSynchronize:1:0.0009,cudaMalloc:0.5:0.0003,"
      "cudaMemcpy:2:0.0002,cudaFree:1:4e-05,cudaMemset:3:1e-05");
  ASSERT_TRUE((parsed.problems).empty());
  EXPECT_EQ(DescribeHostCalls(parsed.instances.at("BM_A").calls),
            "cudaMallocHost (2.1 ms), cudaDeviceSynchronize (900 us), cudaMalloc 0.5x (300 us), "
            "cudaMemcpy 2x (200 us), and 2 other calls (50 us)");
  EXPECT_EQ(DescribeHostCalls({{"cudaLaunchKernel", 1000, 2.5e-3}}),
            "cudaLaunchKernel 1000x (2.5 ms)");
}

// A run of three benchmarks with gpu_busy_pct over three repetitions.
BenchmarkFile RunWithBusy(const std::string& host_calls) {
  BenchmarkFile run;
  run.path = "run.json";
  if (!host_calls.empty()) run.context[std::string(context_key::kHostCalls)] = host_calls;
  auto add = [&run](const std::string& name, std::vector<double> time_ns,
                    std::vector<double> busy_pct, std::vector<double> shared) {
    BenchmarkRecord record;
    record.name = name;
    std::vector<double> busy_s;
    for (std::size_t i = 0; i < time_ns.size(); ++i) {
      busy_s.push_back(time_ns[i] * 1e-9 * busy_pct[i] / 100);
    }
    record.metrics = {{counter::kRealTime, time_ns},
                      {counter::kGpuBusyTime, busy_s},
                      {counter::kGpuBusyPct, busy_pct},
                      {counter::kGpuShared, shared}};
    run.index_by_name[name] = run.benchmarks.size();
    run.benchmarks.push_back(record);
  };
  add("BM_Sync/20480000/manual_time", {3.5e6, 3.53e6, 3.6e6}, {90, 13.3, 13.0}, {0, 0, 0});
  add("BM_Fine/8/manual_time", {1e5, 1e5, 1e5}, {95, 40, 96}, {0, 0, 0});
  add("BM_Shared/8/manual_time", {1e5, 1e5, 1e5}, {20, 20, 20}, {0, 1, 0});
  return run;
}

TEST(GpuBusyWarnings, NamesTheLowRowsWithTheirNumbersAndCalls) {
  const std::vector<std::string> warnings = GpuBusyWarnings(RunWithBusy(kExample));
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_EQ(warnings[0],
            "BM_Sync/20480000/manual_time (medians of 3 repetitions): GPU time 3.53 ms, GPU busy "
            "469.5 us (13%): per iteration the loop calls cudaMallocHost (2.1 ms), "
            "cudaDeviceSynchronize (900 us), cudaMalloc (300 us), cudaMemcpy 2x (200 us)");
}

TEST(GpuBusyWarnings, SaysWhenTheCallsWereNotRecordedOrNone) {
  // No key (an older gpubench) or gpubench's "not ..." values: not recorded, not an error.
  for (const char* absent :
       {"", "not measured",
        "not listed here: profile_process=same measures them after the context is written"}) {
    const std::vector<std::string> warnings = GpuBusyWarnings(RunWithBusy(absent));
    ASSERT_THAT(warnings, SizeIs(1)) << absent;
    EXPECT_THAT(warnings[0], AllOf(HasSubstr("GPU busy 469.5 us (13%)"),
                                   HasSubstr("the host calls were not recorded (profile_process="
                                             "same or an older gpubench)")));
  }
  // Recorded, and the instance is not listed: its loop body made no runtime call.
  for (const char* none : {"none", "BM_Other/8=cudaLaunchKernel:1:2.5e-06"}) {
    const std::vector<std::string> warnings = GpuBusyWarnings(RunWithBusy(none));
    ASSERT_THAT(warnings, SizeIs(1)) << none;
    EXPECT_THAT(warnings[0], HasSubstr("GPU busy 469.5 us (13%): the loop body made no CUDA "
                                       "runtime call that would explain the idle time"));
  }
}

TEST(GpuBusyWarnings, SaysWhenTheCallsAreMalformed) {
  const std::vector<std::string> malformed =
      GpuBusyWarnings(RunWithBusy("BM_Sync/20480000=cudaMalloc:1;BM_Other/8=cudaFree:1:1e-6"));
  ASSERT_THAT(malformed, SizeIs(2));
  EXPECT_EQ(malformed[0],
            "gpubench_host_calls in the context is malformed (1 problem(s); those entries' host "
            "calls are left out): entry 1 (\"BM_Sync/20480000\"): call 1 (\"cudaMalloc:1\") is "
            "not NAME:COUNT:SECONDS");
  EXPECT_THAT(malformed[1], HasSubstr("(13%): its host calls could not be read"));
  const std::vector<std::string> unnamed = GpuBusyWarnings(RunWithBusy(";BM_Other/8=x:1:1"));
  ASSERT_THAT(unnamed, SizeIs(2));
  EXPECT_THAT(unnamed[0], HasSubstr("(1 problem(s); those entries' host calls are left out): "
                                    "entry 1 is empty"));
  EXPECT_THAT(unnamed[1], HasSubstr("(13%): its host calls were not found (gpubench_host_calls "
                                    "is malformed, see its warning)"));
}

TEST(GpuBusyWarnings, NoneAtEightyAndAboveOrWithoutTheCounter) {
  BenchmarkFile run = RunWithBusy(kExample);
  run.benchmarks[0].metrics[2].values = {80, 80, 79};
  EXPECT_TRUE((GpuBusyWarnings(run)).empty());
  run.benchmarks[0].metrics[2].values = {79.9, 80, 79};
  EXPECT_THAT(GpuBusyWarnings(run), SizeIs(1));
  run.benchmarks[0].metrics.resize(1);  // an older gpubench: no gpu_busy_pct
  EXPECT_TRUE((GpuBusyWarnings(run)).empty());
}

TEST(GpuBusyWarnings, ListsTwentyAndNamesTheRest) {
  BenchmarkFile run;
  for (int i = 0; i < 23; ++i) {
    BenchmarkRecord record;
    record.name = "BM_Idle/" + std::to_string(i);
    record.metrics = {{counter::kRealTime, {1e6}}, {counter::kGpuBusyPct, {5}}};
    run.benchmarks.push_back(record);
  }
  const std::vector<std::string> warnings = GpuBusyWarnings(run);
  ASSERT_THAT(warnings, SizeIs(21));
  EXPECT_EQ(warnings[0],
            "BM_Idle/0: GPU time 1 ms, GPU busy 50 us (5%): the host calls were not recorded "
            "(profile_process=same or an older gpubench)");
  EXPECT_EQ(warnings[20],
            "GPU busy below 80% of the GPU time in 3 more benchmark(s): BM_Idle/20 (5%), "
            "BM_Idle/21 (5%), BM_Idle/22 (5%)");
}

// Real H200 runs with the launches held: one-kernel bodies idle only the timer's floor around a
// launch (the tiny kernel 2.1 of its 3.1 us, gpu_busy_pct 34%), which is no warning; the
// converted synchronising body's three work items idle 5.5 us per iteration, which is.
TEST(GpuBusyWarnings, HeldOneKernelBodiesOfRealRunsAreNotWarnedTheirFloorIsNoIdleTime) {
  const std::string data = GPUBENCH_COMPARE_TEST_DATA_DIR "/h200/";
  for (const char* name : {"cost/gpubench_tiny_10.json", "cost/gpubench_copy_2^20_10.json",
                           "history_gate_v4/run_01.json", "thermal/short_kernels.json"}) {
    const detail::Result<BenchmarkFile> run = LoadBenchmarkFile(data + name);
    ASSERT_TRUE(run.ok()) << run.status().message();
    bool low = false;  // the file has held rows below 80% that are floor only
    for (const BenchmarkRecord& record : run.value().benchmarks) {
      const MetricSeries* pct = record.FindMetric(counter::kGpuBusyPct);
      low = low || (pct && !pct->values.empty() && pct->values[0] < detail::kBusyWarnBelowPercent);
    }
    EXPECT_TRUE(low) << name << " has no short kernel: the test would prove nothing";
    EXPECT_THAT(GpuBusyWarnings(run.value()), SizeIs(0)) << name;
  }
  // The synchronising body (not held: the host paced it) and its conversion (held, three work
  // items that idle 5 us between them) are said.
  const detail::Result<BenchmarkFile> sync = LoadBenchmarkFile(data + "sync/sync_2026-12-01.json");
  ASSERT_TRUE(sync.ok()) << sync.status().message();
  const std::vector<std::string> said = GpuBusyWarnings(sync.value());
  ASSERT_THAT(said, SizeIs(2));
  EXPECT_THAT(said[0], HasSubstr("BM_SyncLoop/1048576/manual_time"));
  EXPECT_THAT(said[1], AllOf(HasSubstr("BM_SyncLoopConverted/1048576/manual_time"),
                             HasSubstr("lies between the body's GPU work items")));
  BenchmarkFile held = RunWithBusy(kExample);
  BenchmarkRecord record;
  record.name = "BM_SyncLoopConverted/1048576/manual_time";
  record.metrics = {{counter::kRealTime, {16380}},
                    {counter::kGpuBusyTime, {10.9e-6}},
                    {counter::kGpuBusyPct, {66.5}},
                    {counter::kLaunchHeld, {1}}};
  held.benchmarks = {record};
  const std::vector<std::string> warnings = GpuBusyWarnings(held);
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_THAT(warnings[0], HasSubstr("the idle time (5.48 us per iteration, beyond the timer's "
                                     "floor of about 2 us around a launch) lies between the "
                                     "body's GPU work items"));
  held.benchmarks[0].metrics[0].values = {14800};  // 3.9 us idle: the floor of one launch
  EXPECT_THAT(GpuBusyWarnings(held), SizeIs(0));
  held.benchmarks[0].metrics[3].values = {0};  // not held: the host paced it, say so
  EXPECT_THAT(GpuBusyWarnings(held), SizeIs(1));
}

// A held body of one GPU work item (gpu_work_items=1, committed H200 run of the stream cases)
// is never said to idle between work items: within the floor nothing is said, beyond it the
// time around that one item is named; two items keep the between-items words.
TEST(GpuBusyWarnings, OneWorkItemIsTheTimeAroundItNeverBetweenItems) {
  const detail::Result<BenchmarkFile> run =
      LoadBenchmarkFile(GPUBENCH_COMPARE_TEST_DATA_DIR "/h200/issue37/streams.json");
  ASSERT_TRUE(run.ok()) << run.status().message();
  BenchmarkFile file = run.value();
  EXPECT_THAT(GpuBusyWarnings(file), SizeIs(0));  // the tiny kernels' 17-20% are the floor
  std::vector<BenchmarkRecord> kept;
  for (BenchmarkRecord& record : file.benchmarks) {
    if (record.name.rfind("Streams_TinyOther", 0) != 0 &&
        record.name.rfind("Streams_TwoOverlapping", 0) != 0) {
      continue;
    }
    const MetricSeries* items = record.FindMetric(counter::kGpuWorkItems);
    ASSERT_NE(items, nullptr) << record.name;
    for (MetricSeries& series : record.metrics) {
      // Ten times the idle time: 27 us around one item, and well below 80% for the pair.
      if (series.name == counter::kRealTime) series.values = {series.values[0] * 10};
      if (series.name == counter::kGpuBusyPct) series.values = {series.values[0] / 10};
    }
    kept.push_back(record);
  }
  ASSERT_THAT(kept, SizeIs(2));
  file.benchmarks = kept;
  const std::vector<std::string> said = GpuBusyWarnings(file);
  ASSERT_THAT(said, SizeIs(2));
  for (const std::string& text : said) {
    if (text.find("Streams_TinyOther") != std::string::npos) {
      EXPECT_THAT(text,
                  AllOf(HasSubstr("has one GPU work item per iteration (gpu_work_items=1)"),
                        HasSubstr("the timer's own floor"), HasSubstr("--gpubench_timer=cupti")));
      EXPECT_THAT(text, ::testing::Not(HasSubstr("between the body's GPU work items")));
    } else {
      EXPECT_THAT(text, HasSubstr("lies between the body's GPU work items"));
    }
  }
}

}  // namespace
}  // namespace gpubench::tools
