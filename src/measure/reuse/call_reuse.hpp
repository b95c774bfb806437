// Each call's work signature and, with --gpubench_reuse, whether it reuses its source row: the
// process-wide part (the source, the run's own lines) and the step the warm-up takes after its
// body (docs/user_guide.md "Reusing unchanged work").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpu/backend.hpp"
#include "measure/reuse/reuse_decision.hpp"

namespace gpubench::detail {

/// What the whole process signs and reuses with; set by Initialize.
struct ReuseState {
  /// The signature's run-level lines: settings fingerprint, GPU, driver, method version.
  std::vector<std::string> run_lines;
  /// Each call's work is recorded and signed (--gpubench_signature=on, the default, on a usable
  /// device): every measured row carries work_signature (with --gpubench_reuse also
  /// reuse_status, reused_runs and measured_at).
  bool signing = false;
  bool on = false;                    ///< --gpubench_reuse was given (signing with it)
  std::optional<ReuseSource> source;  ///< the source run, when it could be read
  std::string source_error;           ///< why it could not
  std::string run_difference;         ///< RunDifference's line ("" when the runs agree)
  ReuseRules rules;
  RunIdentity identity;  ///< this run's
  /// Rows published so far per instance (trials left out): the next call's repetition index.
  std::map<std::string, int> rows_published;
};

/// What the profiling child signed of an instance it reused: the parent reuses the instance
/// without running its set-up or body again (ReuseFromChild).
struct ChildSignature {
  uint64_t signature = 0;
  double wall_seconds = 0;  ///< the child's call of it: its set-up and the signature's body
};

/// What one call's signature and decision came to.
struct CallReuse {
  std::optional<uint64_t> signature;  ///< absent: the work could not be signed
  std::string unsigned_why;
  std::optional<ReuseDecision> decision;  ///< with --gpubench_reuse only
  /// Decided from the profiling child's signature: the benchmark's function (a gpubench form)
  /// or body (GB's own macros) did not run in this process.
  std::optional<ChildSignature> from_child;
  bool reused() const;
};

/// Now, in seconds since 1970 (UTC): a row's measured_at.
double UnixSeconds();

/// Signs `work` (what the recorder saw of the call's set-up and first body) with the run's
/// lines; `setup_watched` false: the call's set-up ran before the recorder began (a benchmark
/// registered with GB's own macros). With --gpubench_reuse, decides against the source.
/// `child_signature`: the profiling child's signature of the same instance, where it signed it
/// whole; one that differs leaves the call unsigned, since work that differs between two
/// processes of one run would read as changed in every later run.
CallReuse SignCall(const ReuseState& reuse, const WorkRecord& work, bool setup_watched,
                   const std::string& instance, double now_unix,
                   std::optional<uint64_t> child_signature = std::nullopt);

/// The parent of the profiling child: a call reused on the child's signature of its instance
/// (`child`; null where the child reused nothing of it), so that neither its set-up nor its body
/// runs again here. nullopt unless the decision is reused, and for every repetition but the
/// instance's first: the child signs one call per instance, and a later repetition's set-up may
/// do other work (that call runs and signs its own work).
std::optional<CallReuse> ReuseFromChild(const ReuseState& reuse, const std::string& instance,
                                        const ChildSignature* child, double now_unix);

}  // namespace gpubench::detail
