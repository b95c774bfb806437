#include "gpu/plan/stream_plan.hpp"

#include <algorithm>

#include <cstdio>

#include "common/format.hpp"

namespace gpubench::detail {
namespace {

// "75%" for 0.75.
std::string WholePercent(double share) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", 100 * share);
  return text;
}

}  // namespace

StreamHandle NormalizeStream(StreamHandle stream, bool per_thread_call) {
  if (stream != 0) return stream;
  return per_thread_call ? kPerThreadStream : kLegacyStream;
}

std::string DescribeStream(StreamHandle stream) {
  if (stream == 0 || stream == kLegacyStream) return "the legacy default stream";
  if (stream == kPerThreadStream) return "the per-thread default stream";
  char text[32];
  std::snprintf(text, sizeof text, "stream 0x%llx", static_cast<unsigned long long>(stream));
  return text;
}

namespace {

std::string Work(const StreamUse& use) {
  return std::to_string(use.calls) + " call(s), first " + use.first_call;
}

}  // namespace

std::string HeldWait(StreamHandle timed, const std::vector<StreamHandle>& joined,
                     const std::vector<StreamWait>& waits) {
  timed = NormalizeStream(timed, false);
  for (const StreamWait& wait : waits) {
    const StreamHandle stream = NormalizeStream(wait.stream, false);
    const bool held = wait.device_wide || stream == timed ||
                      std::find(joined.begin(), joined.end(), stream) != joined.end();
    if (held) return wait.call;
  }
  return "";
}

StreamPlan PlanStreams(StreamHandle timed, const std::vector<StreamUse>& uses) {
  StreamPlan plan;
  plan.known = true;
  timed = NormalizeStream(timed, false);
  for (const StreamUse& use : uses) {
    const StreamHandle stream = NormalizeStream(use.stream, false);
    if (stream == timed) continue;
    if (use.destroyed_in_body) {
      const bool ordered_by_legacy =
          timed == kLegacyStream && use.created_in_body && !use.non_blocking;
      if (ordered_by_legacy) continue;
      plan.error = "the body puts GPU work (" + Work(use) + ") on " + DescribeStream(stream) +
                   ", a stream it " + (use.created_in_body ? "creates and " : "") +
                   "destroys in every iteration, so the timed span cannot wait for it and the "
                   "GPU time would miss that work. Create the stream once, outside the loop "
                   "(gpubench then waits for it), or launch on the stream given to "
                   "gpubench::Loop(state, stream)";
      return plan;
    }
    if (stream == kPerThreadStream && use.other_thread) {
      plan.error = "the body's work (" + Work(use) +
                   ") goes to another host thread's per-thread default stream, which this "
                   "thread cannot name, so the timed span cannot wait for it. Launch on an "
                   "explicit stream (gpubench then waits for it) or on the loop's thread";
      return plan;
    }
    plan.joined.push_back(stream);
    if (!plan.note.empty()) plan.note += "; ";
    plan.note += DescribeStream(stream) + " (" + Work(use) +
                 (use.other_thread ? ", from another host thread: timed if the body waits for "
                                     "that thread before it returns"
                                   : "") +
                 ")";
  }
  return plan;
}

UndercountReference ChooseUndercountReference(double busy_seconds, double profiled_seconds,
                                              bool untimed_scopes,
                                              const std::string& busy_missing) {
  UndercountReference reference;
  if (busy_seconds > 0) {
    reference.seconds = busy_seconds;
    reference.ratio = kUndercountBusyRatio;
    reference.margin_seconds = kUndercountBusyMarginSeconds;
    reference.what = "the GPU's busy time in the same body (gpu_busy_time " +
                     FormatSeconds(busy_seconds) +
                     ": the union of its kernels, copies and memsets in untimed iterations, "
                     "from CUPTI activity records, whatever stream or host thread enqueued them)";
  } else if (profiled_seconds > 0 && !untimed_scopes) {
    reference.seconds = profiled_seconds;
    reference.ratio = kUndercountDurationRatio;
    reference.margin_seconds = kUndercountDurationMarginSeconds;
    reference.what = "the same body's profiled duration (gpu_duration " +
                     FormatSeconds(profiled_seconds) + "; there was no busy time to compare with" +
                     (busy_missing.empty() ? std::string() : ": " + busy_missing) + ")";
    reference.blind_spot =
        "the missed-work check held the GPU time against the profiled duration (gpu_duration), "
        "since there was no busy time" +
        (busy_missing.empty() ? std::string() : " (" + busy_missing + ")") +
        "; that range also holds host time, so the check refuses only a row that missed more "
        "than " +
        WholePercent(1 - kUndercountDurationRatio) + " of its work and more than " +
        FormatSeconds(kUndercountDurationMarginSeconds) +
        " per iteration: a smaller undercount is not seen (against a busy time, gpu_busy_time, "
        "it refuses any row that misses more than " +
        WholePercent(1 - kUndercountBusyRatio) + ")";
  }
  return reference;
}

std::string CheckUndercount(const std::string& instance, double gpu_seconds_per_iteration,
                            const UndercountReference& reference) {
  const double against = reference.seconds;
  if (!(against > 0) || !(gpu_seconds_per_iteration >= 0)) return "";
  if (gpu_seconds_per_iteration >= reference.ratio * against) return "";
  if (against - gpu_seconds_per_iteration <= reference.margin_seconds) return "";
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%", 100.0 * gpu_seconds_per_iteration / against);
  return instance + ": the GPU time per iteration (" + FormatSeconds(gpu_seconds_per_iteration) +
         ") is " + share + " of " + reference.what +
         ": the timed span missed GPU work, for example work on a stream that the warm-up did "
         "not see or that another host thread enqueued after the body returned, so the time is "
         "not published. Launch the work on the stream given to gpubench::Loop(state, stream), "
         "or on streams that exist before the loop, and wait for other threads' work before the "
         "body returns";
}

}  // namespace gpubench::detail
