// The CPU logic of the work signature (gpu/plan/work_signature.hpp): the byte hash, the 48-bit
// signature and its hex text, per-function hashes of real cubins that nvcc compiled at build
// time (tests/unit/cubins/signature_kernels.cu, one cubin per variant), and argument bytes with
// device addresses replaced by (allocation size, offset).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "gpu/plan/work_signature.hpp"

namespace gpubench::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// HashBytes, SignatureOf, SignatureHex

TEST(WorkSignatureHash, EqualBytesHashEqual) {
  const std::string a = "the same bytes, twice, of more than thirty-two characters";
  const std::string b = a;
  EXPECT_EQ(HashBytes(a.data(), a.size()), HashBytes(b.data(), b.size()));
  EXPECT_EQ(HashBytes(a.data(), a.size(), 7), HashBytes(b.data(), b.size(), 7));
}

// From 64 MiB on the bytes are hashed in 16 MiB chunks side by side: the value is the bytes', not
// the thread count's, and a byte changed in any chunk (the last, short one included) or a byte
// more or less changes it.
TEST(WorkSignatureHash, ChunkedHashIsTheSameOnAnyNumberOfThreads) {
  const size_t size = (size_t{80} << 20) + 12345;  // five chunks and a short sixth
  std::vector<unsigned char> bytes(size);
  uint64_t state = 0x9e3779b97f4a7c15ULL;  // xorshift64: no period within the buffer
  for (unsigned char& byte : bytes) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    byte = static_cast<unsigned char>(state >> 56);
  }
  const uint64_t one = HashBytesOn(bytes.data(), size, 3, 1);
  for (unsigned threads : {2u, 3u, 6u, 64u}) {
    EXPECT_EQ(HashBytesOn(bytes.data(), size, 3, threads), one) << threads << " threads";
  }
  EXPECT_EQ(HashBytes(bytes.data(), size, 3), one);
  EXPECT_NE(HashBytesOn(bytes.data(), size, 4, 4), one);      // the seed
  EXPECT_NE(HashBytesOn(bytes.data(), size - 1, 3, 4), one);  // a byte less
  for (size_t at : {size_t{0}, (size_t{16} << 20) - 1, size_t{16} << 20, size / 2, size - 1}) {
    bytes[at] ^= 1;
    EXPECT_NE(HashBytesOn(bytes.data(), size, 3, 4), one) << "byte " << at;
    bytes[at] ^= 1;
  }
  // Chunks moved: the same bytes in another order hash otherwise.
  std::vector<unsigned char> swapped(bytes);
  std::swap_ranges(swapped.begin(), swapped.begin() + (16 << 20), swapped.begin() + (16 << 20));
  EXPECT_NE(HashBytesOn(swapped.data(), size, 3, 4), one);
  // Below 64 MiB one thread hashes the whole, as before.
  EXPECT_EQ(HashBytesOn(bytes.data(), size_t{1} << 20, 3, 8),
            HashBytesOn(bytes.data(), size_t{1} << 20, 3, 1));
}

TEST(WorkSignatureHash, DifferentBytesLengthsAndSeedsDiffer) {
  // Every length from 0 to 100 (each path: lanes, 8-byte words, tail), each byte flipped in
  // turn: all hashes distinct.
  std::vector<unsigned char> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  std::map<uint64_t, std::string> seen;
  auto expect_new = [&](uint64_t hash, const std::string& what) {
    const auto [at, inserted] = seen.emplace(hash, what);
    EXPECT_TRUE(inserted) << what << " hashes like " << at->second;
  };
  for (size_t length = 0; length <= bytes.size(); ++length) {
    expect_new(HashBytes(bytes.data(), length), "length " + std::to_string(length));
    expect_new(HashBytes(bytes.data(), length, 1), "length " + std::to_string(length) + " seed 1");
  }
  for (size_t i = 0; i < 64; ++i) {
    std::vector<unsigned char> flipped(bytes.begin(), bytes.begin() + 64);
    flipped[i] ^= 1;
    expect_new(HashBytes(flipped.data(), flipped.size()), "bit 0 of byte " + std::to_string(i));
  }
  // Trailing zero bytes are bytes: "a" and "a\0" differ.
  const char zeros[16] = {'a'};
  EXPECT_NE(HashBytes(zeros, 1), HashBytes(zeros, 2));
  EXPECT_NE(HashBytes(zeros, 8), HashBytes(zeros, 9));
}

TEST(WorkSignatureHash, IsFastEnoughForHostCopies) {
  // 64 MiB well under a second even in a debug or sanitizer build (several GB/s in Release).
  std::vector<unsigned char> big(64 << 20, 0x5a);
  const auto start = std::chrono::steady_clock::now();
  const uint64_t hash = HashBytes(big.data(), big.size());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(hash, 0u);
  EXPECT_LT(seconds, 2.0);
}

TEST(WorkSignature, SignatureIsOrderSensitiveAnd48Bit) {
  const std::vector<std::string> ab = {"kernel a", "kernel b"};
  const std::vector<std::string> ba = {"kernel b", "kernel a"};
  EXPECT_EQ(SignatureOf(ab), SignatureOf(ab));
  EXPECT_NE(SignatureOf(ab), SignatureOf(ba));
  // Bytes moved from one line to the next are another list.
  EXPECT_NE(SignatureOf({"ab", "c"}), SignatureOf({"a", "bc"}));
  EXPECT_NE(SignatureOf({}), SignatureOf({""}));
  EXPECT_NE(SignatureOf({""}), SignatureOf({"", ""}));
  for (int i = 0; i < 1000; ++i) {
    const uint64_t signature = SignatureOf({"line " + std::to_string(i)});
    EXPECT_LT(signature, uint64_t{1} << 48);
    // Exact as a JSON number (a double).
    EXPECT_EQ(static_cast<uint64_t>(static_cast<double>(signature)), signature);
  }
}

TEST(WorkSignature, HexIsTwelveLowerCaseDigitsZeroPadded) {
  EXPECT_EQ(SignatureHex(0), "000000000000");
  EXPECT_EQ(SignatureHex(0xabc), "000000000abc");
  EXPECT_EQ(SignatureHex(0xFEDCBA987654), "fedcba987654");
  const std::string text = SignatureHex(SignatureOf({"x"}));
  EXPECT_EQ(text.size(), 12u);
  EXPECT_EQ(text.find_first_not_of("0123456789abcdef"), std::string::npos) << text;
}

// ---------------------------------------------------------------------------------------------
// HashCubinFunctions on cubins compiled at build time

std::string ReadCubin(const std::string& name) {
  const std::string path = std::string(GPUBENCH_TEST_CUBIN_DIR) + "/" + name + ".cubin";
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << path;
  return std::string(std::istreambuf_iterator<char>(file), {});
}

std::map<std::string, uint64_t> Hashes(const std::string& name) {
  const std::string image = ReadCubin(name);
  Result<CubinFunctions> functions = HashCubinFunctions(image.data(), image.size());
  EXPECT_TRUE(functions.ok()) << name << ": " << functions.status().message();
  return functions.ok() ? functions.value().code_hash : std::map<std::string, uint64_t>{};
}

constexpr char kA[] = "_Z8kernel_aPfPKfi";
constexpr char kB[] = "_Z8kernel_bPfi";
constexpr char kScaled3[] = "_Z6scaledILi3EEvPi";
constexpr char kScaled4[] = "_Z6scaledILi4EEvPi";
constexpr char kHelper[] = "_Z6helperf";
constexpr char kHelperB[] = "_Z8helper_bf";

// Both builds: whole-program (device functions copied into the kernels' sections) and
// relocatable device code linked by nvlink (device functions in sections of their own, called
// through relocations).
class WorkSignatureCubin : public testing::TestWithParam<const char*> {
 protected:
  std::map<std::string, uint64_t> Variant(const std::string& variant) {
    return Hashes(std::string(GetParam()) + "_" + variant);
  }
};

TEST_P(WorkSignatureCubin, EveryKernelAndTemplateInstanceHasItsOwnHash) {
  const std::map<std::string, uint64_t> base = Variant("base");
  for (const char* name : {kA, kB, kScaled3, kScaled4}) EXPECT_EQ(base.count(name), 1u) << name;
  EXPECT_NE(base.at(kScaled3), base.at(kScaled4));
  EXPECT_NE(base.at(kA), base.at(kB));
  // The same image read twice hashes the same.
  EXPECT_EQ(base, Variant("base"));
}

TEST_P(WorkSignatureCubin, AChangeToAnotherKernelLeavesTheHashAlone) {
  const std::map<std::string, uint64_t> base = Variant("base");
  const std::map<std::string, uint64_t> b_changed = Variant("b");
  EXPECT_NE(base.at(kB), b_changed.at(kB));
  EXPECT_EQ(base.at(kA), b_changed.at(kA));
  EXPECT_EQ(base.at(kScaled3), b_changed.at(kScaled3));
  // Nor does a change to a device function only the other kernel calls.
  const std::map<std::string, uint64_t> helper_b_changed = Variant("helper_b");
  EXPECT_NE(base.at(kB), helper_b_changed.at(kB));
  EXPECT_EQ(base.at(kA), helper_b_changed.at(kA));
}

TEST_P(WorkSignatureCubin, AChangeToACalledDeviceFunctionChangesTheHash) {
  const std::map<std::string, uint64_t> base = Variant("base");
  const std::map<std::string, uint64_t> helper_changed = Variant("helper");
  EXPECT_NE(base.at(kA), helper_changed.at(kA));
  EXPECT_EQ(base.at(kB), helper_changed.at(kB));
}

TEST_P(WorkSignatureCubin, AChangeToAConstantTablesInitialiserChangesTheHash) {
  // Machine code reads a __constant__ variable as c[bank][offset], with no relocation: the
  // module's constant banks count for every function of the cubin (so kernel_b's hash changes
  // too, which re-measures it needlessly but never reuses a stale row).
  const std::map<std::string, uint64_t> base = Variant("base");
  const std::map<std::string, uint64_t> table_changed = Variant("table");
  EXPECT_NE(base.at(kA), table_changed.at(kA));
}

INSTANTIATE_TEST_SUITE_P(WorkSignatureBuilds, WorkSignatureCubin,
                         testing::Values("whole", "linked"));

TEST(WorkSignatureCubinLinked, DeviceFunctionsHaveTheirOwnHashes) {
  const std::map<std::string, uint64_t> base = Hashes("linked_base");
  const std::map<std::string, uint64_t> helper_changed = Hashes("linked_helper");
  ASSERT_EQ(base.count(kHelper), 1u);
  ASSERT_EQ(base.count(kHelperB), 1u);
  EXPECT_NE(base.at(kHelper), helper_changed.at(kHelper));
  EXPECT_EQ(base.at(kHelperB), helper_changed.at(kHelperB));
}

TEST(WorkSignatureCubinErrors, AnImageThatIsNotACubinIsAnErrorNamingIt) {
  const std::string ptx = "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.8\n.target sm_90\n";
  Result<CubinFunctions> from_ptx = HashCubinFunctions(ptx.data(), ptx.size());
  ASSERT_FALSE(from_ptx.ok());
  EXPECT_NE(from_ptx.status().message().find("PTX"), std::string::npos)
      << from_ptx.status().message();

  const unsigned char fatbin[16] = {0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00};
  Result<CubinFunctions> from_fatbin = HashCubinFunctions(fatbin, sizeof fatbin);
  ASSERT_FALSE(from_fatbin.ok());
  EXPECT_NE(from_fatbin.status().message().find("fatbin"), std::string::npos)
      << from_fatbin.status().message();

  const char junk[] = "MZ\x90\x00 not an ELF";
  Result<CubinFunctions> from_junk = HashCubinFunctions(junk, sizeof junk);
  ASSERT_FALSE(from_junk.ok());
  EXPECT_NE(from_junk.status().message().find("4d 5a 90 00"), std::string::npos)
      << from_junk.status().message();

  Result<CubinFunctions> from_nothing = HashCubinFunctions(nullptr, 0);
  EXPECT_FALSE(from_nothing.ok());

  // An ELF file, but not for a GPU: this test binary's own first bytes are not at hand, so a
  // cubin with its e_machine changed to x86-64 (62).
  std::string host_elf = ReadCubin("whole_base");
  ASSERT_GT(host_elf.size(), 20u);
  host_elf[18] = 62;
  host_elf[19] = 0;
  Result<CubinFunctions> from_host = HashCubinFunctions(host_elf.data(), host_elf.size());
  ASSERT_FALSE(from_host.ok());
  EXPECT_NE(from_host.status().message().find("machine 62"), std::string::npos)
      << from_host.status().message();

  // A truncated cubin is an error, not a crash.
  const std::string cubin = ReadCubin("whole_base");
  for (size_t size : {size_t{4}, size_t{64}, cubin.size() / 2}) {
    Result<CubinFunctions> truncated = HashCubinFunctions(cubin.data(), size);
    if (truncated.ok()) {
      EXPECT_LE(truncated.value().code_hash.size(), 4u);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CanonicalArguments

// A process's allocations: base address -> size.
class FakeAllocations : public AllocationLookup {
 public:
  explicit FakeAllocations(std::map<uint64_t, uint64_t> allocations)
      : allocations_(std::move(allocations)) {}
  bool Find(uint64_t address, uint64_t* base, uint64_t* size) override {
    auto after = allocations_.upper_bound(address);
    if (after == allocations_.begin()) return false;
    const auto at = std::prev(after);
    if (address >= at->first + at->second) return false;
    *base = at->first;
    *size = at->second;
    return true;
  }

 private:
  std::map<uint64_t, uint64_t> allocations_;
};

// The argument bytes of kernel(float* out, const float* in, int n, float scale), laid out as
// the driver does: two pointers, then two 4-byte scalars.
std::vector<uint8_t> Arguments(uint64_t out, uint64_t in, int32_t n, float scale) {
  std::vector<uint8_t> bytes(24);
  std::memcpy(bytes.data(), &out, 8);
  std::memcpy(bytes.data() + 8, &in, 8);
  std::memcpy(bytes.data() + 16, &n, 4);
  std::memcpy(bytes.data() + 20, &scale, 4);
  return bytes;
}
const std::vector<ParamSlice> kParams = {{0, 8}, {8, 8}, {16, 4}, {20, 4}};

TEST(WorkSignatureArguments, TwoProcessesWithOtherAddressesGiveTheSameText) {
  // The addresses of the three processes; the same sizes and offsets in each.
  FakeAllocations first({{0x7f6c7be00000, 1 << 20}, {0x7f6c7bf00000, 1 << 20}});
  FakeAllocations second({{0x7f8f1fe00000, 1 << 20}, {0x7f8f1ff00000, 1 << 20}});
  const std::vector<uint8_t> a = Arguments(0x7f6c7be00000, 0x7f6c7bf00040, 1000, 2.0f);
  const std::vector<uint8_t> b = Arguments(0x7f8f1fe00000, 0x7f8f1ff00040, 1000, 2.0f);
  const std::string text_a = CanonicalArguments(kParams, a.data(), first);
  EXPECT_EQ(text_a, CanonicalArguments(kParams, b.data(), second));
  EXPECT_EQ(text_a, "(alloc 1048576 +0),(alloc 1048576 +64),e8030000,00000040");
}

TEST(WorkSignatureArguments, AScalarOutsideEveryAllocationStays) {
  FakeAllocations allocations({{0x7f0000000000, 4096}});
  const std::vector<uint8_t> bytes = Arguments(0x7f0000000000, 0x1234, 7, 1.0f);
  EXPECT_EQ(CanonicalArguments(kParams, bytes.data(), allocations),
            "(alloc 4096 +0),3412000000000000,07000000,0000803f");
}

TEST(WorkSignatureArguments, OtherOffsetsOrSizesDiffer) {
  FakeAllocations allocations({{0x7f0000000000, 4096}, {0x7f0000100000, 8192}});
  const std::string at_0 =
      CanonicalArguments(kParams, Arguments(0x7f0000000000, 0, 1, 1.0f).data(), allocations);
  const std::string at_16 =
      CanonicalArguments(kParams, Arguments(0x7f0000000010, 0, 1, 1.0f).data(), allocations);
  const std::string other_size =
      CanonicalArguments(kParams, Arguments(0x7f0000100000, 0, 1, 1.0f).data(), allocations);
  EXPECT_NE(at_0, at_16);
  EXPECT_NE(at_0, other_size);
}

TEST(WorkSignatureArguments, APointerInsideAStructParameter) {
  // struct View { int64_t extent; float* data; int32_t stride; } passed by value at offset 8
  // of the arguments (after an int64_t), 24 bytes; the pointer at the struct's offset 8.
  struct View {
    int64_t extent;
    uint64_t data;
    int32_t stride;
    int32_t padding;
  };
  auto bytes_of = [](uint64_t data) {
    std::vector<uint8_t> bytes(32);
    const int64_t first = 5;
    const View view{256, data, 4, 0};
    std::memcpy(bytes.data(), &first, 8);
    std::memcpy(bytes.data() + 8, &view, sizeof view);
    return bytes;
  };
  const std::vector<ParamSlice> params = {{0, 8}, {8, 24}};
  FakeAllocations first({{0x7f6c7be00000, 1024}});
  FakeAllocations second({{0x7f36abe00000, 1024}});
  const std::string text = CanonicalArguments(params, bytes_of(0x7f6c7be00100).data(), first);
  EXPECT_EQ(text, CanonicalArguments(params, bytes_of(0x7f36abe00100).data(), second));
  EXPECT_EQ(text, "0500000000000000,0001000000000000(alloc 1024 +256)0400000000000000");
}

}  // namespace
}  // namespace gpubench::detail
