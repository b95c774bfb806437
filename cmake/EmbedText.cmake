# Writes OUTPUT, a C++ source that defines `const char NAME[]` (namespace NAMESPACE) holding the
# text of INPUT, so that files such as the HTML report's CSS and JavaScript stay real files in the
# source tree. Run with: cmake -DINPUT=... -DOUTPUT=... -DNAME=... -DNAMESPACE=... -P EmbedText.cmake
foreach(variable INPUT OUTPUT NAME NAMESPACE)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "EmbedText.cmake: -D${variable}=... is required")
  endif()
endforeach()
file(READ "${INPUT}" text)
set(delimiter "gpubench_asset")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains )${delimiter}\" and cannot be embedded as a raw string")
endif()
# The raw string starts with a newline, as the literal in the source did before the move.
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/EmbedText.cmake; edit that file, not this one.\n"
  "namespace ${NAMESPACE} {\n"
  "extern const char ${NAME}[];\n"
  "const char ${NAME}[] = R\"${delimiter}(\n${text})${delimiter}\";\n"
  "}  // namespace ${NAMESPACE}\n")
# Only a changed text touches OUTPUT, so an unchanged asset recompiles nothing.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
