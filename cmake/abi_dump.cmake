# cmake -P: the ABI of one shared library as libabigail sees it (exported functions
# and variables, their parameter types, the layout of every struct and the value of
# every enum of the public headers) compared with the committed dump BASELINE, or
# written to it when UPDATE is ON.
#   -D LIBRARY=<.so> -D BASELINE=<.abi> -D HEADERS=<include/dlk> -D ABIDW=<abidw>
#   -D ABIDIFF=<abidiff> [-D UPDATE=ON]
# The policy (docs/abi.md): while a library's SONAME number is 0 its ABI is unstable
# and a deliberate change rewrites the dump (UPDATE); from 1 on, UPDATE refuses an
# incompatible change unless the SONAME number went up with it.
if(NOT ABIDW OR NOT ABIDIFF)
  message(FATAL_ERROR "abidw/abidiff not found: install Debian's abigail-tools "
          "(scripts/run.sh installs it)")
endif()
set(filter --headers-dir ${HEADERS} --drop-private-types)
set(dump_args ${filter} --exported-interfaces-only --drop-undefined-syms --no-show-locs --no-corpus-path --no-comp-dir-path --type-id-style hash)

execute_process(COMMAND ${ABIDW} ${dump_args} ${LIBRARY} OUTPUT_VARIABLE actual RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "abidw failed on ${LIBRARY} (${rc}): ${err}")
endif()
if(NOT actual MATCHES "soname='[^']*\\.so\\.([0-9]+)'")
  message(FATAL_ERROR "${LIBRARY}: abidw found no SONAME")
endif()
set(abi_number ${CMAKE_MATCH_1})
if(NOT actual MATCHES "<function-decl")
  message(FATAL_ERROR "${LIBRARY}: abidw found no function types: the files that define its "
          "exported functions need debug information (dlk_abi_public_sources in cmake/abi.cmake)")
endif()

# abidiff compares the committed dump with one made the same way now. Its exit
# status is a bit set: 4 = some ABI change, 8 = an incompatible one (a removed
# symbol); a moved or resized field is a 4, so the summary's "Removed" and
# "Changed" counts say whether anything but an addition happened.
set(change 0)
set(breaking OFF)
if(EXISTS ${BASELINE})
  get_filename_component(name ${LIBRARY} NAME)
  set(current ${CMAKE_CURRENT_BINARY_DIR}/${name}.abi.now)
  file(WRITE ${current} "${actual}")
  execute_process(COMMAND ${ABIDIFF} ${BASELINE} ${current}
                  OUTPUT_VARIABLE report ERROR_VARIABLE report RESULT_VARIABLE change)
  file(REMOVE ${current})
  if(change GREATER_EQUAL 1 AND change LESS 4 OR change GREATER 15)
    message(FATAL_ERROR "abidiff could not compare ${BASELINE} with ${LIBRARY} (${change}):\n${report}")
  endif()
  if(change GREATER_EQUAL 8 OR report MATCHES "summary: [1-9][0-9]* Removed"
     OR report MATCHES "Removed, [1-9][0-9]* Changed" OR report MATCHES "[1-9][0-9]* Removed [a-z]+ symbol")
    set(breaking ON)
  endif()
  file(READ ${BASELINE} baseline)
  set(baseline_number "")
  if(baseline MATCHES "soname='[^']*\\.so\\.([0-9]+)'")
    set(baseline_number ${CMAKE_MATCH_1})
  endif()
endif()

if(UPDATE)
  if(breaking AND abi_number GREATER_EQUAL 1 AND abi_number STREQUAL baseline_number
     AND NOT ABI_APPEND_ONLY)
    message(FATAL_ERROR "${LIBRARY}: a function or type of the ABI changed or went away, but "
            "its SONAME is still .so.${abi_number}. ABI ${abi_number} is stable (docs/abi.md): "
            "raise the library's ABI version, then update the dump. (Only fields appended to a "
            "growable struct keep the version: then -DABI_APPEND_ONLY=ON, after reading the "
            "report.)\n${report}")
  endif()
  file(WRITE ${BASELINE} "${actual}")
  message(STATUS "wrote ${BASELINE}")
  return()
endif()
if(NOT EXISTS ${BASELINE})
  message(FATAL_ERROR "no dump ${BASELINE}: cmake --build <Release build dir> --target abi-update")
endif()
# Any change fails, additions included, so that the dump always describes the
# library; the report says which kind.
if(NOT change EQUAL 0)
  message(FATAL_ERROR "${LIBRARY} differs from ${BASELINE} (abidiff, ${change}):\n${report}\n"
          "A deliberate change: cmake --build <Release build dir> --target abi-update, and commit "
          "the dump with it. The rules (docs/abi.md): ABI 0 is unstable, a change is listed in "
          "its commit; from ABI 1 on, a removed or changed function or type must raise the "
          "library's ABI version (its SONAME).")
endif()
message(STATUS "${LIBRARY}: the ABI of ${BASELINE}")
