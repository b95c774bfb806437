#include "gpu/plan/range_names.hpp"

#include <algorithm>

namespace gpubench::detail {

std::vector<std::string> NvtxRangePath(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= name.size()) {
    const size_t slash = std::min(name.find('/', start), name.size());
    if (slash > start) parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string ProfiledRangeName(const std::string& instance, int index, int part) {
  const std::string name = instance + "/profiled:" + std::to_string(index);
  return part == 0 ? name : name + "." + std::to_string(part);
}

std::string DeviceTag(int device) { return "gpu:" + std::to_string(device); }

std::string TagInstanceName(const std::string& name, int device) {
  return name + "/" + DeviceTag(device);
}

}  // namespace gpubench::detail
