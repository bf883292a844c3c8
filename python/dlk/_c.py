"""ctypes mirror of dlk's public C headers (include/dlk/dlk.h, dlk_compress.h, dlk_comm.h).

Every struct here must match the header field by field: tests/test_abi_structs.py compiles a
C program against the headers and compares sizes and offsets. The ABI numbers are the ones
this package was written for; a library with another number is refused (_library.py).
"""
import ctypes as C

ABI_VERSION = 0           # DLK_ABI_VERSION: libdlk.so.0
COMPRESS_ABI_VERSION = 0  # DLK_COMPRESS_ABI_VERSION: libdlk_compress.so.0
COMM_ABI_VERSION = 0      # DLK_COMM_ABI_VERSION: libdlk_comm.so.0

enum = C.c_int  # every C enum of the headers has int's size and values

# ------------------------------------------------------------------ dlk.h

DTYPE = {"f32": 1, "f16": 2, "bf16": 3, "s8": 4, "u8": 5, "s32": 6}
OP = {1: "gemm", 2: "conv2d_forward", 3: "conv2d_backward_data",
      4: "conv2d_backward_weights", 5: "pool2d_forward", 6: "pool2d_backward"}
FORMAT = {"nchw": 0, "nhwc": 1}
CONV2D_PASS = {"forward": 1, "backward_data": 2}
POOL_KIND = {"max": 0, "avg": 1, "avg_include_padding": 1, "avg_exclude_padding": 2}
SCALE_NONE, SCALE_PER_TENSOR, SCALE_PER_CHANNEL = 0, 1, 2


class Version(C.Structure):
    _fields_ = [("major", C.c_int), ("minor", C.c_int), ("patch", C.c_int), ("abi", C.c_int)]


class ContextOptions(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("backend", C.c_char_p), ("cpu_isa", C.c_char_p),
                ("num_threads", C.c_int), ("verbose", C.c_int),
                ("fpga_sim_config", C.c_char_p), ("device", C.c_int), ("stream", C.c_void_p),
                ("allow_tf32", C.c_int)]


class ContextInfo(C.Structure):
    _fields_ = [("backend", C.c_char * 16), ("device", C.c_char * 128), ("isa", C.c_char * 32),
                ("num_threads", C.c_int), ("peak_f32_flops", C.c_double),
                ("peak_f16_flops", C.c_double), ("peak_bf16_flops", C.c_double),
                ("peak_int8_ops", C.c_double), ("memory_bandwidth", C.c_double)]


class OpRecord(C.Structure):
    _fields_ = [("op", enum), ("implementation", C.c_char * 48), ("seconds", C.c_double),
                ("flops", C.c_double), ("bytes", C.c_double), ("sim_cycles", C.c_double)]


class SimRecord(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("cycles", C.c_double),
                ("compute_cycles", C.c_double), ("stall_cycles", C.c_double),
                ("seconds", C.c_double), ("macs", C.c_double), ("mac_utilization", C.c_double),
                ("dram_bytes_read", C.c_double), ("dram_bytes_written", C.c_double),
                ("buffer_bytes_read", C.c_double), ("buffer_bytes_written", C.c_double),
                ("folds", C.c_int64), ("overflows", C.c_int64), ("dram_bound", C.c_int)]


class GemmDesc(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("layout", enum), ("trans_a", enum),
                ("trans_b", enum), ("m", C.c_int64), ("n", C.c_int64), ("k", C.c_int64),
                ("a_type", enum), ("b_type", enum), ("c_type", enum), ("lda", C.c_int64),
                ("ldb", C.c_int64), ("ldc", C.c_int64), ("batch_count", C.c_int64),
                ("stride_a", C.c_int64), ("stride_b", C.c_int64), ("stride_c", C.c_int64),
                ("alpha", C.c_float), ("beta", C.c_float), ("a_zero_point", C.c_int32),
                ("c_zero_point", C.c_int32), ("scale_mode", enum),
                ("scales", C.POINTER(C.c_float))]


class Conv2dDesc(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("format", enum), ("n", C.c_int64),
                ("c", C.c_int64), ("h", C.c_int64), ("w", C.c_int64), ("k", C.c_int64),
                ("kh", C.c_int64), ("kw", C.c_int64), ("stride_h", C.c_int64),
                ("stride_w", C.c_int64), ("pad_h", C.c_int64), ("pad_w", C.c_int64),
                ("dilation_h", C.c_int64), ("dilation_w", C.c_int64), ("groups", C.c_int64),
                ("src_type", enum), ("weights_type", enum), ("dst_type", enum), ("relu", C.c_int),
                ("src_zero_point", C.c_int32), ("dst_zero_point", C.c_int32),
                ("scale_mode", enum), ("scales", C.POINTER(C.c_float))]


class Pool2dDesc(C.Structure):
    _fields_ = [("struct_size", C.c_size_t), ("format", enum), ("kind", enum), ("n", C.c_int64),
                ("c", C.c_int64), ("h", C.c_int64), ("w", C.c_int64), ("kh", C.c_int64),
                ("kw", C.c_int64), ("stride_h", C.c_int64), ("stride_w", C.c_int64),
                ("pad_h", C.c_int64), ("pad_w", C.c_int64), ("dtype", enum)]


def declare_dlk(lib):
    """Prototypes of libdlk's exported functions."""
    p, i64, st = C.c_void_p, C.c_int64, C.c_int
    sig = {
        "dlk_status_name": (C.c_char_p, [st]),
        "dlk_last_error": (C.c_char_p, []),
        "dlk_get_version": (Version, []),
        "dlk_context_options_init_sized": (None, [C.POINTER(ContextOptions), C.c_size_t]),
        "dlk_context_create": (st, [C.POINTER(p), C.POINTER(ContextOptions)]),
        "dlk_context_destroy": (st, [p]),
        "dlk_context_get_info_sized": (st, [p, C.POINTER(ContextInfo), C.c_size_t]),
        "dlk_context_supports": (st, [p, enum, enum, enum, enum, C.POINTER(C.c_int)]),
        "dlk_context_last_op_sized": (st, [p, C.POINTER(OpRecord), C.c_size_t]),
        "dlk_context_last_sim": (st, [p, C.POINTER(SimRecord)]),
        "dlk_synchronize": (st, [p]),
        "dlk_gemm_desc_init_sized": (None, [C.POINTER(GemmDesc), C.c_size_t, enum, enum, enum,
                                            i64, i64, i64]),
        "dlk_gemm": (st, [p, C.POINTER(GemmDesc), p, p, p]),
        "dlk_conv2d_desc_init_sized": (None, [C.POINTER(Conv2dDesc), C.c_size_t, enum, i64, i64,
                                              i64, i64, i64, i64, i64]),
        "dlk_conv2d_output_shape": (st, [C.POINTER(Conv2dDesc), C.POINTER(i64),
                                         C.POINTER(i64)]),
        "dlk_conv2d_forward": (st, [p, C.POINTER(Conv2dDesc), p, p, p, p]),
        "dlk_conv2d_weights_create": (st, [p, C.POINTER(Conv2dDesc), p, C.POINTER(p)]),
        "dlk_conv2d_weights_create_for": (st, [p, C.POINTER(Conv2dDesc), p, C.c_uint,
                                               C.POINTER(p)]),
        "dlk_conv2d_weights_destroy": (st, [p, p]),
        "dlk_conv2d_forward_packed": (st, [p, C.POINTER(Conv2dDesc), p, p, p, p]),
        "dlk_conv2d_backward_data": (st, [p, C.POINTER(Conv2dDesc), p, p, p]),
        "dlk_conv2d_backward_data_packed": (st, [p, C.POINTER(Conv2dDesc), p, p, p]),
        "dlk_conv2d_backward_weights": (st, [p, C.POINTER(Conv2dDesc), p, p, p, p]),
        "dlk_pool2d_desc_init_sized": (None, [C.POINTER(Pool2dDesc), C.c_size_t, enum, enum,
                                              i64, i64, i64, i64, i64, i64]),
        "dlk_pool2d_output_shape": (st, [C.POINTER(Pool2dDesc), C.POINTER(i64),
                                         C.POINTER(i64)]),
        "dlk_pool2d_forward": (st, [p, C.POINTER(Pool2dDesc), p, p, p]),
        "dlk_pool2d_backward": (st, [p, C.POINTER(Pool2dDesc), p, p, p]),
    }
    _declare(lib, sig)


# ------------------------------------------------------------------ dlk_compress.h

CODEC_ALGORITHM = {"onebit": 1, "topk": 2, "int8": 3, "int4": 4, "fp16": 5, "bf16": 6}
CODEC_HEADER_SIZE = 32


class CodecParams(C.Structure):
    _fields_ = [("algorithm", enum), ("block_size", C.c_uint32), ("rounding", enum),
                ("seed", C.c_uint64), ("step", C.c_uint64), ("rank", C.c_uint32),
                ("topk_selection", enum), ("topk_count", C.c_uint64),
                ("topk_fraction", C.c_double)]


class CodecMessageInfo(C.Structure):
    _fields_ = [("algorithm", enum), ("format_version", C.c_uint32),
                ("element_count", C.c_uint64), ("block_size", C.c_uint32),
                ("payload_size", C.c_uint64), ("message_size", C.c_uint64)]


def declare_compress(lib):
    p, st, u64 = C.c_void_p, C.c_int, C.c_uint64
    params = C.POINTER(CodecParams)
    sig = {
        "dlk_compress_status_name": (C.c_char_p, [st]),
        "dlk_compress_algorithm_name": (C.c_char_p, [enum]),
        "dlk_compress_last_error": (C.c_char_p, []),
        "dlk_compress_params_init": (st, [params, enum]),
        "dlk_compress_max_message_size": (st, [params, u64, C.POINTER(C.c_size_t)]),
        "dlk_compress_encode": (st, [params, p, p, u64, p, C.c_size_t,
                                     C.POINTER(C.c_size_t)]),
        "dlk_compress_inspect": (st, [p, C.c_size_t, C.POINTER(CodecMessageInfo)]),
        "dlk_compress_decode": (st, [p, C.c_size_t, p, u64]),
        "dlk_compress_decode_add": (st, [p, C.c_size_t, p, u64]),
        "dlk_compress_set_isa": (st, [C.c_char_p]),
        "dlk_compress_get_isa": (st, [C.POINTER(C.c_char_p)]),
    }
    _declare(lib, sig)


# ------------------------------------------------------------------ dlk_comm.h

COMM_ALGORITHM = {"default": 0, "auto": 1, "native": 2, "ring": 3, "ps": 4, "onebit": 5,
                  "topk": 6, "int8": 7, "int4": 8, "fp16": 9, "bf16": 10}


class CommConfig(C.Structure):
    _fields_ = [("algorithm", enum), ("average", C.c_int), ("block_size", C.c_uint32),
                ("stochastic_rounding", C.c_int), ("seed", C.c_uint64),
                ("topk_fraction", C.c_double), ("topk_exact", C.c_int),
                ("warmup_steps", C.c_uint64), ("min_compress_bytes", C.c_uint64)]


class CommReport(C.Structure):
    _fields_ = [("algorithm", enum), ("logical_bytes", C.c_uint64),
                ("wire_bytes_sent", C.c_uint64), ("wire_bytes_received", C.c_uint64),
                ("total_seconds", C.c_double), ("encode_seconds", C.c_double),
                ("decode_seconds", C.c_double), ("network_seconds", C.c_double),
                ("wait_seconds", C.c_double)]


class CommProperties(C.Structure):
    _fields_ = [("rank", C.c_int), ("size", C.c_int), ("thread_level", C.c_int),
                ("background", C.c_int), ("default_algorithm", enum)]


class CommSyncReport(C.Structure):
    _fields_ = [("buckets", C.c_uint32), ("logical_bytes", C.c_uint64),
                ("wire_bytes_sent", C.c_uint64), ("wire_bytes_received", C.c_uint64),
                ("communication_seconds", C.c_double), ("overlapped_seconds", C.c_double),
                ("wait_seconds", C.c_double)]


def declare_comm(lib):
    p, st, u64, u32 = C.c_void_p, C.c_int, C.c_uint64, C.c_uint32
    sig = {
        "dlk_comm_status_name": (C.c_char_p, [st]),
        "dlk_comm_algorithm_name": (C.c_char_p, [enum]),
        "dlk_comm_last_error": (C.c_char_p, []),
        "dlk_comm_create_world": (st, [C.POINTER(p)]),
        "dlk_comm_destroy": (st, [p]),
        "dlk_comm_get_properties": (st, [p, C.POINTER(CommProperties)]),
        "dlk_comm_config_init": (st, [C.POINTER(CommConfig)]),
        "dlk_comm_buffer_create": (st, [p, u64, C.POINTER(CommConfig), C.POINTER(p)]),
        "dlk_comm_buffer_destroy": (st, [p]),
        "dlk_comm_allreduce": (st, [p, p, C.POINTER(CommReport)]),
        "dlk_comm_iallreduce": (st, [p, p, C.POINTER(p)]),
        "dlk_comm_test": (st, [p, C.POINTER(C.c_int)]),
        "dlk_comm_wait": (st, [p, C.POINTER(CommReport)]),
        "dlk_comm_buffer_reset_residuals": (st, [p]),
        "dlk_comm_buffer_state_size": (st, [p, C.POINTER(C.c_size_t)]),
        "dlk_comm_buffer_save_state": (st, [p, p, C.c_size_t]),
        "dlk_comm_buffer_load_state": (st, [p, p, C.c_size_t]),
        "dlk_comm_sync_create": (st, [p, C.POINTER(CommConfig), u64, C.POINTER(p)]),
        "dlk_comm_sync_destroy": (st, [p]),
        "dlk_comm_sync_add": (st, [p, p, u64, C.POINTER(u32)]),
        "dlk_comm_sync_commit": (st, [p]),
        "dlk_comm_sync_bucket_count": (st, [p, C.POINTER(u32)]),
        "dlk_comm_sync_ready": (st, [p, u32]),
        "dlk_comm_sync_wait": (st, [p, C.POINTER(CommSyncReport), C.POINTER(CommReport)]),
    }
    _declare(lib, sig)


def _declare(lib, signatures):
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def struct_to_dict(s):
    """A ctypes struct's fields as a dict, char arrays as str."""
    out = {}
    for name, *_ in s._fields_:
        v = getattr(s, name)
        out[name] = v.decode() if isinstance(v, bytes) else v
    return out
