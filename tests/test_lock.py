"""The lock (constraints.txt, made by experiments/lock.py): exact versions for every requirement
of setup.cfg, and an environment installed with it has exactly those versions."""

from __future__ import annotations

import os
import sys

import pytest

from experiments import lock
from repro.io.provenance import LOCKFILE, canonical, lock_state, parse_lock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def committed() -> str:
    with open(os.path.join(ROOT, LOCKFILE)) as f:
        return f.read()


def test_markers_choose_each_python_versions_line():
    locks = {"3.10": {"numpy": "2.2.6", "tqdm": "4.70.1"}, "3.11": {"numpy": "2.4.6", "tqdm": "4.70.1"}}
    text = lock.render(locks, {"3.10": ["glove"], "3.11": []})
    assert "tqdm==4.70.1\n" in text and 'numpy==2.2.6 ; python_version == "3.10"' in text
    assert "# Python 3.10: without the extras glove (no wheel there)." in text
    assert parse_lock(text, "3.10") == locks["3.10"] and parse_lock(text, "3.11") == locks["3.11"]
    assert parse_lock(text, "3.13") == {"tqdm": "4.70.1"}


@pytest.mark.parametrize("python", ["3.11", "3.12", "3.13"])
def test_the_lock_pins_every_requirement_of_setup_cfg(python):
    pinned = parse_lock(committed(), python)
    names = {canonical(r.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip())
             for reqs in lock.requirements().values() for r in reqs}
    assert names - {"jax"} <= set(pinned) and "jax" in pinned
    assert all(v and v[0].isdigit() for v in pinned.values())
    assert pinned["gensim"] == "4.4.0"  # setup.cfg's own pin


def test_an_environment_installed_with_the_lock_has_its_versions():
    state = lock_state()
    if not state["used"]:
        pytest.skip(f"this environment was not installed with the lock (no {sys.prefix}/{LOCKFILE}; make install does)")
    assert state["differ"] == {}, f"installed versions differ from the lock: {state['differ']}"


def test_lock_state_names_each_package_that_differs(tmp_path):
    (tmp_path / LOCKFILE).write_text("pytest==0.0.1\nno-such-package-here==1.0\n")
    state = lock_state(str(tmp_path))
    assert state["used"] and state["packages"] == 2
    assert list(state["differ"]) == ["pytest"] and state["differ"]["pytest"]["locked"] == "0.0.1"
    assert lock_state(str(tmp_path / "none")) == {"used": False}


def test_keep_resolves_with_the_locks_versions_for_that_python(monkeypatch, tmp_path):
    """``--keep``: pip gets the kept lock's versions for the Python it resolves for as constraints."""
    import json
    import subprocess

    seen = []

    def fake_pip(cmd, **kwargs):
        pins = cmd[cmd.index("-c") + 1] if "-c" in cmd else None
        seen.append((cmd[cmd.index("--python-version") + 1], open(pins).read() if pins else None, cmd[-1]))
        with open(cmd[cmd.index("--report") + 1], "w") as f:
            json.dump({"install": [{"metadata": {"name": "Numba", "version": "0.68.1"}}]}, f)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(lock.subprocess, "run", fake_pip)
    kept = 'numpy==2.2.6 ; python_version == "3.10"\nnumpy==2.4.6 ; python_version == "3.11"\ntqdm==4.70.1\n'
    assert lock.resolve(["numba>=0.60"], "3.10", parse_lock(kept, "3.10")) == {"numba": "0.68.1"}
    assert lock.resolve(["numba>=0.60"], "3.11") == {"numba": "0.68.1"}
    assert seen == [("3.10", "numpy==2.2.6\ntqdm==4.70.1\n", "numba>=0.60"), ("3.11", None, "numba>=0.60")]
    lockfile = tmp_path / "lock.txt"
    lockfile.write_text(kept)
    monkeypatch.setattr(lock, "requirements", lambda: {"": ["numba>=0.60"]})
    seen.clear()
    assert lock.main(["--out", str(tmp_path / "out.txt"), "--python", "3.11", "--keep", str(lockfile)]) == 0
    assert {s[1] for s in seen} == {"numpy==2.4.6\ntqdm==4.70.1\n"}
    assert "numba==0.68.1" in (tmp_path / "out.txt").read_text()
    with pytest.raises(SystemExit, match="--keep .*no-such-lock.txt: No such file"):
        lock.main(["--out", str(tmp_path / "out.txt"), "--keep", str(tmp_path / "no-such-lock.txt")])
