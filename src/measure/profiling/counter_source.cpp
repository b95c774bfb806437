#include "measure/profiling/counter_source.hpp"

namespace gpubench::detail {

CounterSource CounterSource::Decide(const Settings& settings, bool has_profiler,
                                    ProfilingPass::Stage stage) {
  if (settings.profile_iterations <= 0) return CounterSource(Kind::kNone);
  switch (stage) {
    case ProfilingPass::Stage::kTiming:
      // The parent never sets up a profiler: the child's header said it had one.
      return CounterSource(Kind::kChildFile);
    case ProfilingPass::Stage::kProfiling:
      return CounterSource(has_profiler ? Kind::kProfilingChild : Kind::kNone);
    case ProfilingPass::Stage::kInline:
      break;
  }
  return CounterSource(has_profiler ? Kind::kHere : Kind::kNone);
}

const char* CounterSource::name() const {
  switch (kind_) {
    case Kind::kNone:
      return "none";
    case Kind::kHere:
      return "here";
    case Kind::kProfilingChild:
      return "profiling child";
    case Kind::kChildFile:
      return "child's file";
  }
  return "none";
}

}  // namespace gpubench::detail
