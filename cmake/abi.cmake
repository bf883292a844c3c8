# The exported ABI of each installed library (docs/architecture.md, "ABI"): the library exports
# only the C symbols its patterns name (a linker version script; no C++ template
# instances leak), and tests/abi compares what it exports, and its SONAME, with
# the list committed in tests/abi/<library>.symbols.
#
#   dlk_library_abi(<target> <pattern>...)      e.g. dlk_library_abi(dlk "dlk_*")
#
# After adding, removing or renaming a public symbol, regenerate the lists in the
# same commit:   cmake --build <build dir> --target abi-update
function(dlk_library_abi target)
  list(JOIN ARGN "; " globals)
  set(map ${PROJECT_BINARY_DIR}/abi/${target}.map)
  file(CONFIGURE OUTPUT ${map} CONTENT "{\n  global: ${globals};\n  local: *;\n};\n")
  target_link_options(${target} PRIVATE -Wl,--version-script=${map})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
  set_property(GLOBAL APPEND PROPERTY DLK_ABI_LIBRARIES ${target})
endfunction()
