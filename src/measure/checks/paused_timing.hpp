// state.PauseTiming() inside gpubench::Loop, found after the fact. Under manual time GB's pause
// stops only its CPU timer, so the paused GPU work stays in the GPU time; gpubench cannot see
// the call (GB has no hook), but it can see its trace: GB's CPU time of the timed iterations
// differs from the thread CPU time gpubench reads over the same span. Each timed call records
// its own reading here; gpubench's reporters compare it with GB's row (frontend/paused_rows).
#pragma once

namespace gpubench::detail {

/// The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID, GB's own CPU clock).
double ThreadCpuSeconds();

/// How GB's CPU time of a row compares with gpubench's reading of the same span.
enum class PausedTiming {
  kUnknown,     ///< no reading for the row (not a gpubench::Loop call of this process)
  kConsistent,  ///< within the tolerance: no pause
  kLower,       ///< GB's is lower: the timed bodies paused GB's timer (PauseTiming)
  kHigher,      ///< GB's is higher: PauseTiming ran outside GB's iterations (GB built without
                ///< its checks adds the time since its timer last started)
};

/// Both readings compared. The two spans differ only by the few instructions between GB's
/// timer and gpubench's reads, but on a virtual machine the thread's CPU clock also counts time
/// the host took the vCPU away, and interrupts, in whichever span they land: a CI machine with 2
/// vCPUs put 51 us into GB's side of an unpaused 3 ms call. So the tolerance is 200 us plus 0.1%
/// of the reading (GB's default timed span of 0.1-0.5 s tolerates 0.3-0.7 ms).
/// `process_time`: GB measures the process's CPU time (->MeasureProcessCPUTime()), which may
/// exceed one thread's without a pause, so only kLower counts then.
PausedTiming ComparePausedTiming(double gpubench_cpu_seconds, double gb_cpu_seconds,
                                 bool process_time);

}  // namespace gpubench::detail
