"""The kappa search and the final training at the paper's size, on synthetic couples.

    python -m benchmarks.bench_fit_scale [--related 1500000] [--vocab 2200000] [--dim 400]
                                        [--form auto] [--epochs 1,3] [--out FILE]

The paper trains on 1.5M related + 1.5M unrelated couples per setting with a 2.2M-word
vocabulary of 400-dimensional vectors (section 4.1). This builds couples of that size with
the wikivar setting's shape (each text 10..30 random words, width 30, n_max 30), a random
unit-length table, and times, through the project's own code path:

* ``prepare`` (the data form, chosen by ``--form``; "auto" keeps the quadratic form while it
  fits :data:`repro.core.forms.QUADRATIC_BUDGET`, else the gather form);
* :func:`repro.core.fit.fit`: the kappa search (the 10 kappas x 5 folds of
  :data:`repro.settings.KAPPA_GRID`, or ``--grid``) and the final run with the kappa it chose, each
  timed by ``fit`` itself, with ``max_epochs`` at the two values of ``--epochs``: the difference of the two times over
  the difference of the epochs is the time per epoch, compile time cancelled.

Reports the host's peak resident memory and, on a GPU, the device's peak bytes; writes JSON
(default ``benchmarks/results/fit-scale-<backend>.json``). Timing only: random couples say
nothing about the weights.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import repro  # noqa: F401, I001 - the kernel pins, before NumPy and XLA load

import jax
import numpy as np

from repro import settings
from repro.core import forms
from repro.core.fit import fit
from repro.core.pairset import PairSet, from_rows
from repro.io.provenance import git_commit, hardware
from repro.io.store import write_json
from repro.core.prepared import prepare

HERE = os.path.dirname(os.path.abspath(__file__))


def synthetic(related: int, vocab: int, dim: int, seed: int = 0) -> tuple[np.ndarray, PairSet]:
    """A unit-length (vocab, dim) table and related + as many unrelated wikivar-shaped couples."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((vocab, dim), dtype=np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    cfg = settings.setting("wikivar")
    p = 2 * related
    lens = rng.integers(cfg.min_n, cfg.max_n + 1, size=(2, p)).astype(np.int32)
    rows = rng.integers(1, vocab, size=(2, p, cfg.width), dtype=np.int32)
    rows[np.arange(cfg.width)[None, None, :] >= lens[..., None]] = 0
    label = np.repeat(np.array([1, 0], np.int8), related)
    return table, from_rows(rows.reshape(2 * p, cfg.width), lens.reshape(2 * p), np.arange(p), p + np.arange(p), label)


def peak_host_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_device_mb() -> float | None:
    stats = jax.devices()[0].memory_stats() or {}
    return stats["peak_bytes_in_use"] / 2 ** 20 if "peak_bytes_in_use" in stats else None


def timed(fn):
    t = time.perf_counter()
    out = fn()
    jax.block_until_ready(out)
    return time.perf_counter() - t, out


def failure(args, backend: str) -> dict:
    """The record of a run with ``args`` that exited with ``args.failed`` (137: killed, for memory)."""
    couples = 2 * args.related
    with open("/proc/meminfo") as f:
        total_kb = int(next(line for line in f if line.startswith("MemTotal:")).split()[1])
    return {"failed": args.failed, "killed": args.failed in (137, -9), "related": args.related,
            "couples": couples, "vocab": args.vocab, "dim": args.dim, "form_asked": args.form,
            "quad_bytes": couples * forms.packed_size(settings.setting("wikivar").n_max) * 4,
            "memory_gb": round(total_kb / 2 ** 20, 1), "backend": backend, "commit": git_commit(), **hardware()}


def record(search: dict, final: dict, epochs: list, grid: list) -> dict:
    """The timings by ``max_epochs`` (the time per epoch from the two values, compile cancelled),
    the device's peak and the provenance."""
    e1, e2 = epochs[0], epochs[-1]
    rate = (lambda t: round((t[e2] - t[e1]) / (e2 - e1), 4)) if e2 > e1 else (lambda t: None)
    backend = jax.default_backend()
    return {
        "gram_budget": forms.QUADRATIC_BUDGET, "kappa_runs": len(grid) * 5, "grid": grid, "epochs": epochs,
        "search_s": {str(k): round(v, 3) for k, v in search.items()},
        "final_s": {str(k): round(v, 3) for k, v in final.items()},
        "search_epoch_s": rate(search), "final_epoch_s": rate(final),
        "device_peak_mb": None if peak_device_mb() is None else round(peak_device_mb(), 1),
        "backend": backend, "accelerator": jax.devices()[0].device_kind if backend != "cpu" else None,
        "devices": jax.device_count(), "jax": jax.__version__, "numpy": np.__version__,
        "commit": git_commit(), **hardware(),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--related", type=int, default=1_500_000, help="related couples (as many unrelated)")
    ap.add_argument("--vocab", type=int, default=2_200_000)
    ap.add_argument("--dim", type=int, default=400)
    ap.add_argument("--form", default="auto", choices=forms.FORMS)
    ap.add_argument("--epochs", default="1,3", help="two max_epochs values, to separate compile from epochs "
                    "(one value: no rate, memory only)")
    ap.add_argument("--grid", default=",".join(f"{k:g}" for k in settings.KAPPA_GRID),
                    help="kappa grid of the search (default: the project's)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--failed", type=int, default=None, metavar="EXIT",
                    help="record that a run with these arguments exited with EXIT (137: killed, for memory) "
                         "instead of running")
    args = ap.parse_args(argv)
    backend = jax.default_backend()
    out = args.out or os.path.join(HERE, "results", f"fit-scale-{backend}.json")
    if args.failed is not None:
        write_json(out, failure(args, backend))
        print(f"recorded: --form {args.form} at {2 * args.related} couples exited with {args.failed} -> {out}")
        return 0
    epochs = [int(x) for x in args.epochs.split(",")]
    grid = [float(x) for x in args.grid.split(",")]

    t = time.perf_counter()
    table, pairs = synthetic(args.related, args.vocab, args.dim)
    make_s = time.perf_counter() - t
    host_data_mb = peak_host_mb()
    n_max = settings.setting("wikivar").n_max
    prep_s, prepared = timed(lambda: prepare(table, pairs, n_max, form=args.form))
    form = type(prepared.form).__name__
    host_prepared_mb = peak_host_mb()

    search, final = {}, {}
    for e in epochs:  # through repro.core.fit, the one way: its own clock times the search and the final run
        result = fit(prepared, "median", grid=grid, folds=5, max_epochs=e)
        search[e], final[e] = result.seconds["kappa_cv"], result.seconds["train"]
        print(f"max_epochs {e}: kappa search {search[e]:.2f} s, final run {final[e]:.2f} s", flush=True)
    result = dict(record(search, final, epochs, grid), related=args.related, couples=pairs.size, vocab=args.vocab,
                  dim=args.dim, n_max=n_max, form=form, form_asked=args.form, quad_bytes=forms.quad_bytes(pairs, n_max),
                  make_data_s=round(make_s, 2), prepare_s=round(prep_s, 2),
                  host_peak_mb={"data": round(host_data_mb, 1), "prepared": round(host_prepared_mb, 1),
                                "end": round(peak_host_mb(), 1)})
    write_json(out, result)
    runs = result["kappa_runs"]
    print(f"{pairs.size} couples ({form}), {runs} kappa runs: search {result['search_epoch_s']} s/epoch, final run "
          f"{result['final_epoch_s']} s/epoch, prepare {result['prepare_s']} s; host peak {result['host_peak_mb']['end']} MB, "
          f"device peak {result['device_peak_mb']} MB -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
