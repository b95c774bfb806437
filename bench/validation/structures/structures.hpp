// A small GPU data-structure library, as the benchmark suites of such libraries are written: one
// interface, a backend per programming model (backend_cuda.cu, backend_cpu.cpp), and benchmark
// bodies shared by every backend (bodies.inc). It is gpubench's check that a suite of this kind
// converts by the user guide and measures what its plain-GB twin measures (README.md here).
//
// Every operation is enqueued in order on the backend's one queue (the CUDA backend: the legacy
// default stream). The push and pop operations wait for their work before they return, as
// thrust's algorithms do; Size and Count copy their answer back to the host.
#pragma once

#include <cstddef>

namespace structures {

/// The backend's name and device, printed once at start (the CUDA backend makes its context).
void PrintBackend();

/// A double-ended queue of ints in a ring of `capacity` slots. Its begin and end indices live in
/// a small allocation of their own, apart from the slots: every push and pop moves one of them
/// atomically, once per element.
struct Deque;
Deque* NewDeque(std::size_t capacity);
void DeleteDeque(Deque* deque);
void PushFront(Deque* deque,
               std::size_t count);  ///< `count` elements, each taking the slot before begin
void PushBack(Deque* deque, std::size_t count);  ///< each taking the slot at end
void PopBack(Deque* deque, std::size_t count);   ///< each giving up the slot before end
void Clear(Deque* deque);                        ///< empty, indices in the middle of their range
void Fill(Deque* deque, std::size_t count);      ///< `count` elements, as PushBack leaves them
std::size_t Size(Deque* deque);                  ///< waits for the queue

/// A fixed-size set of bits.
struct Bitset;
Bitset* NewBitset(std::size_t bits);
void DeleteBitset(Bitset* bitset);
void SetEvery(Bitset* bitset,
              std::size_t stride);  ///< sets bits 0, stride, 2 stride, ... atomically
void Reset(Bitset* bitset);         ///< every bit 0
std::size_t Count(Bitset* bitset);  ///< the bits set; waits for the queue
/// Counts, and clears the set when more than `limit` bits are set: the host decides between two
/// steps of GPU work, so the GPU waits for the host in between.
std::size_t CountThenClearAbove(Bitset* bitset, std::size_t limit);

/// Waits for everything enqueued so far.
void Synchronize();

}  // namespace structures
