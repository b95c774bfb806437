// Writes a large synthetic Google Benchmark JSON file shaped like gpubench
// output (context with settings fingerprint, per-repetition rows, mean /
// median / stddev / cv aggregates, gpubench counters) for timing
// gpubench-compare. Deterministic for a given seed.
//
// usage: generate_compare_input OUT.json [--benchmarks N] [--repetitions R]
//                               [--seed S] [--slowdown FACTOR]
//                               [--counters 0-4|gpubench]
//
// --counters 0-4 writes that many of four gpubench counters per row (the
// original, simplified rows). --counters gpubench (or 12) writes rows as the
// library does: its 12 counters per row (bytes_moved, bytes_per_second or
// items_per_second, dram_bandwidth, dram_bandwidth_pct, dram_read_bytes,
// dram_write_bytes, gpu_duration, profile_passes, profiled_sm_clock_mhz,
// sm_clock_mhz, sm_clock_rated_mhz, sm_clock_throttled) in GB's order, with
// realistic magnitudes, times in ns, aggregates computed from the repetitions
// as GB does (the cv row of an all-zero counter is a bare NaN, as GB writes
// it) and a context like a real H200 run's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string out_path;
  int benchmarks = 10000;
  int repetitions = 10;
  unsigned seed = 1;
  double slowdown = 1.0;  // multiplies every time of every 10th benchmark
  int counters = 4;       // how many gpubench counters each row carries
  bool gpubench = false;  // rows exactly like the library's (12 counters)
};

bool ParseArgs(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--benchmarks" && has_value) {
      options->benchmarks = std::atoi(argv[++i]);
    } else if (arg == "--repetitions" && has_value) {
      options->repetitions = std::atoi(argv[++i]);
    } else if (arg == "--seed" && has_value) {
      options->seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (arg == "--counters" && has_value) {
      const std::string value = argv[++i];
      options->gpubench = value == "gpubench" || value == "12";
      options->counters = options->gpubench ? 12 : std::atoi(value.c_str());
    } else if (arg == "--slowdown" && has_value) {
      options->slowdown = std::atof(argv[++i]);
    } else if (!arg.empty() && arg[0] != '-' && options->out_path.empty()) {
      options->out_path = arg;
    } else {
      return false;
    }
  }
  return !options->out_path.empty() && options->benchmarks > 0 && options->repetitions > 0 &&
         (options->gpubench || (options->counters >= 0 && options->counters <= 4));
}

// The name of benchmark `b`, and the factor its times get (every tenth benchmark is slower).
std::string RunName(int b) {
  return "BM_Kernel" + std::to_string(b % 97) + "/" + std::to_string(b) + "/manual_time";
}
double Slowdown(const Options& options, int b) { return b % 10 == 0 ? options.slowdown : 1.0; }

struct Values {
  double real_time_us, cpu_time_us, dram_read_bytes, dram_write_bytes, dram_bandwidth, sm_clock_mhz;
};

// GB's run_type, repetition and iteration fields of an iteration or aggregate row.
void WriteRunFields(std::FILE* out, int repetitions, int repetition_index, long long iterations,
                    const char* aggregate_name) {
  if (aggregate_name) {
    const bool percentage = std::strcmp(aggregate_name, "cv") == 0;
    std::fprintf(out,
                 "      \"run_type\": \"aggregate\",\n      \"repetitions\": %d,\n"
                 "      \"threads\": 1,\n      \"aggregate_name\": \"%s\",\n"
                 "      \"aggregate_unit\": \"%s\",\n      \"iterations\": %d,\n",
                 repetitions, aggregate_name, percentage ? "percentage" : "time", repetitions);
  } else {
    std::fprintf(out,
                 "      \"run_type\": \"iteration\",\n      \"repetitions\": %d,\n"
                 "      \"repetition_index\": %d,\n      \"threads\": 1,\n"
                 "      \"iterations\": %lld,\n",
                 repetitions, repetition_index, iterations);
  }
}

void WriteRow(std::FILE* out, const std::string& name, int family, const std::string& run_name,
              int repetitions, int repetition_index, const char* aggregate_name, int counters,
              const Values& v, bool* first) {
  std::fprintf(out, "%s    {\n", *first ? "" : ",\n");
  *first = false;
  std::fprintf(out,
               "      \"name\": \"%s\",\n      \"family_index\": %d,\n"
               "      \"per_family_instance_index\": 0,\n      \"run_name\": \"%s\",\n",
               name.c_str(), family, run_name.c_str());
  WriteRunFields(out, repetitions, repetition_index, 1000, aggregate_name);
  std::fprintf(out,
               "      \"real_time\": %.16e,\n      \"cpu_time\": %.16e,\n"
               "      \"time_unit\": \"us\"",
               v.real_time_us, v.cpu_time_us);
  const char* const names[] = {"dram_bandwidth", "dram_read_bytes", "dram_write_bytes",
                               "sm_clock_mhz"};
  const double values[] = {v.dram_bandwidth, v.dram_read_bytes, v.dram_write_bytes, v.sm_clock_mhz};
  for (int c = 0; c < counters; ++c) {
    std::fprintf(out, ",\n      \"%s\": %.16e", names[c], values[c]);
  }
  std::fprintf(out, "\n    }");
}

// --- rows as the gpubench library writes them (--counters gpubench) ---------

// GB writes user counters in name order (std::map); every benchmark carries
// either bytes_per_second or items_per_second, so each row has 12 counters.
enum GpubenchCounter {
  kBytesMoved,
  kRate,  // bytes_per_second or items_per_second
  kDramBandwidth,
  kDramBandwidthPct,
  kDramReadBytes,
  kDramWriteBytes,
  kGpuDuration,
  kProfilePasses,
  kProfiledSmClockMhz,
  kSmClockMhz,
  kSmClockRatedMhz,
  kSmClockThrottled,
  kGpubenchCounterCount
};

struct GpubenchValues {
  double real_time_ns = 0, cpu_time_ns = 0;
  double counters[kGpubenchCounterCount] = {};
};

// GB's JSON number format: NaN/Infinity bare, otherwise "%.16e".
void WriteNumber(std::FILE* out, double value) {
  if (std::isnan(value)) {
    std::fputs("NaN", out);  // GB's "value < 0 ? -" is false for NaN
  } else if (std::isinf(value)) {
    std::fputs(value < 0 ? "-Infinity" : "Infinity", out);
  } else {
    std::fprintf(out, "%.16e", value);
  }
}

void WriteGpubenchRow(std::FILE* out, const std::string& run_name, int family, int repetitions,
                      int repetition_index, long long iterations, const char* aggregate_name,
                      bool items_rate, const GpubenchValues& v, bool* first) {
  std::fprintf(out, "%s    {\n", *first ? "" : ",\n");
  *first = false;
  std::fprintf(out,
               "      \"name\": \"%s%s%s\",\n      \"family_index\": %d,\n"
               "      \"per_family_instance_index\": 0,\n      \"run_name\": \"%s\",\n",
               run_name.c_str(), aggregate_name ? "_" : "", aggregate_name ? aggregate_name : "",
               family, run_name.c_str());
  WriteRunFields(out, repetitions, repetition_index, iterations, aggregate_name);
  std::fputs("      \"real_time\": ", out);
  WriteNumber(out, v.real_time_ns);
  std::fputs(",\n      \"cpu_time\": ", out);
  WriteNumber(out, v.cpu_time_ns);
  std::fputs(",\n      \"time_unit\": \"ns\"", out);
  const char* const names[kGpubenchCounterCount] = {
      "bytes_moved",           items_rate ? "items_per_second" : "bytes_per_second",
      "dram_bandwidth",        "dram_bandwidth_pct",
      "dram_read_bytes",       "dram_write_bytes",
      "gpu_duration",          "profile_passes",
      "profiled_sm_clock_mhz", "sm_clock_mhz",
      "sm_clock_rated_mhz",    "sm_clock_throttled"};
  // items_per_second sorts after gpu_duration; bytes_per_second after bytes_moved.
  int order[kGpubenchCounterCount];
  for (int c = 0, k = 0; c < kGpubenchCounterCount; ++c) {
    if (c == kRate && items_rate) continue;
    order[k++] = c;
    if (c == kGpuDuration && items_rate) order[k++] = kRate;
  }
  for (int c : order) {
    std::fprintf(out, ",\n      \"%s\": ", names[c]);
    WriteNumber(out, v.counters[c]);
  }
  std::fputs("\n    }", out);
}

// GB's statistics over the repetitions: mean, median, sample stddev, cv.
double Mean(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v;
  return sum / static_cast<double>(x.size());
}
double MedianOf(const std::vector<double>& values) {
  std::vector<double> x = values;
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 == 1 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}
double StdDev(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  const double mean = Mean(x);
  double sum = 0;
  for (double v : x) sum += (v - mean) * (v - mean);
  return std::sqrt(sum / static_cast<double>(x.size() - 1));
}
double Cv(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  return StdDev(x) / Mean(x);  // 0 / 0 is NaN, as in GB's output
}

void WriteGpubenchContext(std::FILE* out) {
  std::fputs(
      "{\n  \"context\": {\n    \"date\": \"2024-01-01T00:00:00+00:00\",\n"
      "    \"host_name\": \"generator\",\n    \"executable\": \"./generated\",\n"
      "    \"num_cpus\": 16,\n    \"mhz_per_cpu\": 2100,\n"
      "    \"cpu_scaling_enabled\": false,\n    \"caches\": [\n"
      "      {\n        \"type\": \"Data\",\n        \"level\": 1,\n"
      "        \"size\": 49152,\n        \"num_sharing\": 1\n      },\n"
      "      {\n        \"type\": \"Unified\",\n        \"level\": 2,\n"
      "        \"size\": 2097152,\n        \"num_sharing\": 1\n      }\n    ],\n"
      "    \"load_avg\": [0.77832,0.846191,0.501953],\n"
      "    \"library_build_type\": \"release\",\n"
      "    \"cuda_cupti_api_version\": \"130001\",\n"
      "    \"cuda_driver_version\": \"13.0\",\n    \"cuda_runtime_version\": \"13.0\",\n"
      "    \"gpu_compute_capability\": \"9.0\",\n"
      "    \"gpu_dram_bandwidth_theoretical_bytes_per_second\": \"4814304000000\",\n"
      "    \"gpu_ecc\": \"on\",\n    \"gpu_l2_bytes\": \"62914560\",\n"
      "    \"gpu_memory_bus_width_bits\": \"6016\",\n"
      "    \"gpu_memory_clock_rated_mhz\": \"3201\",\n    \"gpu_name\": \"NVIDIA H200\",\n"
      "    \"gpu_pci_bus_id\": \"0000:00:06.0\",\n    \"gpu_sm_clock_rated_mhz\": \"1980\",\n"
      "    \"gpu_sm_count\": \"132\",\n    \"gpu_status\": \"ok\",\n"
      "    \"gpubench_cache\": \"flush\",\n    \"gpubench_clock_control\": \"none\",\n"
      "    \"gpubench_device\": \"0\",\n"
      "    \"gpubench_fingerprint_keys\": \"gpubench_method_version,gpubench_timer,"
      "gpubench_cache,gpubench_flush_method,gpubench_clock_control,gpubench_profiling,"
      "gpubench_metrics\",\n"
      "    \"gpubench_flush_method\": \"l2_read_evict\",\n"
      "    \"gpubench_method_version\": \"1\",\n"
      "    \"gpubench_metrics\": \"dram__bytes_read.sum,dram__bytes_write.sum,"
      "gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second\",\n"
      "    \"gpubench_profile_iterations\": \"3\",\n"
      "    \"gpubench_profile_runs\": \"reported\",\n"
      "    \"gpubench_profiling\": \"on\",\n"
      "    \"gpubench_settings_fingerprint\": \"b4318ba04f6a40f1\",\n"
      "    \"gpubench_timer\": \"events\",\n    \"gpubench_version\": \"0.1.0\",\n"
      "    \"gpubench_warmup_iterations\": \"1\"\n  },\n"
      "  \"benchmarks\": [\n",
      out);
}

void WriteGpubenchFile(std::FILE* out, const Options& options) {
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> noise(1.0, 0.01);
  std::normal_distribution<double> clock_noise(1.0, 0.0005);
  std::uniform_real_distribution<double> extra(0.0, 1.0);
  constexpr double kTheoreticalBandwidth = 4.814304e12;  // H200, bytes/s
  WriteGpubenchContext(out);
  bool first = true;
  const int reps = options.repetitions;
  for (int b = 0; b < options.benchmarks; ++b) {
    const std::string run_name = RunName(b);
    const double slow = Slowdown(options, b);
    const double base_ns = (5e3 + 997.0 * (b % 1000)) * slow;
    const double bytes = 4096.0 * (1 + b % 4096);
    const bool read_only = b % 4 == 1;  // writes nothing: dram_write_bytes is 0
    const bool items_rate = b % 2 == 1;
    const long long iterations = std::max(1LL, static_cast<long long>(2e8 / base_ns));
    std::vector<GpubenchValues> rows(static_cast<std::size_t>(reps));
    for (int r = 0; r < reps; ++r) {
      GpubenchValues& v = rows[static_cast<std::size_t>(r)];
      v.real_time_ns = base_ns * noise(rng);
      v.cpu_time_ns = v.real_time_ns * 1.4 + 2.3e4 * noise(rng);
      double* c = v.counters;
      // Profiled counters are averaged over 3 profiled iterations of 32-byte
      // sectors, and vary a little between repetitions.
      auto profiled_bytes = [&](double nominal) {
        return std::round((nominal + nominal * 1e-3 * extra(rng)) * 3 / 32) * 32 / 3;
      };
      c[kDramReadBytes] = profiled_bytes(bytes);
      c[kDramWriteBytes] = read_only ? 0 : profiled_bytes(bytes / 2);
      c[kBytesMoved] = c[kDramReadBytes] + c[kDramWriteBytes];
      c[kGpuDuration] = v.real_time_ns * 0.985e-9 * noise(rng);
      c[kDramBandwidth] = c[kBytesMoved] / c[kGpuDuration];
      c[kDramBandwidthPct] = c[kDramBandwidth] / kTheoreticalBandwidth * 100;
      c[kRate] = items_rate ? bytes / 4 / (v.real_time_ns * 1e-9)
                            : (bytes + (read_only ? 0 : bytes / 2)) / (v.real_time_ns * 1e-9);
      c[kProfilePasses] = 1;
      c[kProfiledSmClockMhz] = 1976.0 * clock_noise(rng);
      c[kSmClockMhz] = 1977.0 * clock_noise(rng);
      c[kSmClockRatedMhz] = 1980;
      c[kSmClockThrottled] = 0;
      WriteGpubenchRow(out, run_name, b, reps, r, iterations, nullptr, items_rate, v, &first);
    }
    double (*const statistics[])(const std::vector<double>&) = {Mean, MedianOf, StdDev, Cv};
    const char* const aggregate_names[] = {"mean", "median", "stddev", "cv"};
    for (int s = 0; s < 4; ++s) {
      GpubenchValues aggregate;
      std::vector<double> x(static_cast<std::size_t>(reps));
      auto column = [&](auto get) {
        for (int r = 0; r < reps; ++r) x[static_cast<std::size_t>(r)] = get(rows[r]);
        return statistics[s](x);
      };
      aggregate.real_time_ns = column([](const GpubenchValues& v) { return v.real_time_ns; });
      aggregate.cpu_time_ns = column([](const GpubenchValues& v) { return v.cpu_time_ns; });
      for (int c = 0; c < kGpubenchCounterCount; ++c) {
        aggregate.counters[c] = column([c](const GpubenchValues& v) { return v.counters[c]; });
      }
      WriteGpubenchRow(out, run_name, b, reps, 0, 0, aggregate_names[s], items_rate, aggregate,
                       &first);
    }
  }
  std::fprintf(out, "\n  ]\n}\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseArgs(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s OUT.json [--benchmarks N] [--repetitions R] [--seed S] "
                 "[--slowdown FACTOR] [--counters 0-4|gpubench]\n",
                 argv[0]);
    return 2;
  }
  std::FILE* out = std::fopen(options.out_path.c_str(), "wb");
  if (!out) {
    std::perror(options.out_path.c_str());
    return 2;
  }
  if (options.gpubench) {
    WriteGpubenchFile(out, options);
    if (std::fclose(out) != 0) {
      std::perror(options.out_path.c_str());
      return 2;
    }
    return 0;
  }
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> noise(1.0, 0.01);
  std::fprintf(out,
               "{\n  \"context\": {\n    \"date\": \"2024-01-01T00:00:00+00:00\",\n"
               "    \"host_name\": \"generator\",\n    \"executable\": \"./generated\",\n"
               "    \"num_cpus\": 16,\n    \"mhz_per_cpu\": 3000,\n"
               "    \"cpu_scaling_enabled\": false,\n    \"caches\": [\n    ],\n"
               "    \"load_avg\": [0.1,0.1,0.1],\n    \"library_build_type\": \"release\",\n"
               "    \"gpu_name\": \"NVIDIA H100 80GB HBM3\",\n"
               "    \"cuda_driver_version\": \"12.4\",\n"
               "    \"gpubench_fingerprint_keys\": \"gpubench_timer,gpubench_cache\",\n"
               "    \"gpubench_timer\": \"cuda_event\",\n    \"gpubench_cache\": \"flush\",\n"
               "    \"gpubench_settings_fingerprint\": \"0123456789abcdef\"\n  },\n"
               "  \"benchmarks\": [\n");
  bool first = true;
  const int reps = options.repetitions;
  for (int b = 0; b < options.benchmarks; ++b) {
    const std::string run_name = RunName(b);
    const double slow = Slowdown(options, b);
    const double base_us = (10.0 + b % 1000) * slow;
    const double bytes = 4096.0 * (1 + b % 4096);
    std::vector<Values> rows;
    for (int r = 0; r < reps; ++r) {
      Values v;
      v.real_time_us = base_us * noise(rng);
      v.cpu_time_us = v.real_time_us * 1.02;
      v.dram_read_bytes = bytes;
      v.dram_write_bytes = bytes / 2;
      v.dram_bandwidth = (bytes * 1.5) / (v.real_time_us * 1e-6);
      v.sm_clock_mhz = 1980;
      rows.push_back(v);
      WriteRow(out, run_name, b, run_name, reps, r, nullptr, options.counters, v, &first);
    }
    Values mean{}, median{}, stddev{}, cv{};
    for (const Values& v : rows) mean.real_time_us += v.real_time_us / reps;
    std::vector<double> sorted;
    for (const Values& v : rows) sorted.push_back(v.real_time_us);
    std::sort(sorted.begin(), sorted.end());
    median = rows[0];
    median.real_time_us = sorted[sorted.size() / 2];
    for (const Values& v : rows) {
      stddev.real_time_us += (v.real_time_us - mean.real_time_us) *
                             (v.real_time_us - mean.real_time_us) / std::max(1, reps - 1);
    }
    stddev.real_time_us = std::sqrt(stddev.real_time_us);
    cv.real_time_us = stddev.real_time_us / mean.real_time_us;
    mean = Values{mean.real_time_us, mean.real_time_us * 1.02, bytes, bytes / 2, 0, 1980};
    WriteRow(out, run_name + "_mean", b, run_name, reps, 0, "mean", options.counters, mean, &first);
    WriteRow(out, run_name + "_median", b, run_name, reps, 0, "median", options.counters, median,
             &first);
    WriteRow(out, run_name + "_stddev", b, run_name, reps, 0, "stddev", options.counters, stddev,
             &first);
    WriteRow(out, run_name + "_cv", b, run_name, reps, 0, "cv", options.counters, cv, &first);
  }
  std::fprintf(out, "\n  ]\n}\n");
  if (std::fclose(out) != 0) {
    std::perror(options.out_path.c_str());
    return 2;
  }
  return 0;
}
