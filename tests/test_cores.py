"""tests/cores.py: each pytest-xdist worker of make test keeps to its own share of the cores."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import cores

HERE = os.path.dirname(os.path.abspath(__file__))


def test_each_worker_gets_every_nth_core_from_its_own_index():
    assert cores.share("gw0", 2, {1, 0}) == {0} and cores.share("gw1", 2, [0, 1]) == {1}
    assert cores.share("gw1", 2, range(8)) == {1, 3, 5, 7} and cores.share("gw0", 2, range(8)) == {0, 2, 4, 6}
    assert cores.share("gw0", 3, [4, 5, 6, 7]) == {4, 7} and cores.share("gw2", 3, [4, 5, 6, 7]) == {6}
    assert cores.share("gw0", 1, [2, 3]) == {2, 3}  # one worker: every core
    assert cores.share("gw0", 3, [0, 1]) is None and cores.share("gw1", 0, [0, 1]) is None  # fewer cores than workers


def _pinned(env: dict) -> tuple:
    """(what pin returned, the cores the process then may use) in a fresh interpreter with ``env``."""
    code = ("import json, os, sys; sys.path.insert(0, sys.argv[1]); import cores; c = cores.pin(); "
            "print(json.dumps([sorted(c) if c else None, sorted(os.sched_getaffinity(0))]))")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", cores.OFF))}
    out = subprocess.run([sys.executable, "-c", code, HERE], env={**base, **env}, capture_output=True, text=True, check=True)
    return tuple(json.loads(out.stdout))


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_a_worker_is_pinned_to_its_share_and_nothing_else_is():
    mine = sorted(os.sched_getaffinity(0))
    want = cores.share("gw1", 2, mine)
    got = _pinned({"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "2"})
    assert got == ((sorted(want), sorted(want)) if want else (None, mine))
    assert _pinned({"PYTEST_XDIST_WORKER": "gw0", "PYTEST_XDIST_WORKER_COUNT": "1"}) == (mine, mine)  # one: all it had
    assert _pinned({}) == (None, mine)  # not a worker (one process: TEST_WORKERS=0)
    assert _pinned({"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "2", cores.OFF: "0"}) == (None, mine)
