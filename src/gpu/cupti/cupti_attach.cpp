#include "gpu/cupti/cupti_attach.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>

namespace gpubench::detail {
namespace {

std::mutex& Mutex() {
  static std::mutex mutex;
  return mutex;
}
int users = 0;
bool attached = true;  // any CUPTI call may have attached it; the first detach tells
bool keep_attached = false;

}  // namespace

void CuptiAttachment::Acquire() {
  std::lock_guard<std::mutex> lock(Mutex());
  ++users;
  attached = true;
}

void CuptiAttachment::Release() {
  std::lock_guard<std::mutex> lock(Mutex());
  if (users > 0) --users;
}

void CuptiAttachment::DetachIfUnused() {
  std::lock_guard<std::mutex> lock(Mutex());
  if (users > 0 || !attached || keep_attached) return;
  cuptiFinalize();
  attached = false;
}

void CuptiAttachment::KeepAttached() {
  std::lock_guard<std::mutex> lock(Mutex());
  keep_attached = true;
}

}  // namespace gpubench::detail
