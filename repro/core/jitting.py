"""One home for how the JAX core is compiled: the same bits on every run, GPUs included.

When XLA:GPU compiles a matrix product it may time several kernels and keep the fastest
(autotuning), so two processes can run two different kernels whose sums run in different
orders. Seen on an H200 with the plain ``jax.jit``: two runs of the wikivar median training, one
seed, gave weights that differed by 1.2e-7 and held-out errors that differed in the 4th digit.
Every jitted function of the core is therefore compiled through :func:`jit`, with XLA's
deterministic-ops flag (no atomics, so no split-K sums or scatter-adds) and no autotuning (the
default kernel, chosen the same way in every process). CPU compilation ignores both.
"""

from __future__ import annotations

from functools import partial

import jax

#: XLA options of every jitted function in the core (per function: the user's XLA_FLAGS stay theirs).
DETERMINISTIC = {"xla_gpu_deterministic_ops": True, "xla_gpu_autotune_level": 0}


def jit(fun=None, /, **options):
    """``jax.jit`` with :data:`DETERMINISTIC` compiler options; usable as ``@jit`` or ``@jit(static_argnames=...)``."""
    if fun is None:
        return partial(jit, **options)
    return jax.jit(fun, compiler_options=DETERMINISTIC, **options)
