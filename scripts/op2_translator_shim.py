#!/usr/bin/env python3
"""Run OP2-Common's translator-v2 under a Python that is not the one it ships.

usage: op2_translator_shim.py OP2_DIR [translator arguments...]

translator-v2 calls libclang's clang_Cursor_Evaluate through the `clang`
Python bindings' raw library handle without declaring a return type, so
ctypes truncates the returned pointer to a C int; with Python 3.11 and the
libclang 18.1.1 wheel that crashes in parseIntExpression.  This wrapper
declares the prototypes of the three functions involved and then runs the
translator's __main__ unchanged, in this process.
"""
import ctypes
import runpy
import sys
from pathlib import Path


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    translator = Path(sys.argv[1]) / "translator-v2" / "op2-translator"
    if not (translator / "__main__.py").is_file():
        sys.exit(f"no translator-v2 under {sys.argv[1]}")

    import clang.cindex as ci

    lib = ci.conf.lib
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_EvalResult_getAsInt.restype = ctypes.c_int
    lib.clang_EvalResult_getAsInt.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_dispose.restype = None
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]

    # the translator imports its modules as top-level names
    sys.path.insert(0, str(translator))
    sys.argv = [str(translator)] + sys.argv[2:]
    runpy.run_path(str(translator), run_name="__main__")


if __name__ == "__main__":
    main()
