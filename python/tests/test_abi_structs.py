"""The ctypes structs of dlk/_c.py against the C headers: a C program compiled against
include/dlk prints every struct's size and every field's offset; they must equal ctypes'."""
import ctypes
import os
import shlex
import subprocess

import pytest

from dlk import _c

INCLUDE = os.environ.get("DLK_TEST_INCLUDE",
                         os.path.join(os.path.dirname(__file__), "..", "..", "include"))

STRUCTS = {  # C type name -> ctypes mirror
    "dlk_version": _c.Version, "dlk_context_options": _c.ContextOptions,
    "dlk_context_info": _c.ContextInfo, "dlk_op_record": _c.OpRecord,
    "dlk_sim_record": _c.SimRecord, "dlk_gemm_desc": _c.GemmDesc,
    "dlk_conv2d_desc": _c.Conv2dDesc, "dlk_pool2d_desc": _c.Pool2dDesc,
    "dlk_codec_params": _c.CodecParams, "dlk_codec_message_info": _c.CodecMessageInfo,
    "dlk_comm_config": _c.CommConfig, "dlk_comm_report": _c.CommReport,
    "dlk_comm_properties": _c.CommProperties, "dlk_comm_sync_report": _c.CommSyncReport,
}
MACROS = {"DLK_ABI_VERSION": _c.ABI_VERSION, "DLK_COMPRESS_ABI_VERSION": _c.COMPRESS_ABI_VERSION,
          "DLK_COMM_ABI_VERSION": _c.COMM_ABI_VERSION,
          "DLK_CODEC_HEADER_SIZE": _c.CODEC_HEADER_SIZE}
ENUMS = {**{f"DLK_DTYPE_{k.upper()}": v for k, v in _c.DTYPE.items()},
         **{f"DLK_CODEC_{k.upper()}": v for k, v in _c.CODEC_ALGORITHM.items()},
         **{f"DLK_COMM_ALGO_{k.upper()}": v for k, v in _c.COMM_ALGORITHM.items()},
         "DLK_FORMAT_NCHW": 0, "DLK_FORMAT_NHWC": 1, "DLK_POOL_MAX": 0,
         "DLK_POOL_AVG_INCLUDE_PADDING": 1, "DLK_POOL_AVG_EXCLUDE_PADDING": 2,
         "DLK_SCALE_PER_TENSOR": _c.SCALE_PER_TENSOR, "DLK_SCALE_PER_CHANNEL": _c.SCALE_PER_CHANNEL}


def _header_layout(tmp_path):
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include <dlk/dlk.h>',
             '#include <dlk/dlk_compress.h>', '#include <dlk/dlk_comm.h>', 'int main(void) {']
    for cname, mirror in STRUCTS.items():
        lines.append(f'printf("sizeof {cname} - %zu\\n", sizeof({cname}));')
        for field, *_ in mirror._fields_:
            lines.append(f'printf("offsetof {cname} {field} %zu\\n", offsetof({cname}, {field}));')
    for name in {**MACROS, **ENUMS}:
        lines.append(f'printf("value {name} %lld\\n", (long long)({name}));')
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    cc = shlex.split(os.environ.get("DLK_TEST_MPICC", "mpicc"))
    subprocess.run([*cc, "-std=c11", "-I", INCLUDE, str(src), "-o", str(exe)], check=True,
                   capture_output=True, text=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return [line.split() for line in out.splitlines()]


def test_ctypes_structs_match_headers(tmp_path):
    rows = _header_layout(tmp_path)
    checked = 0
    for row in rows:
        if row[0] == "value":
            expected = {**MACROS, **ENUMS}[row[1]]
            assert int(row[2]) == expected, f"{row[1]} is {row[2]} in the header, {expected} here"
            continue
        kind, cname, what, number = row[0], row[1], row[2], int(row[3])
        mirror = STRUCTS[cname]
        if kind == "sizeof":
            assert ctypes.sizeof(mirror) == number, \
                f"sizeof({cname}) is {number} in C, {ctypes.sizeof(mirror)} in dlk/_c.py"
        else:
            assert getattr(mirror, what).offset == number, \
                f"offsetof({cname}, {what}) is {number} in C, {getattr(mirror, what).offset} here"
        checked += 1
    assert checked > 100


def test_every_header_field_is_mirrored(tmp_path):
    """A field added to a header but not to _c.py: the C compiler sees all fields, so compare
    sizes (above) and the count of fields with a parse of the header's struct bodies."""
    import re
    for header in ("dlk.h", "dlk_compress.h", "dlk_comm.h"):
        text = open(os.path.join(INCLUDE, "dlk", header)).read()
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        for m in re.finditer(r"typedef struct (\w+) \{(.*?)\} \1;", text, flags=re.S):
            name, body = m.group(1), m.group(2)
            if name not in STRUCTS:
                pytest.fail(f"{header}: struct {name} has no ctypes mirror in dlk/_c.py")
            fields = []
            for decl in body.split(";"):
                decl = decl.strip()
                if not decl:
                    continue
                names = decl.split(None, 1)[1] if not decl.startswith("const") else \
                    decl.split(None, 2)[2]
                for n in names.split(","):
                    fields.append(re.sub(r"[\s*]|\[.*\]", "", n))
            mirrored = [f for f, *_ in STRUCTS[name]._fields_]
            assert fields == mirrored, f"{name}: header fields {fields}, dlk/_c.py {mirrored}"
