"""Finding and loading dlk's shared libraries, refusing one of another ABI.

Where a library is looked for, first hit wins:
  1. DLK_LIBRARY_PATH: directories separated by ':' (when set, only there);
  2. beside the package (a wheel or a copy that carries the libraries in dlk/);
  3. the install prefix, when the package was installed by CMake (_install_dirs.py);
  4. the dynamic loader's own search (LD_LIBRARY_PATH, ldconfig's cache).
A library is looked up by its SONAME, lib<name>.so.<ABI>, with the ABI number this package
was written for; a directory holding the library only under another number is an error that
names both, and so is a libdlk whose dlk_get_version() reports another ABI.
"""
import ctypes
import glob
import os
import re

from . import _c
from ._errors import LibraryError

_loaded = {}

# name -> (ABI number, prototypes)
_LIBRARIES = {
    "dlk": (_c.ABI_VERSION, _c.declare_dlk),
    "dlk_compress": (_c.COMPRESS_ABI_VERSION, _c.declare_compress),
    "dlk_comm": (_c.COMM_ABI_VERSION, _c.declare_comm),
}


def _install_dirs():
    try:
        from . import _install_dirs as dirs  # written by CMake's install
    except ImportError:
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.normpath(os.path.join(here, d)) for d in dirs.LIBRARY_DIRS]


def search_dirs():
    """The directories searched, in order, and whether the loader's own search follows."""
    env = os.environ.get("DLK_LIBRARY_PATH")
    if env:
        return [d for d in env.split(":") if d], False
    here = os.path.dirname(os.path.abspath(__file__))
    return [here] + _install_dirs(), True


def _other_abis(directory, name):
    found = []
    for path in glob.glob(os.path.join(directory, f"lib{name}.so.*")):
        m = re.fullmatch(rf"lib{re.escape(name)}\.so\.(\d+)", os.path.basename(path))
        if m:
            found.append((int(m.group(1)), path))
    return sorted(found)


def _mismatch(name, abi, found):
    other, path = found[0]
    return LibraryError(
        f"dlk: found {path} (lib{name} ABI {other}), but this dlk package was written for "
        f"lib{name} ABI {abi} (lib{name}.so.{abi}); install the package that matches the "
        f"library, or point DLK_LIBRARY_PATH at a lib{name}.so.{abi}")


def load(name):
    """The loaded ctypes library lib<name>, with its prototypes declared."""
    if name in _loaded:
        return _loaded[name]
    abi, declare = _LIBRARIES[name]
    soname = f"lib{name}.so.{abi}"
    dirs, use_loader = search_dirs()
    # libdlk_comm links Open MPI, whose components are loaded later and need libmpi's
    # symbols in the global scope.
    mode = ctypes.RTLD_GLOBAL if name == "dlk_comm" else ctypes.DEFAULT_MODE
    lib = None
    for d in dirs:
        path = os.path.join(d, soname)
        if os.path.exists(path):
            lib = ctypes.CDLL(path, mode=mode)
            break
        others = _other_abis(d, name)
        if others:
            raise _mismatch(name, abi, others)
    if lib is None:
        if not use_loader:
            raise LibraryError(
                f"dlk: no {soname} in DLK_LIBRARY_PATH={os.environ.get('DLK_LIBRARY_PATH')}")
        try:
            lib = ctypes.CDLL(soname, mode=mode)
        except OSError as e:
            raise LibraryError(
                f"dlk: cannot find {soname} (this package needs lib{name} ABI {abi}): set "
                f"DLK_LIBRARY_PATH to the directory that holds it, or install dlk "
                f"(searched {', '.join(dirs)} and the dynamic loader's path: {e})") from None
    if name == "dlk":
        get_version = getattr(lib, "dlk_get_version", None)
        if get_version is None:
            raise LibraryError(f"dlk: {lib._name} has no dlk_get_version: not a libdlk")
        get_version.restype, get_version.argtypes = _c.Version, []
        v = get_version()
        if v.abi != abi:
            raise LibraryError(
                f"dlk: {lib._name} reports ABI {v.abi} (version {v.major}.{v.minor}.{v.patch}), "
                f"but this dlk package was written for ABI {abi}; install the package that "
                f"matches the library")
    try:
        declare(lib)
    except AttributeError as e:
        raise LibraryError(f"dlk: {lib._name} lacks a function this package needs ({e})") from None
    _loaded[name] = lib
    return lib
