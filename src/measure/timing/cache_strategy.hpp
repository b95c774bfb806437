// The cache policy (--gpubench_cache), decided once into a strategy: what a call does to the L2
// around its bodies. The phases ask the strategy instead of the setting, so no step of the loop
// branches on the policy (NVBench dispatches the same way, to measure_cold or measure_hot).
//
//   flush  an L2 flush before every body that is timed, profiled or traced; the timed bodies run
//          behind a stream hold where they can (a hold-check body after the warm-up tells)
//   keep   nothing before the bodies; the timed bodies run back to back in one region
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "common/status.hpp"
#include "config/settings_table.hpp"
#include "gpu/backend.hpp"
#include "gpu/cuda/device_info.hpp"
#include "gpubench/settings.hpp"

namespace gpubench::detail {

class Harness;
class TimedPhase;

class CacheStrategy {
 public:
  virtual ~CacheStrategy() = default;
  /// Before a call's first body: what the backend needs (flush: the hold and the flush buffer).
  virtual Status Prepare(GpuOps& ops, cudaStream_t stream) const = 0;
  /// Before the warm-up body.
  virtual Status BeforeWarmupBody(GpuOps& ops, cudaStream_t stream) const = 0;
  /// Whether the hold-check body follows the warm-up: a second untimed body, behind a hold.
  virtual bool HoldCheck() const = 0;
  /// Before each profiled range.
  virtual Status BeforeProfiledRange(GpuOps& ops, cudaStream_t stream) const = 0;
  /// Before each busy-traced body, and as a gpubench::UntimedScope in one ends. A failed wait
  /// is an error of `instance`'s body.
  virtual Status BeforeBusyBody(GpuOps& ops, cudaStream_t stream,
                                const std::string& instance) const = 0;
  /// The timed phase of one call (timed_phase.hpp).
  virtual std::unique_ptr<TimedPhase> MakeTimedPhase(Harness& harness, benchmark::State& state,
                                                     cudaStream_t stream) const = 0;
  /// gpubench_flush_description and gpubench_launch_hold_description, for the context block.
  virtual KeyValues Describe(const DeviceFacts& facts) const = 0;
};

/// The strategy of settings.cache: the one place that reads the cache policy.
std::unique_ptr<CacheStrategy> MakeCacheStrategy(const Settings& settings);

}  // namespace gpubench::detail
