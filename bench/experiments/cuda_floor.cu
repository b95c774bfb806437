// What a process costs that only makes a CUDA context and exits: the floor under any run that
// touches the GPU, gpubench's rerun included (docs/accuracy.md "Reusing unchanged work: what a
// rerun costs"). Plain CUDA, no gpubench. Time it from outside: `time ./gpubench_cuda_floor`.
#include <cuda_runtime.h>

int main() { return cudaFree(nullptr) == cudaSuccess ? 0 : 1; }
