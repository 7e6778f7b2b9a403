"""One training epoch: the project's jitted trainer against a plain NumPy implementation.

Both run the same thing side by side in one process: Algorithm 1's SGD over batches of
50 related + 50 unrelated couples with the median loss (Euclidean distance, kappa 160,
lambda 1e-3), n = 20 weights, 400-dimensional vectors, a 200k-word table. Reports pairs
per second, the ratio, and the JAX compile time separately. Run with ``make bench``.

    python benchmarks/bench_train.py [--pairs 100000] [--vocab 200000] [--dim 400]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import jax
import jax.numpy as jnp
import numpy as np

from repro.pairset import PairSet
from repro.train import TrainConfig, make_trainer, prepare


def numpy_epoch(w, table, a, b, batches, n, kappa, lam, eta, nr):
    """Reference: the same loss and its hand-derived gradient, one SGD step per batch."""
    losses = []
    for idx in batches:
        ea, eb = table[a[idx]], table[b[idx]]  # (B, n, d)
        ta = np.einsum("j,bjd->bd", w, ea) / n
        tb = np.einsum("j,bjd->bd", w, eb) / n
        diff = ta - tb
        d = np.sqrt(np.sum(diff * diff, axis=1))
        order = np.argsort(d)
        m = d.size // 2
        mu = 0.5 * (d[order[m - 1]] + d[order[m]])
        p = np.where(np.arange(d.size) < nr, 1.0, -1.0)
        s = kappa * p * (d - mu)
        loss = np.mean(np.logaddexp(0.0, s)) + lam * np.sum(w * w)
        g_d = kappa * p / (1.0 + np.exp(-s)) / d.size  # dL/dd
        g_mu = -np.sum(g_d)
        g_d[order[m - 1]] += 0.5 * g_mu
        g_d[order[m]] += 0.5 * g_mu
        coef = (g_d / np.maximum(d, 1e-30))[:, None] * diff  # dL/dta = -dL/dtb
        g_w = (np.einsum("bd,bjd->j", coef, ea) - np.einsum("bd,bjd->j", coef, eb)) / n
        w = w - eta * (g_w + 2 * lam * w)
        losses.append(loss)
    return w, float(np.mean(losses))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--vocab", type=int, default=200_000)
    ap.add_argument("--dim", type=int, default=400)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--out", default="benchmarks/results/train.json")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(0)
    table = rng.normal(size=(args.vocab, args.dim)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    p, n = args.pairs, args.n
    pairs = PairSet(rng.integers(0, args.vocab, (p, n), dtype=np.int32),
                    rng.integers(0, args.vocab, (p, n), dtype=np.int32),
                    np.full(p, n, np.int32), np.full(p, n, np.int32),
                    (np.arange(p) % 2 == 0).astype(np.int8))
    cfg = TrainConfig(max_epochs=1)
    data = prepare(table, pairs)
    rel = jnp.asarray(np.flatnonzero(pairs.label == 1).astype(np.int32))
    unrel = jnp.asarray(np.flatnonzero(pairs.label == 0).astype(np.int32))
    key, kappa = jax.random.PRNGKey(0), jnp.float32(cfg.kappa)

    run = make_trainer(cfg, n)
    t0 = time.perf_counter()
    compiled = run.lower(data, rel, unrel, kappa, key).compile()
    compile_s = time.perf_counter() - t0
    jax.block_until_ready(compiled(data, rel, unrel, kappa, key))  # warm
    t0 = time.perf_counter()
    w, hist, _, _ = jax.block_until_ready(compiled(data, rel, unrel, kappa, key))
    jax_s = time.perf_counter() - t0
    n_batches = min(rel.shape[0], unrel.shape[0]) // cfg.batch_related
    used = 2 * cfg.batch_related * n_batches

    # the reference sees the same number of couples (its own fixed batch order)
    r_np, u_np = np.asarray(rel), np.asarray(unrel)
    batches = [np.concatenate([r_np[i * 50:(i + 1) * 50], u_np[i * 50:(i + 1) * 50]]) for i in range(n_batches)]
    t0 = time.perf_counter()
    numpy_epoch(np.full(n, 0.5), table, pairs.a, pairs.b, batches, n, cfg.kappa, cfg.lam, cfg.eta, 50)
    np_s = time.perf_counter() - t0

    res = {
        "pairs_per_epoch": used, "n": n, "dim": args.dim, "vocab": args.vocab,
        "jax_pairs_per_s": used / jax_s, "numpy_pairs_per_s": used / np_s,
        "speedup": np_s / jax_s, "jax_compile_s": compile_s,
        "jax_epoch_s": jax_s, "numpy_epoch_s": np_s, "mean_loss_jax": float(hist[0]),
        "backend": jax.default_backend(), "device": str(jax.devices()[0]),
        "cpus": os.cpu_count(), "machine": platform.processor() or platform.machine(),
        "jax": jax.__version__, "numpy": np.__version__,
    }
    print(f"one epoch, {used} couples, n={n}, d={args.dim}, V={args.vocab} on {res['device']}")
    print(f"  {'':10s} {'pairs/s':>12s} {'epoch s':>9s}")
    print(f"  {'jax':10s} {res['jax_pairs_per_s']:12.0f} {jax_s:9.2f}   (compile {compile_s:.2f} s)")
    print(f"  {'numpy':10s} {res['numpy_pairs_per_s']:12.0f} {np_s:9.2f}")
    print(f"  speed-up {res['speedup']:.1f}x")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump(res, f, indent=2)
    os.replace(args.out + ".tmp", args.out)
    return res


if __name__ == "__main__":
    main()
