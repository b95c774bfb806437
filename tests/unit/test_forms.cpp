// Every GB registration form has a gpubench form with the same arguments and the same name: the
// names GB reports, the NVTX range names, the no-device skip, and what GB's own macros do on this
// GB version. Real Google Benchmark runs, fake GPU behind it.
#include <gtest/gtest.h>

#include <gpubench/gpubench.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gb/gb_internals.hpp"
#include "gpu/plan/range_names.hpp"
#include "schema/counter_table.hpp"
#include "support/fakes.hpp"
#include "support/gb_version.hpp"

namespace gpubench::testing {
namespace {

Log* g_log = nullptr;

void Body(const std::string& what = "body") {
  if (g_log != nullptr) g_log->Add(what);
}

// The bodies: each form's function or fixture loops with gpubench::Loop / Iterations.
void FormsPlain(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
template <class T>
void FormsFn(benchmark::State& state) {
  for (auto _ : Loop(state)) Body("body size " + std::to_string(sizeof(T)));
}
template <class T, class U>
void FormsFn2(benchmark::State& state) {
  for (auto _ : Loop(state)) Body("body sizes " + std::to_string(sizeof(T) + 10 * sizeof(U)));
}
void FormsCapture(benchmark::State& state, int threads, const std::string& label) {
  for (auto _ : Loop(state)) Body("captured " + std::to_string(threads) + " " + label);
}
template <class T>
void FormsTemplateCapture(benchmark::State& state, int threads) {
  for (auto _ : Loop(state)) Body("captured " + std::to_string(threads * sizeof(T)));
}
template <class T, class U>
void FormsTemplate2Capture(benchmark::State& state, int threads) {
  for (auto _ : Loop(state)) Body("captured " + std::to_string(threads * sizeof(T) * sizeof(U)));
}

template <class T>
class FormsFixture : public gpubench::Fixture {
 public:
  using gpubench::Fixture::SetUp;
  void SetUp(benchmark::State&) override { Body("setup " + std::to_string(sizeof(T))); }
};
template <class T, class U>
class FormsFixture2 : public gpubench::Fixture {};
class FormsPlainFixture : public gpubench::Fixture {};

// --- gpubench's forms. Every name below is written down in kForms as GB spells it.
GPUBENCH_BENCHMARK(FormsPlain)->Arg(3);
GPUBENCH_BENCHMARK(FormsFn2<double, char>)->Arg(4);
GPUBENCH_TEMPLATE(FormsFn, float)->Arg(5);
GPUBENCH_TEMPLATE(FormsFn2, float, int);
GPUBENCH_TEMPLATE1(FormsFn, int)->Args({6, 7});
GPUBENCH_TEMPLATE2(FormsFn2, int, float);
GPUBENCH_CAPTURE(FormsCapture, warp, 32, std::string("w"))->Arg(8);
GPUBENCH_NAMED(FormsPlain, named);
GPUBENCH_TEMPLATE1_CAPTURE(FormsTemplateCapture, float, block, 256);
GPUBENCH_TEMPLATE2_CAPTURE(FormsTemplate2Capture, float, short, grid, 2);
const int kCapturedByLambda = 9;
BenchmarkHandle* const lambda_form =
    gpubench::RegisterBenchmark("FormsLambda/captured", [n = kCapturedByLambda](
                                                            benchmark::State& state) {
      for (auto _ : Loop(state)) Body("captured " + std::to_string(n));
    })->Arg(10);
BenchmarkHandle* const args_form =
    gpubench::RegisterBenchmark("FormsArgs", FormsCapture, 64, std::string("x"));

GPUBENCH_F(FormsPlainFixture, F)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_DEFINE_F(FormsPlainFixture, Defined)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_REGISTER_F(FormsPlainFixture, Defined)->Arg(11);
GPUBENCH_TEMPLATE_F(FormsFixture, Float, float)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_TEMPLATE_F(FormsFixture2, Pair, float, int)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_TEMPLATE1_F(FormsFixture, Double, double)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_TEMPLATE2_F(FormsFixture2, Pair2, int, char)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_TEMPLATE_DEFINE_F(FormsFixture, Int, int)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_REGISTER_F(FormsFixture, Int)->Arg(12);
GPUBENCH_TEMPLATE1_DEFINE_F(FormsFixture, Char, char)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_REGISTER_F(FormsFixture, Char)->Args({13, 14});
GPUBENCH_TEMPLATE2_DEFINE_F(FormsFixture2, Mixed, char, int)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_REGISTER_F(FormsFixture2, Mixed);
GPUBENCH_TEMPLATE_METHOD_F(FormsFixture, Method)(benchmark::State& state) {
  for (auto _ : this->Iterations(state)) Body();
}
GPUBENCH_TEMPLATE_INSTANTIATE_F(FormsFixture, Method, float)->Arg(15);
GPUBENCH_TEMPLATE_INSTANTIATE_F(FormsFixture, Method, int);

// GB's name for each form above (without GB's "/manual_time"), which is also the NVTX range
// name, and what the body logs.
struct Form {
  std::string name;
  std::string body;
};
const std::vector<Form> kForms = {
    {"FormsPlain/3", "body"},
    {"FormsFn2<double, char>/4", "body sizes 18"},
    {"FormsFn<float>/5", "body size 4"},
    {"FormsFn2<float, int>", "body sizes 44"},
    {"FormsFn<int>/6/7", "body size 4"},
    {"FormsFn2<int,float>", "body sizes 44"},
    {"FormsCapture/warp/8", "captured 32 w"},
    {"FormsPlain/named", "body"},
    {"FormsTemplateCapture<float>/block", "captured 1024"},
    {"FormsTemplate2Capture<float,short>/grid", "captured 16"},
    {"FormsLambda/captured/10", "captured 9"},
    {"FormsArgs", "captured 64 x"},
    {"FormsPlainFixture/F", "body"},
    {"FormsPlainFixture/Defined/11", "body"},
    {"FormsFixture<float>/Float", "body"},
    {"FormsFixture2<float, int>/Pair", "body"},
    {"FormsFixture<double>/Double", "body"},
    {"FormsFixture2<int,char>/Pair2", "body"},
    {"FormsFixture<int>/Int/12", "body"},
    {"FormsFixture<char>/Char/13/14", "body"},
    {"FormsFixture2<char,int>/Mixed", "body"},
    {"FormsFixture<float>/Method/15", "body"},
    {"FormsFixture<int>/Method", "body"},
};

// --- GB's own macros with the same arguments ("twins"), each with the argument 99 so that the
// tests can tell them apart: GB's names for them must equal gpubench's. Forms that this GB
// version lacks are left out (the gpubench form is still tested above). One iteration: without
// manual time GB would search for an iteration count in wall time.
BENCHMARK(FormsPlain)->Arg(99)->Iterations(1);
BENCHMARK(FormsFn2<double, char>)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE(FormsFn, float)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE(FormsFn2, float, int)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE1(FormsFn, int)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE2(FormsFn2, int, float)->Arg(99)->Iterations(1);
BENCHMARK_CAPTURE(FormsCapture, warp, 32, std::string("w"))->Arg(99)->Iterations(1);
#ifdef BENCHMARK_NAMED
BENCHMARK_NAMED(FormsPlain, named)->Arg(99)->Iterations(1);
#endif
#ifdef BENCHMARK_TEMPLATE1_CAPTURE
BENCHMARK_TEMPLATE1_CAPTURE(FormsTemplateCapture, float, block, 256)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE2_CAPTURE(FormsTemplate2Capture, float, short, grid, 2)->Arg(99)->Iterations(1);
#endif
const auto lambda_twin_body = [](benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
};
BenchmarkHandle* const lambda_twin =
    benchmark::RegisterBenchmark("FormsLambda/captured", lambda_twin_body)->Arg(99)->Iterations(1);
BenchmarkHandle* const args_twin =
    benchmark::RegisterBenchmark("FormsArgs", FormsCapture, 64, std::string("x"))
        ->Arg(99)
        ->Iterations(1);
BENCHMARK_DEFINE_F(FormsPlainFixture, F)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsPlainFixture, F)->Arg(99)->Iterations(1);
BENCHMARK_DEFINE_F(FormsPlainFixture, Defined)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsPlainFixture, Defined)->Arg(99)->Iterations(1);
// BENCHMARK_TEMPLATE_F names like BENCHMARK_TEMPLATE_DEFINE_F (and does not register at GB main
// 267a1115), so the twins of the *_F forms are *_DEFINE_F + BENCHMARK_REGISTER_F.
BENCHMARK_TEMPLATE_DEFINE_F(FormsFixture, Float, float)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture, Float)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE_DEFINE_F(FormsFixture2, Pair, float, int)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture2, Pair)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE1_DEFINE_F(FormsFixture, Double, double)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture, Double)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE2_DEFINE_F(FormsFixture2, Pair2, int, char)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture2, Pair2)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE_DEFINE_F(FormsFixture, Int, int)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture, Int)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE1_DEFINE_F(FormsFixture, Char, char)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture, Char)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE2_DEFINE_F(FormsFixture2, Mixed, char, int)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture2, Mixed)->Arg(99)->Iterations(1);
#ifdef BENCHMARK_TEMPLATE_METHOD_F
BENCHMARK_TEMPLATE_METHOD_F(FormsFixture, Method)(benchmark::State& state) {
  for (auto _ : this->Iterations(state)) Body();
}
BENCHMARK_TEMPLATE_INSTANTIATE_F(FormsFixture, Method, float)->Arg(99)->Iterations(1);
BENCHMARK_TEMPLATE_INSTANTIATE_F(FormsFixture, Method, int)->Arg(99)->Iterations(1);
#endif

// The twins registered above: 18 on every GB version, 23 at GB main.
constexpr int kTwins = 18
#ifdef BENCHMARK_NAMED
                       + 1
#endif
#ifdef BENCHMARK_TEMPLATE1_CAPTURE
                       + 2
#endif
#ifdef BENCHMARK_TEMPLATE_METHOD_F
                       + 2
#endif
    ;

// --- GB's own macros used as a converted suite might keep them: a plain function that asks for
// manual time, and gpubench::Fixture classes.
void GbMacroPlain(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
BENCHMARK(GbMacroPlain)->UseManualTime()->Arg(21);
BENCHMARK_TEMPLATE_DEFINE_F(FormsFixture, GbMacro, float)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
BENCHMARK_REGISTER_F(FormsFixture, GbMacro)->Arg(22);
BENCHMARK_F(FormsPlainFixture, GbMacroF)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}

// A name changed after registration.
void Renamed(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(Renamed)->Name("RenamedLater")->Arg(23);

using GbRun = benchmark::BenchmarkReporter::Run;

// GB's instance name without its time type ("/manual_time"): family and arguments.
std::string GbInstanceName(const GbRun& run) {
  return run.run_name.args.empty() ? run.run_name.function_name
                                   : run.run_name.function_name + "/" + run.run_name.args;
}

bool IsTwin(const GbRun& run) {
  const std::string& args = run.run_name.args;
  return args == "99" || (args.size() > 3 && args.compare(args.size() - 3, 3, "/99") == 0);
}

class FormsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_log = &log_;
    settings_.metrics = DefaultMetrics();
    settings_.profile_iterations = 0;
    facts_.available = true;
    facts_.name = "Fake GPU";
    facts_.sm_count = 4;
    facts_.sm_clock_rated_mhz = 1980;
  }
  void TearDown() override {
    detail::ProcessState::Get().ResetForTesting();
    g_log = nullptr;
  }

  // Runs the benchmarks matching `filter` on fakes; gpubench's forms and the twins apart.
  std::vector<GbRun> RunAll(const std::string& filter) {
    auto& process = detail::ProcessState::Get();
    process.ResetForTesting();
    auto& harness = process.harness;
    harness.Configure(settings_, facts_);
    process.policy.SetTrialRunDetector(detail::TrialRunDetector(detail::kDefaultMinTimeSeconds));
    harness.SetBackendsForTesting(std::make_unique<FakeOps>(&log_),
                                  std::make_unique<FakeTimer>(&log_), nullptr);
    CaptureReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter, filter);
    return reporter.runs;
  }
  std::map<std::string, GbRun> RunForms() {
    std::map<std::string, GbRun> forms;
    for (const GbRun& run : RunAll("^Forms")) {
      const std::string name = GbInstanceName(run);
      if (!IsTwin(run) && name.find("/GbMacro") == std::string::npos) forms.emplace(name, run);
    }
    return forms;
  }

  Log log_;
  Settings settings_;
  detail::DeviceFacts facts_;
};

TEST_F(FormsTest, GbReportsEachFormUnderGbsNameWithGpuTime) {
  const std::map<std::string, GbRun> forms = RunForms();
  std::set<std::string> expected;
  for (const Form& form : kForms) {
    expected.insert(form.name);
    auto it = forms.find(form.name);
    ASSERT_NE(it, forms.end()) << form.name << " was not reported";
    const GbRun& run = it->second;
    EXPECT_EQ(detail::RunErrorMessage(run), "") << form.name;
    EXPECT_EQ(run.benchmark_name(), form.name + "/manual_time");
    EXPECT_EQ(run.counters.count(counter::kSmClockMhz), 1u) << form.name;
  }
  std::set<std::string> reported;
  for (const auto& [name, run] : forms) reported.insert(name);
  EXPECT_EQ(reported, expected);
}

TEST_F(FormsTest, GbsOwnMacroGivesTheSameNameAsEachGpubenchForm) {
  std::map<std::string, int> twins;  // GB's names of its own registrations, argument 99 dropped
  for (const GbRun& run : RunAll("^Forms")) {
    if (!IsTwin(run)) continue;
    std::string name = GbInstanceName(run);
    twins[name.substr(0, name.size() - 3)]++;
  }
  // Each twin's name, without the 99, must be the family name of one of gpubench's forms.
  std::set<std::string> families;
  for (const Form& form : kForms) {
    // The family is the name without the numeric arguments at its end.
    std::string name = form.name;
    while (true) {
      const size_t slash = name.rfind('/');
      if (slash == std::string::npos) break;
      const std::string last = name.substr(slash + 1);
      if (last.empty() || last.find_first_not_of("0123456789") != std::string::npos) break;
      name.resize(slash);
    }
    families.insert(name);
  }
  for (const auto& [name, count] : twins) {
    EXPECT_EQ(count, 1) << name;
    EXPECT_EQ(families.count(name), 1u)
        << "GB names its own registration " << name << ", which no gpubench form is named";
  }
  EXPECT_EQ(twins.size(), static_cast<size_t>(kTwins));
}

TEST_F(FormsTest, NvtxRangesCarryGbsNameAndEncloseEachIteration) {
  RunForms();
  for (const Form& form : kForms) {
    const std::string push = "push " + form.name;
    const int pushes = log_.Count(push);
    EXPECT_GE(pushes, 1) << form.name;
    // Every range of the form encloses one run of the form's body.
    int enclosed = 0;
    for (size_t i = 0; i + 2 < log_.events.size(); ++i) {
      if (log_.events[i] == push && log_.events[i + 1] == "timer_begin" &&
          log_.events[i + 2] == form.body) {
        ++enclosed;
      }
    }
    EXPECT_EQ(enclosed, pushes) << form.name;
  }
  // ncu reads '/' as nesting, so names with '<', ',' and ' ' stay single parts.
  EXPECT_EQ(detail::NvtxRangePath("FormsFixture2<float, int>/Pair"),
            (std::vector<std::string>{"FormsFixture2<float, int>", "Pair"}));
  EXPECT_EQ(detail::NvtxRangePath("FormsFn<int>/6/7"),
            (std::vector<std::string>{"FormsFn<int>", "6", "7"}));
}

TEST_F(FormsTest, FixtureSetUpRunsForTheTemplateInstance) {
  RunAll("^FormsFixture<double>/Double/");
  EXPECT_GE(log_.Count("setup 8"), 1);
  EXPECT_EQ(log_.Count("setup 4"), 0);
}

TEST_F(FormsTest, WithoutADeviceEveryFormIsSkippedWithGpubenchsNoDeviceMessage) {
  facts_.available = false;
  facts_.unavailable_reason = "cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device)";
  const std::map<std::string, GbRun> forms = RunForms();
  ASSERT_EQ(forms.size(), kForms.size());
  for (const auto& [name, run] : forms) {
    EXPECT_EQ(detail::RunErrorMessage(run),
              "gpubench: no usable CUDA device (cudaGetDeviceCount: cudaErrorNoDevice (no "
              "CUDA-capable device)): the benchmark's set-up and body were not run")
        << name;
  }
  for (const Form& form : kForms) EXPECT_EQ(log_.Count(form.body), 0) << form.name;
  // Nothing of a fixture ran either: its SetUp logs "setup <size>".
  for (const std::string& event : log_.events) {
    EXPECT_EQ(event.rfind("setup", 0), std::string::npos) << event;
  }
}

TEST_F(FormsTest, GbsOwnMacrosWorkWhereGbTellsTheName) {
  auto runs = RunAll("^GbMacroPlain/|^FormsFixture<float>/GbMacro/|^FormsPlainFixture/GbMacroF");
  ASSERT_EQ(runs.size(), 3u);
  std::map<std::string, std::string> message;
  for (const GbRun& run : runs) message[GbInstanceName(run)] = detail::RunErrorMessage(run);
  const std::string fixture = "FormsFixture<float>/GbMacro/22";
  const std::string fixture_f = "FormsPlainFixture/GbMacroF";
  const std::string plain = "GbMacroPlain/21";
  ASSERT_EQ(message.count(fixture) + message.count(fixture_f) + message.count(plain), 3u);
  if (!kGbHasStateName) {
    // GB 1.7: nothing tells gpubench the name; every one says what to use instead.
    for (const auto& [name, text] : message) {
      EXPECT_NE(text.find("this benchmark was not registered through gpubench"), std::string::npos)
          << name << ": " << text;
      EXPECT_NE(text.find("GPUBENCH_TEMPLATE_DEFINE_F"), std::string::npos) << text;
      EXPECT_NE(text.find("State::name() came with GB 1.8"), std::string::npos) << text;
    }
    EXPECT_EQ(log_.Count("body"), 0);
    return;
  }
  // GB >= 1.8: a gpubench::Fixture works with GB's fixture macros (name from State::name(),
  // arguments from the fixture, manual time set by gpubench::Fixture).
  EXPECT_EQ(message[fixture], "");
  EXPECT_EQ(message[fixture_f], "");
  EXPECT_GE(log_.Count("push " + fixture), 1);
  EXPECT_GE(log_.Count("push " + fixture_f), 1);
  if (kGbHasRangeSize) {
    EXPECT_EQ(message[plain], "");
    EXPECT_GE(log_.Count("push " + plain), 1);
  } else {
    EXPECT_NE(message[plain].find("State::range_size() came with GB 1.9.5"), std::string::npos)
        << message[plain];
    EXPECT_EQ(log_.Count("push " + plain), 0);
  }
}

TEST_F(FormsTest, ANameSetLaterIsSeenWhereGbTellsIt) {
  auto runs = RunAll("^RenamedLater/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].benchmark_name(), "RenamedLater/23/manual_time");
  // Before GB 1.8 the ranges keep the registered name.
  const std::string push = kGbHasStateName ? "push RenamedLater/23" : "push Renamed/23";
  EXPECT_GE(log_.Count(push), 1);
  EXPECT_EQ(log_.Count(push), log_.Count("timer_begin"));
}

// gpubench's detection of State::name() and State::range_size() (gb_internals.hpp), read inside a
// running benchmark and checked against the test's own detection.
std::optional<std::string> g_probed_name;
std::optional<int> g_probed_range_count;
void GbCompatProbe(benchmark::State& state) {
  g_probed_name = detail::StateName(state);
  g_probed_range_count = detail::StateRangeCount(state);
  for (auto _ : state) {
  }
}
BENCHMARK(GbCompatProbe)->Args({1, 2})->Iterations(1);

TEST(GbCompat, StateNameAndRangeCountWhereThisGbHasThem) {
  CaptureReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, "^GbCompatProbe/");
  ASSERT_EQ(reporter.runs.size(), 1u);
  EXPECT_EQ(g_probed_name.has_value(), kGbHasStateName);
  if (g_probed_name) EXPECT_EQ(*g_probed_name, "GbCompatProbe");
  EXPECT_EQ(g_probed_range_count.has_value(), kGbHasRangeSize);
  if (g_probed_range_count) EXPECT_EQ(*g_probed_range_count, 2);
}

// Every form calls the benchmark function on zeroed stack (ClearStackBelowCaller), so that bytes it
// never writes, such as the padding of a lambda passed to a kernel by value, are the same in every
// process and the work signature reads them alike.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((noinline)) void FillStackBelowCaller() {
  volatile unsigned char area[16 * 1024];
  for (size_t i = 0; i < sizeof(area); ++i) area[i] = 0xAB;
}

__attribute__((noinline)) size_t NonZeroBytesInAFreshFrame() {
  volatile unsigned char area[16 * 1024];  // never written: what the stack held before
  size_t nonzero = 0;
  for (size_t i = 0; i < sizeof(area); ++i) nonzero += area[i] != 0 ? 1 : 0;
  return nonzero;
}
#pragma GCC diagnostic pop

TEST(ClearStack, AFunctionsLocalsStartOnZeroedStack) {
  FillStackBelowCaller();
  const size_t left = NonZeroBytesInAFreshFrame();
  FillStackBelowCaller();
  detail::ClearStackBelowCaller();
  EXPECT_EQ(NonZeroBytesInAFreshFrame(), 0u);
  // Without the clear, the fresh frame sees the filler's bytes: the check above can fail.
  EXPECT_GT(left, 0u);
}

}  // namespace
}  // namespace gpubench::testing
