"""What the kernel pins cost (repro/pins.py): a training epoch and a scoring pass, pinned
(NumPy and XLA capped at AVX2) against native (``REPRO_NATIVE_KERNELS=1``).

The pins act when a process starts, so each measurement is a fresh process: pinned and native
alternate, ``--rounds`` times each (default 3), and each keeps its best. A round times, after a
warm-up call that compiles: one epoch of Algorithm 1 (quadratic form, median loss, n = 20) and
the learned weights' distances of every couple (:func:`repro.evaluate.scoring.pair_distances`).

    python -m benchmarks.bench_pins [--rounds 3] [--pairs 40000] [--vocab 50000] [--dim 400]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import repro  # noqa: F401 - the pins, before NumPy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_round(pairs: int, vocab: int, dim: int) -> dict:
    """Seconds of one training epoch and one scoring pass in this process (after warm-ups)."""
    import time

    import jax
    import jax.numpy as jnp
    import numpy as np

    from repro.core import forms
    from repro.core.pairset import from_rows
    from repro.evaluate.scoring import pair_distances
    from repro.core.train import TrainConfig, make_trainer

    rng = np.random.default_rng(0)
    table = rng.normal(size=(vocab, dim)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    n = 20
    rows = np.concatenate([rng.integers(0, vocab, (pairs, n), dtype=np.int32),
                           rng.integers(0, vocab, (pairs, n), dtype=np.int32)])  # texts a, then texts b
    ps = from_rows(rows, np.full(2 * pairs, n, np.int32), np.arange(pairs), pairs + np.arange(pairs),
                   (np.arange(pairs) % 2 == 0).astype(np.int8))
    cfg = TrainConfig(max_epochs=1)
    rel = jnp.asarray(np.flatnonzero(ps.label == 1).astype(np.int32))
    unrel = jnp.asarray(np.flatnonzero(ps.label == 0).astype(np.int32))
    key, kappa = jax.random.PRNGKey(0), jnp.float32(160.0)
    data = jax.block_until_ready(forms.build(jnp.asarray(table), ps, n, "quadratic"))
    compiled = make_trainer(cfg, n).lower(data, rel, unrel, kappa, key).compile()
    jax.block_until_ready(compiled(data, rel, unrel, kappa, key))
    t0 = time.perf_counter()
    jax.block_until_ready(compiled(data, rel, unrel, kappa, key))
    epoch = time.perf_counter() - t0
    w = np.linspace(1.0, 0.1, n).astype(np.float32)
    pair_distances(w, table, ps)
    t0 = time.perf_counter()
    pair_distances(w, table, ps)
    return {"train_epoch_s": epoch, "scoring_s": time.perf_counter() - t0}


def child(variant: str, args) -> dict:
    """One round in a fresh process, pinned or native."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    for k in ("REPRO_NATIVE_KERNELS", "NPY_DISABLE_CPU_FEATURES", "XLA_FLAGS"):
        env.pop(k, None)  # the pins of repro/pins.py alone decide
    if variant == "native":
        env["REPRO_NATIVE_KERNELS"] = "1"
    cmd = [sys.executable, "-m", "benchmarks.bench_pins", "--child", "--pairs", str(args.pairs), "--vocab", str(args.vocab), "--dim", str(args.dim)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=40_000)
    ap.add_argument("--vocab", type=int, default=50_000)
    ap.add_argument("--dim", type=int, default=400)
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "pins.json"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        res = one_round(args.pairs, args.vocab, args.dim)
        from repro.pins import state

        res["kernels"] = state()
        print(json.dumps(res))
        return res
    runs = {"pinned": [], "native": []}
    for _ in range(args.rounds):
        for variant in runs:  # alternating
            runs[variant].append(child(variant, args))
    best = {v: {k: min(r[k] for r in rs) for k in ("train_epoch_s", "scoring_s")} for v, rs in runs.items()}
    from repro.io.provenance import git_commit, hardware, versions
    from repro.io.store import write_json

    res = {"pairs": args.pairs, "vocab": args.vocab, "dim": args.dim, "n": 20, "rounds": args.rounds,
           "best": best, "runs": {v: [{k: r[k] for k in ("train_epoch_s", "scoring_s")} for r in rs] for v, rs in runs.items()},
           "pinned_over_native": {k: best["pinned"][k] / best["native"][k] for k in best["pinned"]},
           "kernels": {v: rs[0]["kernels"] for v, rs in runs.items()},
           "commit": git_commit(), "versions": versions(), "hardware": hardware()}
    for k, ratio in res["pinned_over_native"].items():
        print(f"{k}: pinned {best['pinned'][k]:.3f} s, native {best['native'][k]:.3f} s (x{ratio:.3f}), best of {args.rounds}")
    write_json(args.out, res)
    return res


if __name__ == "__main__":
    main()
