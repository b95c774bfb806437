// A suite's one source for a build with gpubench and a build without it (neither gpubench nor
// CUDA): <gpubench/portable.hpp> and gpubench's names only. check_portable.py builds it both ways
// and reads the rows. Every body counts the iterations it ran (body_iterations) and how often
// gpubench::Main's callback had run before it (before_benchmarks_calls).
#include <gpubench/portable.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

// Without gpubench the forms GB added later exist exactly where this GB has them.
#ifndef GPUBENCH_AVAILABLE
#if defined(BENCHMARK_TEMPLATE1_CAPTURE) != defined(GPUBENCH_TEMPLATE1_CAPTURE) || \
    defined(BENCHMARK_TEMPLATE2_CAPTURE) != defined(GPUBENCH_TEMPLATE2_CAPTURE) || \
    defined(BENCHMARK_TEMPLATE_METHOD_F) != defined(GPUBENCH_TEMPLATE_METHOD_F) || \
    defined(BENCHMARK_NAMED) != defined(GPUBENCH_NAMED)
#error "portable.hpp maps a GB form this GB lacks, or leaves out one it has"
#endif
#endif

namespace {

int before_benchmarks_calls = 0;

void BeforeBenchmarks() {
  ++before_benchmarks_calls;
  std::fprintf(stderr, "portable: before_benchmarks\n");
  benchmark::AddCustomContext("portable_before_benchmarks", "called");
}

void Record(benchmark::State& state, int64_t body_iterations) {
  state.counters["body_iterations"] = static_cast<double>(body_iterations);
  state.counters["before_benchmarks_calls"] = before_benchmarks_calls;
}

// Which of the later forms this build registers, for the check.
std::string OptionalForms() {
  std::string forms;
#ifdef GPUBENCH_TEMPLATE1_CAPTURE
  forms += "template_capture,";
#endif
#ifdef GPUBENCH_TEMPLATE_METHOD_F
  forms += "template_method,";
#endif
#ifdef GPUBENCH_NAMED
  forms += "named,";
#endif
  return forms;
}

}  // namespace

static void BM_Loop(benchmark::State& state) {
  int64_t n = 0;
  for (auto _ : gpubench::Loop(state)) ++n;
  Record(state, n);
  gpubench::SetFlopsProcessed(state, n * 1000);
}
GPUBENCH_BENCHMARK(BM_Loop)->Iterations(7);

static void BM_LoopOnStream(benchmark::State& state) {
  int64_t n = 0;
  for (auto _ : gpubench::Loop(state, nullptr)) ++n;
  Record(state, n);
}
GPUBENCH_BENCHMARK(BM_LoopOnStream)->Iterations(3);

// 2 ms per iteration inside UntimedScope, which keeps it out of the time.
static void BM_Untimed(benchmark::State& state) {
  int64_t n = 0;
  for (auto _ : gpubench::Loop(state)) {
    gpubench::UntimedScope untimed(state);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ++n;
  }
  Record(state, n);
}
GPUBENCH_BENCHMARK(BM_Untimed)->Iterations(5);

static void BM_Capture(benchmark::State& state, int64_t captured) {
  int64_t n = 0;
  for (auto _ : gpubench::Loop(state)) ++n;
  Record(state, n);
  state.counters["captured"] = static_cast<double>(captured);
}
GPUBENCH_CAPTURE(BM_Capture, three, 3)->Iterations(2);

template <class... T>
static void BM_Typed(benchmark::State& state) {
  int64_t n = 0;
  for (auto _ : gpubench::Loop(state)) ++n;
  Record(state, n);
  state.counters["type_size"] = static_cast<double>((sizeof(T) + ... + 0));
}
GPUBENCH_TEMPLATE(BM_Typed, double)->Iterations(2);
GPUBENCH_TEMPLATE2(BM_Typed, int, char)->Iterations(2);

[[maybe_unused]] static gpubench::BenchmarkHandle* const kLambda =
    gpubench::RegisterBenchmark("Registered/lambda", [](benchmark::State& state) {
      int64_t n = 0;
      for (auto _ : gpubench::Loop(state)) ++n;
      Record(state, n);
    })->Iterations(2);
[[maybe_unused]] static gpubench::BenchmarkHandle* const kArgs =
    gpubench::RegisterBenchmark("Registered/args", BM_Capture, int64_t{5})->Iterations(2);

class Counting : public gpubench::Fixture {
 protected:
  void Body(benchmark::State& state, std::chrono::microseconds per_iteration = {}) {
    int64_t n = 0;
    for (auto _ : Iterations(state)) {
      if (per_iteration.count() > 0) std::this_thread::sleep_for(per_iteration);
      ++n;
    }
    Record(state, n);
    const void* launched_on = stream();  // the default stream unless SetStream changed it
    state.counters["default_stream"] = launched_on == nullptr ? 1 : 0;
  }
};

GPUBENCH_DEFINE_F(Counting, Iterate)(benchmark::State& state) {
  Body(state);
#ifndef GPUBENCH_AVAILABLE
  // Without gpubench the fixture hands back the pointer it was given, of its own type.
  int marker = 0;
  SetStream(&marker);
  int* back = stream();
  state.counters["stream_round_trip"] = back == &marker ? 1 : 0;
  SetStream(nullptr);
#endif
}
GPUBENCH_REGISTER_F(Counting, Iterate)->Iterations(4);

// GB's own count: a few hundred iterations in --benchmark_min_time=0.01.
GPUBENCH_F(Counting, Whole)(benchmark::State& state) { Body(state, std::chrono::microseconds(20)); }

// The loop stays in Counting: clang's -Wunused-variable takes `_` of a loop whose range depends
// on a template parameter (this->Iterations) for a variable, whichever header defines it.
template <class T>
class Typed : public Counting {
 protected:
  void TypedBody(benchmark::State& state) {
    Body(state);
    state.counters["type_size"] = static_cast<double>(sizeof(T));
  }
};

GPUBENCH_TEMPLATE_DEFINE_F(Typed, Size, float)(benchmark::State& state) { TypedBody(state); }
GPUBENCH_REGISTER_F(Typed, Size)->Iterations(2);

#ifdef GPUBENCH_TEMPLATE1_CAPTURE
template <class T>
static void BM_TypedCapture(benchmark::State& state, int64_t captured) {
  BM_Capture(state, captured);
  state.counters["type_size"] = static_cast<double>(sizeof(T));
}
GPUBENCH_TEMPLATE1_CAPTURE(BM_TypedCapture, int16_t, seven, 7)->Iterations(2);
#endif

#ifdef GPUBENCH_TEMPLATE_METHOD_F
GPUBENCH_TEMPLATE_METHOD_F(Typed, Method)(benchmark::State& state) { this->TypedBody(state); }
GPUBENCH_TEMPLATE_INSTANTIATE_F(Typed, Method, double)->Iterations(2);
#endif

#ifdef GPUBENCH_NAMED
static void BM_Named(benchmark::State& state) { BM_Capture(state, 9); }
GPUBENCH_NAMED(BM_Named, nine)->Iterations(2);
#endif

// PORTABLE_OWN_MAIN=1: the recipe of a main of one's own instead of gpubench::Main.
int main(int argc, char** argv) {
  benchmark::AddCustomContext("portable_optional_forms", OptionalForms());
  if (std::getenv("PORTABLE_OWN_MAIN") == nullptr) {
    return gpubench::Main(argc, argv, BeforeBenchmarks);
  }
  const gpubench::InitResult init = gpubench::Initialize(&argc, argv);
  if (!init.run_benchmarks) return init.exit_code;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
