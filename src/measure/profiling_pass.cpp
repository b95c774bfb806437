#include "measure/profiling_pass.hpp"

namespace gpubench::detail {

const ProfilingPass::Entry* ProfilingPass::Find(const std::string& instance) const {
  const auto found = entries_.find(instance);
  return found == entries_.end() ? nullptr : &found->second;
}

void ProfilingPass::Store(const std::string& instance, Entry entry) {
  entries_[instance] = std::move(entry);
}

void ProfilingPass::TakeCounters(const std::string& instance, CallResult* call) const {
  ProfileOutcome& outcome = call->profile;
  const Entry* entry = Find(instance);
  if (entry == nullptr) {
    // The pass ended the call before its session (the timed call meets the same error), or the
    // instance did not exist then (registered while the benchmarks ran).
    outcome = ProfileOutcome();
    outcome.kind = ProfileOutcome::Kind::kFailed;
    outcome.error =
        "the profiling pass did not profile this instance (its call ended with an error there, "
        "or it was registered after the pass)";
    return;
  }
  outcome = entry->profile;
  if (outcome.kind == ProfileOutcome::Kind::kProfiled)
    outcome.kind = ProfileOutcome::Kind::kFromPass;
  if (entry->sharing.shared) {
    call->sharing.known = true;
    call->sharing.shared = true;
    call->sharing.Add(entry->sharing.who + " (while its metrics were profiled)");
  }
}

}  // namespace gpubench::detail
