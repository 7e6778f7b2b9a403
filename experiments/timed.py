"""Run one stage's command and record its wall time: ``python -m experiments.timed DIR NAME -- CMD...``.

On success writes DIR/NAME.json ({"stage", "seconds", "command"}), which Table 1's
provenance collects; the command's exit status is passed through.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from repro.io.store import write_json


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 4 or argv[2] != "--":
        print("usage: python -m experiments.timed DIR NAME -- CMD...", file=sys.stderr)
        return 2
    folder, name, cmd = argv[0], argv[1], argv[3:]
    start = time.perf_counter()
    code = subprocess.call(cmd)
    if code == 0:
        write_json(os.path.join(folder, f"{name}.json"),
                   {"stage": name, "seconds": round(time.perf_counter() - start, 3), "command": " ".join(cmd)})
    return code


if __name__ == "__main__":
    sys.exit(main())
