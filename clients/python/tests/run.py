"""Runs the unit tests and ends with one line of totals, {"passed": N, "failed": N, "skipped": N},
which scripts/junit-summary.js reads (make client-test). Prints only the failures before it."""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))
sys.path.insert(0, ROOT)


class Totals(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def main() -> int:
    suite = unittest.defaultTestLoader.discover(HERE, top_level_dir=ROOT)
    stream = open(os.devnull, "w") if "-v" not in sys.argv else sys.stderr
    result = unittest.TextTestRunner(stream=stream, resultclass=Totals, verbosity=2 if "-v" in sys.argv else 0).run(suite)
    for test, trace in result.errors + result.failures + [(t, "unexpected success\n") for t in result.unexpectedSuccesses]:
        print(f"FAIL {test.id()}\n{trace}")
    failed = len(result.errors) + len(result.failures) + len(result.unexpectedSuccesses)
    print(json.dumps({"passed": result.passed, "failed": failed, "skipped": len(result.skipped)}, separators=(",", ":")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
