"""A tiny runner so one set of test functions runs under MicroPython and under pytest.

Under MicroPython a test script ends with `run(globals())`, which calls every
`test_*` function and prints `N passed, N failed`; tests/firmware/test_on_micropython.py
runs each script that way. Under CPython pytest imports the same script and
collects the same functions.
"""
import gc
import sys


def run(names):
    passed = 0
    failed = 0
    keys = sorted(k for k in names if k.startswith("test_"))
    for k in keys:
        gc.collect()
        try:
            names[k]()
            passed += 1
        except Exception as e:
            failed += 1
            print("FAIL", k, repr(e))
            sys.print_exception(e) if hasattr(sys, "print_exception") else None
    print("%d passed, %d failed" % (passed, failed))


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc:
        return True
    return False
