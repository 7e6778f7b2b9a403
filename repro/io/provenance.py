"""Where a result came from: commit, library versions, hardware (how a model was made is its
:class:`repro.core.modelrecord.ModelRecord`)."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from importlib import metadata

#: the lock's name, in the checkout and (where ``make install`` used it) in the venv
LOCKFILE = "constraints.txt"


def git_commit(root: str | None = None) -> str:
    """The checked-out commit, with ``+dirty`` when tracked source files differ (generated outputs
    aside); "unknown" outside git. ``REPRO_COMMIT``, where set, names it instead: for a copy of
    the checkout without its own history (a GPU machine's, say)."""
    if os.environ.get("REPRO_COMMIT"):
        return os.environ["REPRO_COMMIT"]
    root = root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        # the generated outputs (results/, the generated blocks of README.md and docs/RESULTS.md, the
        # shipped weights, the benchmarks' results and docs/SCALE.md) do not count: a table made right after another one, or a
        # benchmark after the one before it, is made by the same code
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":!results", ":!README.md", ":!repro/weights", ":!benchmarks/results",
                                ":!docs/SCALE.md", ":!docs/RESULTS.md"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def versions(packages=("jax", "jaxlib", "optax", "numpy", "scipy", "gensim", "pandas", "threadpoolctl")) -> dict:
    """The Python version and the installed version of each package (None where missing)."""
    out = {"python": platform.python_version()}
    for p in packages:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = None
    return out


def canonical(name: str) -> str:
    """A package name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_lock(text: str, python: str | None = None) -> dict[str, str]:
    """``{name: version}`` of a constraints file for one Python version ("3.11"; default: this
    one): plain ``name==version`` lines, and those whose ``python_version == "X.Y"`` marker names it."""
    python = python or "{}.{}".format(*sys.version_info[:2])
    out = {}
    for line in text.splitlines():
        spec, _, marker = line.split("#", 1)[0].partition(";")
        if not spec.strip():
            continue
        m = re.fullmatch(r'\s*python_version\s*==\s*"([\d.]+)"\s*', marker) if marker.strip() else None
        if marker.strip() and (m is None or m.group(1) != python):
            continue
        name, _, version = spec.strip().partition("==")
        out[canonical(name)] = version.strip()
    return out


def lock_state(prefix: str = sys.prefix) -> dict:
    """Whether this environment was installed with the lock (``make install`` copies it into the
    venv) and, if so, every locked package whose installed version differs (None: not installed)."""
    path = os.path.join(prefix, LOCKFILE)
    if not os.path.exists(path):
        return {"used": False}
    with open(path) as f:
        locked = parse_lock(f.read())
    differ = {}
    for name, want in locked.items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # an extra that was not installed
        if have != want:
            differ[name] = {"locked": want, "installed": have}
    return {"used": True, "packages": len(locked), "differ": differ}


def hardware() -> dict:
    info = {"machine": platform.machine(), "system": platform.system(), "cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        import jax

        info["jax_backend"] = jax.default_backend()
        info["jax_devices"] = [str(d) for d in jax.devices()]
    except Exception:  # noqa: BLE001 - provenance must never fail a run
        pass
    return info
