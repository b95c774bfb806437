// The work signature (--gpubench_reuse, docs/user_guide.md "Reusing unchanged work"): what an
// instance asks the GPU to do in its set-up and one body, reduced to bytes that are equal in
// two processes exactly when the work is. CPU logic only: the recorder (gpu/cupti/
// cupti_work_recorder.cpp) feeds it what CUPTI's callbacks saw; tests feed it fakes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace gpubench::detail {

/// A 64-bit hash of `size` bytes (not cryptographic). From 64 MiB on, the bytes are hashed in
/// 16 MiB chunks on up to 8 threads; the value is the same on any number of them.
uint64_t HashBytes(const void* data, size_t size, uint64_t seed = 0);
/// HashBytes on at most `threads` threads (the calling one included), for tests.
uint64_t HashBytesOn(const void* data, size_t size, uint64_t seed, unsigned threads);

/// The signature of a list of work items (each a canonical line, in launch order) and the
/// run-level lines (settings fingerprint, GPU UUID, driver, method version): a 48-bit value, so
/// that it is exact as a JSON number (a double).
uint64_t SignatureOf(const std::vector<std::string>& items);
/// The signature as 12 lower-case hex digits.
std::string SignatureHex(uint64_t signature);

/// One kernel's machine code, per function of a cubin: the bytes of its .text.<name> section
/// together with those of the functions it calls and the initialised data it references
/// (followed through the relocations), so that a change to another kernel of the same cubin
/// does not change it, and a change to a device function it calls or a constant table it reads
/// does. In detail, a function's hash covers (names, never symbol or section indices, which
/// move when another kernel adds a symbol):
///  - the ELF header's e_flags and ABI bytes (the SM the code is for);
///  - its .text section: flags, alignment, bytes, and the functions defined in it (name, value,
///    size, st_other: whole-program compilation copies called device functions in);
///  - the module-wide .nv.info entries about those functions (register count, frame and stack
///    sizes) and its own .nv.info.<name> (parameter layout, maximum registers, exit offsets...);
///  - the sections linked to it (SHF_INFO_LINK): the parameter bank .nv.constant0.<name> (its
///    size says the parameter bytes), .nv.shared.<name> (static shared memory: its size), a
///    literal bank .nv.constant2.<name>;
///  - each relocation of those sections (offset, type, addend, symbol name) and its target:
///    another function's closure (the same, transitively, each once), an object's bytes
///    [st_value, st_value + st_size), a section symbol's whole section, a NOBITS object's size,
///    an undefined symbol's name (vprintf);
///  - every module-wide constant bank .nv.constant<N> (the user's __constant__ data, bank 3;
///    the address table of globals, bank 4) and what its relocations reach: machine code reads
///    these as c[bank][offset] with no relocation, so which bytes a function reads cannot be
///    told from the ELF. A change to a __constant__ initialiser, or to a __device__ global's
///    initialiser or a string literal reached through bank 4, therefore changes every
///    function of the cubin: a needless measurement, never a stale reuse.
struct CubinFunctions {
  std::map<std::string, uint64_t> code_hash;  ///< mangled name -> hash
};
/// Reads a cubin image (an ELF file in memory, as CUPTI's module callback hands it over).
/// An image that is not a cubin (a PTX text, a fatbin) is an error naming what it found.
Result<CubinFunctions> HashCubinFunctions(const void* image, size_t size);

/// Where an address lies in device-accessible memory, for the recorder's argument bytes.
class AllocationLookup {
 public:
  virtual ~AllocationLookup() = default;
  /// True when `address` lies in an allocation the GPU can access (device, pinned, managed):
  /// its base address and size.
  virtual bool Find(uint64_t address, uint64_t* base, uint64_t* size) = 0;
};

/// One kernel parameter's place in the argument bytes (cuFuncGetParamInfo).
struct ParamSlice {
  size_t offset = 0;
  size_t size = 0;
};

/// A kernel's argument bytes in a form equal across processes: every 8-byte aligned word of
/// each parameter that lies in an allocation (lookup) becomes "allocation of SIZE bytes, at
/// OFFSET" instead of the address, since addresses differ from process to process while sizes
/// and offsets do not; every other byte stays as it is. Hex text, parameters separated by ','.
std::string CanonicalArguments(const std::vector<ParamSlice>& params, const uint8_t* bytes,
                               AllocationLookup& lookup);

}  // namespace gpubench::detail
