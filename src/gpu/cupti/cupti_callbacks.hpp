// CUPTI allows one callback subscriber per process. The profiler's replay check and the stream
// watch both need driver-API callbacks, so they share this one and each turns on only the
// callbacks it needs, when it needs them: the warm-up (stream watch) and profiling sessions
// (replay check). Outside those the process has no subscriber, so the timed iterations run
// without one.
#pragma once

#include <cupti.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gpubench::detail {

class DriverCallbacks {
 public:
  using Listener = void (*)(void* self, CUpti_CallbackId id, const CUpti_CallbackData* data);

  /// The process's subscriber, subscribed at first use; null when CUPTI refused (another tool
  /// such as Nsight Systems or Nsight Compute holds the subscription), with the reason in
  /// *why_not.
  static DriverCallbacks* Get(std::string* why_not);

  /// Every enabled callback of the driver API domain goes to every listener.
  void AddListener(void* self, Listener listener);
  void RemoveListener(void* self);
  /// Counted per id: a callback stays on while any user wants it. The subscription itself lasts
  /// only while some callback is on. False when CUPTI refused the subscription.
  bool Enable(const std::vector<CUpti_CallbackId>& ids, bool on);

  /// The resource domain (module loads, graph instantiations) goes to one listener, the work
  /// recorder; counted like Enable, and part of the same subscription.
  using ResourceListener = void (*)(void* self, CUpti_CallbackId id,
                                    const CUpti_ResourceData* data);
  void SetResourceListener(void* self, ResourceListener listener);
  bool EnableResources(bool on);

 private:
  DriverCallbacks() = default;
  bool Subscribe();            ///< under mutex_
  void UnsubscribeIfUnused();  ///< under mutex_
  static void CUPTIAPI Dispatch(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                const void* data);

  CUpti_SubscriberHandle subscriber_ = nullptr;
  CUptiResult subscribe_result_ = CUPTI_SUCCESS;
  std::mutex mutex_;
  std::vector<std::pair<void*, Listener>> listeners_;
  std::map<CUpti_CallbackId, int> enabled_;
  std::pair<void*, ResourceListener> resource_listener_{nullptr, nullptr};
  int resource_users_ = 0;
  int total_ = 0;  ///< callbacks on, over all ids and users
};

}  // namespace gpubench::detail
