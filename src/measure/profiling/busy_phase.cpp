#include "measure/profiling/busy_phase.hpp"

#include <cstdio>

#include "common/busy_text.hpp"
#include "measure/stages/phases.hpp"

namespace gpubench::detail {
namespace {

constexpr size_t kCallsInMessage = 4;

std::string Milliseconds(double seconds) {
  char text[32];
  const double ms = seconds * 1e3;
  std::snprintf(text, sizeof(text),
                ms >= 10     ? "%.1f ms"
                : ms >= 0.01 ? "%.3g ms"
                             : "%.3g us",
                ms >= 0.01 ? ms : seconds * 1e6);
  return text;
}

}  // namespace

Status BusyPhase::Begin(const std::string& instance, int iterations, CallResult* call, bool* body) {
  instance_ = instance;
  remaining_ = iterations;
  *body = false;
  BusyTracer& tracer = harness_.busy();
  if (const std::string why = tracer.UnavailableReason(); !why.empty()) {
    call->busy_error = why;
    return Status::Ok();
  }
  started_ = std::chrono::steady_clock::now();
  // Work left from the profiled iterations must not run into the first traced one.
  if (Status status = harness_.ops().Synchronize(stream_); !status.ok()) {
    return BodyError(instance, status);
  }
  if (Status status = tracer.Start(); !status.ok()) return Failed(status, call, body);
  open_ = true;
  return BeforeBody(call, body);
}

Status BusyPhase::BeforeBody(CallResult* call, bool* body) {
  GPUBENCH_RETURN_IF_ERROR(harness_.cache().BeforeBusyBody(harness_.ops(), stream_, instance_));
  if (Status status = harness_.busy().BeginIteration(); !status.ok()) {
    return Failed(status, call, body);
  }
  in_body_ = true;
  *body = true;
  return Status::Ok();
}

Status BusyPhase::Resume() {
  // As in a timed body: cache=flush starts the rest from a flushed L2 (the flush belongs to no
  // iteration).
  GPUBENCH_RETURN_IF_ERROR(harness_.cache().BeforeBusyBody(harness_.ops(), stream_, instance_));
  return harness_.busy().Resume();
}

Status BusyPhase::AfterBody(CallResult* call, bool* body) {
  *body = false;
  BusyTracer& tracer = harness_.busy();
  in_body_ = false;
  const Status end = tracer.EndIteration();
  if (Status status = harness_.ops().CheckLaunch(); !status.ok()) {
    return BodyError(instance_, status);
  }
  if (!end.ok()) return Failed(end, call, body);
  // Each iteration ends before the next one's flush, as a timed one does.
  if (Status status = harness_.ops().Synchronize(stream_); !status.ok()) {
    return BodyError(instance_, status);
  }
  if (--remaining_ > 0) return BeforeBody(call, body);
  open_ = false;
  if (Status status = tracer.Finish(&call->busy); !status.ok()) {
    if (status.code() == Status::Code::kContextLost) return BodyError(instance_, status);
    return Failed(status, call, body);
  }
  call->busy.host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return Status::Ok();
}

Status BusyPhase::Failed(const Status& status, CallResult* call, bool* body) {
  *body = false;
  if (status.code() == Status::Code::kContextLost) return BodyError(instance_, status);
  Abort();
  call->busy = BusyMeasure();
  call->busy_error = status.message();
  return Status::Ok();
}

void BusyPhase::Abort() {
  if (!open_) return;
  BusyTracer& tracer = harness_.busy();
  // An abort follows the error that ended the call, which is the one reported: what stopping
  // the tracer says after it adds nothing.
  if (in_body_) (void)tracer.EndIteration();
  BusyMeasure discarded;
  (void)tracer.Finish(&discarded);
  open_ = false;
  in_body_ = false;
}

std::string BusyMessage(const std::string& instance, double gpu_seconds_per_iteration,
                        const BusyMeasure& busy, bool held) {
  if (busy.iterations == 0 || gpu_seconds_per_iteration <= 0) return "";
  const double percent = 100 * busy.busy_seconds / gpu_seconds_per_iteration;
  if (percent >= kBusyWarnBelowPercent) return "";
  const double idle = gpu_seconds_per_iteration - busy.busy_seconds;
  if (held && idle <= kBusyHeldIdleFloorSeconds) return "";  // the event pair's own floor
  char share[16];
  std::snprintf(share, sizeof(share), "%.0f%%", percent);
  std::string text = instance + ": GPU time " + Milliseconds(gpu_seconds_per_iteration) +
                     ", GPU busy " + Milliseconds(busy.busy_seconds) + " (" + share + ")";
  if (held && busy.work_items > 0 && busy.work_items <= kOneWorkItem) {
    // Nothing to wait between: the idle time is the event pair's own floor around the launch.
    return text + ": " + OneWorkItemIdleText(Milliseconds(idle));
  }
  if (held) {
    char items[320];
    std::snprintf(items, sizeof(items),
                  ": the launches were held (launch_held=1), so the host did not pace the GPU; "
                  "the idle time (%s per iteration, beyond the timer's floor of about 2 us "
                  "around a launch) lies between the body's %g GPU work items per iteration",
                  Milliseconds(idle).c_str(), busy.work_items);
    return text + items +
           " (launch latency and dependencies between short kernels; fusing them or a CUDA "
           "graph shortens it; gpu_busy_pct; docs/user_guide.md \"Benchmarks that "
           "synchronise\")";
  }
  if (busy.calls.empty()) {
    text += ": the loop body made no CUDA runtime call that would explain the idle time";
  } else {
    text += ": per iteration the loop calls ";
    for (size_t i = 0; i < busy.calls.size() && i < kCallsInMessage; ++i) {
      const HostCall& call = busy.calls[i];
      if (i > 0) text += ", ";
      text += call.name;
      if (call.count > 1.001 || call.count < 0.999) {
        char count[24];
        std::snprintf(count, sizeof(count), " %gx", call.count);
        text += count;
      }
      text += " (" + Milliseconds(call.seconds) + ")";
    }
    if (busy.calls.size() > kCallsInMessage) text += ", ...";
  }
  return text +
         "; the GPU waits for these host calls inside the timed span (gpu_busy_pct; "
         "docs/user_guide.md \"Benchmarks that synchronise\")";
}

std::string HostCallsText(const BusyMeasure& busy) {
  std::string text;
  for (const HostCall& call : busy.calls) {
    char numbers[64];
    std::snprintf(numbers, sizeof(numbers), ":%g:%.3g", call.count, call.seconds);
    text += (text.empty() ? "" : ",") + call.name + numbers;
  }
  return text;
}

}  // namespace gpubench::detail
