# Runs dlk-train for one check of tests/train/CMakeLists.txt and fails with the
# reason. Variables: CHECK (learn, resume, momentum_correction, lr_warmup, trace_norms,
# min_compress_bytes, bad_data, bad_checkpoint, staged, divergence), TRAIN (the program), MPIEXEC (mpiexec plus its flags, a list),
# WORK (a scratch directory), DATA (the Fashion-MNIST directory).
cmake_minimum_required(VERSION 3.25)

# A short run: 640 training images (10 steps of 64 an epoch), 200 test images.
set(short --model lenet5 --train-subset 640 --test-subset 200 --threads 1 --quiet)

# run(<result var> <output var> <args>...): dlk-train under 2 ranks (RANKS=1: one
# process, no mpiexec).
set(RANKS 2)
function(run result output)
  set(launch ${MPIEXEC} -np ${RANKS})
  if(RANKS EQUAL 1)
    set(launch)
  endif()
  execute_process(COMMAND ${launch} ${TRAIN} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${result} ${rc} PARENT_SCOPE)
  set(${output} "${out}${err}" PARENT_SCOPE)
endfunction()

function(run_ok output)
  run(rc out ${ARGN})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dlk-train ${ARGN} failed (${rc}):\n${out}")
  endif()
  set(${output} "${out}" PARENT_SCOPE)
endfunction()

# expect_refusal(<regex> <args>...): the run fails with a message matching regex.
function(expect_refusal regex)
  run(rc out ${ARGN})
  if(rc EQUAL 0)
    message(FATAL_ERROR "dlk-train ${ARGN} succeeded; expected a refusal matching '${regex}'")
  endif()
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "dlk-train ${ARGN}: the message does not match '${regex}':\n${out}")
  endif()
  message(STATUS "refused as expected: ${regex}")
endfunction()

function(json_get var file)
  file(READ ${file} text)
  string(JSON value GET "${text}" ${ARGN})
  set(${var} ${value} PARENT_SCOPE)
endfunction()

# Runs the dlk-train arguments whole, then stopped at step 15 and resumed: both
# must end with the same weights_checksum, the resumed run starting at step 15.
# Each case "ALGORITHM[,OPTION...]:VALUE": a 2-step run with those options
# records VALUE as config.<key> in its JSON (what a default or an override gave).
function(expect_config key)
  foreach(case ${ARGN})
    string(REPLACE ":" ";" case ${case})
    list(GET case 0 options)
    list(GET case 1 expected)
    string(REPLACE "," ";" options ${options})
    run_ok(out ${short} --steps 2 --algorithm ${options} --json ${WORK}/default.json)
    json_get(value ${WORK}/default.json config ${key})
    message(STATUS "--algorithm ${options}: ${key} ${value}")
    if(NOT value STREQUAL expected)
      message(FATAL_ERROR "--algorithm ${options}: ${key} ${value}, expected ${expected}")
    endif()
  endforeach()
endfunction()

function(expect_resume_identical)
  run_ok(out ${ARGN} --json ${WORK}/whole.json)
  run_ok(out ${ARGN} --steps 15 --save ${WORK}/half.ckpt)
  run_ok(out ${ARGN} --resume ${WORK}/half.ckpt --json ${WORK}/resumed.json)
  json_get(whole ${WORK}/whole.json final weights_checksum)
  json_get(resumed ${WORK}/resumed.json final weights_checksum)
  json_get(first ${WORK}/resumed.json final first_step)
  message(STATUS "whole run ${whole}, resumed at step ${first}: ${resumed}")
  if(NOT first EQUAL 15 OR NOT whole STREQUAL resumed)
    message(FATAL_ERROR "the resumed run differs: ${whole} vs ${resumed} (resumed at ${first})")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

if(CHECK STREQUAL "learn")
  # 4 epochs of 10 steps with int8: the loss falls, the test accuracy is well
  # above chance, and the ranks' weights agree after every epoch (else the run fails).
  run_ok(out ${short} --epochs 4 --algorithm int8 --json ${WORK}/run.json)
  json_get(first ${WORK}/run.json epochs 0 train_loss)
  json_get(last ${WORK}/run.json epochs 3 train_loss)
  json_get(accuracy ${WORK}/run.json final test_accuracy)
  file(READ ${WORK}/run.json text)
  string(JSON timeline LENGTH "${text}" timeline)
  message(STATUS "loss ${first} -> ${last}, test accuracy ${accuracy}, ${timeline} timeline steps")
  if(NOT last LESS first)
    message(FATAL_ERROR "the training loss did not fall: ${first} -> ${last}")
  endif()
  if(NOT accuracy GREATER 0.4)
    message(FATAL_ERROR "test accuracy ${accuracy} after 40 steps: not learning")
  endif()
  if(NOT timeline EQUAL 3)
    message(FATAL_ERROR "--json holds ${timeline} timeline steps, not 3")
  endif()
elseif(CHECK STREQUAL "resume")
  # Stopped at step 15 (mid-epoch) and resumed: the same bits at step 30 as the
  # run that never stopped; topk keeps residuals, so they must come back too.
  # The shared momentum here; the per-rank one (topk's default) in momentum_correction.
  set(common ${short} --epochs 3 --algorithm topk --topk-fraction 0.05 --no-momentum-correction)
  expect_resume_identical(${common})
elseif(CHECK STREQUAL "momentum_correction")
  # Each rank all-reduces its own momentum: by default with onebit and topk, not
  # with the others; --momentum-correction and --no-momentum-correction override
  # it, the later one winning. The run's JSON says which it ran.
  expect_config(momentum_correction onebit:ON topk:ON int8:OFF native:OFF
                onebit,--no-momentum-correction:OFF int8,--momentum-correction:ON
                onebit,--no-momentum-correction,--momentum-correction:ON
                topk,--momentum-correction,--no-momentum-correction:OFF)
  # Resumed at step 15 it gives the same bits as the run that never stopped (the
  # ranks' momenta and residuals saved per rank); a checkpoint of the other kind
  # is refused both ways.
  set(common ${short} --epochs 3 --algorithm onebit)
  expect_resume_identical(${common})
  expect_refusal("half.ckpt: refused: the checkpoint is of momentum correction on, this run of off"
                 ${common} --no-momentum-correction --resume ${WORK}/half.ckpt)
  run_ok(out ${common} --steps 3 --no-momentum-correction --save ${WORK}/plain.ckpt)
  expect_refusal("plain.ckpt: refused: the checkpoint is of momentum correction off, this run of on"
                 ${common} --resume ${WORK}/plain.ckpt)
  # native: the ranks' summed momenta are the global momentum, so the run is the
  # plain one up to the rounding of the sums' order.
  set(native ${short} --epochs 3 --algorithm native)
  run_ok(out ${native} --json ${WORK}/plain.json)
  run_ok(out ${native} --momentum-correction --json ${WORK}/corrected.json)
  foreach(epoch 0 1 2)
    json_get(a ${WORK}/plain.json epochs ${epoch} train_loss)
    json_get(b ${WORK}/corrected.json epochs ${epoch} train_loss)
    json_get(acc_a ${WORK}/plain.json epochs ${epoch} test_accuracy)
    json_get(acc_b ${WORK}/corrected.json epochs ${epoch} test_accuracy)
    message(STATUS "epoch ${epoch}: loss ${a} / ${b}, test accuracy ${acc_a} / ${acc_b}")
    # |a - b| <= 1e-5 a, the accuracies at most 1 image of 200 apart (CMake's
    # math is integer only: awk compares).
    execute_process(COMMAND awk "BEGIN { d = ${a} - ${b}; e = ${acc_a} - ${acc_b};
                                 exit !(d * d <= 1e-10 * ${a} * ${a} && e * e <= 0.005^2 + 1e-12) }"
                    RESULT_VARIABLE far)
    if(NOT far EQUAL 0)
      message(FATAL_ERROR "native with --momentum-correction differs beyond rounding after epoch "
                          "${epoch}: loss ${a} / ${b}, test accuracy ${acc_a} / ${acc_b}")
    endif()
  endforeach()
elseif(CHECK STREQUAL "lr_warmup")
  # --lr-warmup-steps N: step s (0-based) runs at lr * (s + 1) / N. A warm-up of
  # one step is lr itself, so the same bits as none; one of 20 steps changes them;
  # resumed inside it (step 15) the run gives the bits of the one that never stopped.
  set(common ${short} --epochs 3 --algorithm topk)
  run_ok(out ${common} --steps 5 --json ${WORK}/plain.json)
  run_ok(out ${common} --steps 5 --lr-warmup-steps 1 --json ${WORK}/one.json)
  run_ok(out ${common} --steps 5 --lr-warmup-steps 20 --json ${WORK}/warm.json)
  json_get(plain ${WORK}/plain.json final weights_checksum)
  json_get(one ${WORK}/one.json final weights_checksum)
  json_get(warm ${WORK}/warm.json final weights_checksum)
  json_get(steps ${WORK}/warm.json config lr_warmup_steps)
  message(STATUS "no warm-up ${plain}, 1 step ${one}, 20 steps ${warm} (JSON: ${steps})")
  if(NOT plain STREQUAL one OR plain STREQUAL warm OR NOT steps EQUAL 20)
    message(FATAL_ERROR "--lr-warmup-steps: none ${plain}, 1 ${one}, 20 ${warm} (JSON ${steps})")
  endif()
  expect_resume_identical(${common} --lr-warmup-steps 20)
elseif(CHECK STREQUAL "trace_norms")
  # --trace-norms 4 over 10 steps: rank 0 alone prints steps 0, 4 and 8, each the
  # batch's loss and the three norms of every parameter (LeNet-5 has 10), and the
  # run's bits are those of the run without it.
  run_ok(out ${short} --steps 10 --trace-norms 4 --json ${WORK}/traced.json)
  run_ok(plain ${short} --steps 10 --json ${WORK}/plain.json)
  string(REGEX MATCHALL "trace step [0-9]+ " steps "${out}")
  if(NOT steps STREQUAL "trace step 0 ;trace step 4 ;trace step 8 ")
    message(FATAL_ERROR "--trace-norms 4 over 10 steps printed '${steps}':\n${out}")
  endif()
  set(number "[0-9][0-9.e+-]*")
  string(REGEX MATCH "trace step 4 loss ${number}( \\| [a-z0-9]+\\.[a-z]+ w ${number} momentum ${number} grad ${number})+\n" line "${out}")
  string(REGEX MATCHALL " grad " grads "${line}")
  list(LENGTH grads count)
  if(NOT line MATCHES "^trace step 4 loss ${number} \\| conv1\\.weight w " OR NOT count EQUAL 10)
    message(FATAL_ERROR "--trace-norms: step 4's line is not the loss and 10 parameters' norms "
                        "(${count}):\n${out}")
  endif()
  json_get(traced ${WORK}/traced.json final weights_checksum)
  json_get(untraced ${WORK}/plain.json final weights_checksum)
  if(NOT traced STREQUAL untraced)
    message(FATAL_ERROR "--trace-norms changed the weights: ${traced} against ${untraced}")
  endif()
elseif(CHECK STREQUAL "min_compress_bytes")
  # By default onebit and topk all-reduce LeNet-5's gradients under 16 KiB (every
  # bias, conv1, conv2 and fc3: 3,626 floats) with native, in a bucket of their own
  # after the compressed ones; the others compress every gradient, and native, ring
  # and ps ignore the option; the later option wins. The JSON says which.
  expect_config(min_compress_bytes onebit:16384 topk:16384 int8:0 onebit,--min-compress-bytes,0:0
                int8,--min-compress-bytes,4096:4096 native,--min-compress-bytes,16384:0
                topk,--min-compress-bytes,0,--min-compress-bytes,1024:1024)
  set(common ${short} --epochs 3 --algorithm onebit)
  run_ok(out ${common} --steps 5 --json ${WORK}/dense.json)
  json_get(buckets ${WORK}/dense.json config buckets)
  math(EXPR last "${buckets} - 1")
  json_get(dense_algorithm ${WORK}/dense.json timeline 0 buckets ${last} algorithm)
  json_get(dense_bytes ${WORK}/dense.json timeline 0 buckets ${last} logical_bytes)
  json_get(first_algorithm ${WORK}/dense.json timeline 0 buckets 0 algorithm)
  message(STATUS "${buckets} buckets: the first ${first_algorithm}, the last ${dense_algorithm} "
                 "of ${dense_bytes} bytes")
  if(NOT dense_algorithm STREQUAL "native" OR NOT dense_bytes EQUAL 14504 OR
     NOT first_algorithm STREQUAL "onebit")
    message(FATAL_ERROR "onebit: last bucket ${dense_algorithm} of ${dense_bytes} bytes, first "
                        "${first_algorithm}")
  endif()
  # Resumed at step 15, the bits of the run that never stopped (both synchronizers'
  # states in the checkpoint); a checkpoint of another threshold is refused.
  expect_resume_identical(${common})
  expect_refusal("half.ckpt: refused: the checkpoint is of --min-compress-bytes 16384, this run of 0"
                 ${common} --min-compress-bytes 0 --resume ${WORK}/half.ckpt)
  # Every gradient under the threshold: onebit's synchronizer holds none and the
  # run is native's with the momentum kept per rank (2 ranks: one sum, the same
  # bits in any bucket layout).
  run_ok(out ${short} --steps 12 --algorithm onebit --min-compress-bytes 1000000000
         --json ${WORK}/all_dense.json)
  run_ok(out ${short} --steps 12 --algorithm native --momentum-correction --json ${WORK}/native.json)
  json_get(all_dense ${WORK}/all_dense.json final weights_checksum)
  json_get(native ${WORK}/native.json final weights_checksum)
  message(STATUS "onebit, every gradient native: ${all_dense}; native: ${native}")
  if(NOT all_dense STREQUAL native)
    message(FATAL_ERROR "onebit with every gradient native ${all_dense}, native ${native}")
  endif()
elseif(CHECK STREQUAL "bad_data")
  # A missing file, a truncated gzip file, and one with corrupt bytes inside. The
  # files are read before MPI starts: one process shows it.
  set(RANKS 1)
  set(bad ${WORK}/data)
  file(MAKE_DIRECTORY ${bad})
  foreach(f train-images-idx3-ubyte train-labels-idx1-ubyte t10k-labels-idx1-ubyte)
    file(COPY_FILE ${DATA}/${f}.gz ${bad}/${f}.gz)
  endforeach()
  expect_refusal("t10k-images-idx3-ubyte.gz: no such file" ${short} --data ${bad})
  execute_process(COMMAND head -c 100000 ${DATA}/t10k-images-idx3-ubyte.gz
                  OUTPUT_FILE ${bad}/t10k-images-idx3-ubyte.gz)
  expect_refusal("t10k-images-idx3-ubyte.gz: is truncated" ${short} --data ${bad})
  file(COPY_FILE ${DATA}/t10k-images-idx3-ubyte.gz ${bad}/t10k-images-idx3-ubyte.gz)
  execute_process(COMMAND dd if=/dev/zero of=${bad}/t10k-images-idx3-ubyte.gz bs=1 seek=50000
                          count=64 conv=notrunc
                  OUTPUT_QUIET ERROR_QUIET)
  # Inflating garbage ends one of these ways, depending on the bytes.
  expect_refusal("t10k-images-idx3-ubyte.gz: (is not valid gzip|holds more data|is truncated)"
                 ${short} --data ${bad})
elseif(CHECK STREQUAL "bad_checkpoint")
  run_ok(out ${short} --steps 3 --algorithm onebit --save ${WORK}/a.ckpt)
  expect_refusal("refused: the checkpoint is of model lenet5, this run of vgg_small"
                 ${short} --model vgg_small --algorithm onebit --resume ${WORK}/a.ckpt)
  expect_refusal("refused: the checkpoint is of algorithm onebit, this run of int8"
                 ${short} --algorithm int8 --resume ${WORK}/a.ckpt)
  # One rank instead of two.
  execute_process(COMMAND ${TRAIN} ${short} --algorithm onebit --resume ${WORK}/a.ckpt
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "refused: the checkpoint is of rank count 2, this run of 1")
    message(FATAL_ERROR "a 2-rank checkpoint resumed on 1 rank: ${rc}\n${out}${err}")
  endif()
  execute_process(COMMAND dd if=/dev/zero of=${WORK}/a.ckpt bs=1 seek=200 count=1 conv=notrunc
                  OUTPUT_QUIET ERROR_QUIET)
  expect_refusal("a.ckpt: is corrupt: its checksum does not match"
                 ${short} --algorithm onebit --resume ${WORK}/a.ckpt)
elseif(CHECK STREQUAL "staged")
  # The cuda backend's path (every operand copied through dlk_malloc'd memory,
  # forced here on cpu): the same bits as the direct path, f32 and bf16.
  set(RANKS 1)
  foreach(dtype f32 bf16)
    run_ok(out ${short} --steps 6 --dtype ${dtype} --json ${WORK}/direct.json)
    run_ok(out ${short} --steps 6 --dtype ${dtype} --stage-operands --json ${WORK}/staged.json)
    json_get(direct ${WORK}/direct.json final weights_checksum)
    json_get(staged ${WORK}/staged.json final weights_checksum)
    if(NOT direct STREQUAL staged)
      message(FATAL_ERROR "${dtype}: staged operands give ${staged}, direct ${direct}")
    endif()
  endforeach()
elseif(CHECK STREQUAL "divergence")
  expect_refusal("the ranks' weights differ after epoch 1: rank 1 has checksum"
                 ${short} --steps 3 --inject-divergence 1)
else()
  message(FATAL_ERROR "unknown CHECK '${CHECK}'")
endif()
