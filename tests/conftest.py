"""Fixtures shared by the test modules, and the test-session set-up: ``REPRO_REQUIRE_GPU=1``
(``make test-gpu``) refuses to run on the CPU, and every compilation of the session goes to one
JAX compilation cache (tests/compilecache.py: a temporary folder, or the one make test keeps); each
pytest-xdist worker keeps to its own share of the cores (tests/cores.py).
``repro`` is imported first, so the tests run under the same kernel pins as the chain."""

from __future__ import annotations

import os
import shutil

import repro  # noqa: F401 - the kernel pins (repro/pins.py), before any test imports NumPy
import pytest

import compilecache
import cores
from wikixml import export_xml


def pytest_configure(config):
    # each xdist worker on its own share of the cores, before any test starts JAX (tests/cores.py)
    cores.pin()
    # one cache for the whole run: made by the main process (with pytest-xdist, the controller),
    # whose environment the workers inherit, so a program compiled by one worker is loaded by the other
    # (make test keeps it for the next run: compilecache.KEEP)
    if not (os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(compilecache.SETTINGS[0])):
        folder, kept = compilecache.session_folder()
        if not kept:
            config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
        compilecache.enable(folder)
    if os.environ.get("REPRO_REQUIRE_GPU") == "1":
        import jax

        backend = jax.default_backend()
        if backend != "gpu":
            raise pytest.UsageError(
                f"REPRO_REQUIRE_GPU=1 but JAX runs on {backend!r} (devices: {jax.devices()}): "
                "install JAX's CUDA build (EXTRAS=test,glove,dask,cuda) or use a JAX that sees the GPU")


#: The test files that take a minute or more (make chains, every stage's checksums): collected
#: first, so that with two workers (make test, which keeps this order: --no-loadscope-reorder)
#: neither ends the run alone on a long file. The Table 1 chain comes after the reduced
#: repro-check on the same worker: its word stages train at the same sizes (the same programs),
#: so it loads them from the session's compilation cache instead of compiling them again.
SLOW_FIRST = ("test_table2_chain.py", "test_reprocheck.py", "test_table1_chain.py", "test_train.py",
              "test_cosine_learning.py", "test_sts.py", "test_encoder_wordmap.py", "test_fit.py",
              "test_encode_cli.py", "test_bench_second_call_smoke.py", "test_makefile.py", "test_bench_summary.py")


#: The module fixtures that run a whole chain, by test file: three ``make table2`` runs, the reduced
#: repro-check's two chains, the Table 1 chain (minutes each). The tests that use one are the second
#: tier: marked slow here (``make test-slow``), so that ``make test`` stays the fast loop.
CHAIN_FIXTURES = {"test_table2_chain.py": ("workspace", "table2"), "test_reprocheck.py": ("reduced",),
                  "test_table1_chain.py": ("chain",)}


def chain_tests(items) -> list:
    """The tests of ``items`` that use a fixture of :data:`CHAIN_FIXTURES`."""
    return [item for item in items
            if set(CHAIN_FIXTURES.get(item.path.name, ())) & set(getattr(item, "fixturenames", ()))]


@pytest.hookimpl(tryfirst=True)  # the marks first: pytest's own hook then selects by them (-m)
def pytest_collection_modifyitems(config, items):
    for item in chain_tests(items):
        item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's own order kept


@pytest.fixture(scope="session")
def make_export_xml():
    """:func:`export_xml` as a fixture, for fixtures of any scope."""
    return export_xml


@pytest.fixture
def cli_error(capsys):
    """``cli_error(argv)``: run ``python -m repro`` with ``argv``, assert that it fails with status 1
    and one line on stderr starting ``error: ``, and return that line."""
    from repro import cli

    def run(argv) -> str:
        assert cli.main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: ")
        return err

    return run


@pytest.fixture(autouse=True)
def own_cache_folder(monkeypatch, tmp_path_factory):
    """Every test's caches (``REPRO_MAP_CACHE``: mapped spaces, idf ranks, a token space's wordfreq
    counts) in a folder of its own: a test never reads what another wrote, and never writes beside
    installed vectors (WordLlama's wheel) what a faked frequency list gave."""
    from repro.io import cachefolder

    monkeypatch.setenv(cachefolder.ENV, str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def cache_beside_the_vectors(monkeypatch):
    """No cache folder named by the environment: the encoder's caches sit beside the vectors."""
    from repro.io import cachefolder

    monkeypatch.delenv(cachefolder.ENV, raising=False)


@pytest.fixture
def cache_entries():
    """``cache_entries(folder)``: the sorted names in a cache folder, hidden (temporary) files aside;
    [] when there is no such folder."""
    return lambda folder: sorted(n for n in os.listdir(folder) if not n.startswith(".")) if os.path.isdir(folder) else []


@pytest.fixture
def uncomputable():
    """``uncomputable(patcher, (owner, name), ...)``: make each attribute raise when called, through
    ``patcher`` (``monkeypatch`` or one of its contexts, which sets the scope), so that what is built
    meanwhile must have come from a cache."""
    def refuse_all(patcher, *targets):
        def refuse(*a, **k):
            raise AssertionError("computed, not read from the cache")

        for owner, name in targets:
            patcher.setattr(owner, name, refuse)

    return refuse_all
