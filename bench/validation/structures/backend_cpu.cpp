// The CPU backend: the same operations on the host, for the build without CUDA and without
// gpubench (plain Google Benchmark through gpubench/portable.hpp). Serial loops; the atomics keep
// the element-by-element index moves of the GPU backend.
#include <atomic>
#include <bitset>
#include <cstdio>
#include <vector>

#include "structures.hpp"

namespace structures {
namespace {

using Index = unsigned long long;
constexpr Index kMiddle = Index{1} << 62;

}  // namespace

struct Deque {
  std::atomic<Index> begin{kMiddle};
  std::atomic<Index> end{kMiddle};
  std::vector<int> slots;
  unsigned checksum = 0;
};

struct Bitset {
  std::vector<std::atomic<unsigned>> words;
  std::size_t bits = 0;
};

void PrintBackend() { std::printf("structures: CPU backend (serial)\n"); }

Deque* NewDeque(std::size_t capacity) {
  auto* deque = new Deque;
  deque->slots.assign(capacity, 0);
  return deque;
}

void DeleteDeque(Deque* deque) { delete deque; }

void PushFront(Deque* deque, std::size_t count) {
  const std::size_t capacity = deque->slots.size();
  for (std::size_t i = 0; i < count; ++i) {
    deque->slots[(deque->begin.fetch_sub(1) - 1) % capacity] = static_cast<int>(i);
  }
}

void PushBack(Deque* deque, std::size_t count) {
  const std::size_t capacity = deque->slots.size();
  for (std::size_t i = 0; i < count; ++i) {
    deque->slots[deque->end.fetch_add(1) % capacity] = static_cast<int>(i);
  }
}

void PopBack(Deque* deque, std::size_t count) {
  const std::size_t capacity = deque->slots.size();
  for (std::size_t i = 0; i < count; ++i) {
    deque->checksum ^=
        static_cast<unsigned>(deque->slots[(deque->end.fetch_sub(1) - 1) % capacity]);
  }
}

void Clear(Deque* deque) {
  deque->begin = kMiddle;
  deque->end = kMiddle;
}

void Fill(Deque* deque, std::size_t count) {
  const std::size_t capacity = deque->slots.size();
  for (std::size_t i = 0; i < count; ++i)
    deque->slots[(kMiddle + i) % capacity] = static_cast<int>(i);
  deque->begin = kMiddle;
  deque->end = kMiddle + count;
}

std::size_t Size(Deque* deque) { return static_cast<std::size_t>(deque->end - deque->begin); }

Bitset* NewBitset(std::size_t bits) {
  auto* bitset = new Bitset;
  bitset->bits = bits;
  bitset->words = std::vector<std::atomic<unsigned>>((bits + 31) / 32);
  return bitset;
}

void DeleteBitset(Bitset* bitset) { delete bitset; }

void SetEvery(Bitset* bitset, std::size_t stride) {
  for (std::size_t bit = 0; bit < bitset->bits; bit += stride) {
    bitset->words[bit / 32].fetch_or(1u << (bit % 32));
  }
}

void Reset(Bitset* bitset) {
  for (auto& word : bitset->words) word.store(0);
}

std::size_t Count(Bitset* bitset) {
  std::size_t total = 0;
  for (const auto& word : bitset->words) total += std::bitset<32>(word.load()).count();
  return total;
}

std::size_t CountThenClearAbove(Bitset* bitset, std::size_t limit) {
  const std::size_t count = Count(bitset);
  if (count > limit) Reset(bitset);
  return count;
}

void Synchronize() {}

}  // namespace structures
