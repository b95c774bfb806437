// Which streams a loop body puts GPU work on, and what the timed span must do about them
// (issue #24). The stream watch (backend.hpp) reports the body's streams from its warm-up; the
// plan says which of them the span forks to and joins from, or why the body cannot be timed.
// CPU logic only: tested with made-up uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::detail {

/// A stream as the driver's calls name it. 0x1 and 0x2 are the legacy default stream and the
/// calling thread's per-thread default stream (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD).
using StreamHandle = uintptr_t;
inline constexpr StreamHandle kLegacyStream = 0x1;
inline constexpr StreamHandle kPerThreadStream = 0x2;

/// The stream a call's handle means: 0 is the legacy default stream, except in the per-thread
/// variants of the driver's calls (_ptsz, _ptds: code built with --default-stream per-thread),
/// where it is the calling thread's default stream.
StreamHandle NormalizeStream(StreamHandle stream, bool per_thread_call);

/// "stream 0x5581..." / "the legacy default stream" / "the per-thread default stream".
std::string DescribeStream(StreamHandle stream);

/// GPU work the body enqueued on one stream during a watched body.
struct StreamUse {
  StreamHandle stream = 0;
  std::string first_call;        ///< the driver call of its first work ("cuLaunchKernel")
  int calls = 0;                 ///< calls that enqueued work on it
  bool other_thread = false;     ///< some of it came from another host thread
  bool created_in_body = false;  ///< the body created the stream (cuStreamCreate*)
  bool non_blocking = false;     ///< created with CU_STREAM_NON_BLOCKING (known if created_in_body)
  bool destroyed_in_body = false;  ///< the body destroyed the stream after using it
};

/// A driver call of the body that waits for GPU work (the stream watch's, on the body's thread).
struct StreamWait {
  std::string call;          ///< "cuCtxSynchronize", "cuStreamSynchronize", ...
  StreamHandle stream = 0;   ///< the stream waited for (normalized); 0 with device_wide
  bool device_wide = false;  ///< waits for every stream of the context
};

/// What the timed span does with the body's streams.
struct StreamPlan {
  bool known = false;                ///< a stream watch saw the warm-up
  std::vector<StreamHandle> joined;  ///< streams besides the timed one: forked and joined
  std::string error;                 ///< not empty: the body cannot be timed, and why
  std::string note;                  ///< what was joined, for the row's message
  /// The body's call that waits for a held stream (a stream hold would only time out), e.g.
  /// "cuCtxSynchronize"; "" when none was seen.
  std::string waits_for_gpu;
};

/// The plan for a body timed on `timed` that used `uses` in its warm-up.
/// - Work on the timed stream needs nothing.
/// - Work on any other stream that outlives the body is forked to at the span's start (it
///   waits for the start event) and joined at its end (the stop event waits for it).
/// - A stream the body creates and destroys again cannot be joined (it does not exist when the
///   next span starts): an error, unless the timed stream is the legacy default stream and the
///   created stream is a blocking one, which the legacy stream orders by itself.
/// - Another thread's per-thread default stream cannot be named from this thread: an error.
StreamPlan PlanStreams(StreamHandle timed, const std::vector<StreamUse>& uses);

/// The first of `waits` that waits for a stream a hold holds: the timed one, one the span joins,
/// or every stream. A hold then only times out (kHoldTimeoutMs), which the call can be spared.
/// "" when none does (a wait for a stream of its own, or none at all).
std::string HeldWait(StreamHandle timed, const std::vector<StreamHandle>& joined,
                     const std::vector<StreamWait>& waits);

/// The missed-work check: a row whose GPU time per iteration is below a share of the same body's
/// GPU work, and by more than a margin, missed GPU work and is refused. Against the busy time
/// (the union of the body's kernels, copies and memsets from activity records, whatever stream
/// or thread enqueued them): the timed span holds at least that work, so a correct row reads 1
/// or more, less only where tracing slowed the traced iterations. All 1705 measured rows with a
/// busy time in the committed H200 runs (72 files under tests/data/h200) read 0.8575 at
/// the lowest (kokkos/mdspan's synchronising Sum_3D, 21.9 ms against 25.6 ms: tracing made the
/// busy time 17% longer), then 0.87-0.89 (the same suite) and 0.9165 (a traced 268 MB copy);
/// the median is 1.02. The same suite's runs of issue #49 (mdspan_cost_49) read 0.8567 at the
/// lowest (23.1 ms against 27.0 ms). 0.7 refuses an undercount of more than 30%: twice the largest
/// shortfall seen (14%), where the old 0.25 let 15-75% through. What it cannot see: a row missing
/// less than 30% of its work.
inline constexpr double kUndercountBusyRatio = 0.7;
/// GPU time and busy time both come from the GPU's clock, so the gap is proportional (tracing);
/// this absorbs the event timer's resolution (0.5 us) on tiny bodies: rows under 100 us of busy
/// time read 1.02 at the lowest (741 rows), rows under 300 us fall 9.1 us short at most (at 0.95).
/// With the ratio, the check covers bodies of more than about 17 us.
inline constexpr double kUndercountBusyMarginSeconds = 5e-6;
/// Without a busy measurement the reference is the profiled duration (gpu_duration), which also
/// holds host time: real H200 rows go down to 0.37 there (a 7 us copy against its 19 us range),
/// and a body that synchronises makes it unstable (133-815 us ranges for 259-614 us of GPU time
/// in a public reduction suite). So the old share stays there, and the row says what it cannot
/// see (UndercountReference::blind_spot). Work on an unjoined stream gave 0.006 (1.3 us against
/// 201 us).
inline constexpr double kUndercountDurationRatio = 0.25;
/// A profiled range also holds host time (its push, the launch): a 5.6 us kernel's range
/// measured 7.5, 24.7 and 55.9 us on one H200. Only a gap wider than this is taken as missed
/// work there, so that check covers work of more than about 130 us per iteration.
inline constexpr double kUndercountDurationMarginSeconds = 100e-6;

/// What the GPU time is held against, for the check and its message.
struct UndercountReference {
  double seconds = 0;  ///< per iteration; <= 0: nothing to check
  double ratio = 0;    ///< kUndercountBusyRatio or kUndercountDurationRatio
  double margin_seconds = 0;
  /// What it is, for the message: "the GPU's busy time in the same body (gpu_busy_time ...)".
  std::string what;
  /// With the profiled duration: what the check cannot see, for a message on the row that
  /// passed it ("" with the busy time).
  std::string blind_spot;
};

/// The reference of a call: the busy time per iteration when it was measured (`busy_seconds`
/// > 0), else the profiled duration `profiled_seconds` unless it counts work the GPU time leaves
/// out (`untimed_scopes`: the timed bodies entered a gpubench::UntimedScope where the profiled
/// ranges did not pause), with `busy_missing` saying why there was no busy time.
UndercountReference ChooseUndercountReference(double busy_seconds, double profiled_seconds,
                                              bool untimed_scopes, const std::string& busy_missing);

/// The last line of defence, whatever the cause: an error message when the GPU time per
/// iteration is below the reference's ratio x the reference and more than its margin below it,
/// else "".
std::string CheckUndercount(const std::string& instance, double gpu_seconds_per_iteration,
                            const UndercountReference& reference);

}  // namespace gpubench::detail
