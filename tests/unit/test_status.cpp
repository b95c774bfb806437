#include <gtest/gtest.h>

#include <cupti.h>

#include <string>

#include "common/status.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpu/cupti/cupti_status.hpp"

namespace gpubench::detail {
namespace {

Status FailSecond(int* steps) {
  GPUBENCH_RETURN_IF_ERROR(Status::Ok());
  ++*steps;
  GPUBENCH_RETURN_IF_ERROR(Status::InvalidInput("second"));
  ++*steps;
  return Status::Ok();
}

TEST(Status, ReturnIfErrorStopsAtTheFirstFailure) {
  int steps = 0;
  Status status = FailSecond(&steps);
  EXPECT_EQ(steps, 1);
  EXPECT_EQ(status.code(), Status::Code::kInvalidInput);
  EXPECT_EQ(status.message(), "second");
}

Result<std::string> Named(bool ok) {
  if (!ok) return Status::SettingsMismatch("cache differs");
  return std::string("value");
}

TEST(Result, HoldsAValueOrTheFailure) {
  Result<std::string> good = Named(true);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good.value(), "value");
  EXPECT_TRUE(good.status().ok());
  Result<std::string> bad = Named(false);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kSettingsMismatch);
  EXPECT_EQ(bad.status().message(), "cache differs");
}

TEST(CudaStatus, SuccessIsOk) { EXPECT_TRUE(CudaStatus(cudaSuccess, "x").ok()); }

TEST(CudaStatus, MessageNamesTheCallAndTheError) {
  Status status = CudaStatus(cudaErrorInvalidConfiguration, "kernel launch");
  EXPECT_EQ(status.code(), Status::Code::kError);
  EXPECT_EQ(status.message().rfind("kernel launch: cudaErrorInvalidConfiguration (", 0), 0u)
      << status.message();
}

TEST(CudaStatus, StickyErrorsLoseTheContext) {
  for (cudaError_t error : {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorAssert,
                            cudaErrorIllegalInstruction, cudaErrorMisalignedAddress}) {
    EXPECT_TRUE(IsStickyCudaError(error)) << cudaGetErrorName(error);
    EXPECT_EQ(CudaStatus(error, "x").code(), Status::Code::kContextLost);
  }
  for (cudaError_t error : {cudaErrorInvalidConfiguration, cudaErrorMemoryAllocation,
                            cudaErrorNoDevice, cudaErrorInvalidValue}) {
    EXPECT_FALSE(IsStickyCudaError(error)) << cudaGetErrorName(error);
  }
}

TEST(CuptiStatus, HardwareBusySaysAnotherProcessProfilesTheGpu) {
  const std::string message = CuptiStatus(CUPTI_ERROR_HARDWARE_BUSY, "x").message();
  EXPECT_NE(message.find("CUPTI_ERROR_HARDWARE_BUSY"), std::string::npos) << message;
  EXPECT_NE(message.find("another process is profiling this GPU"), std::string::npos) << message;
  EXPECT_NE(message.find("gpu_shared=1"), std::string::npos) << message;
}

TEST(CuptiStatus, PrivilegesGetTheFix) {
  EXPECT_EQ(ClassifyCuptiResult(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), CuptiFailure::kPrivileges);
  Status status = CuptiStatus(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerEnable");
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos);
  EXPECT_NE(status.message().find("ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_NE(status.message().find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
}

TEST(CuptiStatus, UnsupportedDevicesAndOtherProfilersAreNamed) {
  for (CUptiResult result :
       {CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
        CUPTI_ERROR_NOT_COMPATIBLE}) {
    EXPECT_EQ(ClassifyCuptiResult(result), CuptiFailure::kUnsupportedDevice);
    EXPECT_NE(CuptiStatus(result, "x").message().find("does not support"), std::string::npos);
  }
  EXPECT_EQ(ClassifyCuptiResult(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
            CuptiFailure::kOtherProfiler);
  EXPECT_NE(CuptiStatus(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "x")
                .message()
                .find("another profiler"),
            std::string::npos);
  EXPECT_EQ(ClassifyCuptiResult(CUPTI_ERROR_INVALID_PARAMETER), CuptiFailure::kOther);
}

}  // namespace
}  // namespace gpubench::detail
