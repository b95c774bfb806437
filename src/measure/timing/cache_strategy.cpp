#include "measure/timing/cache_strategy.hpp"

#include "gpu/plan/flush.hpp"
#include "gpu/plan/launch_hold.hpp"
#include "measure/stages/phases.hpp"
#include "measure/timing/timed_phase.hpp"
#include "schema/context_keys.hpp"

namespace gpubench::detail {
namespace {

class CacheFlush final : public CacheStrategy {
 public:
  Status Prepare(GpuOps& ops, cudaStream_t stream) const override {
    GPUBENCH_RETURN_IF_ERROR(ops.Prepare(stream));
    return ops.PrepareFlush(stream);
  }
  Status BeforeWarmupBody(GpuOps& ops, cudaStream_t stream) const override {
    return ops.FlushCache(stream);
  }
  bool HoldCheck() const override { return true; }
  Status BeforeProfiledRange(GpuOps& ops, cudaStream_t stream) const override {
    return ops.FlushCache(stream);
  }
  Status BeforeBusyBody(GpuOps& ops, cudaStream_t stream,
                        const std::string& instance) const override {
    GPUBENCH_RETURN_IF_ERROR(ops.FlushCache(stream));
    // The body's host calls must not wait for the flush: it is not theirs.
    if (Status status = ops.Synchronize(stream); !status.ok()) return BodyError(instance, status);
    return Status::Ok();
  }
  std::unique_ptr<TimedPhase> MakeTimedPhase(Harness& harness, benchmark::State& state,
                                             cudaStream_t stream) const override {
    return std::make_unique<FlushTimedPhase>(harness, state, stream);
  }
  KeyValues Describe(const DeviceFacts& facts) const override {
    return {{context_key::kFlushDescription,
             FlushDescription(facts.available ? FlushBytes(facts.l2_bytes) : 0)},
            {context_key::kLaunchHoldDescription, LaunchHoldDescription()}};
  }

 private:
  static std::string FlushDescription(int64_t flush_bytes) {
    return "l2_read_evict: a read-only kernel streams " +
           (flush_bytes > 0 ? std::to_string(flush_bytes) + " bytes" : std::string("a buffer")) +
           " (2x L2) before each iteration, outside the timed region; it writes nothing, so no "
           "dirty lines are left to be written back inside the next iteration";
  }
  static std::string LaunchHoldDescription() {
    return "hold_kernel: after the flush has finished, a one-thread kernel holds the stream until "
           "the host has enqueued the start event, the body and the stop event, so the timed "
           "work starts back to back whatever the host's launch pace; a second untimed iteration "
           "after the warm-up checks that the body can be held: one that waits for the GPU "
           "inside the loop cannot (its hold times out after " +
           std::to_string(kHoldTimeoutMs) +
           " ms; a body whose warm-up waited for the held work, with cudaDeviceSynchronize, a "
           "synchronize of the timed or a joined stream or of an event recorded there, or a "
           "copy to the host on the timed stream, is known to wait and has no check) "
           "and is timed without holds: counter launch_held=0; so is every iteration while "
           "another process uses the GPU (NVML before the iterations and every 0.1 s during "
           "them, or flushes far slower than the flush needs): gpu_shared=1 and launch_held=0; a "
           "gpubench::UntimedScope in a held body releases the hold, waits for its work and "
           "holds again, and the GPU time of its own pair of events (an empty held region, the "
           "median of 7 measured before the call's timed iterations, timer=events) is taken out "
           "once per scope";
  }
};

class CacheKeep final : public CacheStrategy {
 public:
  Status Prepare(GpuOps& ops, cudaStream_t stream) const override { return ops.Prepare(stream); }
  Status BeforeWarmupBody(GpuOps&, cudaStream_t) const override { return Status::Ok(); }
  bool HoldCheck() const override { return false; }
  Status BeforeProfiledRange(GpuOps&, cudaStream_t) const override { return Status::Ok(); }
  Status BeforeBusyBody(GpuOps&, cudaStream_t, const std::string&) const override {
    return Status::Ok();
  }
  std::unique_ptr<TimedPhase> MakeTimedPhase(Harness& harness, benchmark::State& state,
                                             cudaStream_t stream) const override {
    return std::make_unique<KeepTimedPhase>(harness, state, stream);
  }
  KeyValues Describe(const DeviceFacts&) const override {
    return {{context_key::kFlushDescription, "none (cache=keep)"},
            {context_key::kLaunchHoldDescription,
             "none (cache=keep: the iterations run back to back in one timed region)"}};
  }
};

}  // namespace

std::unique_ptr<CacheStrategy> MakeCacheStrategy(const Settings& settings) {
  if (settings.cache == CachePolicy::kKeep) return std::make_unique<CacheKeep>();
  return std::make_unique<CacheFlush>();
}

}  // namespace gpubench::detail
