"""Wall time and peak memory of a command run in a fresh process, for the benchmarks.

:func:`measured` runs a command under a small wrapper interpreter and reports two peaks:

* ``max_process_rss_mb``: the largest resident set of any single process of the command's
  tree (``getrusage(RUSAGE_CHILDREN).ru_maxrss`` of the wrapper, which covers every waited-for
  descendant), exact;
* ``tree_pss_mb``: the largest sum of ``Pss`` over the tree (shared pages counted once: the
  memory the command takes from the machine), sampled every 200 ms (reading it costs a walk of
  every page table);
* ``tree_rss_mb``: the largest sum of ``VmRSS`` over the command and its descendants (pool
  workers included), sampled from ``/proc`` every 20 ms, so a lower bound.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WRAPPER = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)\n"
)


def _tree_sum_kb(pid: int, name: str, key: str) -> int:
    """Sum of the ``key`` line (kB) of ``/proc/<p>/<name>`` over ``pid`` and its descendants (0 for
    vanished processes)."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/{name}") as f:
                for line in f:
                    if line.startswith(key):
                        total += int(line.split()[1])
                        break
            with open(f"/proc/{p}/task/{p}/children") as f:
                stack.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def tree_rss_kb(pid: int) -> int:
    """Sum of VmRSS over ``pid`` and its descendants."""
    return _tree_sum_kb(pid, "status", "VmRSS:")


def tree_pss_kb(pid: int) -> int:
    """Sum of ``Pss`` over ``pid`` and its descendants: pages shared between them (a forked worker's,
    a memory map's) counted once in all."""
    return _tree_sum_kb(pid, "smaps_rollup", "Pss:")


def measured(cmd: list[str], what: str, env: dict | None = None, cwd: str = ROOT) -> dict:
    """Run ``cmd``; {"seconds", "max_process_rss_mb", "tree_rss_mb"}. SystemExit naming ``what``
    (and the rerun command) when it fails; its output is discarded, so rerun it to see why."""
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", WRAPPER, *map(str, cmd)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, text=True)
    tree_peak = pss_peak = ticks = 0
    while proc.poll() is None:
        tree_peak = max(tree_peak, tree_rss_kb(proc.pid))
        if ticks % 10 == 0:  # smaps_rollup walks every page table: not every 20 ms
            pss_peak = max(pss_peak, tree_pss_kb(proc.pid))
        ticks += 1
        time.sleep(0.02)
    wall = time.perf_counter() - t
    maxrss_kb, rc = proc.stdout.read().split()
    if int(rc) != 0:
        raise SystemExit(f"error: {what}: exit code {rc} from: {' '.join(map(str, cmd))}")
    return {"seconds": round(wall, 2), "max_process_rss_mb": round(int(maxrss_kb) / 1024, 1),
            "tree_rss_mb": round(tree_peak / 1024, 1), "tree_pss_mb": round(pss_peak / 1024, 1)}
