// Hardware metrics taken in a process of their own. Once CUPTI's profiler has been set up in a
// process, held short kernels time 5-10% slower there, even after the profiler was torn down and
// CUPTI detached (docs/accuracy.md "Metrics on and off"). So with profile_process=child the
// benchmark binary first runs itself again as the profiling child: each benchmark instance runs
// a warm-up and one profiling session there and is skipped, and each session is written to a
// file as it ends. The parent never sets up the profiler; it reads the file and times the suite,
// and each timed call takes its instance's counters.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "common/file_calls.hpp"
#include "common/status.hpp"
#include "config/run_plan.hpp"
#include "measure/call/call_result.hpp"

namespace gpubench::detail {

/// How the profiling child ends each call (a SkipWithError that only its own output sees).
inline constexpr const char* kProfilingPassSkip =
    "profiling pass: profiled, timed in the parent process";

class ProfilingPass {
 public:
  /// What the profiling pass learnt about one instance.
  struct Entry {
    ProfileOutcome profile;   ///< kProfiled or kFailed (counters, passes, seconds, error)
    SharingVerdict sharing;   ///< other processes on the GPU around the session
    BusyMeasure busy;         ///< the busy measurement's iterations (busy_phase.hpp)
    std::string busy_error;   ///< why there is none, if there is none
    double wall_seconds = 0;  ///< the child's call of it, from its warm-up to its last body
    /// --gpubench_reuse: the child's work signature of the call, where it signed it whole.
    std::optional<uint64_t> signature;
  };

  /// What the child says about its profiler, before any session.
  struct Header {
    std::string profiler_status;  ///< the gpubench_profiler context value
    std::map<std::string, std::string> metric_units;
  };

  /// Which files the pass holds (the run plan's FinishProfilingRole reads them): none until
  /// BeginProfiling (the child's output) or a BeginTiming that found sessions.
  ProfilingPassFiles files() const { return files_; }

  /// The child: from now on calls profile and are skipped; the header and every stored entry
  /// go to `path` as JSON lines, written as they are known. The file is opened once, never
  /// through a link, and refused unless it is a regular file of this user's (file_calls.hpp).
  Status BeginProfiling(const std::string& path, const Header& header);
  /// The parent: the child's file (a child that died part way leaves the lines it finished),
  /// opened as BeginProfiling opens it.
  /// Without a header line the result says why and nothing is stored. A header whose profiler
  /// is not on reads no sessions: no call here has metrics.
  Status BeginTiming(const std::string& path, Header* header);

  /// The instance's entry, or null when the pass did not profile it.
  const Entry* Find(const std::string& instance) const;
  /// --gpubench_reuse, in the child: the instance's call reused its source row, so it is not
  /// profiled; its signature goes to the parent, which then runs neither its set-up nor its body.
  Status StoreReused(const std::string& instance, const ChildSignature& reused);
  /// The child's signature of an instance it reused, or null.
  const ChildSignature* ReusedInChild(const std::string& instance) const;
  /// Keeps the entry and, in the child, writes it out; an error says the line could not be
  /// written (the parent would then find no session for the instance).
  Status Store(const std::string& instance, Entry entry);
  size_t size() const { return entries_.size(); }

  /// Every entry, by instance.
  const std::map<std::string, Entry>& entries() const { return entries_; }

  /// The child's line saying that it aborted (SIGABRT) in `instance`'s function, written by the
  /// abort handler (measure/call/abort_note.hpp) to the file BeginProfiling opened.
  static std::string AbortedLine(const std::string& instance);
  /// The parent: the instances the child aborted in (the child then ended), from its file.
  const std::set<std::string>& aborted_in_child() const { return aborted_in_child_; }

  /// A timed call's counters and busy measurement: the instance's session (kind kFromPass),
  /// its failure (kFailed), or kFailed with the reason when the pass has nothing for it. Another
  /// process on the GPU around the session marks the call shared too, since its counters come from
  /// there. The child's wall time for the instance goes to its first timed call only
  /// (call->wall_profiling_seconds): the session serves all of them.
  void TakeCounters(const std::string& instance, CallResult* call);

 private:
  /// Reads one instance's line of the child's file into entries_.
  void ReadLine(const nlohmann::json& line);
  ProfilingPassFiles files_;
  std::string output_path_;  ///< the child's file
  UniqueFd output_;          ///< open on it from BeginProfiling on (no reopening by path)
  std::map<std::string, Entry> entries_;
  std::map<std::string, ChildSignature> reused_;
  std::set<std::string> charged_;  ///< instances whose profiling wall a row carries already
  std::set<std::string> aborted_in_child_;
};

}  // namespace gpubench::detail
