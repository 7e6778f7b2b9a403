"""The test session's JAX compilation cache (tests/compilecache.py): on, in this process and its
children, and left out where a test needs fresh compilations."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compilecache


def test_this_session_writes_every_compiled_program_into_its_folder():
    folder = os.environ["JAX_COMPILATION_CACHE_DIR"]
    assert jax.config.jax_compilation_cache_dir == folder and os.path.basename(folder).startswith("repro-jax-cache-")
    before = set(os.listdir(folder))
    x = np.arange(7 * 13, dtype=np.float32).reshape(7, 13)  # a shape no other test compiles
    assert float(jax.jit(lambda a: jnp.sum(a * a))(x)) == float(np.sum(x.astype(np.float64) ** 2))
    assert len(set(os.listdir(folder)) - before) >= 1


def test_without_leaves_out_every_setting_and_nothing_else():
    env = {"PATH": "/bin", "JAX_COMPILATION_CACHE_DIR": "/tmp/x", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
           "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0", "XLA_FLAGS": "--a"}
    assert compilecache.without(env) == {"PATH": "/bin", "XLA_FLAGS": "--a"}
    assert env["JAX_COMPILATION_CACHE_DIR"] == "/tmp/x"  # a copy: the environment itself is kept


def test_enable_refuses_once_jax_is_imported():
    """JAX reads the settings when it is imported: set later, they would silently do nothing."""
    env = {}
    with pytest.raises(RuntimeError, match="JAX is already imported"):
        compilecache.enable("/tmp/z", env)
    assert env == {}
