#include "gpu/nvml/gpu_identity.hpp"

#include <vector>

namespace gpubench::detail {
namespace {

// NVML's buffer sizes (nvml.h): NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_SERIAL_BUFFER_SIZE,
// NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE.
constexpr unsigned kUuidBufferSize = 96;
constexpr unsigned kSerialBufferSize = 30;
constexpr unsigned kVbiosBufferSize = 32;
constexpr unsigned kDriverVersionBufferSize = 80;

std::string Trimmed(const char* text) {
  std::string value(text);
  const auto first = value.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return value.substr(first, value.find_last_not_of(" \t\r\n") - first + 1);
}

IdentityValue Unknown(std::string reason) { return {"", std::move(reason)}; }

// One text query's answer: the text, or why there is none. `call` fills the buffer it is given.
template <class Call>
IdentityValue ReadText(const char* function, unsigned buffer_size, bool present, Call call) {
  if (!present) return Unknown(std::string("libnvidia-ml.so.1 lacks ") + function);
  std::vector<char> buffer(buffer_size + 1, '\0');  // one more: the text ends even if NVML's not
  const NvmlReturn result = call(buffer.data(), buffer_size);
  if (result == kNvmlNotSupported) return Unknown(std::string(function) + ": not supported");
  if (result != kNvmlSuccess) {
    return Unknown(std::string(function) + " failed (NVML error " + std::to_string(result) + ")");
  }
  std::string text = Trimmed(buffer.data());
  if (text.empty()) return Unknown(std::string(function) + " gave an empty value");
  return {text, ""};
}

}  // namespace

GpuIdentity IdentityFromQueries(const NvmlIdentityQueries& nvml, const std::string& cuda_uuid) {
  GpuIdentity identity;
  if (!nvml.unavailable_reason.empty()) {
    identity.uuid = identity.serial = identity.vbios_version = identity.driver_version =
        Unknown(nvml.unavailable_reason);
  } else {
    const NvmlDevice device = nvml.device;
    identity.uuid =
        ReadText("nvmlDeviceGetUUID", kUuidBufferSize, nvml.uuid != nullptr,
                 [&](char* text, unsigned size) { return nvml.uuid(device, text, size); });
    identity.serial =
        ReadText("nvmlDeviceGetSerial", kSerialBufferSize, nvml.serial != nullptr,
                 [&](char* text, unsigned size) { return nvml.serial(device, text, size); });
    identity.vbios_version =
        ReadText("nvmlDeviceGetVbiosVersion", kVbiosBufferSize, nvml.vbios_version != nullptr,
                 [&](char* text, unsigned size) { return nvml.vbios_version(device, text, size); });
    identity.driver_version = ReadText(
        "nvmlSystemGetDriverVersion", kDriverVersionBufferSize, nvml.driver_version != nullptr,
        [&](char* text, unsigned size) { return nvml.driver_version(text, size); });
  }
  // The CUDA runtime knows the UUID without NVML: the same 16 bytes NVML formats.
  if (identity.uuid.value.empty()) {
    if (!cuda_uuid.empty()) {
      identity.uuid = {cuda_uuid, ""};
    } else {
      identity.uuid.unknown_reason += "; the CUDA runtime's UUID is all zero";
    }
  }
  return identity;
}

GpuIdentity ReadGpuIdentity(const std::string& pci_bus_id, const std::string& cuda_uuid) {
  NvmlLibrary nvml(pci_bus_id);
  NvmlIdentityQueries queries;
  queries.device = nvml.device();
  if (queries.device == nullptr) queries.unavailable_reason = nvml.reason();
  using DeviceText = NvmlReturn (*)(NvmlDevice, char*, unsigned);
  queries.uuid = nvml.Symbol<DeviceText>("nvmlDeviceGetUUID");
  queries.serial = nvml.Symbol<DeviceText>("nvmlDeviceGetSerial");
  queries.vbios_version = nvml.Symbol<DeviceText>("nvmlDeviceGetVbiosVersion");
  queries.driver_version =
      nvml.Symbol<NvmlReturn (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
  return IdentityFromQueries(queries, cuda_uuid);
}

}  // namespace gpubench::detail
