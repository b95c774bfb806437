// The suite the reuse check (check_reuse.py) builds once as it is and once per edit: each
// EDIT_<CASE> changes one thing of one benchmark, and a run of the edited build that reuses the
// plain build's results must measure exactly that benchmark again.
#include <cublas_v2.h>
#include <unistd.h>

#include <gpubench/gpubench.hpp>
#include <vector>

namespace {

constexpr int kN = 1 << 22;

#define CHECK_CUDA(call) \
  if ((call) != cudaSuccess) state.SkipWithError(#call)

struct Buffers {
  float* in = nullptr;
  float* out = nullptr;
  Buffers() {
    cudaMalloc(&in, kN * sizeof(float));
    cudaMalloc(&out, kN * sizeof(float));
    cudaMemset(in, 0, kN * sizeof(float));
  }
  ~Buffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

__global__ void Scale(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef EDIT_CODE
  if (i < n) out[i] = in[i] * 3.0f;
#else
  if (i < n) out[i] = in[i] * 2.0f;
#endif
}

__global__ void Copy(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void Axpy(float* out, const float* in, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + out[i];
}

__global__ void Fill(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef EDIT_SETUP
  if (i < n) data[i] = 2.0f;
#else
  if (i < n) data[i] = 1.0f;
#endif
}

__global__ void Sum(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}

// Unchanged by every edit: always reused.
void BM_Unchanged(benchmark::State& state) {
  Buffers buffers;
  for (auto _ : gpubench::Loop(state)) Copy<<<kN / 256, 256>>>(buffers.out, buffers.in, kN);
}

// EDIT_CODE: one instruction of its kernel (the other kernels of this file are unchanged).
void BM_Code(benchmark::State& state) {
  Buffers buffers;
  for (auto _ : gpubench::Loop(state)) Scale<<<kN / 256, 256>>>(buffers.out, buffers.in, kN);
}

// EDIT_GEOMETRY: its block size.
void BM_Geometry(benchmark::State& state) {
  Buffers buffers;
#ifdef EDIT_GEOMETRY
  const int block = 128;
#else
  const int block = 256;
#endif
  for (auto _ : gpubench::Loop(state)) Copy<<<kN / block, block>>>(buffers.out, buffers.in, kN);
}

// EDIT_SCALAR: a scalar argument.
void BM_Scalar(benchmark::State& state) {
  Buffers buffers;
#ifdef EDIT_SCALAR
  const float a = 3.0f;
#else
  const float a = 2.0f;
#endif
  for (auto _ : gpubench::Loop(state)) Axpy<<<kN / 256, 256>>>(buffers.out, buffers.in, a, kN);
}

// EDIT_HOST_DATA: one element of the host data its set-up copies in.
void BM_HostData(benchmark::State& state) {
  Buffers buffers;
  std::vector<float> host(kN, 1.0f);
#ifdef EDIT_HOST_DATA
  host[12345] = 2.0f;
#endif
  CHECK_CUDA(cudaMemcpy(buffers.in, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  for (auto _ : gpubench::Loop(state)) Sum<<<kN / 256, 256>>>(buffers.out, buffers.in, kN);
}

// EDIT_SETUP: the code of a kernel that runs only in the set-up (it fills the input).
void BM_SetupKernel(benchmark::State& state) {
  Buffers buffers;
  Fill<<<kN / 256, 256>>>(buffers.in, kN);
  for (auto _ : gpubench::Loop(state)) Copy<<<kN / 256, 256>>>(buffers.out, buffers.in, kN);
}

// EDIT_CUBLAS: a transpose flag of a cuBLAS call.
void BM_Cublas(benchmark::State& state) {
  const int n = 1024;
  Buffers buffers;
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError("cublasCreate failed");
    return;
  }
#ifdef EDIT_CUBLAS
  const cublasOperation_t transpose = CUBLAS_OP_T;
#else
  const cublasOperation_t transpose = CUBLAS_OP_N;
#endif
  const float one = 1.0f, zero = 0.0f;
  for (auto _ : gpubench::Loop(state)) {
    cublasSgemm(handle, transpose, CUBLAS_OP_N, n, n, n, &one, buffers.in, n, buffers.in + n * n, n,
                &zero, buffers.out, n);
  }
  cublasDestroy(handle);
}

// EDIT_GRAPH: one node of a graph the set-up captures and the body launches.
void BM_Graph(benchmark::State& state) {
  Buffers buffers;
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  Copy<<<kN / 256, 256, 0, stream>>>(buffers.out, buffers.in, kN);
#ifdef EDIT_GRAPH
  Axpy<<<kN / 256, 256, 0, stream>>>(buffers.out, buffers.in, 3.0f, kN);
#else
  Axpy<<<kN / 256, 256, 0, stream>>>(buffers.out, buffers.in, 2.0f, kN);
#endif
  cudaStreamEndCapture(stream, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  for (auto _ : gpubench::Loop(state, stream)) cudaGraphLaunch(exec, stream);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// The GPU waits for the host in every body: never reused (host_bound).
void BM_HostBound(benchmark::State& state) {
  Buffers buffers;
  for (auto _ : gpubench::Loop(state)) {
    Copy<<<64, 256>>>(buffers.out, buffers.in, 64 * 256);
    cudaDeviceSynchronize();
    usleep(200);
    Copy<<<64, 256>>>(buffers.out, buffers.in, 64 * 256);
  }
}

}  // namespace

GPUBENCH_BENCHMARK(BM_Unchanged);
GPUBENCH_BENCHMARK(BM_Code);
GPUBENCH_BENCHMARK(BM_Geometry);
GPUBENCH_BENCHMARK(BM_Scalar);
GPUBENCH_BENCHMARK(BM_HostData);
GPUBENCH_BENCHMARK(BM_SetupKernel);
GPUBENCH_BENCHMARK(BM_Cublas);
GPUBENCH_BENCHMARK(BM_Graph);
GPUBENCH_BENCHMARK(BM_HostBound);

GPUBENCH_MAIN();
