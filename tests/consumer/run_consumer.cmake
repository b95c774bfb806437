# Builds and runs tests/consumer against gpubench. MODE=package installs BUILD_DIR into a
# prefix and uses find_package; MODE=subdirectory uses add_subdirectory(SOURCE_DIR).
# The consumer must build, run (exit code 0, with or without a GPU) and write gpubench's context.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix_path "$ENV{CMAKE_PREFIX_PATH}")
if(CMAKE_PREFIX_PATH)
  string(REPLACE ";" ":" from_cache "${CMAKE_PREFIX_PATH}")
  set(prefix_path "${from_cache}:${prefix_path}")
endif()

if(MODE STREQUAL "package")
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
  endif()
  set(prefix_path "${WORK_DIR}/prefix:${prefix_path}")
endif()
set(ENV{CMAKE_PREFIX_PATH} "${prefix_path}")

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
if(json_error OR name_error OR NOT name MATCHES "^BM_Increment/1048576")
  message(FATAL_ERROR "consumer JSON lacks gpubench's context or the benchmark: ${json_error}"
                      " ${name_error}")
endif()
message(STATUS "${MODE} consumer OK: fingerprint ${fingerprint}, benchmark ${name}")
