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
  ${PROJECT_BINARY_DIR}/gpubenchConfigVersion.cmake DESTINATION ${GPUBENCH_CMAKE_DIR})
