// Times the change-point engine (src/tools/changes/, issue #50) on a CI history of 1,000
// benchmarks x 200 runs x 4 metrics, the size issue #50 asks to analyse in well under 5 s on a
// 2-core CI machine. A benchmark of the tools, not a test: run it on the machine in question.
//
// usage: time_change_points [--benchmarks N] [--runs R] [--metrics M] [--repeat K]
//
// Series are synthetic and deterministic (fixed seed): each benchmark-metric has a between-run sd
// of 0.02% to 0.2% (the range of the H200 reruns), and every 10th series a 1% step at a run of its
// own, so the timing includes the recursion into both sides of a change. One thread, as the
// engine itself uses one; the result is the best of K repeats.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "tools/changes/change_points.hpp"

namespace {

struct Options {
  std::size_t benchmarks = 1000, runs = 200, metrics = 4;
  int repeat = 5;
};

bool ParseArgs(int argc, char** argv, Options& options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (value <= 0) return false;
    if (std::strcmp(argv[i], "--benchmarks") == 0) {
      options.benchmarks = static_cast<std::size_t>(value);
    } else if (std::strcmp(argv[i], "--runs") == 0) {
      options.runs = static_cast<std::size_t>(value);
    } else if (std::strcmp(argv[i], "--metrics") == 0) {
      options.metrics = static_cast<std::size_t>(value);
    } else if (std::strcmp(argv[i], "--repeat") == 0) {
      options.repeat = static_cast<int>(value);
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

std::vector<std::vector<double>> MakeSeries(const Options& options) {
  std::mt19937 random(50);
  std::uniform_real_distribution<double> spread(0.0002, 0.002);
  std::uniform_int_distribution<std::size_t> step_at(3, options.runs - 3);
  std::vector<std::vector<double>> all;
  for (std::size_t s = 0; s < options.benchmarks * options.metrics; ++s) {
    std::normal_distribution<double> noise(0, spread(random));
    const std::size_t at = s % 10 == 0 ? step_at(random) : options.runs;
    std::vector<double> series;
    for (std::size_t run = 0; run < options.runs; ++run) {
      series.push_back(1000 * (1 + noise(random)) * (run >= at ? 1.01 : 1.0));
    }
    all.push_back(std::move(series));
  }
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseArgs(argc, argv, options)) {
    std::fprintf(stderr,
                 "usage: time_change_points [--benchmarks N] [--runs R] [--metrics M] "
                 "[--repeat K]\n");
    return 2;
  }
  const std::vector<std::vector<double>> all = MakeSeries(options);
  gpubench::tools::ChangeOptions change_options;
  change_options.series_tested = all.size();
  double best_seconds = 1e300;
  std::size_t changes = 0, practical = 0;
  for (int k = 0; k < options.repeat; ++k) {
    changes = practical = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const std::vector<double>& series : all) {
      const gpubench::tools::ChangeAnalysis analysis =
          gpubench::tools::FindChangePoints(series, change_options);
      changes += analysis.changes.size();
      practical += analysis.PracticalChanges();
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best_seconds = std::min(best_seconds, took.count());
  }
  std::printf(
      "%zu benchmarks x %zu runs x %zu metrics (%zu series): %.3f s (best of %d, one thread); "
      "%zu changes found, %zu practical; %zu series had a 1%% step\n",
      options.benchmarks, options.runs, options.metrics, all.size(), best_seconds, options.repeat,
      changes, practical, (all.size() + 9) / 10);
  return 0;
}
