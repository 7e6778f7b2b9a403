"""The lock: exact versions of every package of the default install and its extras (``make lock``).

    python3 -m experiments.lock [--out constraints.txt] [--python 3.11 3.12 3.13] [--keep constraints.txt]

For each Python version, pip resolves the requirements of setup.cfg (``install_requires`` and
every extra) to the newest versions, without installing anything (``pip install --dry-run
--report``, wheels only, this platform). An extra that cannot be installed on a version (no
wheel for it) is left out of that version and named in the file's header. The result is a pip
constraints file: one ``name==version`` line where every version agrees, else one line per
version with a ``python_version`` marker. ``make install`` installs with it (``LOCK=0`` takes
the newest instead); refresh it on purpose, in its own commit, with the tables regenerated.
``--keep FILE`` resolves with FILE's versions for that Python as constraints: a package it pins
keeps its version, and only a requirement new to setup.cfg gets the newest one that fits, so
adding an extra moves nothing else (and no table).
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import subprocess
import sys
import tempfile

from repro.io.provenance import canonical, parse_lock  # stdlib only: runs on a bare python3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def requirements(setup_cfg: str = os.path.join(ROOT, "setup.cfg")) -> dict[str, list[str]]:
    """setup.cfg's requirements: ``{"": install_requires, extra: its requirements, ...}``."""
    cfg = configparser.ConfigParser()
    cfg.read(setup_cfg)

    def lines(text: str) -> list[str]:
        return [r.strip() for r in text.splitlines() if r.strip()]

    out = {"": lines(cfg["options"]["install_requires"])}
    out.update({extra: lines(reqs) for extra, reqs in cfg["options.extras_require"].items()})
    return out


def resolve(reqs: list[str], python: str, keep: dict[str, str] | None = None) -> dict[str, str] | None:
    """``{name: version}`` that pip installs for ``reqs`` on ``python``; None where it cannot.
    ``keep``: ``{name: version}`` pins it must keep (pip constraints)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        pins = []
        if keep:
            pins = ["-c", os.path.join(tmp, "keep.txt")]
            with open(pins[1], "w") as f:
                f.write("".join(f"{name}=={version}\n" for name, version in sorted(keep.items())))
        cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
               "--target", os.path.join(tmp, "target"), "--only-binary=:all:", "--python-version", python,
               "--report", report, *pins, *reqs]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            return None
        with open(report) as f:
            installs = json.load(f)["install"]
    return {canonical(i["metadata"]["name"]): i["metadata"]["version"] for i in installs}


def lock_one(reqs: dict[str, list[str]], python: str,
             keep: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """The versions for one Python version, and the extras that cannot be installed there
    (``keep``: the pins to keep, :func:`resolve`)."""
    if resolve(reqs[""], python, keep) is None:
        raise SystemExit(f"error: the default install does not resolve on Python {python}")
    dropped = [e for e in reqs if e and resolve(reqs[""] + reqs[e], python, keep) is None]
    everything = [r for e, rs in reqs.items() if e not in dropped for r in rs]
    versions = resolve(everything, python, keep)
    if versions is None:
        raise SystemExit(f"error: the extras {sorted(set(reqs) - set(dropped) - {''})} do not resolve "
                         f"together on Python {python}")
    return versions, dropped


def render(locks: dict[str, dict[str, str]], dropped: dict[str, list[str]]) -> str:
    """The constraints file: shared versions plain, differing ones with python_version markers."""
    pythons = list(locks)
    head = ["# The lock (make lock: experiments/lock.py): exact versions for `make install`; LOCK=0 ignores it.",
            f"# Python {', '.join(pythons)} on Linux x86-64, the default install and the extras "
            f"{', '.join(e for e in requirements() if e)}."]
    head += [f"# Python {p}: without the extras {', '.join(d)} (no wheel there)." for p, d in dropped.items() if d]
    body = []
    for name in sorted(set().union(*locks.values())):
        seen = {p: locks[p].get(name) for p in pythons}
        if len(set(seen.values())) == 1:
            body.append(f"{name}=={seen[pythons[0]]}")
        else:
            body += [f'{name}=={v} ; python_version == "{p}"' for p, v in seen.items() if v]
    return "\n".join(head + body) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "constraints.txt"))
    ap.add_argument("--python", nargs="+", default=list(PYTHONS))
    ap.add_argument("--keep", metavar="FILE", help="keep this lock's versions; pin only what it lacks")
    args = ap.parse_args(argv)
    reqs = requirements()
    kept = None
    if args.keep:
        try:
            with open(args.keep) as f:
                kept = f.read()
        except OSError as e:
            raise SystemExit(f"error: --keep {args.keep}: {e.strerror}")
    locks, dropped = {}, {}
    for python in args.python:
        locks[python], dropped[python] = lock_one(reqs, python, parse_lock(kept, python) if kept else None)
        print(f"Python {python}: {len(locks[python])} packages"
              + (f", without {', '.join(dropped[python])}" if dropped[python] else ""))
    with open(args.out, "w") as f:
        f.write(render(locks, dropped))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
