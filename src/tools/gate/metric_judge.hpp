// MetricJudge: the verdict of one metric of one benchmark, from its threshold (the vocabulary's
// rules, the noise, the floors, or a history's spread) and the Mann-Whitney test.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/metric_policy.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools::gate {

/// Judges the metrics of the benchmarks of one baseline and one contender. Not thread-safe (it
/// caches policies): one per thread.
class MetricJudge {
 public:
  /// `history_alpha`: the one-sided level of each history test (PerTestAlpha).
  MetricJudge(const BenchmarkFile& baseline, const BenchmarkFile& contender,
              const CompareOptions& options, double history_alpha);

  /// Compares one metric of one benchmark into `result`. Fails (invalid input) when a gated
  /// metric cannot be judged: a non-finite value, or a zero baseline time. `traffic`: the
  /// baseline's median bytes_moved for this benchmark, when it has one.
  /// `history`: the benchmark's baseline runs when there are several (base then pools them).
  detail::Status Judge(const std::string& benchmark, const MetricSeries& base,
                       const MetricSeries& cont, bool aggregates_only,
                       std::optional<double> traffic, const BenchmarkHistory* history,
                       MetricComparison& result) const;

  /// Whether `metric`'s values are codes (MetricPolicy::code).
  bool IsCode(const std::string& metric) const { return Policy(metric).code; }

  /// Whether `metric` of a benchmark with `history` would be judged by a history's bound.
  bool HistoryTest(const std::string& metric, const BenchmarkHistory* history) const;

 private:
  // The steps of Judge (metric_judge.cpp says what each does).
  detail::Status CheckValues(const std::string& benchmark, const MetricSeries& base,
                             const BenchmarkHistory* history, const MetricSeries& cont,
                             MetricComparison& result, bool& comparable) const;
  void Decide(MetricComparison& result, std::size_t n_base, std::size_t n_cont, bool can_test,
              bool aggregates_only) const;
  std::string UndecidedAdvice(const MetricComparison& result) const;
  void DecideByTest(MetricComparison& result, Verdict confirmed, std::size_t n_base,
                    std::size_t n_cont) const;
  static void ApplyThreshold(MetricComparison& result, std::optional<double> traffic);
  void ApplyHistoryThreshold(MetricComparison& result, const std::vector<double>& medians,
                             std::optional<double> traffic) const;
  static void ApplyFloor(MetricComparison& result, double floor, std::optional<double> traffic,
                         double& percent, std::string& source);
  static void SetNoise(MetricComparison& result);
  const MetricPolicy& Policy(const std::string& metric) const;

  mutable std::unordered_map<std::string, MetricPolicy> policy_cache_;
  DeclaredCounters declared_;
  const BenchmarkFile& baseline_;
  const BenchmarkFile& contender_;
  const CompareOptions& options_;
  double history_alpha_;
};

}  // namespace gpubench::tools::gate
