"""The cores of each pytest-xdist worker: ``make test`` runs the suite on TEST_WORKERS processes,
and each keeps to its own share of the machine's cores (the processes it starts too, make chains
included). Each JAX process otherwise spreads XLA's compilation and its thread pool over every
core while the other worker keeps them busy anyway: on the README's 2-core AMD box, one core a
worker cut the CPU time of CI's session of both tiers by a tenth and its wall time by about a
minute (the fast tier alone took as long as before). A program's bits do not depend on it (the
reduced repro-check gave every stage's SHA-256 pinned and not)."""

from __future__ import annotations

import os

#: ``REPRO_TEST_PIN=0``: every worker on every core, as before
OFF = "REPRO_TEST_PIN"


def share(worker: str, count: int, cpus) -> set[int] | None:
    """The cores of xdist worker ``worker`` ("gw0", "gw1", ...) of ``count``: every ``count``-th of
    ``cpus`` from its own index on; None where there are fewer cores than workers (no pinning)."""
    cpus = sorted(cpus)
    if count < 1 or len(cpus) < count:
        return None
    return set(cpus[int(worker.removeprefix("gw")) % count::count])


def pin(environ=os.environ) -> set[int] | None:
    """Keep this process (an xdist worker) to its :func:`share` of the cores it may run on; the cores
    kept, or None where it is not a worker, the platform cannot pin, or ``REPRO_TEST_PIN=0``. Call it
    before JAX starts its CPU client (XLA sizes its thread pool by the cores it may use)."""
    worker = environ.get("PYTEST_XDIST_WORKER")
    if not worker or environ.get(OFF) == "0" or not hasattr(os, "sched_setaffinity"):
        return None
    cores = share(worker, int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), os.sched_getaffinity(0))
    if cores:
        os.sched_setaffinity(0, cores)
    return cores
