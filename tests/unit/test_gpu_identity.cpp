// The physical GPU's identity (gpu/nvml/gpu_identity.hpp): NVML's answers, faked here, turned
// into values or reasons, and the CUDA runtime's UUID where NVML gives none.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "gpu/cuda/device_info.hpp"
#include "gpu/nvml/gpu_identity.hpp"

namespace gpubench::detail {
namespace {

constexpr char kNvmlUuid[] = "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
constexpr char kCudaUuid[] = "GPU-00000000-1111-2222-3333-444444444444";

// Writes `text` as NVML does: refuses a buffer smaller than NVML's documented size for the query.
NvmlReturn Answer(const char* text, unsigned documented_size, char* buffer, unsigned size) {
  if (size < documented_size) return kNvmlInsufficientSize;
  std::strncpy(buffer, text, size);
  return kNvmlSuccess;
}

NvmlIdentityQueries WorkingNvml() {
  NvmlIdentityQueries nvml;
  nvml.uuid = [](NvmlDevice, char* buffer, unsigned size) {
    return Answer(kNvmlUuid, 96, buffer, size);
  };
  nvml.serial = [](NvmlDevice, char* buffer, unsigned size) {
    return Answer("1654123456789 ", 30, buffer, size);  // NVML may pad; the value is trimmed
  };
  nvml.vbios_version = [](NvmlDevice, char* buffer, unsigned size) {
    return Answer("96.00.AF.00.01", 32, buffer, size);
  };
  nvml.driver_version = [](char* buffer, unsigned size) {
    return Answer("580.95.05", 80, buffer, size);
  };
  return nvml;
}

TEST(GpuIdentity, CudaUuidIsFormattedAsNvmlWritesIt) {
  const unsigned char bytes[16] = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
                                   0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9};
  EXPECT_EQ(FormatGpuUuid(bytes), kNvmlUuid);
  const unsigned char zero[16] = {};
  EXPECT_EQ(FormatGpuUuid(zero), "");  // no UUID, not a UUID of zeros
}

TEST(GpuIdentity, NvmlGivesEveryValueInBuffersOfItsDocumentedSizes) {
  const GpuIdentity identity = IdentityFromQueries(WorkingNvml(), kCudaUuid);
  EXPECT_EQ(identity.uuid.value, kNvmlUuid);  // NVML's, not the CUDA runtime's
  EXPECT_EQ(identity.serial.value, "1654123456789");
  EXPECT_EQ(identity.vbios_version.value, "96.00.AF.00.01");
  EXPECT_EQ(identity.driver_version.value, "580.95.05");
  for (const IdentityValue* value :
       {&identity.uuid, &identity.serial, &identity.vbios_version, &identity.driver_version}) {
    EXPECT_EQ(value->unknown_reason, "") << value->value;
  }
}

TEST(GpuIdentity, WithoutNvmlTheUuidIsTheCudaRuntimesAndTheRestSaysWhy) {
  NvmlIdentityQueries nvml;
  nvml.unavailable_reason = "libnvidia-ml.so.1 (the driver's NVML) not found";
  const GpuIdentity identity = IdentityFromQueries(nvml, kCudaUuid);
  EXPECT_EQ(identity.uuid.value, kCudaUuid);
  for (const IdentityValue* value :
       {&identity.serial, &identity.vbios_version, &identity.driver_version}) {
    EXPECT_EQ(value->value, "");
    EXPECT_EQ(value->unknown_reason, nvml.unavailable_reason);
  }
}

TEST(GpuIdentity, EachValueNvmlDoesNotGiveSaysWhy) {
  NvmlIdentityQueries nvml = WorkingNvml();
  nvml.uuid = [](NvmlDevice, char*, unsigned) { return NvmlReturn{999}; };  // NVML_ERROR_UNKNOWN
  nvml.serial = [](NvmlDevice, char*, unsigned) { return kNvmlNotSupported; };
  nvml.vbios_version = nullptr;  // an NVML without the function
  nvml.driver_version = [](char* buffer, unsigned) {
    buffer[0] = '\0';
    return kNvmlSuccess;
  };
  const GpuIdentity identity = IdentityFromQueries(nvml, kCudaUuid);
  EXPECT_EQ(identity.uuid.value, kCudaUuid);
  EXPECT_EQ(identity.serial.unknown_reason, "nvmlDeviceGetSerial: not supported");
  EXPECT_EQ(identity.vbios_version.unknown_reason,
            "libnvidia-ml.so.1 lacks nvmlDeviceGetVbiosVersion");
  EXPECT_EQ(identity.driver_version.unknown_reason,
            "nvmlSystemGetDriverVersion gave an empty value");
  // Without the CUDA runtime's UUID as well, the UUID is unknown, with both reasons.
  const GpuIdentity neither = IdentityFromQueries(nvml, "");
  EXPECT_EQ(neither.uuid.value, "");
  EXPECT_EQ(neither.uuid.unknown_reason,
            "nvmlDeviceGetUUID failed (NVML error 999); the CUDA runtime's UUID is all zero");
}

// NVML may fill the whole buffer without a terminating zero: the value ends at the buffer.
TEST(GpuIdentity, AnUnterminatedAnswerEndsAtItsBuffer) {
  NvmlIdentityQueries nvml = WorkingNvml();
  nvml.serial = [](NvmlDevice, char* buffer, unsigned size) {
    std::memset(buffer, '7', size);
    return kNvmlSuccess;
  };
  EXPECT_EQ(IdentityFromQueries(nvml, kCudaUuid).serial.value, std::string(30, '7'));
}

// The real reader on a device NVML cannot know (or on a machine without NVML): never a failure,
// the CUDA runtime's UUID, and a reason for everything else.
TEST(GpuIdentity, ReadingAnUnknownDeviceGivesTheCudaUuidAndReasons) {
  const GpuIdentity identity = ReadGpuIdentity("ffff:ff:1f.7", kCudaUuid);
  EXPECT_EQ(identity.uuid.value, kCudaUuid);
  EXPECT_EQ(identity.serial.value, "");
  EXPECT_NE(identity.serial.unknown_reason, "");
  EXPECT_NE(identity.driver_version.unknown_reason, "");
}

}  // namespace
}  // namespace gpubench::detail
