#include "measure/reuse/call_reuse.hpp"

#include <chrono>

#include "gpu/plan/work_signature.hpp"
#include "gpubench/counters.hpp"

namespace gpubench::detail {

double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool CallReuse::reused() const {
  return decision.has_value() && decision->status == kReuseStatusReused;
}

namespace {

int RepetitionOf(const ReuseState& reuse, const std::string& instance) {
  const auto published = reuse.rows_published.find(instance);
  return published == reuse.rows_published.end() ? 0 : published->second;
}

}  // namespace

CallReuse SignCall(const ReuseState& reuse, const WorkRecord& work, bool setup_watched,
                   const std::string& instance, double now_unix,
                   std::optional<uint64_t> child_signature) {
  CallReuse result;
  if (!work.watched) {
    result.unsigned_why = "the work was not recorded (no CUPTI callbacks)";
  } else if (!setup_watched) {
    result.unsigned_why =
        "the set-up ran before gpubench watched (a benchmark registered with GB's own macros)";
  } else if (!work.unsigned_why.empty()) {
    result.unsigned_why = work.unsigned_why;
  }
  if (work.watched) {
    std::vector<std::string> lines = reuse.run_lines;
    lines.insert(lines.end(), work.items.begin(), work.items.end());
    // A signature of work that could not be signed whole is still written (it tells two runs
    // apart), but it never makes a row reused.
    result.signature = SignatureOf(lines);
    if (result.unsigned_why.empty() && child_signature && *child_signature != *result.signature) {
      result.unsigned_why =
          "the profiling child signed other work for it (" + SignatureHex(*child_signature) +
          ", here " + SignatureHex(*result.signature) +
          "): its work differs from process to process, most often a kernel argument that holds "
          "a host address or padding bytes left as they were";
    }
  }
  if (!reuse.on) return result;
  const int repetition = RepetitionOf(reuse, instance);
  const std::optional<uint64_t> signed_value =
      result.unsigned_why.empty() ? result.signature : std::nullopt;
  result.decision =
      DecideReuse(reuse.source ? &*reuse.source : nullptr, reuse.run_difference, instance,
                  repetition, signed_value, result.unsigned_why, reuse.rules, now_unix);
  return result;
}

std::optional<CallReuse> ReuseFromChild(const ReuseState& reuse, const std::string& instance,
                                        const ChildSignature* child, double now_unix) {
  if (!reuse.on || child == nullptr || RepetitionOf(reuse, instance) != 0) return std::nullopt;
  CallReuse result;
  result.signature = child->signature;
  result.from_child = *child;
  result.decision = DecideReuse(reuse.source ? &*reuse.source : nullptr, reuse.run_difference,
                                instance, 0, child->signature, "", reuse.rules, now_unix);
  if (!result.reused()) return std::nullopt;
  return result;
}

}  // namespace gpubench::detail
