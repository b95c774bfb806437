// Writes a large synthetic Google Benchmark JSON file shaped like gpubench
// output (context with settings fingerprint, per-repetition rows, mean /
// median / stddev / cv aggregates, gpubench counters) for timing
// gpubench-compare. Deterministic for a given seed.
//
// usage: generate_compare_input OUT.json [--benchmarks N] [--repetitions R]
//                               [--seed S] [--slowdown FACTOR] [--counters 0-4]
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
      options->counters = std::atoi(argv[++i]);
    } else if (arg == "--slowdown" && has_value) {
      options->slowdown = std::atof(argv[++i]);
    } else if (!arg.empty() && arg[0] != '-' && options->out_path.empty()) {
      options->out_path = arg;
    } else {
      return false;
    }
  }
  return !options->out_path.empty() && options->benchmarks > 0 && options->repetitions > 0 &&
         options->counters >= 0 && options->counters <= 4;
}

struct Values {
  double real_time_us, cpu_time_us, dram_read_bytes, dram_write_bytes, dram_bandwidth, sm_clock_mhz;
};

void WriteRow(std::FILE* out, const std::string& name, int family, const std::string& run_name,
              int repetitions, int repetition_index, const char* aggregate_name, int counters,
              const Values& v, bool* first) {
  std::fprintf(out, "%s    {\n", *first ? "" : ",\n");
  *first = false;
  std::fprintf(out,
               "      \"name\": \"%s\",\n      \"family_index\": %d,\n"
               "      \"per_family_instance_index\": 0,\n      \"run_name\": \"%s\",\n",
               name.c_str(), family, run_name.c_str());
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
                 "      \"iterations\": 1000,\n",
                 repetitions, repetition_index);
  }
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

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseArgs(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s OUT.json [--benchmarks N] [--repetitions R] [--seed S] "
                 "[--slowdown FACTOR] [--counters 0-4]\n",
                 argv[0]);
    return 2;
  }
  std::FILE* out = std::fopen(options.out_path.c_str(), "wb");
  if (!out) {
    std::perror(options.out_path.c_str());
    return 2;
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
    const std::string run_name =
        "BM_Kernel" + std::to_string(b % 97) + "/" + std::to_string(b) + "/manual_time";
    const double slow = b % 10 == 0 ? options.slowdown : 1.0;
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
