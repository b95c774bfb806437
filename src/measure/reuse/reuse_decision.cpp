#include "measure/reuse/reuse_decision.hpp"

#include <cmath>
#include <cstdio>

#include "gpubench/counters.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::detail {
namespace {

// kReuseStatuses' codes, by name; the asserts keep them equal to the table's.
constexpr int kReused = 1, kNew = 2, kChanged = 3, kStreak = 4, kAged = 5, kHostBound = 6,
              kUnsigned = 7, kRunDiffers = 8, kNoSource = 9;
static_assert(kReused == kReuseStatusReused);
static_assert(ReuseStatusNameOf(kReused) == "reused" && ReuseStatusNameOf(kNew) == "new" &&
              ReuseStatusNameOf(kChanged) == "changed" && ReuseStatusNameOf(kStreak) == "streak" &&
              ReuseStatusNameOf(kAged) == "aged" && ReuseStatusNameOf(kHostBound) == "host_bound" &&
              ReuseStatusNameOf(kUnsigned) == "unsigned" &&
              ReuseStatusNameOf(kRunDiffers) == "run_differs" &&
              ReuseStatusNameOf(kNoSource) == "no_source");

std::string Number(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

// An age in the unit a reader takes in at once.
std::string Age(double seconds) {
  if (seconds >= 2 * 86400) return Number("%.1f days", seconds / 86400);
  if (seconds >= 2 * 3600) return Number("%.1f h", seconds / 3600);
  return Number("%.0f s", seconds);
}

const double* CounterOf(const SourceRow& row, const char* name) {
  const auto found = row.counters.find(name);
  return found == row.counters.end() ? nullptr : &found->second;
}

// The source's signature as the integer it was written as; false when it is none.
bool SignatureOf(double value, uint64_t* out) {
  if (!std::isfinite(value) || value < 0 || value >= 18446744073709551616.0 ||
      value != std::floor(value)) {
    return false;
  }
  *out = static_cast<uint64_t>(value);
  return true;
}

std::string Hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "%012llx", static_cast<unsigned long long>(value));
  return buffer;
}

ReuseDecision Measured(int status, std::string why) {
  ReuseDecision decision;
  decision.status = status;
  decision.why = std::move(why);
  return decision;
}

}  // namespace

std::string RunDifference(const RunIdentity& source, const RunIdentity& current) {
  const struct {
    const char* what;
    const std::string& was;
    const std::string& is;
  } parts[] = {
      {"GPU (gpu_uuid)", source.gpu_uuid, current.gpu_uuid},
      {"driver", source.driver_version, current.driver_version},
      {"settings fingerprint", source.settings_fingerprint, current.settings_fingerprint},
      {"method version", source.method_version, current.method_version},
  };
  for (const auto& part : parts) {
    if (part.was != part.is) {
      return std::string("the source run's ") + part.what + " is " +
             (part.was.empty() ? std::string("not recorded") : "'" + part.was + "'") +
             ", this run's " + (part.is.empty() ? std::string("not known") : "'" + part.is + "'");
    }
  }
  return "";
}

ReuseDecision DecideReuse(const ReuseSource* source, const std::string& run_difference,
                          const std::string& name, int repetition,
                          std::optional<uint64_t> signature, const std::string& unsigned_why,
                          const ReuseRules& rules, double now_unix) {
  // Unsigned first: the row then says so in every run, also in the first of a series (no source),
  // and the next run's source row tells that its signature matches nothing.
  if (!signature) {
    return Measured(kUnsigned, unsigned_why.empty() ? std::string("the work could not be signed")
                                                    : unsigned_why);
  }
  if (source == nullptr) return Measured(kNoSource, "no reuse source could be read");
  if (!run_difference.empty()) return Measured(kRunDiffers, run_difference);
  const SourceRow* row = source->Find(name, repetition);
  if (row == nullptr) {
    return Measured(kNew, "the source run has no row of repetition " + std::to_string(repetition));
  }
  if (row->error) return Measured(kNew, "the source row has no value (it was skipped or failed)");
  // A signature of work that was not signed whole matches by chance, never by the work.
  const double* source_status = CounterOf(*row, counter::kReuseStatus);
  if (source_status != nullptr && *source_status == kUnsigned) {
    return Measured(kUnsigned,
                    "the source row's work was not signed whole (reuse_status "
                    "unsigned), so no signature can match it");
  }

  const double* source_signature = CounterOf(*row, counter::kWorkSignature);
  uint64_t was = 0;
  if (source_signature == nullptr || !SignatureOf(*source_signature, &was)) {
    return Measured(kChanged, "the source row has no work_signature");
  }
  if (was != *signature) {
    return Measured(kChanged,
                    "the work signature is " + Hex(*signature) + ", the source row's " + Hex(was));
  }

  const double* reused_runs = CounterOf(*row, counter::kReusedRuns);
  const int runs = reused_runs != nullptr && std::isfinite(*reused_runs) && *reused_runs > 0
                       ? static_cast<int>(*reused_runs)
                       : 0;
  if (rules.max_runs <= 0) {
    return Measured(kStreak, "--gpubench_reuse_max_runs=0 measures every row");
  }
  if (runs >= rules.max_runs) {
    return Measured(kStreak, "the source row's value has been reused " + std::to_string(runs) +
                                 " runs in a row, the most --gpubench_reuse_max_runs=" +
                                 std::to_string(rules.max_runs) + " allows");
  }

  const double* row_measured_at = CounterOf(*row, counter::kMeasuredAt);
  const double measured_at =
      row_measured_at != nullptr && *row_measured_at > 0 ? *row_measured_at : source->date_unix;
  if (!(measured_at > 0)) {
    return Measured(kAged,
                    "the source row's age is not known (no measured_at, no readable run date)");
  }
  const double age = now_unix - measured_at;
  if (age > rules.max_age_seconds) {
    return Measured(kAged, "the source row's value was measured " + Age(age) +
                               " ago, more than --gpubench_reuse_max_age's " +
                               Age(rules.max_age_seconds));
  }

  const double* held = CounterOf(*row, counter::kLaunchHeld);
  if (held == nullptr || *held != 1) {
    const double* busy = CounterOf(*row, counter::kGpuBusyPct);
    if (busy == nullptr) {
      return Measured(kHostBound,
                      "the source row was timed without a launch hold and has no gpu_busy_pct "
                      "(metrics off?), so the GPU may have waited for the host");
    }
    if (!(*busy >= rules.busy_cutoff_pct)) {
      return Measured(kHostBound, "the source row's gpu_busy_pct is " + Number("%.1f%%", *busy) +
                                      ", below " + Number("%g%%", rules.busy_cutoff_pct) +
                                      " without a launch hold: the GPU waited for the host");
    }
  }

  ReuseDecision decision;
  decision.status = kReused;
  decision.row = row;
  decision.reused_runs = runs + 1;
  decision.measured_at = measured_at;
  decision.why = "the work signature " + Hex(*signature) + " equals the source row's";
  return decision;
}

}  // namespace gpubench::detail
