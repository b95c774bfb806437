// expect: ignoring return value.*nodiscard
// A main that drops Initialize's result would run on after a bad --gpubench flag, with exit 0.
#include "gpubench/main.hpp"

int main(int argc, char** argv) {
  gpubench::Initialize(&argc, argv);
  return 0;
}
