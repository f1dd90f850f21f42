"""The struct layouts declared to cffi are the compiler's (sizeof and offsetof). Named to run first:
a wrong layout makes later tests crash rather than fail."""

import os
import subprocess

from libreplay._ffi import CHECKED_STRUCTS, ffi


def test_struct_layouts_match_the_headers():
    out = subprocess.run([os.environ["BRP_LAYOUT"]], stdout=subprocess.PIPE, check=True, text=True).stdout
    seen = set()
    for line in out.splitlines():
        name, what, value = line.split()
        if what == "size":
            assert ffi.sizeof(name) == int(value), name
            seen.add(name)
        else:
            t, f = name.split(".")
            assert ffi.offsetof(t, f) == int(value), name
    assert seen == set(CHECKED_STRUCTS)
