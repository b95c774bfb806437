// expect: compiles
// The control of init_result_must_be_used: README's own-main recipe, the result checked.
#include "gpubench/main.hpp"

int main(int argc, char** argv) {
  const gpubench::InitResult init = gpubench::Initialize(&argc, argv);
  if (!init.run_benchmarks) return init.exit_code;
  return 0;
}
