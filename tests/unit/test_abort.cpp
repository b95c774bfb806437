// An abort (std::terminate, abort(), a failed assert) in a benchmark: the rows before it stay in
// the output, a JSON output gets an error row for the benchmark that aborted and is closed, the
// suite's own message on stdout is not lost, and the process ends with SIGABRT. Each run aborts
// in a child process (GoogleTest's death tests fork); the real GB runner, gpubench's reporter,
// GB's JSON and CSV reporters and gpubench's signal handler, on a fake device.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <gpubench/gpubench.hpp>

#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/hooks/gpubench_counts.hpp"
#include "frontend/setup/devices.hpp"
#include "gb/gb_internals.hpp"
#include "measure/call/abort_note.hpp"
#include "measure/process/process_state.hpp"
#include "support/fakes.hpp"

namespace gpubench::testing {
namespace {

Log* g_log = nullptr;

void AbortTest_Runs(benchmark::State& state) {
  for (auto _ : Loop(state)) g_log->Add("body");
}
GPUBENCH_BENCHMARK(AbortTest_Runs)->Arg(1)->Arg(2)->Iterations(2);

// A suite's check that fails in the set-up: its message, buffered on stdout, then terminate.
void AbortTest_Terminates(benchmark::State& state) {
  std::printf("suite: CUDA check failed in the set-up of AbortTest_Terminates\n");
  std::terminate();
  for (auto _ : Loop(state)) g_log->Add("body");
}
GPUBENCH_BENCHMARK(AbortTest_Terminates)->Arg(7);

void AbortTest_After(benchmark::State& state) {
  for (auto _ : Loop(state)) g_log->Add("body");
}
GPUBENCH_BENCHMARK(AbortTest_After)->Iterations(2);

// A CPU benchmark registered with GB's own macro that aborts: gpubench does not wrap its call.
void AbortTest_GbTerminates(benchmark::State& state) {
  std::abort();
  for (auto _ : state) {
  }
}
BENCHMARK(AbortTest_GbTerminates)->Iterations(1);

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The process on a fake device, metrics off, the fakes logging to `log` (the bodies too).
detail::ProcessState& OnFakeDevice(Log* log) {
  g_log = log;
  auto& process = detail::ProcessState::Get();
  process.ResetForTesting();
  Settings settings;
  settings.metrics = DefaultMetrics();
  settings.profile_iterations = 0;
  detail::DeviceFacts facts;
  facts.available = true;
  facts.name = "Fake GPU";
  process.harness.Configure(settings, facts);
  process.policy.SetTrialRunDetector(detail::TrialRunDetector(detail::kDefaultMinTimeSeconds));
  process.harness.SetBackendsForTesting(std::make_unique<FakeOps>(log),
                                        std::make_unique<FakeTimer>(log), nullptr);
  return process;
}

class AbortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string stem =
        ::testing::TempDir() + "/gpubench_abort_" + std::to_string(::getpid()) + "_";
    out_ = stem + "out";
    stdout_ = stem + "stdout";
    child_file_ = stem + "child.jsonl";
    for (const std::string& path : {out_, stdout_, child_file_}) std::remove(path.c_str());
  }
  void TearDown() override {
    for (const std::string& path : {out_, stdout_, child_file_}) std::remove(path.c_str());
    detail::ProcessState::Get().ResetForTesting();
    g_log = nullptr;
  }

  // Sets the process up on a fake device and runs `filter` as GPUBENCH_MAIN() writes
  // --benchmark_out in `format` ("json" or "csv"), with stdout in a file: run in the child.
  void RunInChild(const std::string& filter, const std::string& format) {
    if (std::freopen(stdout_.c_str(), "w", stdout) == nullptr) std::_Exit(3);
    static Log log;
    detail::ProcessState& process = OnFakeDevice(&log);
    detail::TakeOverCounts();  // the names gpubench's reporters give back without the count
    if (profiling_child_) {
      if (!process.profiling_pass.BeginProfiling(child_file_, {"on: fake profiler", {}}).ok()) {
        std::_Exit(4);
      }
    }
    std::ofstream file(out_);
    std::unique_ptr<benchmark::BenchmarkReporter> inner;
    if (format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      inner = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
    } else {
      inner = std::make_unique<benchmark::JSONReporter>();
    }
    detail::ForwardingReporter reporter(inner.get(), std::nullopt, {format == "json", out_});
    reporter.SetOutputStream(&file);
    reporter.SetErrorStream(&std::cerr);
    detail::InstallAbortHandler();
    benchmark::RunSpecifiedBenchmarks(&reporter, filter);
    std::_Exit(0);  // not reached: a benchmark aborts
  }

  nlohmann::json ReadJson() const {
    const std::string text = ReadText(out_);
    nlohmann::json parsed;
    EXPECT_NO_THROW(parsed = nlohmann::json::parse(text)) << "not valid JSON:\n" << text;
    return parsed;
  }

  std::string out_, stdout_, child_file_;
  bool profiling_child_ = false;
};

std::vector<std::string> Names(const nlohmann::json& report) {
  std::vector<std::string> names;
  for (const nlohmann::json& row : report.at("benchmarks")) names.push_back(row.at("name"));
  return names;
}

TEST_F(AbortTest, TheRowsBeforeAreKeptAndTheAbortingBenchmarkIsAnErrorRowOfAValidJson) {
  const std::string name = "AbortTest_Terminates/7/manual_time";
  EXPECT_EXIT(RunInChild("^AbortTest_(Runs|Terminates|After)/", "json"),
              ::testing::KilledBySignal(SIGABRT),
              "gpubench: the process aborted \\(SIGABRT\\) in the benchmark " + name +
                  ": the JSON output keeps the rows before it, ends with an error row for it");
  const nlohmann::json report = ReadJson();
  ASSERT_TRUE(report.contains("benchmarks"));
  EXPECT_EQ(Names(report),
            (std::vector<std::string>{"AbortTest_Runs/1/iterations:2/manual_time",
                                      "AbortTest_Runs/2/iterations:2/manual_time", name}));
  const nlohmann::json& rows = report.at("benchmarks");
  for (size_t i = 0; i + 1 < rows.size(); ++i) {
    EXPECT_FALSE(rows[i].value("error_occurred", false)) << rows[i].dump();
  }
  const nlohmann::json& aborted = rows.back();
  EXPECT_EQ(aborted.at("run_name"), name);  // gpubench's count is not in the name
  EXPECT_EQ(aborted.at("run_type"), "iteration");
  EXPECT_EQ(aborted.at("error_occurred"), true);
  const std::string message = aborted.at("error_message");
  EXPECT_EQ(message.rfind("gpubench: the process aborted (SIGABRT) in the benchmark " + name, 0),
            0u)
      << message;
  EXPECT_NE(message.find("the rows before it are kept"), std::string::npos) << message;
  // The suite's message, still in stdout's buffer as it aborted, reached the file.
  EXPECT_NE(ReadText(stdout_).find("suite: CUDA check failed in the set-up of "
                                   "AbortTest_Terminates"),
            std::string::npos);
}

TEST_F(AbortTest, AnAbortOutsideAGpubenchFunctionClosesTheJsonWithoutARow) {
  EXPECT_EXIT(RunInChild("^AbortTest_(Runs|GbTerminates)/", "json"),
              ::testing::KilledBySignal(SIGABRT),
              "outside the function of a benchmark registered through gpubench");
  const nlohmann::json report = ReadJson();
  ASSERT_TRUE(report.contains("benchmarks"));
  EXPECT_EQ(Names(report), (std::vector<std::string>{"AbortTest_Runs/1/iterations:2/manual_time",
                                                     "AbortTest_Runs/2/iterations:2/manual_time"}));
}

TEST_F(AbortTest, AnAbortInTheFirstBenchmarkLeavesItsErrorRowAlone) {
  EXPECT_EXIT(RunInChild("^AbortTest_Terminates/", "json"), ::testing::KilledBySignal(SIGABRT),
              "AbortTest_Terminates/7/manual_time");
  const nlohmann::json report = ReadJson();
  EXPECT_EQ(Names(report), (std::vector<std::string>{"AbortTest_Terminates/7/manual_time"}));
}

TEST_F(AbortTest, ACsvFileKeepsItsRows) {
  EXPECT_EXIT(RunInChild("^AbortTest_(Runs|Terminates)/", "csv"),
              ::testing::KilledBySignal(SIGABRT), "AbortTest_Terminates/7/manual_time");
  const std::string csv = ReadText(out_);
  EXPECT_NE(csv.find("\"AbortTest_Runs/1/iterations:2/manual_time\""), std::string::npos) << csv;
  EXPECT_NE(csv.find("\"AbortTest_Runs/2/iterations:2/manual_time\""), std::string::npos) << csv;
  EXPECT_EQ(csv.find("AbortTest_Terminates"), std::string::npos) << csv;
}

// The profiling child names the instance it aborted in; the parent does not run it again (it
// would abort there too) and times the others.
TEST_F(AbortTest, TheParentDoesNotRunWhatTheProfilingChildAbortedIn) {
  profiling_child_ = true;
  EXPECT_EXIT(RunInChild("^AbortTest_Terminates/", "json"), ::testing::KilledBySignal(SIGABRT),
              "AbortTest_Terminates/7/manual_time");
  const std::string lines = ReadText(child_file_);
  EXPECT_NE(lines.find("{\"aborted\":\"AbortTest_Terminates/7\"}\n"), std::string::npos) << lines;

  Log log;
  detail::ProcessState& process = OnFakeDevice(&log);
  detail::ProfilingPass::Header header;
  ASSERT_TRUE(process.profiling_pass.BeginTiming(child_file_, &header).ok());
  ASSERT_EQ(process.profiling_pass.aborted_in_child().count("AbortTest_Terminates/7"), 1u);
  CaptureReporter reporter;
  // AbortTest_Terminates would end this test binary if it ran.
  benchmark::RunSpecifiedBenchmarks(&reporter, "^AbortTest_(Terminates|After)/");
  ASSERT_EQ(reporter.runs.size(), 2u);
  const std::string message = detail::RunErrorMessage(reporter.runs[0]);
  EXPECT_EQ(message.rfind("gpubench: the profiling child", 0), 0u) << message;
  EXPECT_NE(message.find("aborted (SIGABRT) in this benchmark"), std::string::npos) << message;
  EXPECT_EQ(detail::RunErrorMessage(reporter.runs[1]), "");  // the one after it was timed
  EXPECT_GT(log.Count("body"), 0);
}

}  // namespace
}  // namespace gpubench::testing
