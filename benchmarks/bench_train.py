"""One training epoch: the project's jitted trainer against a plain NumPy implementation.

Both run the same thing side by side in one process: Algorithm 1's SGD over batches of
50 related + 50 unrelated couples with the median loss (Euclidean distance, kappa 160,
lambda 1e-3), n = 20 weights, 400-dimensional vectors, a 200k-word table. Reports pairs
per second, the ratio, and the JAX compile time separately, for the three data forms of
the trainer: the gather form (embeddings gathered in every batch), the exact Gram form
(the couple's Gram matrix, built once per run, interpolated in every step) and the
quadratic form (d^2 = w^T R w, R built once per run; the default). Build times are
reported apart. Run with ``make bench``.

    python -m benchmarks.bench_train [--pairs 100000] [--vocab 200000] [--dim 400]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import jax
import jax.numpy as jnp
import numpy as np

from repro.core.pairset import PairSet, from_rows
from repro.io.store import write_json
from repro.io.provenance import git_commit, hardware
from repro.core import forms
from repro.core.train import TrainConfig, make_trainer


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


KAPPA = 160.0  # the original code's kappa; any value costs the same


def synthetic_couples(vocab: int, dim: int, pairs: int, n: int) -> tuple[np.ndarray, PairSet]:
    """A seeded unit-length table (vocab, dim) float32 and ``pairs`` couples of ``n`` random
    words each, every other one related."""
    rng = np.random.default_rng(0)
    table = rng.normal(size=(vocab, dim)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    rows = np.concatenate([rng.integers(0, vocab, (pairs, n), dtype=np.int32),
                           rng.integers(0, vocab, (pairs, n), dtype=np.int32)])  # texts a, then texts b
    couples = from_rows(rows, np.full(2 * pairs, n, np.int32), np.arange(pairs), pairs + np.arange(pairs),
                        (np.arange(pairs) % 2 == 0).astype(np.int8))
    return table, couples


def timed_epoch(run, table, pairs: PairSet, n: int, rel, unrel, form: str) -> tuple[float, float, float, float]:
    """(build s, compile s, epoch s, mean loss) of one epoch of ``run`` in the data form ``form``,
    each timed after a warm-up."""
    key, kappa = jax.random.PRNGKey(0), jnp.float32(KAPPA)
    device_table = jnp.asarray(table)
    jax.block_until_ready(forms.build(device_table, pairs, n, form))  # compile, warm
    t0 = time.perf_counter()
    data = jax.block_until_ready(forms.build(device_table, pairs, n, form))
    prep_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    compiled = run.lower(data, rel, unrel, kappa, key).compile()
    compile_s = time.perf_counter() - t0
    jax.block_until_ready(compiled(data, rel, unrel, kappa, key))  # warm
    t0 = time.perf_counter()
    out = jax.block_until_ready(compiled(data, rel, unrel, kappa, key))
    return prep_s, compile_s, time.perf_counter() - t0, float(out[1][0])


def record(used: int, args, np_s: float, np_loss: float, gather, gram, quad) -> dict:
    """train.json: the three forms' (build, compile, epoch, loss) against the NumPy epoch."""
    (_, g_compile, g_epoch, g_loss), (q_prep, q_compile, q_epoch, q_loss) = gather, gram
    r_prep, r_compile, r_epoch, r_loss = quad
    return {
        "pairs_per_epoch": used, "n": args.n, "dim": args.dim, "vocab": args.vocab,
        "numpy_epoch_s": np_s, "numpy_pairs_per_s": used / np_s, "numpy_mean_loss": np_loss,
        "gather_epoch_s": g_epoch, "gather_pairs_per_s": used / g_epoch, "gather_compile_s": g_compile,
        "gather_speedup": np_s / g_epoch, "gather_mean_loss": g_loss,
        "gram_precompute_s": q_prep, "gram_epoch_s": q_epoch, "gram_pairs_per_s": used / q_epoch,
        "gram_compile_s": q_compile, "gram_speedup_per_epoch": np_s / q_epoch,
        "gram_speedup_first_epoch": np_s / (q_prep + q_epoch), "gram_mean_loss": q_loss,
        "quad_precompute_s": r_prep, "quad_epoch_s": r_epoch, "quad_pairs_per_s": used / r_epoch,
        "quad_compile_s": r_compile, "quad_speedup_per_epoch": np_s / r_epoch,
        "quad_speedup_first_epoch": np_s / (r_prep + r_epoch), "quad_mean_loss": r_loss,
        "backend": jax.default_backend(), "device": str(jax.devices()[0]),
        "accelerator": jax.devices()[0].device_kind,
        "cpus": os.cpu_count(), "machine": platform.processor() or platform.machine(),
        "jax": jax.__version__, "numpy": np.__version__,
        "commit": git_commit(), "cpu": hardware().get("cpu"),
    }


def report(res: dict) -> None:
    """The printed table of :func:`record`'s result."""
    used, np_s, np_loss = res["pairs_per_epoch"], res["numpy_epoch_s"], res["numpy_mean_loss"]
    g_compile, g_epoch, g_loss = res["gather_compile_s"], res["gather_epoch_s"], res["gather_mean_loss"]
    q_prep, q_compile, q_epoch, q_loss = (res["gram_precompute_s"], res["gram_compile_s"], res["gram_epoch_s"],
                                          res["gram_mean_loss"])
    r_prep, r_compile, r_epoch, r_loss = (res["quad_precompute_s"], res["quad_compile_s"], res["quad_epoch_s"],
                                          res["quad_mean_loss"])
    print(f"one epoch of Algorithm 1, {used} couples, n={res['n']}, d={res['dim']}, V={res['vocab']} on {res['device']}")
    print(f"  {'':22s} {'pairs/s':>10s} {'epoch s':>8s} {'vs numpy':>9s} {'compile s':>10s}")
    print(f"  {'numpy reference':22s} {used / np_s:10.0f} {np_s:8.2f} {1.0:8.1f}x")
    print(f"  {'jax, gather form':22s} {used / g_epoch:10.0f} {g_epoch:8.2f} {np_s / g_epoch:8.1f}x {g_compile:10.2f}")
    print(f"  {'jax, Gram form':22s} {used / q_epoch:10.0f} {q_epoch:8.2f} {np_s / q_epoch:8.1f}x {q_compile:10.2f}"
          f"   (+ {q_prep:.2f} s once per run: {np_s / (q_prep + q_epoch):.1f}x on the first epoch)")
    print(f"  {'jax, quadratic form':22s} {used / r_epoch:10.0f} {r_epoch:8.2f} {np_s / r_epoch:8.1f}x {r_compile:10.2f}"
          f"   (+ {r_prep:.2f} s once per run: {np_s / (r_prep + r_epoch):.1f}x on the first epoch)")
    print(f"  mean epoch loss: numpy {np_loss:.5f}, gather {g_loss:.5f}, Gram {q_loss:.5f}, quadratic {r_loss:.5f} "
          "(numpy: a different batch order)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--vocab", type=int, default=200_000)
    ap.add_argument("--dim", type=int, default=400)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--out", default="benchmarks/results/train.json")
    ap.add_argument("--require-gpu", action="store_true", help="fail unless JAX runs on a GPU (make bench-gpu)")
    args = ap.parse_args(argv)
    if args.require_gpu and jax.default_backend() != "gpu":
        raise SystemExit(f"error: --require-gpu, but JAX runs on {jax.default_backend()!r} ({jax.devices()})")
    n = args.n
    table, pairs = synthetic_couples(args.vocab, args.dim, args.pairs, n)
    cfg = TrainConfig(max_epochs=1)
    rel = jnp.asarray(np.flatnonzero(pairs.label == 1).astype(np.int32))
    unrel = jnp.asarray(np.flatnonzero(pairs.label == 0).astype(np.int32))
    n_batches = min(rel.shape[0], unrel.shape[0]) // cfg.batch_related
    run = make_trainer(cfg, n)
    gather, gram, quad = (timed_epoch(run, table, pairs, n, rel, unrel, form) for form in ("gather", "gram", "quadratic"))
    # the reference sees the same number of couples (its own fixed batch order)
    r_np, u_np = np.asarray(rel), np.asarray(unrel)
    batches = [np.concatenate([r_np[i * 50:(i + 1) * 50], u_np[i * 50:(i + 1) * 50]]) for i in range(n_batches)]
    t0 = time.perf_counter()
    _, np_loss = numpy_epoch(np.full(n, 0.5), table, pairs.a, pairs.b, batches, n, KAPPA, cfg.lam, cfg.eta, 50)
    np_s = time.perf_counter() - t0
    res = record(2 * cfg.batch_related * n_batches, args, np_s, np_loss, gather, gram, quad)
    report(res)
    write_json(args.out, res)
    return res


if __name__ == "__main__":
    main()
