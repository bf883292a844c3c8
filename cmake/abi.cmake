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

# The types and signatures of the public API (README, "ABI"): the files that define
# a library's exported functions carry debug information in every build type, so
# that abidw (libabigail) sees each exported function's parameters and the layout
# of every struct they reach; tests/abi compares that with the dump committed in
# tests/abi/<library>.abi. -g changes no generated code.
#
#   dlk_abi_public_sources(<source>...)    from the directory that lists them
function(dlk_abi_public_sources)
  set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS -g)
endfunction()
