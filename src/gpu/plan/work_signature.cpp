// The CPU side of the work signature (work_signature.hpp): the byte hash, the signature of the
// canonical lines, a cubin's per-function machine-code hashes (libelf) and the argument bytes
// with device addresses replaced by (allocation size, offset).
#include "gpu/plan/work_signature.hpp"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>

namespace gpubench::detail {
namespace {

// Odd 64-bit constants with well-spread bits (the golden ratio's and three from splitmix-style
// finalisers); any odd constants with about half their bits set would do.
constexpr uint64_t kMulA = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kMulB = 0xD6E8FEB86659FD93ULL;
constexpr uint64_t kMulC = 0xFF51AFD7ED558CCDULL;
constexpr uint64_t kMulD = 0xC4CEB9FE1A85EC53ULL;

inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t Load64(const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof word);  // unaligned-safe; the compiler makes it one load
  return word;
}

// One 8-byte step of a lane: bijective in the word for a fixed lane state, so two inputs that
// differ in one word leave the lane in different states.
inline uint64_t Absorb(uint64_t lane, uint64_t word) {
  return Rotl(lane ^ (word * kMulB), 29) * kMulA;
}

// Full avalanche of a 64-bit state (xorshift-multiply twice).
inline uint64_t Avalanche(uint64_t x) {
  x ^= x >> 31;
  x *= kMulC;
  x ^= x >> 29;
  x *= kMulD;
  x ^= x >> 32;
  return x;
}

// One thread's hash of `size` bytes.
uint64_t HashSpan(const void* data, size_t size, uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t left = size;
  uint64_t h = Avalanche(seed + kMulA) ^ (static_cast<uint64_t>(size) * kMulC);
  if (left >= 32) {
    // Four independent lanes of 8 bytes each, so that the multiplies overlap in the pipeline.
    uint64_t a = h + kMulA, b = h ^ kMulB, c = h - kMulC, d = Rotl(h, 32) ^ kMulD;
    do {
      a = Absorb(a, Load64(p));
      b = Absorb(b, Load64(p + 8));
      c = Absorb(c, Load64(p + 16));
      d = Absorb(d, Load64(p + 24));
      p += 32;
      left -= 32;
    } while (left >= 32);
    h = Avalanche(a) ^ Rotl(Avalanche(b), 17) ^ Rotl(Avalanche(c), 34) ^ Rotl(Avalanche(d), 51);
  }
  while (left >= 8) {
    h = Absorb(h, Load64(p)) + kMulD;
    p += 8;
    left -= 8;
  }
  if (left > 0) {
    uint64_t tail = 0;
    std::memcpy(&tail, p, left);
    h = Absorb(h, tail ^ (static_cast<uint64_t>(left) << 56)) + kMulC;
  }
  return Avalanche(h ^ static_cast<uint64_t>(size));
}

// Bytes from kChunkedHashBytes on are hashed in chunks of kHashChunkBytes, each seeded by its
// index, and the chunks' hashes are hashed in order: the chunks can then be hashed side by side,
// and the value depends on the bytes alone, never on how many threads hashed them.
constexpr size_t kChunkedHashBytes = size_t{64} << 20;
constexpr size_t kHashChunkBytes = size_t{16} << 20;

}  // namespace

uint64_t HashBytesOn(const void* data, size_t size, uint64_t seed, unsigned threads) {
  if (size < kChunkedHashBytes) return HashSpan(data, size, seed);
  const auto* bytes = static_cast<const unsigned char*>(data);
  const size_t chunks = (size + kHashChunkBytes - 1) / kHashChunkBytes;
  std::vector<uint64_t> hashes(chunks);
  std::atomic<size_t> next{0};
  auto hash_chunks = [&] {
    for (size_t i = next++; i < chunks; i = next++) {
      const size_t offset = i * kHashChunkBytes;
      hashes[i] = HashSpan(bytes + offset, std::min(kHashChunkBytes, size - offset), seed + i);
    }
  };
  std::vector<std::thread> helpers;
  const size_t wanted = std::min<size_t>(std::max(threads, 1u), chunks) - 1;
  for (size_t t = 0; t < wanted; ++t) {
    try {
      helpers.emplace_back(hash_chunks);
    } catch (const std::system_error&) {
      break;  // no thread to be had: this one hashes the rest
    }
  }
  hash_chunks();
  for (std::thread& helper : helpers) helper.join();
  return HashSpan(hashes.data(), hashes.size() * sizeof(uint64_t), seed ^ size);
}

uint64_t HashBytes(const void* data, size_t size, uint64_t seed) {
  // A copy of GiBs is hashed in the set-up of every signed call, in the profiling child and in
  // the timing process: at 6-8 GB/s on one thread (2-core VM) a 4 GB copy costs 0.5 s in each.
  static const unsigned threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  return HashBytesOn(data, size, seed, threads);
}

uint64_t SignatureOf(const std::vector<std::string>& items) {
  // Each item's hash is seeded by the chain so far: the same lines in another order, or one
  // line's bytes moved into the next, give another chain.
  uint64_t chain = HashBytes(nullptr, 0, items.size());
  for (const std::string& item : items) chain = HashBytes(item.data(), item.size(), chain);
  return Avalanche(chain) & ((uint64_t{1} << 48) - 1);
}

std::string SignatureHex(uint64_t signature) {
  char text[17];
  std::snprintf(text, sizeof text, "%012llx",
                static_cast<unsigned long long>(signature & ((uint64_t{1} << 48) - 1)));
  return text;
}

// ---------------------------------------------------------------------------------------------
// Cubins

namespace {

constexpr uint16_t kEmCuda = 190;  // EM_CUDA
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
// .nv.info attributes (EIATTR_*) whose payload names symbols by their index, which moves when
// another kernel adds or drops a symbol: the index is replaced by the symbol's name.
constexpr uint8_t kAttrParamCbank =
    0x0a;                               // {u32 symbol of .nv.constant0.<f>, u16 offset, u16 size}
constexpr uint8_t kAttrExterns = 0x0f;  // {u32 symbol}...
constexpr uint8_t kFormatSval = 0x04;   // {u8 format, u8 attribute, u16 size, payload}

struct Section {
  std::string name;
  GElf_Shdr header{};
  const unsigned char* bytes = nullptr;  // null for NOBITS
  size_t size = 0;
};

struct Symbol {
  std::string name;
  GElf_Sym sym{};
};

struct Relocation {
  uint64_t offset = 0;
  uint64_t type = 0;
  size_t symbol = 0;
  int64_t addend = 0;
};

// One .nv.info entry, as laid out in the section.
struct InfoEntry {
  uint8_t format = 0;
  uint8_t attribute = 0;
  const unsigned char* payload = nullptr;  // SVAL: `size` bytes; other formats: 2 value bytes
  size_t size = 0;
};

std::vector<InfoEntry> ParseInfo(const Section& section) {
  std::vector<InfoEntry> entries;
  size_t at = 0;
  while (section.bytes != nullptr && at + 4 <= section.size) {
    InfoEntry entry;
    entry.format = section.bytes[at];
    entry.attribute = section.bytes[at + 1];
    if (entry.format == kFormatSval) {
      const size_t size = section.bytes[at + 2] | (section.bytes[at + 3] << 8);
      if (at + 4 + size > section.size) break;
      entry.payload = section.bytes + at + 4;
      entry.size = size;
      at += 4 + size;
    } else {  // NVAL, BVAL, HVAL: the value fits in the entry's last two bytes
      entry.payload = section.bytes + at + 2;
      entry.size = 2;
      at += 4;
    }
    entries.push_back(entry);
  }
  return entries;
}

uint32_t Load32(const unsigned char* p) {
  uint32_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

bool StartsWith(const std::string& text, const char* prefix) {
  return text.compare(0, std::strlen(prefix), prefix) == 0;
}

// A module-wide constant bank: .nv.constant<digits>, no function's name after it. Whole-program
// cubins address these as c[bank][offset] from the machine code with no relocation, so which of
// their bytes a function reads cannot be told from the ELF.
bool IsModuleConstantBank(const std::string& name) {
  static const std::string prefix = ".nv.constant";
  if (!StartsWith(name, prefix.c_str()) || name.size() == prefix.size()) return false;
  return std::all_of(name.begin() + prefix.size(), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

class Cubin {
 public:
  std::vector<Section> sections;
  std::vector<Symbol> symbols;
  std::map<size_t, std::vector<Relocation>> relocations;  // target section -> its relocations
  std::vector<InfoEntry> module_info;                     // the module-wide .nv.info
  // Indexes, so that a cubin of thousands of kernels is read in time linear in its size:
  std::map<size_t, std::vector<size_t>> functions_in;  // section -> its STT_FUNC symbols
  std::map<size_t, std::vector<size_t>> linked_to;     // text section -> sections about it
  std::map<size_t, std::vector<size_t>> info_about;    // symbol -> module_info entries
  std::vector<size_t> module_banks;                    // IsModuleConstantBank
  uint64_t machine_flags = 0;                          // e_flags, OSABI, ABI version

  // libelf reads the image where it lies and never writes it (a cubin is little-endian like
  // the host, so nothing is converted in place; checked on a read-only mapping).
  Status Read(const void* image, size_t size) {
    Elf* elf = elf_memory(static_cast<char*>(const_cast<void*>(image)), size);
    if (elf == nullptr) return Status::InvalidInput(std::string("libelf: ") + elf_errmsg(-1));
    Status status = ReadElf(elf);
    elf_end(elf);
    return status;
  }

 private:
  Status ReadElf(Elf* elf) {
    GElf_Ehdr ehdr;
    if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &ehdr) == nullptr)
      return Status::InvalidInput(std::string("not a readable ELF file: ") + elf_errmsg(-1));
    if (ehdr.e_machine != kEmCuda)
      return Status::InvalidInput("an ELF file for machine " + std::to_string(ehdr.e_machine) +
                                  ", not a cubin (EM_CUDA, 190)");
    machine_flags = ehdr.e_flags ^ (uint64_t{ehdr.e_ident[EI_OSABI]} << 32) ^
                    (uint64_t{ehdr.e_ident[EI_ABIVERSION]} << 40);
    size_t shstrndx = 0;
    size_t count = 0;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0 || elf_getshdrnum(elf, &count) != 0)
      return Status::InvalidInput(std::string("cubin without section names: ") + elf_errmsg(-1));
    sections.resize(count);
    std::vector<Elf_Scn*> scns(count, nullptr);
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
      const size_t index = elf_ndxscn(scn);
      if (index >= count) continue;
      Section& section = sections[index];
      scns[index] = scn;
      if (gelf_getshdr(scn, &section.header) == nullptr)
        return Status::InvalidInput(std::string("cubin section header: ") + elf_errmsg(-1));
      const char* name = elf_strptr(elf, shstrndx, section.header.sh_name);
      section.name = name != nullptr ? name : "";
      section.size = section.header.sh_size;
      if (section.header.sh_type == SHT_NOBITS || section.header.sh_type == SHT_REL ||
          section.header.sh_type == SHT_RELA || section.header.sh_type == SHT_SYMTAB)
        continue;
      // Raw bytes: libelf translates only the section types it knows, and these are bytes.
      Elf_Data* data = elf_rawdata(scn, nullptr);
      if (data != nullptr && data->d_buf != nullptr) {
        section.bytes = static_cast<const unsigned char*>(data->d_buf);
        section.size = data->d_size;
      } else {
        section.size = 0;
      }
    }
    for (size_t index = 0; index < count; ++index) {
      Elf_Scn* scn = scns[index];
      if (scn == nullptr) continue;
      const GElf_Shdr& header = sections[index].header;
      if (header.sh_type == SHT_SYMTAB) {
        GPUBENCH_RETURN_IF_ERROR(ReadSymbols(elf, scn, header));
      } else if (header.sh_type == SHT_REL || header.sh_type == SHT_RELA) {
        ReadRelocations(scn, header);
      }
    }
    for (const Section& section : sections)
      if (section.name == ".nv.info") module_info = ParseInfo(section);
    for (size_t e = 0; e < module_info.size(); ++e)
      if (module_info[e].format == kFormatSval && module_info[e].size >= 4)
        info_about[Load32(module_info[e].payload)].push_back(e);
    for (size_t s = 0; s < symbols.size(); ++s)
      if (GELF_ST_TYPE(symbols[s].sym.st_info) == STT_FUNC)
        functions_in[symbols[s].sym.st_shndx].push_back(s);
    // .nv.info.<f>, .nv.constant0.<f>, .nv.shared.<f>: SHF_INFO_LINK to f's .text section.
    for (size_t s = 0; s < sections.size(); ++s) {
      if (IsModuleConstantBank(sections[s].name)) module_banks.push_back(s);
      const GElf_Shdr& header = sections[s].header;
      if ((header.sh_flags & SHF_INFO_LINK) != 0 && header.sh_info != s &&
          header.sh_type != SHT_REL && header.sh_type != SHT_RELA && header.sh_type != SHT_NOTE)
        linked_to[header.sh_info].push_back(s);
    }
    return Status::Ok();
  }

  Status ReadSymbols(Elf* elf, Elf_Scn* scn, const GElf_Shdr& header) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) return Status::InvalidInput("cubin symbol table unreadable");
    const size_t n = header.sh_entsize > 0 ? header.sh_size / header.sh_entsize : 0;
    symbols.resize(n);
    for (size_t i = 0; i < n; ++i) {
      Symbol& symbol = symbols[i];
      if (gelf_getsym(data, static_cast<int>(i), &symbol.sym) == nullptr) continue;
      const char* name = elf_strptr(elf, header.sh_link, symbol.sym.st_name);
      symbol.name = name != nullptr ? name : "";
      // A section symbol has no name of its own: it is called by its section's.
      if (GELF_ST_TYPE(symbol.sym.st_info) == STT_SECTION && symbol.sym.st_shndx < sections.size())
        symbol.name = sections[symbol.sym.st_shndx].name;
    }
    return Status::Ok();
  }

  void ReadRelocations(Elf_Scn* scn, const GElf_Shdr& header) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || header.sh_entsize == 0) return;
    std::vector<Relocation>& list = relocations[header.sh_info];
    const size_t n = header.sh_size / header.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      Relocation relocation;
      if (header.sh_type == SHT_RELA) {
        GElf_Rela rela;
        if (gelf_getrela(data, static_cast<int>(i), &rela) == nullptr) continue;
        relocation = {rela.r_offset, GELF_R_TYPE(rela.r_info), GELF_R_SYM(rela.r_info),
                      rela.r_addend};
      } else {
        GElf_Rel rel;
        if (gelf_getrel(data, static_cast<int>(i), &rel) == nullptr) continue;
        relocation = {rel.r_offset, GELF_R_TYPE(rel.r_info), GELF_R_SYM(rel.r_info), 0};
      }
      list.push_back(relocation);
    }
    std::sort(list.begin(), list.end(), [](const Relocation& a, const Relocation& b) {
      return std::tie(a.offset, a.type, a.symbol, a.addend) <
             std::tie(b.offset, b.type, b.symbol, b.addend);
    });
  }
};

// Hashes one function's closure: a stream of tagged fields into one running hash.
class FunctionHasher {
 public:
  explicit FunctionHasher(const Cubin& cubin) : cubin_(cubin) {}

  uint64_t Hash(size_t text_section) {
    Mix(cubin_.machine_flags);
    AddText(text_section);
    // What the machine code reaches without a relocation: the module-wide constant banks, and
    // what their own relocations point at (the address table of bank 4 in whole-program code).
    for (size_t bank : cubin_.module_banks) AddData(bank, 0, 0, true);
    return hash_;
  }

 private:
  void Mix(uint64_t value) { hash_ = HashBytes(&value, sizeof value, hash_); }
  void Mix(const std::string& text) { hash_ = HashBytes(text.data(), text.size(), hash_); }
  void Mix(const unsigned char* bytes, size_t size) { hash_ = HashBytes(bytes, size, hash_); }

  // A function's .text section: its bytes, the functions defined in it (the kernel and the
  // device functions whole-program compilation copied into it), its .nv.info entries, the
  // sections that belong to it (.nv.constant0.<f> parameter bank, .nv.shared.<f> static shared
  // memory, a literal bank .nv.constant2.<f>) and everything its relocations reach.
  void AddText(size_t index) {
    if (!sections_done_.insert(index).second) return;
    const Section& text = cubin_.sections[index];
    Mix("text");
    Mix(text.name);
    Mix(text.header.sh_flags);
    Mix(text.header.sh_addralign);
    Mix(text.size);
    Mix(text.bytes, text.bytes != nullptr ? text.size : 0);
    for (size_t s : Lookup(cubin_.functions_in, index)) {
      Mix(cubin_.symbols[s].name);
      Mix(cubin_.symbols[s].sym.st_value);
      Mix(cubin_.symbols[s].sym.st_size);
      Mix(uint64_t{cubin_.symbols[s].sym.st_other});
    }
    // The module-wide .nv.info's entries about these functions: register count, frame and
    // stack sizes ({u32 symbol, u32 value}, the symbol by its name).
    for (size_t s : Lookup(cubin_.functions_in, index)) {
      for (size_t e : Lookup(cubin_.info_about, s)) {
        const InfoEntry& entry = cubin_.module_info[e];
        Mix(uint64_t{entry.attribute});
        Mix(cubin_.symbols[s].name);
        Mix(entry.payload + 4, entry.size - 4);
      }
    }
    for (size_t s : Lookup(cubin_.linked_to, index)) {
      if (StartsWith(cubin_.sections[s].name, ".nv.info."))
        AddInfo(cubin_.sections[s]);
      else
        AddData(s, 0, 0, true);
    }
    AddRelocations(index, 0, UINT64_MAX);
  }

  // A function's own .nv.info: parameter layout (KPARAM_INFO), maximum registers, exit
  // offsets, the parameter bank's size; symbol indices replaced by names.
  void AddInfo(const Section& section) {
    Mix("info");
    for (const InfoEntry& entry : ParseInfo(section)) {
      Mix(uint64_t{entry.format} << 8 | entry.attribute);
      Mix(entry.size);
      size_t names = 0;
      if (entry.format == kFormatSval && entry.attribute == kAttrParamCbank) names = 1;
      if (entry.format == kFormatSval && entry.attribute == kAttrExterns) names = entry.size / 4;
      names = std::min(names, entry.size / 4);
      for (size_t i = 0; i < names; ++i) Mix(SymbolName(Load32(entry.payload + 4 * i)));
      Mix(entry.payload + 4 * names, entry.size - 4 * names);
    }
  }

  // The relocations of section `index` at offsets in [begin, end): type, place, addend and
  // the symbol (by name), then what the symbol is.
  void AddRelocations(size_t index, uint64_t begin, uint64_t end) {
    const auto found = cubin_.relocations.find(index);
    if (found == cubin_.relocations.end()) return;
    for (const Relocation& relocation : found->second) {
      if (relocation.offset < begin || relocation.offset >= end) continue;
      Mix("reloc");
      Mix(relocation.offset - begin);
      Mix(relocation.type);
      Mix(static_cast<uint64_t>(relocation.addend));
      AddSymbol(relocation.symbol);
    }
  }

  void AddSymbol(size_t index) {
    Mix(SymbolName(index));
    if (index >= cubin_.symbols.size()) return;
    const GElf_Sym& sym = cubin_.symbols[index].sym;
    Mix(uint64_t{GELF_ST_TYPE(sym.st_info)});
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= cubin_.sections.size()) {
      Mix("undefined");  // resolved by the driver (vprintf, malloc): its name is what counts
      return;
    }
    const Section& section = cubin_.sections[sym.st_shndx];
    if ((section.header.sh_flags & SHF_EXECINSTR) != 0) {
      AddText(sym.st_shndx);
    } else if (GELF_ST_TYPE(sym.st_info) == STT_SECTION) {
      AddData(sym.st_shndx, 0, 0, true);
    } else {
      AddData(sym.st_shndx, sym.st_value, sym.st_size, false);
    }
  }

  // Initialised data: the slice [offset, offset + size) of a section (or all of it), its
  // relocations within the slice followed; of an uninitialised (NOBITS) one only the size.
  void AddData(size_t index, uint64_t offset, uint64_t size, bool whole) {
    const Section& section = cubin_.sections[index];
    if (whole) {
      offset = 0;
      size = section.header.sh_size;
    }
    if (!data_done_.insert({index, offset, size}).second) return;
    Mix("data");
    Mix(section.name);
    Mix(uint64_t{section.header.sh_type});
    Mix(size);
    if (section.bytes != nullptr) {
      const uint64_t begin = std::min<uint64_t>(offset, section.size);
      const uint64_t end = std::min<uint64_t>(offset + size, section.size);
      Mix(section.bytes + begin, end - begin);
    }
    AddRelocations(index, offset, whole ? UINT64_MAX : offset + size);
  }

  static const std::vector<size_t>& Lookup(const std::map<size_t, std::vector<size_t>>& index,
                                           size_t key) {
    static const std::vector<size_t> kNone;
    const auto found = index.find(key);
    return found == index.end() ? kNone : found->second;
  }

  std::string SymbolName(size_t index) const {
    if (index >= cubin_.symbols.size()) return "<symbol " + std::to_string(index) + ">";
    return cubin_.symbols[index].name;
  }

  const Cubin& cubin_;
  uint64_t hash_ = 0;
  std::set<size_t> sections_done_;
  std::set<std::tuple<size_t, uint64_t, uint64_t>> data_done_;
};

// What a non-cubin image is, for the error.
std::string DescribeImage(const unsigned char* bytes, size_t size) {
  if (size >= 4 && Load32(bytes) == kFatbinMagic)
    return "a fatbin (magic 0xBA55ED50), not a cubin: the cubin for the GPU is inside it";
  const std::string head(reinterpret_cast<const char*>(bytes), std::min<size_t>(size, 4096));
  if (head.find(".version") != std::string::npos || head.find(".target") != std::string::npos)
    return "PTX text, not a cubin: the driver compiles it, so there is no machine code to hash";
  char first[40] = "";
  const size_t n = std::min<size_t>(size, 8);
  for (size_t i = 0; i < n; ++i)
    std::snprintf(first + 3 * i, sizeof first - 3 * i, "%02x ", bytes[i]);
  return "not a cubin (no ELF magic; " + std::to_string(size) + " bytes, starting " +
         (n > 0 ? std::string(first, 3 * n - 1) : std::string("<empty>")) + ")";
}

}  // namespace

Result<CubinFunctions> HashCubinFunctions(const void* image, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (image == nullptr || size < 4 || std::memcmp(bytes, ELFMAG, SELFMAG) != 0)
    return Status::InvalidInput(DescribeImage(bytes, image == nullptr ? 0 : size));
  static const bool libelf_ready = elf_version(EV_CURRENT) != EV_NONE;
  if (!libelf_ready) return Status::Error("libelf refused EV_CURRENT");
  Cubin cubin;
  GPUBENCH_RETURN_IF_ERROR(cubin.Read(image, size));
  CubinFunctions functions;
  for (const Symbol& symbol : cubin.symbols) {
    const GElf_Sym& sym = symbol.sym;
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
        sym.st_shndx >= cubin.sections.size())
      continue;
    // A function of its own section; the device functions copied into a kernel's section
    // ($kernel$function) are part of that kernel.
    if (cubin.sections[sym.st_shndx].name != ".text." + symbol.name) continue;
    functions.code_hash[symbol.name] = FunctionHasher(cubin).Hash(sym.st_shndx);
  }
  return functions;
}

// ---------------------------------------------------------------------------------------------
// Argument bytes

std::string CanonicalArguments(const std::vector<ParamSlice>& params, const uint8_t* bytes,
                               AllocationLookup& lookup) {
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  for (size_t p = 0; p < params.size(); ++p) {
    if (p > 0) text += ',';
    const ParamSlice& param = params[p];
    size_t i = 0;
    while (i < param.size) {
      const size_t at = param.offset + i;
      if (at % 8 == 0 && i + 8 <= param.size) {
        uint64_t word;
        std::memcpy(&word, bytes + at, sizeof word);
        uint64_t base = 0;
        uint64_t alloc_size = 0;
        if (word != 0 && lookup.Find(word, &base, &alloc_size)) {
          text += "(alloc " + std::to_string(alloc_size) + " +" + std::to_string(word - base) + ")";
          i += 8;
          continue;
        }
      }
      text += kHex[bytes[at] >> 4];
      text += kHex[bytes[at] & 15];
      ++i;
    }
  }
  return text;
}

}  // namespace gpubench::detail
