# FindLibElf: elfutils' libelf (Debian: libelf-dev), which gpubench reads cubins with
# (src/gpu/plan/work_signature.cpp). Defines LibElf_FOUND, LibElf_INCLUDE_DIR, LibElf_LIBRARY
# and the imported target LibElf::LibElf. Installed beside gpubenchConfig.cmake, so that the
# consumers of a static libgpubench find it again the same way.
find_path(LibElf_INCLUDE_DIR NAMES libelf.h gelf.h PATH_SUFFIXES libelf)
find_library(LibElf_LIBRARY NAMES elf)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibElf REQUIRED_VARS LibElf_LIBRARY LibElf_INCLUDE_DIR)
mark_as_advanced(LibElf_INCLUDE_DIR LibElf_LIBRARY)
if(LibElf_FOUND AND NOT TARGET LibElf::LibElf)
  add_library(LibElf::LibElf UNKNOWN IMPORTED)
  set_target_properties(LibElf::LibElf PROPERTIES
    IMPORTED_LOCATION "${LibElf_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LibElf_INCLUDE_DIR}")
endif()
