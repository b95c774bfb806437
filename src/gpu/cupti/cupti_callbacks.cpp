#include "gpu/cupti/cupti_callbacks.hpp"

#include <algorithm>

#include "gpu/cupti/cupti_attach.hpp"
#include "gpu/cupti/cupti_status.hpp"

namespace gpubench::detail {

DriverCallbacks* DriverCallbacks::Get(std::string* why_not) {
  // Never destroyed: CUPTI may still call back while static destructors run at exit. Whether
  // CUPTI accepts a subscriber is learnt once, by subscribing and leaving again at once.
  static DriverCallbacks* const instance = [] {
    auto* callbacks = new DriverCallbacks();
    CUpti_SubscriberHandle probe = nullptr;
    callbacks->subscribe_result_ = cuptiSubscribe(
        &probe, reinterpret_cast<CUpti_CallbackFunc>(&DriverCallbacks::Dispatch), callbacks);
    if (callbacks->subscribe_result_ == CUPTI_SUCCESS) {
      cuptiUnsubscribe(probe);
      CuptiAttachment::DetachIfUnused();  // nothing of the probe's is on the GPU
    } else {
      CuptiAttachment::KeepAttached();
    }
    return callbacks;
  }();
  if (instance->subscribe_result_ == CUPTI_SUCCESS) return instance;
  if (why_not != nullptr) {
    *why_not = CuptiStatus(instance->subscribe_result_, "cuptiSubscribe").message() +
               " (a process has one CUPTI subscription; a tool such as Nsight Systems or Nsight "
               "Compute may hold it)";
  }
  return nullptr;
}

void DriverCallbacks::AddListener(void* self, Listener listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  listeners_.emplace_back(self, listener);
}

void DriverCallbacks::RemoveListener(void* self) {
  std::lock_guard<std::mutex> lock(mutex_);
  listeners_.erase(std::remove_if(listeners_.begin(), listeners_.end(),
                                  [self](const auto& entry) { return entry.first == self; }),
                   listeners_.end());
}

void DriverCallbacks::SetResourceListener(void* self, ResourceListener listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  resource_listener_ = {self, listener};
}

bool DriverCallbacks::Subscribe() {
  if (subscriber_ != nullptr) return true;
  // Subscribed only while some callback is wanted: the timed iterations run with no CUPTI
  // subscriber at all.
  CuptiAttachment::Acquire();
  if (cuptiSubscribe(&subscriber_, reinterpret_cast<CUpti_CallbackFunc>(&Dispatch), this) !=
      CUPTI_SUCCESS) {
    subscriber_ = nullptr;
    CuptiAttachment::Release();
    return false;
  }
  return true;
}

void DriverCallbacks::UnsubscribeIfUnused() {
  if (total_ != 0 || resource_users_ != 0 || subscriber_ == nullptr) return;
  cuptiUnsubscribe(subscriber_);
  subscriber_ = nullptr;
  enabled_.clear();
  CuptiAttachment::Release();
}

bool DriverCallbacks::EnableResources(bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (on && !Subscribe()) return false;
  if (subscriber_ == nullptr) return false;
  const int before = resource_users_;
  resource_users_ = std::max(0, resource_users_ + (on ? 1 : -1));
  if ((before == 0) != (resource_users_ == 0)) {
    cuptiEnableDomain(resource_users_ > 0 ? 1 : 0, subscriber_, CUPTI_CB_DOMAIN_RESOURCE);
  }
  UnsubscribeIfUnused();
  return true;
}

bool DriverCallbacks::Enable(const std::vector<CUpti_CallbackId>& ids, bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (on && !Subscribe()) return false;
  if (subscriber_ == nullptr) return false;
  for (CUpti_CallbackId id : ids) {
    int& users = enabled_[id];
    const int before = users;
    users = std::max(0, users + (on ? 1 : -1));
    total_ += users - before;
    if ((before == 0) != (users == 0)) {
      cuptiEnableCallback(users > 0 ? 1 : 0, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id);
    }
  }
  UnsubscribeIfUnused();
  return true;
}

void CUPTIAPI DriverCallbacks::Dispatch(void* self, CUpti_CallbackDomain domain,
                                        CUpti_CallbackId id, const void* data) {
  auto* callbacks = static_cast<DriverCallbacks*>(self);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    std::pair<void*, ResourceListener> listener;
    {
      std::lock_guard<std::mutex> lock(callbacks->mutex_);
      listener = callbacks->resource_listener_;
    }
    if (listener.second != nullptr) {
      listener.second(listener.first, id, static_cast<const CUpti_ResourceData*>(data));
    }
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  // Listeners run outside the lock, so that Enable never waits for a callback in flight.
  std::vector<std::pair<void*, Listener>> listeners;
  {
    std::lock_guard<std::mutex> lock(callbacks->mutex_);
    listeners = callbacks->listeners_;
  }
  for (const auto& [listener_self, listener] : listeners) {
    listener(listener_self, id, static_cast<const CUpti_CallbackData*>(data));
  }
}

}  // namespace gpubench::detail
