// A small owning device array for the examples: allocation failures become a benchmark error
// that names the CUDA error, instead of kernels running on null pointers.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

template <class T>
class DeviceArray {
 public:
  DeviceArray(benchmark::State& state, size_t count) : count_(count) {
    const cudaError_t error = cudaMalloc(&data_, count * sizeof(T));
    if (error != cudaSuccess) {
      data_ = nullptr;
      cudaGetLastError();  // allocation errors are not sticky; clear them for later benchmarks
      if (!state.error_occurred()) {
        const std::string message = "cudaMalloc of " + std::to_string(count * sizeof(T)) +
                                    " bytes: " + cudaGetErrorName(error) + " (" +
                                    cudaGetErrorString(error) + ")";
        state.SkipWithError(message.c_str());
      }
    }
  }
  ~DeviceArray() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  explicit operator bool() const { return data_ != nullptr; }

 private:
  T* data_ = nullptr;
  size_t count_;
};

// Fills with a value pattern that is not all zeros (zeros can hide indexing bugs).
template <class T>
__global__ void FillKernel(T* data, size_t count, float seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    data[i] = static_cast<T>(seed + static_cast<float>(i % 1024) * 0.001f);
  }
}

inline unsigned BlocksFor(size_t count, unsigned threads = 256) {
  const size_t blocks = (count + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65536 * 16 ? blocks : 65536 * 16);
}
