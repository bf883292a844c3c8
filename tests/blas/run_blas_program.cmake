# Runs a program written for the system BLAS, plainly or with libdlk_blas
# preloaded (cmake -P, so that ctest sees one pass or fail for both checks).
#   -D PROGRAM=<path> -D ARGS=<arguments separated by |>
#   -D PRELOAD=<LD_PRELOAD value> -D BACKEND=<DLK_BACKEND>   (empty PRELOAD: plain)
#   -D COUNT_CALLS=ON   the program's "GEMM calls with work: N" must equal the
#                       number of dlk_verbose exec lines of BACKEND's gemm
#   -D COMPARE=ON       run plainly and preloaded: stdout, stderr (without dlk's
#                       verbose lines) and exit status must be the same
# Prints "SKIP: ..." (the test's skip expression) when BACKEND cannot run here.

string(REPLACE "|" ";" ARGS "${ARGS}")

function(run_program preload out_var err_var rc_var)
  set(env "")
  if(preload)
    set(env "LD_PRELOAD=${preload}" "DLK_BACKEND=${BACKEND}" "DLK_VERBOSE=1")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} ${PROGRAM} ${ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("---- ${PROGRAM} ${ARGS} (LD_PRELOAD=${preload}) exit ${rc}\n-- stdout:\n${out}-- stderr:\n${err}")
  if(err MATCHES "backend '${BACKEND}': ([^\n]*)")
    message("SKIP: the ${BACKEND} backend cannot run here: ${CMAKE_MATCH_1}")
    set(${rc_var} skip PARENT_SCOPE)
    return()
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

if(COMPARE)
  run_program("" plain_out plain_err plain_rc)
  run_program("${PRELOAD}" dlk_out dlk_err dlk_rc)
  if(dlk_rc STREQUAL "skip")
    return()
  endif()
  string(REGEX REPLACE "dlk_verbose,[^\n]*\n" "" dlk_err_filtered "${dlk_err}")
  if(NOT plain_out STREQUAL dlk_out OR NOT plain_err STREQUAL dlk_err_filtered
     OR NOT plain_rc STREQUAL dlk_rc)
    message(FATAL_ERROR "the preloaded run differs from the reference BLAS's")
  endif()
  return()
endif()

run_program("${PRELOAD}" out err rc)
if(rc STREQUAL "skip")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}")
endif()
if(COUNT_CALLS)
  if(NOT out MATCHES "GEMM calls with work: ([0-9]+)")
    message(FATAL_ERROR "the program did not say how many GEMMs it ran")
  endif()
  set(expected ${CMAKE_MATCH_1})
  string(REGEX MATCHALL "dlk_verbose,exec,${BACKEND},gemm," lines "${err}")
  list(LENGTH lines ran)
  if(NOT ran EQUAL expected)
    message(FATAL_ERROR "dlk ran ${ran} GEMMs on ${BACKEND}; the program made ${expected}")
  endif()
  message("dlk ran all ${ran} GEMMs on ${BACKEND}")
endif()
