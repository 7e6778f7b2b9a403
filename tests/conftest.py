"""Fixtures shared by the test modules, and the test-session set-up: ``REPRO_REQUIRE_GPU=1``
(``make test-gpu``) refuses to run on the CPU, and every compilation of the session goes to one
JAX compilation cache in a temporary folder (tests/compilecache.py). ``repro`` is imported first, so the tests run
under the same kernel pins as the chain."""

from __future__ import annotations

import os
import shutil
import tempfile

import repro  # noqa: F401 - the kernel pins (repro/kernels.py), before any test imports NumPy
import pytest

import compilecache
from wikixml import export_xml


def pytest_configure(config):
    folder = tempfile.mkdtemp(prefix="repro-jax-cache-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    compilecache.enable(folder)
    if os.environ.get("REPRO_REQUIRE_GPU") == "1":
        import jax

        backend = jax.default_backend()
        if backend != "gpu":
            raise pytest.UsageError(
                f"REPRO_REQUIRE_GPU=1 but JAX runs on {backend!r} (devices: {jax.devices()}): "
                "install JAX's CUDA build (EXTRAS=test,glove,dask,cuda) or use a JAX that sees the GPU")


@pytest.fixture(scope="session")
def make_export_xml():
    """:func:`export_xml` as a fixture, for fixtures of any scope."""
    return export_xml
