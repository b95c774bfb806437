// What src/gb/gb_internals.cpp assumes about Google Benchmark, checked against the GB this binary
// is built with (Debian 12's 1.7.1 here, 1.9.1 and 1.9.5 in CI): its private members, its
// internal registration, its row names and types, its JSON layout, KeepRunningBatch's contract,
// ConsoleReporter's protected members, the State members that came with later versions, and the
// text of its PauseTiming check. A GB that changed one of them fails here with a message that
// names the file to update.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gb/gb_internals.hpp"
#include "support/gb_version.hpp"

#ifndef GPUBENCH_TEST_GB_VERSION
#define GPUBENCH_TEST_GB_VERSION "(version unknown)"
#endif

namespace gpubench::testing {
namespace {

using detail::GbRun;

// The start of every failure message: which GB changed, and where gpubench keeps what it knew.
std::string Changed(const std::string& what) {
  return std::string("GB ") + GPUBENCH_TEST_GB_VERSION + " changed " + what +
         ": update src/gb/gb_internals.cpp";
}

class Capture : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) this->runs.push_back(run);
  }
  std::vector<Run> runs;
};

std::vector<GbRun> RunGb(const std::string& filter) {
  Capture capture;
  benchmark::RunSpecifiedBenchmarks(&capture, filter);
  return capture.runs;
}

// GB's JSON file text of `runs`, written by GB's own JSONReporter.
std::string GbJson(const std::vector<GbRun>& runs) {
  std::ostringstream out, errors;
  benchmark::JSONReporter json;
  json.SetOutputStream(&out);
  json.SetErrorStream(&errors);
  benchmark::BenchmarkReporter::Context context;
  json.ReportContext(context);
  json.ReportRuns(runs);
  json.Finalize();
  return out.str();
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void Loop(benchmark::State& state) {
  for (auto _ : state) {
  }
}

void ManualLoop(benchmark::State& state) {
  for (auto _ : state) state.SetIterationTime(1e-3);
}

// 1. The private members the registration reads.
detail::GbBenchmark* const own_min_time =
    benchmark::RegisterBenchmark("GbInternals_Registered", Loop)
        ->Name("GbInternals_Renamed")
        ->Arg(8)
        ->MinTime(0.25);
detail::GbBenchmark* const own_count =
    benchmark::RegisterBenchmark("GbInternals_Count", Loop)->Args({8, 16})->Iterations(7);
detail::GbBenchmark* const no_args = benchmark::RegisterBenchmark("GbInternals_NoArgs", Loop);

TEST(GbInternals, PrivateMembersReadBackWhatTheFamilySet) {
  EXPECT_EQ(detail::OwnMinTimeSeconds(*own_min_time), 0.25) << Changed("Benchmark::min_time_");
  EXPECT_EQ(detail::OwnMinTimeSeconds(*own_count), 0.0) << Changed("Benchmark::min_time_");
  EXPECT_EQ(detail::OwnIterations(*own_count), 7) << Changed("Benchmark::iterations_");
  EXPECT_EQ(detail::OwnIterations(*own_min_time), 0) << Changed("Benchmark::iterations_");
  EXPECT_EQ(detail::FamilyName(*own_min_time), "GbInternals_Renamed")
      << Changed("Benchmark::name_ (after ->Name())");
  EXPECT_EQ(detail::ArgsCount(*own_min_time), 1) << Changed("Benchmark::ArgsCnt()");
  EXPECT_EQ(detail::ArgsCount(*own_count), 2) << Changed("Benchmark::ArgsCnt()");
  // A family without arguments: -1 until GB first looks for benchmarks to run, which gives it
  // one empty argument list (0), in every GB from 1.7 to 1.9.5; this binary's earlier tests may
  // have run GB already.
  const int no_args_count = detail::ArgsCount(*no_args);
  EXPECT_TRUE(no_args_count == -1 || no_args_count == 0)
      << Changed("Benchmark::ArgsCnt() without args") << " (" << no_args_count << ")";
}

// 2. The internal registration takes a fixture GB then owns and runs.
int owned_calls = 0;
class OwnedFixture : public benchmark::Fixture {
 public:
  OwnedFixture() { SetName("GbInternals_Owned"); }
  void BenchmarkCase(benchmark::State& state) override {
    ++owned_calls;
    for (auto _ : state) {
    }
  }
};

TEST(GbInternals, RegisterOwnedRegistersAFixtureThatRuns) {
  detail::GbBenchmark* registered = detail::RegisterOwned(new OwnedFixture);
  ASSERT_NE(registered, nullptr) << Changed("internal::RegisterBenchmarkInternal");
  registered->Iterations(1);
  const auto runs = RunGb("^GbInternals_Owned/");
  ASSERT_EQ(runs.size(), 1u) << Changed("internal::RegisterBenchmarkInternal");
  EXPECT_EQ(owned_calls, 1) << Changed("internal::RegisterBenchmarkInternal");
}

// 3. and 4. Row names and row types: a counted, repeated family under manual time.
BENCHMARK(ManualLoop)
    ->Name("GbInternals_Counted")
    ->Arg(8)
    ->Iterations(2)
    ->Repetitions(3)
    ->UseManualTime();
BENCHMARK(ManualLoop)
    ->Name("GbInternals_NamedArg")
    ->ArgName("n")
    ->Arg(8)
    ->Iterations(1)
    ->UseManualTime()
    ->MeasureProcessCPUTime();

TEST(GbInternals, RowNamesHaveTheCountAndTimeTypeWhereGpubenchExpectsThem) {
  const std::string count = detail::CountNamePart(2);
  const std::string name = "GbInternals_Counted/8/iterations:2/repeats:3/manual_time";
  auto runs = RunGb("^GbInternals_Counted/");
  ASSERT_GE(runs.size(), 3u) << Changed("the rows of a repeated family");
  for (const GbRun& run : runs) {
    EXPECT_EQ(run.run_name.iterations, count) << Changed("BenchmarkName::iterations");
    EXPECT_TRUE(detail::IsManualTime(run)) << Changed("BenchmarkName::time_type");
    EXPECT_FALSE(detail::IsProcessTime(run)) << Changed("BenchmarkName::time_type");
    EXPECT_EQ(detail::InstanceNameOfRun(run), "GbInternals_Counted/8")
        << Changed("BenchmarkName::function_name or args");
  }
  EXPECT_EQ(runs[0].benchmark_name(), name) << Changed("the order of BenchmarkName::str()");

  // The widened filter of the name gpubench prints matches the name GB gives.
  const std::string shown = "GbInternals_Counted/8/repeats:3/manual_time";
  const std::string widened = detail::WidenFilter("^" + shown + "$", count);
  EXPECT_EQ(RunGb(widened).size(), runs.size())
      << Changed("the parts after the count in row names") << " (filter " << widened << ")";

  detail::RestoreCountedNames(
      &runs, count, [](const std::string& family) { return family == "GbInternals_Counted"; });
  EXPECT_EQ(runs[0].benchmark_name(), shown) << Changed("BenchmarkName::str()");
  detail::TagRunArgs(&runs[0], "gpu:1");
  EXPECT_EQ(runs[0].benchmark_name(), "GbInternals_Counted/8/gpu:1/repeats:3/manual_time")
      << Changed("BenchmarkName::args in BenchmarkName::str()");
}

// A converted benchmark's plain GB name (no "/manual_time", no count): a filter anchored at its
// end still selects it once widened, with and without the count gpubench sets.
BENCHMARK(ManualLoop)->Name("GbInternals_Plain")->Arg(1000)->UseManualTime();
BENCHMARK(ManualLoop)->Name("GbInternals_PlainCounted")->Arg(1000)->Iterations(2)->UseManualTime();

TEST(GbInternals, AFilterOfPlainGbNamesWidenedSelectsTheManualTimeInstances) {
  const std::string count = detail::CountNamePart(2);
  ASSERT_TRUE(RunGb("^GbInternals_Plain/1000$").empty())
      << Changed("BenchmarkName::time_type at the end of the name");
  for (const std::string& part : {std::string(), count}) {
    const std::string plain = detail::WidenFilter("^GbInternals_Plain/1000$", part);
    EXPECT_EQ(RunGb(plain).size(), 1u) << Changed("the end of the row names") << ": " << plain;
  }
  const std::string counted = detail::WidenFilter("GbInternals_PlainCounted/1000$", count);
  EXPECT_EQ(RunGb(counted).size(), 1u) << Changed("the end of the row names") << ": " << counted;
  const std::string both =
      detail::WidenFilter("^GbInternals_Plain/1000$|^GbInternals_PlainCounted/1000$", count);
  EXPECT_EQ(RunGb(both).size(), 2u) << Changed("the end of the row names") << ": " << both;
  // An instance with more arguments is still not selected by the shorter name.
  EXPECT_TRUE(RunGb(detail::WidenFilter("^GbInternals_Plain/100$", count)).empty());
}

// GB compiles the filter (after a leading '-') as a POSIX extended expression and searches the
// whole name with it; the widening leaves escaped and bracketed '$' alone.
TEST(GbInternals, WideningTouchesOnlyEndAnchors) {
  const auto matches = [](const std::string& filter, const std::string& name) {
    const bool negative = !filter.empty() && filter[0] == '-';
    const std::regex expression(negative ? filter.substr(1) : filter, std::regex::extended);
    return std::regex_search(name, expression) != negative;
  };
  const std::string count = detail::CountNamePart(2);
  const std::string manual = "bitset_set/1000/manual_time";
  const std::string counted = "bitset_set/1000/iterations:2/manual_time";
  const std::string negative = detail::WidenFilter("-bitset_set/1000$", count);
  EXPECT_EQ(negative.front(), '-');
  EXPECT_FALSE(matches(negative, manual)) << negative;
  EXPECT_FALSE(matches(negative, counted)) << negative;
  EXPECT_TRUE(matches(negative, "bitset_set/10000/manual_time")) << negative;
  EXPECT_TRUE(matches(detail::WidenFilter("(a|bitset_set/1000)$", count), counted));
  EXPECT_TRUE(matches(detail::WidenFilter("bitset_set/1000/repeats:3$", count),
                      "bitset_set/1000/iterations:2/repeats:3/manual_time"));
  EXPECT_TRUE(matches(detail::WidenFilter("bitset_set/1000/process_time$", count),
                      "bitset_set/1000/iterations:2/process_time/manual_time"));
  // Not an end: an escaped '$' and one inside a bracket expression (also after "[]" and in a
  // class name) stay as they are.
  EXPECT_EQ(detail::WidenFilter("a\\$b", count), "a\\$b");
  EXPECT_EQ(detail::WidenFilter("a[$]b", count), "a[$]b");
  EXPECT_EQ(detail::WidenFilter("a[]$]b[^]$]", count), "a[]$]b[^]$]");
  EXPECT_EQ(detail::WidenFilter("a[[:alpha:]$]$", ""), "a[[:alpha:]$](/manual_time)?$");
  EXPECT_EQ(detail::WidenFilter("x$", ""), "x(/manual_time)?$");
  EXPECT_EQ(detail::WidenFilter("", count), "");
  EXPECT_EQ(detail::WidenFilter("all", count), "all");
}

// An instance's name as GB gives it, built before GB reports it (the row an abort leaves): from
// inside the function, for families with every part of a name.
std::vector<std::string> instance_run_names;
detail::GbBenchmark* named_family = nullptr;
detail::GbBenchmark* counted_family = nullptr;
void RecordsItsName(benchmark::State& state, detail::GbBenchmark* const* family) {
  if (state.thread_index() == 0) {
    instance_run_names.push_back(detail::InstanceRun(**family, state).benchmark_name());
  }
  for (auto _ : state) state.SetIterationTime(1e-3);
}
detail::GbBenchmark* const named_registration = named_family =
    benchmark::RegisterBenchmark(
        "GbInternals_AllParts",
        [](benchmark::State& state) { RecordsItsName(state, &named_family); })
        ->ArgNames({"n", ""})
        ->Args({8, 3})
        ->MinTime(0.01)
        ->MinWarmUpTime(0.001)
        ->Repetitions(2)
        ->MeasureProcessCPUTime()
        ->UseManualTime()
        ->Threads(1);
detail::GbBenchmark* const counted_registration = counted_family =
    benchmark::RegisterBenchmark(
        "GbInternals_CountParts",
        [](benchmark::State& state) { RecordsItsName(state, &counted_family); })
        ->Arg(5)
        ->Iterations(3)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);

TEST(GbInternals, InstanceRunIsNamedAsGbNamesTheInstance) {
  for (const char* filter : {"^GbInternals_AllParts/", "^GbInternals_CountParts/"}) {
    instance_run_names.clear();
    const auto runs = RunGb(filter);
    ASSERT_FALSE(runs.empty()) << filter;
    ASSERT_FALSE(instance_run_names.empty()) << filter;
    for (const std::string& name : instance_run_names) {
      EXPECT_EQ(name, runs[0].run_name.str())
          << Changed("the parts of BenchmarkInstance's name (benchmark_api_internal.cc)");
    }
  }
  ASSERT_EQ(named_registration, named_family);
  ASSERT_EQ(counted_registration, counted_family);
  // The row itself: one repetition's, nothing timed, in the family's time unit.
  instance_run_names.clear();
  const auto counted = RunGb("^GbInternals_CountParts/");
  ASSERT_FALSE(counted.empty());
  const std::string text = detail::GbJsonRows({counted[0]});
  EXPECT_EQ(text.rfind("    {\n", 0), 0u) << Changed("the JSON layout of a row") << text;
  EXPECT_EQ(text.back(), '}') << Changed("the JSON layout of a row") << text;
}

// An error row an abort appends, with the separator and the end GB writes: the file GB's
// JSONReporter began stays one valid JSON document.
TEST(GbInternals, AnAppendedRowAndTheEndMakeGbsJsonWhole) {
  const auto runs = RunGb("^GbInternals_Counted/");
  ASSERT_FALSE(runs.empty());
  std::ostringstream out, errors;
  benchmark::JSONReporter json;
  json.SetOutputStream(&out);
  json.SetErrorStream(&errors);
  benchmark::BenchmarkReporter::Context context;
  json.ReportContext(context);
  const std::string opened = out.str();
  json.ReportRuns(runs);
  GbRun error = runs[0];
  detail::SetRunError(error, "aborted");
  for (const std::string& text :
       {opened + detail::GbJsonRows({error}) + detail::kGbJsonEnd,
        out.str() + detail::kGbJsonRowSeparator + detail::GbJsonRows({error}) + detail::kGbJsonEnd,
        opened + detail::kGbJsonEnd}) {
    nlohmann::json parsed;
    ASSERT_NO_THROW(parsed = nlohmann::json::parse(text)) << Changed("the JSON layout") << text;
    const nlohmann::json& rows = parsed.at("benchmarks");
    if (rows.empty()) continue;
    EXPECT_EQ(rows.back().at("error_message"), "aborted") << Changed("the JSON of an error row");
    EXPECT_EQ(rows.back().at("error_occurred"), true) << Changed("the JSON of an error row");
  }
  json.Finalize();
  EXPECT_EQ(out.str().substr(out.str().size() - std::string(detail::kGbJsonEnd).size()),
            detail::kGbJsonEnd)
      << Changed("the end of the JSON (JSONReporter::Finalize)");
}

TEST(GbInternals, RepetitionsAndAggregatesAreTellable) {
  const auto runs = RunGb("^GbInternals_Counted/");
  std::vector<int64_t> repetitions;
  std::set<std::string> aggregates;
  int means = 0;
  for (const GbRun& run : runs) {
    EXPECT_NE(detail::IsIteration(run), detail::IsAggregate(run)) << Changed("Run::run_type");
    if (detail::IsIteration(run)) repetitions.push_back(detail::RepetitionIndex(run));
    if (detail::IsAggregate(run)) aggregates.insert(run.aggregate_name);
    if (detail::IsMean(run)) {
      ++means;
      EXPECT_TRUE(detail::IsAggregate(run)) << Changed("Run::aggregate_name");
      EXPECT_EQ(run.benchmark_name(),
                "GbInternals_Counted/8/iterations:2/repeats:3/manual_time_mean")
          << Changed("the name of the mean row");
    }
  }
  EXPECT_EQ(repetitions, (std::vector<int64_t>{0, 1, 2})) << Changed("Run::repetition_index");
  EXPECT_EQ(means, 1) << Changed("Run::aggregate_name \"mean\"");
  for (const char* statistic : {"mean", "median", "stddev"}) {
    EXPECT_EQ(aggregates.count(statistic), 1u)
        << Changed("Run::aggregate_name") << ": " << statistic;
  }
}

TEST(GbInternals, NamedArgumentsAndProcessTime) {
  const auto runs = RunGb("^GbInternals_NamedArg/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run_name.args, "n:8") << Changed("named arguments in BenchmarkName::args");
  EXPECT_EQ(detail::InstanceNameOfRun(runs[0]), "GbInternals_NamedArg/8")
      << Changed("named arguments in BenchmarkName::args");
  EXPECT_TRUE(detail::IsProcessTime(runs[0])) << Changed("BenchmarkName::time_type");
  EXPECT_TRUE(detail::IsManualTime(runs[0])) << Changed("BenchmarkName::time_type");
  EXPECT_TRUE(detail::IsIteration(runs[0])) << Changed("Run::run_type");
}

// 5. Error and skipped rows, across versions.
void FailsWithError(benchmark::State& state) {
  state.SkipWithError("gbi failed");
  for (auto _ : state) {
  }
}
BENCHMARK(FailsWithError)->Name("GbInternals_Error")->Iterations(1);

template <class State>
auto SkipWithMessageIfAny(State& state, int) -> decltype(state.SkipWithMessage(""), bool()) {
  state.SkipWithMessage("gbi skipped");
  return true;
}
template <class State>
bool SkipWithMessageIfAny(State&, long) {
  return false;
}
bool gb_has_skip_with_message = false;
void SkipsWithMessage(benchmark::State& state) {
  gb_has_skip_with_message = SkipWithMessageIfAny(state, 0);
  for (auto _ : state) {
  }
}
BENCHMARK(SkipsWithMessage)->Name("GbInternals_Skipped")->Iterations(1);

// Run::skipped's value and GB's named values for it (GB >= 1.8); nullopt before.
template <class Run>
auto SkippedValues(const Run& run, int)
    -> decltype(static_cast<int>(run.skipped), std::optional<std::vector<int>>()) {
  using Skipped = std::decay_t<decltype(run.skipped)>;
  return std::vector<int>{static_cast<int>(run.skipped),
                          static_cast<int>(Skipped::SkippedWithMessage),
                          static_cast<int>(Skipped::SkippedWithError)};
}
template <class Run>
std::optional<std::vector<int>> SkippedValues(const Run&, long) {
  return std::nullopt;
}

TEST(GbInternals, ErrorRowsAreWhatSetRunErrorMakes) {
  const auto failed = RunGb("^GbInternals_Error/");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_TRUE(detail::RunFailed(failed[0])) << Changed("Run's error fields");
  EXPECT_FALSE(detail::RunSkippedWithMessage(failed[0])) << Changed("Run's error fields");
  EXPECT_EQ(detail::RunErrorMessage(failed[0]), "gbi failed") << Changed("Run's error fields");
  const std::string gb_text = GbJson(failed);
  EXPECT_TRUE(Has(gb_text, "\"error_occurred\": true")) << Changed("the JSON of an error row");
  EXPECT_TRUE(Has(gb_text, "\"error_message\": \"gbi failed\""))
      << Changed("the JSON of an error row");

  auto made = RunGb("^GbInternals_Count/");
  ASSERT_EQ(made.size(), 1u);
  EXPECT_FALSE(detail::RunFailed(made[0])) << Changed("Run's error fields");
  EXPECT_EQ(detail::RunErrorMessage(made[0]), "") << Changed("Run's error fields");
  detail::SetRunError(made[0], "gbi failed");
  EXPECT_TRUE(detail::RunFailed(made[0])) << Changed("Run's error fields");
  EXPECT_EQ(detail::RunErrorMessage(made[0]), "gbi failed") << Changed("Run's error fields");
  const std::string made_text = GbJson(made);
  EXPECT_TRUE(Has(made_text, "\"error_occurred\": true")) << Changed("the JSON of an error row");
  EXPECT_TRUE(Has(made_text, "\"error_message\": \"gbi failed\""))
      << Changed("the JSON of an error row");
  if (const auto values = SkippedValues(failed[0], 0)) {
    EXPECT_EQ((*values)[0], 2) << Changed("the value of internal::SkippedWithError");
    EXPECT_EQ((*values)[2], 2) << Changed("the value of internal::SkippedWithError");
    EXPECT_EQ((*values)[1], 1) << Changed("the value of internal::SkippedWithMessage");
    EXPECT_EQ((*SkippedValues(made[0], 0))[0], 2)
        << Changed("the value of internal::SkippedWithError");
  }
}

TEST(GbInternals, SkippedRowsAreTold) {
  const auto skipped = RunGb("^GbInternals_Skipped/");
  ASSERT_EQ(skipped.size(), 1u);
  if (!gb_has_skip_with_message) {
    // Before GB 1.8 a row can only fail; this GB ran it (not a skip: CI runs every CPU test).
    EXPECT_FALSE(detail::RunFailed(skipped[0])) << Changed("Run's error fields");
    EXPECT_FALSE(detail::RunSkippedWithMessage(skipped[0])) << Changed("Run's error fields");
    return;
  }

  EXPECT_TRUE(detail::RunFailed(skipped[0])) << Changed("Run::skipped");
  EXPECT_TRUE(detail::RunSkippedWithMessage(skipped[0])) << Changed("Run::skipped");
  EXPECT_EQ(detail::RunErrorMessage(skipped[0]), "gbi skipped") << Changed("Run::skip_message");
  const std::string text = GbJson(skipped);
  EXPECT_TRUE(Has(text, "\"skipped\": true")) << Changed("the JSON of a skipped row");
  EXPECT_TRUE(Has(text, "\"skip_message\": \"gbi skipped\""))
      << Changed("the JSON of a skipped row");
}

// 6. GB's JSON layout.
TEST(GbInternals, SplitGbJsonParsesGbsOwnJson) {
  const auto runs = RunGb("^GbInternals_Counted/");
  const std::string text = GbJson(runs);
  EXPECT_TRUE(Has(text, "\"benchmarks\": [")) << Changed("the JSON layout");
  std::string context, rows;
  const detail::Status split = detail::SplitGbJson(text, &context, &rows);
  ASSERT_TRUE(split.ok()) << Changed("the JSON layout") << ": " << split.message();
  nlohmann::json parsed_context;
  ASSERT_NO_THROW(parsed_context = nlohmann::json::parse(context).at("context"))
      << Changed("the JSON layout") << ": " << context;
  EXPECT_TRUE(parsed_context.contains("num_cpus")) << Changed("the JSON layout");
  const nlohmann::json gb = nlohmann::json::parse(text);
  const nlohmann::json joined =
      nlohmann::json::parse(detail::JoinGbJson(parsed_context.dump(2), rows));
  EXPECT_EQ(joined, gb) << Changed("the JSON layout");
  EXPECT_EQ(gb.at("benchmarks").size(), runs.size()) << Changed("the JSON layout");
}

// 7. KeepRunningBatch may claim more iterations than GB asked for; GB reports what ran.
void ClaimsTen(benchmark::State& state) {
  if (!detail::ClaimIterations(state, 1)) return;
  detail::ClaimIterations(state, 9);
  while (state.KeepRunning()) {
  }
}
BENCHMARK(ClaimsTen)->Name("GbInternals_Claims")->Iterations(2);

// A count for every instance (GB >= 1.8, a main of one's own): GB lists every instance, and runs
// those without a count of their own that many times a call, naming none after it.
TEST(GbInternals, AGlobalCountRunsUncountedInstancesThatOftenWithoutNamingIt) {
  const std::optional<std::vector<std::string>> names = detail::ListInstanceNames();
  if (!detail::GbTakesGlobalCounts()) {
    // GB before 1.8 (its --benchmark_min_time is seconds only): neither is offered, and a main
    // of one's own keeps GB's rule (own_main_recipe checks what it says).
    EXPECT_FALSE(names.has_value());
    EXPECT_FALSE(detail::SetGlobalCount(3));
    return;
  }
  ASSERT_TRUE(names.has_value()) << Changed("--benchmark_list_tests");
  const auto listed = [&](const std::string& name) {
    return std::find(names->begin(), names->end(), name) != names->end();
  };
  EXPECT_TRUE(listed("GbInternals_NoArgs")) << ::testing::PrintToString(*names);
  EXPECT_TRUE(listed("GbInternals_Count/8/16/iterations:7"));
  ASSERT_TRUE(detail::SetGlobalCount(3));
  const std::vector<GbRun> runs = RunGb("^GbInternals_(NoArgs|Count/)");
  detail::SetGlobalCount(0);
  ASSERT_EQ(runs.size(), 2u);
  for (const GbRun& run : runs) {
    const std::string name = run.benchmark_name();
    if (Has(name, "NoArgs")) {
      EXPECT_EQ(name, "GbInternals_NoArgs") << Changed("--benchmark_min_time=<n>x");
      EXPECT_EQ(run.iterations, 3) << Changed("--benchmark_min_time=<n>x");
    } else {
      EXPECT_EQ(run.iterations, 7);  // a count of its own wins
    }
  }
}

TEST(GbInternals, ClaimIterationsReportsTheClaimedCount) {
  const auto runs = RunGb("^GbInternals_Claims/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(detail::RunFailed(runs[0])) << detail::RunErrorMessage(runs[0]);
  EXPECT_EQ(runs[0].iterations, 10) << Changed("KeepRunningBatch's claim beyond max_iterations");
}

// 9. ConsoleReporter's protected members, read by gpubench's console reporter.
class ConsoleProbe : public benchmark::ConsoleReporter {
 public:
  ConsoleProbe() : ConsoleReporter(OO_Tabular) {}
  bool tabular() const { return (output_options_ & OO_Tabular) != 0; }
  size_t width() const { return name_field_width_; }
  size_t counters() const { return prev_counters_.size(); }
  bool header() const { return printed_header_; }
};

TEST(GbInternals, ConsoleReporterProtectedMembersMeanWhatTheReporterReads) {
  ConsoleProbe probe;
  std::ostringstream out, errors;
  probe.SetOutputStream(&out);
  probe.SetErrorStream(&errors);
  EXPECT_TRUE(probe.tabular()) << Changed("ConsoleReporter::output_options_");
  EXPECT_FALSE(probe.header()) << Changed("ConsoleReporter::printed_header_");
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = 33;
  probe.ReportContext(context);
  EXPECT_EQ(probe.width(), 33u) << Changed("ConsoleReporter::name_field_width_");
  auto runs = RunGb("^GbInternals_Count/");
  ASSERT_EQ(runs.size(), 1u);
  runs[0].counters["gbi"] = 1;
  probe.ReportRuns(runs);
  EXPECT_TRUE(probe.header()) << Changed("ConsoleReporter::printed_header_");
  EXPECT_EQ(probe.counters(), 1u) << Changed("ConsoleReporter::prev_counters_");
}

// 10. The State members of later versions, against tests/support/gb_version.hpp's detection.
std::optional<std::string> probed_name;
std::optional<int> probed_range_count;
bool probed_skipped = false;
void StateProbe(benchmark::State& state) {
  probed_name = detail::StateName(state);
  probed_range_count = detail::StateRangeCount(state);
  state.SkipWithError("gbi probe");
  probed_skipped = detail::StateSkipped(state);
  for (auto _ : state) {
  }
}
BENCHMARK(StateProbe)->Name("GbInternals_State")->Args({1, 2})->Iterations(1);

TEST(GbInternals, StateMembersOfLaterVersionsAreFoundWhereGbHasThem) {
  RunGb("^GbInternals_State/");
  EXPECT_EQ(probed_name.has_value(), kGbHasStateName) << Changed("State::name()");
  if (probed_name) EXPECT_EQ(*probed_name, "GbInternals_State") << Changed("State::name()");
  EXPECT_EQ(probed_range_count.has_value(), kGbHasRangeSize) << Changed("State::range_size()");
  if (probed_range_count) EXPECT_EQ(*probed_range_count, 2) << Changed("State::range_size()");
  EXPECT_TRUE(probed_skipped) << Changed("State::skipped() / error_occurred()");
}

// GB's check of PauseTiming outside its timed iterations, where this GB build checks it (GB 1.7
// does; GB 1.9.1 built for release does not): the text gpubench's abort note quotes.
void PausesOutsideTheLoop(benchmark::State& state) {
  state.PauseTiming();
  state.ResumeTiming();
  for (auto _ : state) {
  }
}
BENCHMARK(PausesOutsideTheLoop)->Name("GbInternals_Pause")->Iterations(1);

TEST(GbInternals, PauseTimingCheckTextIsTheOneTheAbortNoteQuotes) {
  const std::string path = ::testing::TempDir() + "/gbi_pause_" + std::to_string(::getpid());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int errors = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (errors < 0 || ::dup2(errors, STDERR_FILENO) < 0) ::_exit(2);
    RunGb("^GbInternals_Pause/");
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  std::ifstream in(path);
  const std::string errors((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  if (!WIFSIGNALED(status)) {
    // This GB build does not check (not a skip: CI runs every CPU test); the row ran.
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << errors;
    return;
  }

  EXPECT_TRUE(Has(errors, detail::kGbPauseCheckText))
      << Changed("the text of PauseTiming's check") << ": " << errors;
}

}  // namespace
}  // namespace gpubench::testing
