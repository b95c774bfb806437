# Builds and runs tests/consumer against gpubench. MODE=package installs BUILD_DIR into a
# prefix and uses find_package; MODE=subdirectory uses add_subdirectory(SOURCE_DIR);
# MODE=pkgconfig installs into a prefix and builds tests/consumer/pkgconfig with its Makefile,
# which takes the flags from pkg-config --cflags --libs gpubench (PKG_CONFIG_PATH: the prefix's
# INSTALL_LIBDIR/pkgconfig and BENCHMARK_PC_DIR, where GB's benchmark.pc is).
# The consumer must build, run (exit code 0, with or without a GPU) and write gpubench's context.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix_path "$ENV{CMAKE_PREFIX_PATH}")
if(CMAKE_PREFIX_PATH)
  string(REPLACE ";" ":" from_cache "${CMAKE_PREFIX_PATH}")
  set(prefix_path "${from_cache}:${prefix_path}")
endif()

if(MODE STREQUAL "package" OR MODE STREQUAL "pkgconfig")
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
  endif()
  set(prefix_path "${WORK_DIR}/prefix:${prefix_path}")
endif()
set(ENV{CMAKE_PREFIX_PATH} "${prefix_path}")

if(MODE STREQUAL "pkgconfig")
  find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
  find_program(MAKE_EXECUTABLE NAMES make gmake)
  if(NOT PKG_CONFIG_EXECUTABLE OR NOT MAKE_EXECUTABLE)
    message(FATAL_ERROR "the pkg-config consumer needs pkg-config and make (Debian: apt-get "
                        "install pkg-config make)")
  endif()
  set(pc_path "${WORK_DIR}/prefix/${INSTALL_LIBDIR}/pkgconfig")
  if(BENCHMARK_PC_DIR)
    string(APPEND pc_path ":${BENCHMARK_PC_DIR}")
  endif()
  if(DEFINED ENV{PKG_CONFIG_PATH})
    string(APPEND pc_path ":$ENV{PKG_CONFIG_PATH}")
  endif()
  set(ENV{PKG_CONFIG_PATH} "${pc_path}")
  execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --cflags --libs gpubench
                  OUTPUT_VARIABLE flags RESULT_VARIABLE rc)
  message(STATUS "PKG_CONFIG_PATH=${pc_path}\npkg-config --cflags --libs gpubench: ${flags}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs gpubench failed (${rc})")
  endif()
  file(COPY ${SOURCE_DIR}/tests/consumer/pkgconfig/Makefile
            ${SOURCE_DIR}/tests/consumer/pkgconfig/consumer.cpp
       DESTINATION ${WORK_DIR}/build)
  execute_process(COMMAND ${MAKE_EXECUTABLE} -C ${WORK_DIR}/build RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building the pkgconfig consumer with make failed (${rc})")
  endif()
  set(expected_name "BM_Memset/1048576")
else()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${WORK_DIR}/build
            -DGPUBENCH_CONSUMER_MODE=${MODE} -DGPUBENCH_SOURCE_DIR=${SOURCE_DIR}
            -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES} -DCMAKE_BUILD_TYPE=Release
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring the ${MODE} consumer failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j 2 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building the ${MODE} consumer failed (${rc})")
  endif()
  set(expected_name "BM_Increment/1048576")
endif()
execute_process(
  COMMAND ${WORK_DIR}/build/consumer --benchmark_min_time=0.01
          --benchmark_out=${WORK_DIR}/out.json --benchmark_out_format=json
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the ${MODE} consumer exited with ${rc}")
endif()
file(READ ${WORK_DIR}/out.json json)
string(JSON fingerprint ERROR_VARIABLE json_error GET "${json}" context
       gpubench_settings_fingerprint)
string(JSON name ERROR_VARIABLE name_error GET "${json}" benchmarks 0 name)
if(json_error OR name_error OR NOT name MATCHES "^${expected_name}")
  message(FATAL_ERROR "consumer JSON lacks gpubench's context or the benchmark: ${json_error}"
                      " ${name_error}")
endif()
message(STATUS "${MODE} consumer OK: fingerprint ${fingerprint}, benchmark ${name}")
