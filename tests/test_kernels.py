"""The kernel pins (repro/pins.py): NumPy and XLA capped at AVX2 in every process that imports
repro and in every make command; REPRO_NATIVE_KERNELS=1 turns them off."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from repro import pins

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AVX512 = "avx512f" in open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else False


def test_the_pins_cap_numpy_and_xla_at_avx2():
    assert pins.pins({}) == {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
                                "XLA_FLAGS": "--xla_cpu_max_isa=AVX2"}


def test_native_kernels_turn_the_pins_off_and_set_values_are_kept():
    assert pins.pins({"REPRO_NATIVE_KERNELS": "1"}) == {}
    kept = pins.pins({"XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2", "NPY_DISABLE_CPU_FEATURES": "X86_V3"})
    assert kept == {"NPY_DISABLE_CPU_FEATURES": "X86_V3", "XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2"}
    other = pins.pins({"XLA_FLAGS": "--xla_force_host_platform_device_count=2"})
    assert other["XLA_FLAGS"] == "--xla_force_host_platform_device_count=2 --xla_cpu_max_isa=AVX2"


def in_fresh_process(env_extra: dict) -> dict:
    """The kernels state of a fresh process that imports repro, then NumPy and JAX."""
    env = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "XLA_FLAGS", "REPRO_NATIVE_KERNELS")}
    env.update(env_extra, PYTHONPATH=ROOT)
    code = ("import json, repro, numpy, jax; from repro.pins import state; s = state(); s.pop('blas', None); "
            "print(json.dumps(s))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not AVX512, reason="the pins only change something on an AVX-512 CPU")
def test_a_process_that_imports_repro_runs_numpy_without_avx512_unless_native():
    pinned = in_fresh_process({})
    assert pinned["XLA_FLAGS"] == "--xla_cpu_max_isa=AVX2" and not pinned["native"]
    assert "X86_V3" in pinned["numpy_dispatch_on"] and "X86_V4" not in pinned["numpy_dispatch_on"]
    native = in_fresh_process({"REPRO_NATIVE_KERNELS": "1"})
    assert native["XLA_FLAGS"] is None and native["NPY_DISABLE_CPU_FEATURES"] is None
    assert "X86_V4" in native["numpy_dispatch_on"]


def test_the_makefile_exports_the_same_pins_and_none_when_native():
    env = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "XLA_FLAGS")}

    def exported(*args):  # a make that inherits no pin of this process (a test run may set its own)
        db = subprocess.run(["make", "-pnq", "PY=python", "STAMP=", *args, "help"], cwd=ROOT, env=env,
                            capture_output=True, text=True).stdout
        return {line.split(" := ", 1)[0]: line.split(" := ", 1)[1] for line in db.splitlines()
                if line.startswith(("NPY_DISABLE_CPU_FEATURES :=", "XLA_FLAGS :="))}

    assert exported() == pins.pins(env)
    assert exported("REPRO_NATIVE_KERNELS=1") == {}


def test_the_state_names_the_openblas_kernel():
    pytest.importorskip("threadpoolctl")
    blas = pins.state()["blas"]
    assert blas and all(b["internal_api"] == "openblas" and b["architecture"] for b in blas)


# ---- NumPy imported before repro (issue 35, item 4) ------------------------------------------------

PIN = "X86_V4 AVX512_ICL AVX512_SPR"


def test_the_warning_names_the_unpinned_features_only_where_numpy_came_first_and_runs_them():
    message = pins.unpinned_warning(True, ["SSE42", "X86_V3", "X86_V4", "AVX512_ICL"], PIN)
    assert message == ("NumPy was imported before repro: its kernel pin does not apply, and NumPy runs X86_V4 "
                       "AVX512_ICL kernels, so results may differ in the last bits from the committed ones (import "
                       "repro first, or run through make)")
    assert pins.unpinned_warning(False, ["X86_V3", "X86_V4"], PIN) is None  # the pin applied
    assert pins.unpinned_warning(True, ["SSE42", "X86_V3"], PIN) is None  # a CPU without AVX-512: nothing moves
    assert pins.unpinned_warning(True, ["X86_V4"], None) is None  # no pin asked for (native kernels)


def run_code(code: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    """``code`` in a fresh Python that inherits no pin of this process."""
    env = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "XLA_FLAGS", "REPRO_NATIVE_KERNELS")}
    env.update(env_extra or {}, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)


STATE = "from repro.pins import state; s = state(); print(s['numpy_pinned'], 'X86_V4' in s['numpy_dispatch_on'])"


def test_a_notebook_that_imports_numpy_first_gets_no_warning_and_provenance_records_it():
    late = run_code("import numpy, repro; " + STATE)
    assert late.stderr == "" and late.stdout.split()[0] == "False"
    assert late.stdout.split()[1] == str(AVX512)  # NumPy runs its own kernels: AVX-512 where the CPU has it
    first = run_code("import repro, numpy; " + STATE)
    assert first.stderr == "" and first.stdout.split() == ["True", "False"]


@pytest.mark.skipif(not AVX512, reason="the pin only changes NumPy's kernels on an AVX-512 CPU")
def test_an_experiment_warns_where_numpy_came_first_and_not_otherwise():
    late = run_code("import numpy, experiments, json; from repro.pins import numpy_dispatch_on; "
                    "print(json.dumps(numpy_dispatch_on()))")
    above = [f for f in json.loads(late.stdout) if f in pins.numpy_features().split()]
    assert "X86_V4" in above or "AVX512F" in above
    assert late.stderr == ("warning: NumPy was imported before repro: its kernel pin does not apply, and NumPy runs "
                           f"{' '.join(above)} kernels, so results may differ in the last bits from the committed "
                           "ones (import repro first, or run through make)\n")
    assert run_code("import repro, numpy, experiments").stderr == ""
    # the Makefile exports the pin, so a make target's NumPy is pinned whatever it imports first
    assert run_code("import numpy, experiments", {"NPY_DISABLE_CPU_FEATURES": pins.numpy_features()}).stderr == ""
    assert run_code("import numpy, experiments", {"REPRO_NATIVE_KERNELS": "1"}).stderr == ""


def test_an_installed_version_is_read_as_importlib_metadata_reads_it():
    from importlib import metadata

    for package in ("numpy", "tokenizers", "jax"):  # jax beside jaxlib: the dist-info of the name itself
        assert pins.installed_version(package) == metadata.version(package)
    with pytest.raises(LookupError):
        pins.installed_version("no_such_package_here")
