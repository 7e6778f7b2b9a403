"""The test session's JAX compilation cache (tests/compilecache.py): on, in this process and its
children, and left out where a test needs fresh compilations."""

from __future__ import annotations

import os
import uuid

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import compilecache


def test_this_session_writes_every_compiled_program_into_its_folder():
    folder = os.environ["JAX_COMPILATION_CACHE_DIR"]
    assert jax.config.jax_compilation_cache_dir == folder
    kept = os.environ.get(compilecache.KEEP)
    if kept:  # make test: this machine's folder in the kept one
        assert folder == os.path.join(kept, compilecache.machine())
    else:
        assert os.path.basename(folder).startswith("repro-jax-cache-")

    def probe(a):
        return jnp.sum(a * a)

    probe.__name__ = f"probe_{uuid.uuid4().hex}"  # a program no run has compiled: its entry is named by it
    x = np.arange(7 * 13, dtype=np.float32).reshape(7, 13)
    assert float(jax.jit(probe)(x)) == float(np.sum(x.astype(np.float64) ** 2))
    assert [n for n in os.listdir(folder) if n.startswith(f"jit_{probe.__name__}-")]


def test_a_kept_folder_is_made_and_kept_and_a_run_without_one_gets_its_own(tmp_path):
    kept = tmp_path / "kept"
    here = kept / compilecache.machine()
    assert compilecache.session_folder({compilecache.KEEP: str(kept)}) == (str(here), True) and here.is_dir()
    folder, keep = compilecache.session_folder({})
    assert not keep and os.path.basename(folder).startswith("repro-jax-cache-") and os.listdir(folder) == []
    os.rmdir(folder)


def test_each_machine_keeps_its_programs_apart():
    zen3 = {"vendor": "AuthenticAMD", "family": "25", "model": "1", "flags": ["sse2", "avx", "avx2"]}
    name = compilecache.machine(zen3)
    assert name.startswith("AuthenticAMD-25-1-") and name == compilecache.machine({**zen3, "flags": ["avx2", "avx", "sse2"]})
    assert compilecache.machine({**zen3, "flags": ["sse2", "avx", "avx2", "avx512f"]}) != name  # features count
    assert compilecache.machine({}).startswith("unknown-unknown-unknown-")


def test_prune_deletes_the_oldest_entries_down_to_half_the_limit(tmp_path):
    for i, name in enumerate(["c", "a", "d", "b"]):  # written in this order, 100 bytes each
        (tmp_path / name).write_bytes(b"x" * 100)
        os.utime(tmp_path / name, ns=(10**18 + i * 10**9,) * 2)
    assert compilecache.prune(str(tmp_path), limit=400) == []  # at the limit: nothing goes
    assert compilecache.prune(str(tmp_path), limit=399) == ["c", "a", "d"]  # down to 199 bytes at most
    assert os.listdir(tmp_path) == ["b"]


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
