// The CUDA backend. Its error check prints to stdout and calls std::terminate(), as many suites'
// checks do; it links the static CUDA runtime (CMakeLists.txt), as this suite's library does.
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>

#include "structures.hpp"

#define STRUCTURES_CHECK(call)                                                       \
  do {                                                                               \
    const cudaError_t error_ = (call);                                               \
    if (error_ != cudaSuccess) {                                                     \
      std::printf("structures: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                  cudaGetErrorString(error_));                                       \
      std::terminate();                                                              \
    }                                                                                \
  } while (0)

namespace structures {
namespace {

using Index = unsigned long long;
// Indices start in the middle of their range, so that pushes at either end never wrap them.
constexpr Index kMiddle = Index{1} << 62;
constexpr int kBlock = 256;

unsigned Blocks(std::size_t count) { return static_cast<unsigned>((count + kBlock - 1) / kBlock); }

__global__ void SetIndicesKernel(Index* indices, Index begin, Index end) {
  indices[0] = begin;
  indices[1] = end;
}

__global__ void PushFrontKernel(int* slots, Index* begin, std::size_t count, std::size_t capacity) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) slots[(atomicAdd(begin, ~Index{0}) - 1) % capacity] = static_cast<int>(i);
}

__global__ void PushBackKernel(int* slots, Index* end, std::size_t count, std::size_t capacity) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) slots[atomicAdd(end, Index{1}) % capacity] = static_cast<int>(i);
}

// Each popped value is folded into a checksum, so that the reads are not optimised away.
__global__ void PopBackKernel(const int* slots, Index* end, std::size_t count, std::size_t capacity,
                              unsigned* checksum) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) {
    atomicXor(checksum, static_cast<unsigned>(slots[(atomicAdd(end, ~Index{0}) - 1) % capacity]));
  }
}

__global__ void FillKernel(int* slots, std::size_t count, std::size_t capacity) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) slots[(kMiddle + i) % capacity] = static_cast<int>(i);
}

__global__ void SetEveryKernel(unsigned* words, std::size_t bits, std::size_t stride) {
  const std::size_t bit =
      (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) * stride;
  if (bit < bits) atomicOr(&words[bit / 32], 1u << (bit % 32));
}

__global__ void CountKernel(const unsigned* words, std::size_t count, Index* total) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  unsigned set = i < count ? __popc(words[i]) : 0;
  for (int offset = 16; offset > 0; offset /= 2) set += __shfl_down_sync(~0u, set, offset);
  if (threadIdx.x % 32 == 0 && set > 0) atomicAdd(total, Index{set});
}

}  // namespace

struct Deque {
  Index* indices = nullptr;  // begin, end
  int* slots = nullptr;
  unsigned* checksum = nullptr;
  std::size_t capacity = 0;
};

struct Bitset {
  unsigned* words = nullptr;
  Index* total = nullptr;
  std::size_t bits = 0;
  std::size_t Words() const { return (bits + 31) / 32; }
};

void PrintBackend() {
  // A main that prints the device first makes the CUDA context here (cudaSetDevice does).
  cudaDeviceProp prop{};
  const cudaError_t error = cudaSetDevice(0);
  if (error != cudaSuccess || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::printf("structures: CUDA backend, no usable device (%s)\n", cudaGetErrorString(error));
    cudaGetLastError();
    return;
  }
  std::printf("structures: CUDA backend, %s, %d SMs, %.1f GiB, compute capability %d.%d\n",
              prop.name, prop.multiProcessorCount,
              static_cast<double>(prop.totalGlobalMem) / (1u << 30), prop.major, prop.minor);
}

Deque* NewDeque(std::size_t capacity) {
  auto* deque = new Deque;
  deque->capacity = capacity;
  STRUCTURES_CHECK(cudaMalloc(&deque->indices, 2 * sizeof(Index)));
  STRUCTURES_CHECK(cudaMalloc(&deque->slots, capacity * sizeof(int)));
  STRUCTURES_CHECK(cudaMalloc(&deque->checksum, sizeof(unsigned)));
  Clear(deque);
  return deque;
}

void DeleteDeque(Deque* deque) {
  STRUCTURES_CHECK(cudaFree(deque->indices));
  STRUCTURES_CHECK(cudaFree(deque->slots));
  STRUCTURES_CHECK(cudaFree(deque->checksum));
  delete deque;
}

void PushFront(Deque* deque, std::size_t count) {
  PushFrontKernel<<<Blocks(count), kBlock>>>(deque->slots, &deque->indices[0], count,
                                             deque->capacity);
  STRUCTURES_CHECK(cudaGetLastError());
  Synchronize();
}

void PushBack(Deque* deque, std::size_t count) {
  PushBackKernel<<<Blocks(count), kBlock>>>(deque->slots, &deque->indices[1], count,
                                            deque->capacity);
  STRUCTURES_CHECK(cudaGetLastError());
  Synchronize();
}

void PopBack(Deque* deque, std::size_t count) {
  PopBackKernel<<<Blocks(count), kBlock>>>(deque->slots, &deque->indices[1], count, deque->capacity,
                                           deque->checksum);
  STRUCTURES_CHECK(cudaGetLastError());
  Synchronize();
}

void Clear(Deque* deque) {
  SetIndicesKernel<<<1, 1>>>(deque->indices, kMiddle, kMiddle);
  STRUCTURES_CHECK(cudaGetLastError());
}

void Fill(Deque* deque, std::size_t count) {
  FillKernel<<<Blocks(count), kBlock>>>(deque->slots, count, deque->capacity);
  STRUCTURES_CHECK(cudaGetLastError());
  SetIndicesKernel<<<1, 1>>>(deque->indices, kMiddle, kMiddle + count);
  STRUCTURES_CHECK(cudaGetLastError());
}

std::size_t Size(Deque* deque) {
  Index indices[2] = {};
  STRUCTURES_CHECK(cudaMemcpy(indices, deque->indices, sizeof(indices), cudaMemcpyDeviceToHost));
  return static_cast<std::size_t>(indices[1] - indices[0]);
}

Bitset* NewBitset(std::size_t bits) {
  auto* bitset = new Bitset;
  bitset->bits = bits;
  STRUCTURES_CHECK(cudaMalloc(&bitset->words, bitset->Words() * sizeof(unsigned)));
  STRUCTURES_CHECK(cudaMalloc(&bitset->total, sizeof(Index)));
  Reset(bitset);
  return bitset;
}

void DeleteBitset(Bitset* bitset) {
  STRUCTURES_CHECK(cudaFree(bitset->words));
  STRUCTURES_CHECK(cudaFree(bitset->total));
  delete bitset;
}

void SetEvery(Bitset* bitset, std::size_t stride) {
  const std::size_t count = (bitset->bits + stride - 1) / stride;
  SetEveryKernel<<<Blocks(count), kBlock>>>(bitset->words, bitset->bits, stride);
  STRUCTURES_CHECK(cudaGetLastError());
}

void Reset(Bitset* bitset) {
  STRUCTURES_CHECK(cudaMemsetAsync(bitset->words, 0, bitset->Words() * sizeof(unsigned)));
}

std::size_t Count(Bitset* bitset) {
  STRUCTURES_CHECK(cudaMemsetAsync(bitset->total, 0, sizeof(Index)));
  CountKernel<<<Blocks(bitset->Words()), kBlock>>>(bitset->words, bitset->Words(), bitset->total);
  STRUCTURES_CHECK(cudaGetLastError());
  Index total = 0;
  STRUCTURES_CHECK(cudaMemcpy(&total, bitset->total, sizeof(total), cudaMemcpyDeviceToHost));
  return static_cast<std::size_t>(total);
}

std::size_t CountThenClearAbove(Bitset* bitset, std::size_t limit) {
  const std::size_t count = Count(bitset);
  if (count > limit) Reset(bitset);
  return count;
}

void Synchronize() { STRUCTURES_CHECK(cudaStreamSynchronize(nullptr)); }

}  // namespace structures
