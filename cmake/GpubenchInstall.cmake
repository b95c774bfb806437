# Install rules: headers, the library and a CMake package so that consumers can write
# find_package(gpubench CONFIG) and link gpubench::gpubench.
include(CMakePackageConfigHelpers)

install(TARGETS gpubench EXPORT gpubenchTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpubench DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(GPUBENCH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpubench)
install(EXPORT gpubenchTargets NAMESPACE gpubench:: DESTINATION ${GPUBENCH_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpubenchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gpubenchConfig.cmake INSTALL_DESTINATION ${GPUBENCH_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpubenchConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpubenchConfig.cmake
  ${PROJECT_BINARY_DIR}/gpubenchConfigVersion.cmake ${PROJECT_SOURCE_DIR}/cmake/FindLibElf.cmake
  DESTINATION ${GPUBENCH_CMAKE_DIR})

# pkg-config: gpubench.pc beside the CMake package, for builds without CMake, e.g. a Makefile:
#   c++ -std=c++17 my_bench.cpp $(pkg-config --cflags --libs gpubench)
# It names the CUDA runtime (and, for a static libgpubench, CUPTI and libelf) where this build
# found them.
# GB comes through `Requires: benchmark` when the GB gpubench was built against has a
# benchmark.pc (Debian's package and GB's own install both ship one; a GB in a prefix of its
# own then needs that prefix's lib/pkgconfig in PKG_CONFIG_PATH); otherwise its directories are
# written here.
get_target_property(_gpubench_type gpubench TYPE)
get_target_property(_gpubench_gb_location benchmark::benchmark LOCATION)
get_filename_component(_gpubench_gb_libdir "${_gpubench_gb_location}" DIRECTORY)
get_target_property(_gpubench_cupti_location CUDA::cupti LOCATION)
get_filename_component(_gpubench_cupti_libdir "${_gpubench_cupti_location}" DIRECTORY)
set(GPUBENCH_PC_CUDA_LIBDIR "${CUDAToolkit_LIBRARY_DIR}")
list(GET CUDAToolkit_INCLUDE_DIRS 0 GPUBENCH_PC_CUDA_INCLUDEDIR)
set(GPUBENCH_PC_LIBS "")
set(GPUBENCH_PC_CFLAGS "")
if(EXISTS "${_gpubench_gb_libdir}/pkgconfig/benchmark.pc")
  set(GPUBENCH_PC_REQUIRES "benchmark")
else()
  set(GPUBENCH_PC_REQUIRES "")
  string(APPEND GPUBENCH_PC_LIBS "-L${_gpubench_gb_libdir} -lbenchmark ")
  get_target_property(_gpubench_gb_includes benchmark::benchmark INTERFACE_INCLUDE_DIRECTORIES)
  foreach(_dir IN LISTS _gpubench_gb_includes)
    string(APPEND GPUBENCH_PC_CFLAGS "-I${_dir} ")
  endforeach()
endif()
# A static libgpubench leaves its private dependencies, CUPTI and libelf, to the final link.
set(_gpubench_private_libs "-lcupti")
if(NOT _gpubench_cupti_libdir STREQUAL CUDAToolkit_LIBRARY_DIR)
  set(_gpubench_private_libs "-L${_gpubench_cupti_libdir} -lcupti")
endif()
get_filename_component(_gpubench_elf_libdir "${LibElf_LIBRARY}" DIRECTORY)
string(APPEND _gpubench_private_libs " -L${_gpubench_elf_libdir} -lelf")
string(APPEND GPUBENCH_PC_LIBS "-L\${cudalibdir} ")
if(_gpubench_type STREQUAL "STATIC_LIBRARY")
  string(APPEND GPUBENCH_PC_LIBS "${_gpubench_private_libs} ")
  set(GPUBENCH_PC_LIBS_PRIVATE "")
else()
  set(GPUBENCH_PC_LIBS_PRIVATE "${_gpubench_private_libs}")
endif()
string(APPEND GPUBENCH_PC_LIBS "-lcudart")
# The prefix is the one the install uses (cmake --install --prefix), known only then.
set(GPUBENCH_PC_PREFIX "@GPUBENCH_PC_PREFIX@")
foreach(_kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_kind}}")
    set(GPUBENCH_PC_${_kind} "${CMAKE_INSTALL_${_kind}}")
  else()
    set(GPUBENCH_PC_${_kind} "\${prefix}/${CMAKE_INSTALL_${_kind}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/gpubench.pc.in ${PROJECT_BINARY_DIR}/gpubench.pc.in
  @ONLY)
set(_gpubench_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
install(CODE "
  set(_pc_dir \"${_gpubench_pc_dir}\")
  if(NOT IS_ABSOLUTE \"\${_pc_dir}\")
    set(_pc_dir \"\${CMAKE_INSTALL_PREFIX}/\${_pc_dir}\")
  endif()
  set(_pc_file \"\$ENV{DESTDIR}\${_pc_dir}/gpubench.pc\")
  file(READ \"${PROJECT_BINARY_DIR}/gpubench.pc.in\" _pc)
  string(REPLACE \"@GPUBENCH_PC_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" _pc \"\${_pc}\")
  message(STATUS \"Installing: \${_pc_file}\")
  file(WRITE \"\${_pc_file}\" \"\${_pc}\")
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_pc_file}\")
")
