#include "gpu/cupti/replay_check.hpp"

#include <cupti.h>

#include <algorithm>

#include "gpu/cupti/cupti_callbacks.hpp"

namespace gpubench::detail {
namespace {

const std::vector<CUpti_CallbackId>& LaunchCalls() {
  static const std::vector<CUpti_CallbackId> ids = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunch,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
  };
  return ids;
}

void OnDriverCall(void* self, CUpti_CallbackId id, const CUpti_CallbackData* data) {
  const auto& launches = LaunchCalls();
  if (data->callbackSite != CUPTI_API_ENTER ||
      std::find(launches.begin(), launches.end(), id) == launches.end()) {
    return;
  }
  static_cast<ReplayLaunchCheck*>(self)->RecordLaunch(
      data->symbolName != nullptr ? data->symbolName : data->functionName);
}

std::string Describe(const std::vector<std::string>* launches) {
  if (launches == nullptr) return "no range";
  std::string text = std::to_string(launches->size()) + " launch(es)";
  for (size_t i = 0; i < launches->size() && i < 4; ++i) text += " " + (*launches)[i];
  return text;
}

}  // namespace

void LaunchRecord::BeginSession() {
  launches_.assign(1, {});
  pass_ = 0;
  in_range_ = false;
}

void LaunchRecord::BeginPass(int pass) {
  pass_ = pass;
  if (launches_.size() <= static_cast<size_t>(pass_)) launches_.resize(pass_ + 1);
}

void LaunchRecord::BeginRange() {
  if (launches_.size() <= static_cast<size_t>(pass_)) launches_.resize(pass_ + 1);
  launches_[pass_].emplace_back();
  in_range_ = true;
}

void LaunchRecord::Add(std::string kernel) {
  if (in_range_) launches_[pass_].back().push_back(std::move(kernel));
}

void LaunchRecord::EndRange() { in_range_ = false; }

Status LaunchRecord::CheckPass(int pass) const {
  if (pass <= 0 || static_cast<size_t>(pass) >= launches_.size()) return Status::Ok();
  const auto& first = launches_[0];
  const auto& now = launches_[pass];
  for (size_t range = 0; range < std::max(first.size(), now.size()); ++range) {
    const auto* a = range < first.size() ? &first[range] : nullptr;
    const auto* b = range < now.size() ? &now[range] : nullptr;
    if (a != nullptr && b != nullptr && *a == *b) continue;
    return Status::Error("replay pass " + std::to_string(pass + 1) +
                         " launched different kernels than pass 1 in profiled iteration " +
                         std::to_string(range) + " (" + Describe(b) + " vs " + Describe(a) +
                         "): the body's work depends on data or state, so CUPTI's passes would "
                         "measure different work; hardware metrics of this run are not reported");
  }
  return Status::Ok();
}

ReplayLaunchCheck::ReplayLaunchCheck() {
  callbacks_ = DriverCallbacks::Get(nullptr);
  if (callbacks_ != nullptr) callbacks_->AddListener(this, &OnDriverCall);
}

ReplayLaunchCheck::~ReplayLaunchCheck() {
  EndSession();
  if (callbacks_ != nullptr) callbacks_->RemoveListener(this);
}

void ReplayLaunchCheck::BeginSession() {
  record_.BeginSession();
  if (callbacks_ == nullptr || on_) return;
  // Refused (another CUPTI client arrived): the session runs without the check.
  on_ = callbacks_->Enable(LaunchCalls(), true);
}

void ReplayLaunchCheck::EndSession() {
  if (callbacks_ == nullptr || !on_) return;
  callbacks_->Enable(LaunchCalls(), false);
  on_ = false;
}

}  // namespace gpubench::detail
