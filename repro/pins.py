"""The kernel pins: NumPy's and XLA's CPU kernels capped at AVX2, so results do not depend on
whether the CPU has AVX-512 (docs/REPRODUCIBILITY.md).

Both switches are read once, when NumPy is imported and when XLA starts its CPU backend, so they
are set here, in the environment, before either: ``repro/__init__.py`` imports this module first
(every ``python -m repro``, ``experiments`` and test goes through it) and the Makefile exports the
same values (:func:`main`, ``--get NAME``). ``REPRO_NATIVE_KERNELS=1`` leaves both alone
(the native kernels of the CPU). A value the user set already is kept. This module imports
nothing from the library or NumPy: it must run before them.

OpenBLAS, which gensim's word2vec calls, chooses its kernel from ``OPENBLAS_CORETYPE`` (or the
CPU); that variable belongs to the machine and is never set here: :func:`state` records it.
"""

from __future__ import annotations

import os
import sys

#: the instruction-set cap of XLA's CPU compiler (jaxlib's --xla_cpu_max_isa)
XLA_MAX_ISA = "AVX2"
#: NumPy's dispatched feature groups above AVX2, by NumPy version (2.4 named them x86-64 levels)
NUMPY_ABOVE_AVX2 = {
    "2.4": "X86_V4 AVX512_ICL AVX512_SPR",
    "old": "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR",
}


def native() -> bool:
    """Whether ``REPRO_NATIVE_KERNELS=1`` turns the pins off."""
    return os.environ.get("REPRO_NATIVE_KERNELS", "") == "1"


def numpy_features() -> str:
    """The value of ``NPY_DISABLE_CPU_FEATURES`` that caps the installed NumPy at AVX2."""
    try:
        major, minor = (int(x) for x in installed_version("numpy").split(".")[:2])
    except (LookupError, ValueError):
        return NUMPY_ABOVE_AVX2["2.4"]
    return NUMPY_ABOVE_AVX2["2.4" if (major, minor) >= (2, 4) else "old"]


def installed_version(package: str) -> str:
    """An installed package's version without importing it, from the name of the
    ``<package>-<version>.dist-info`` folder beside it (no scan of every installed distribution,
    which takes a few hundredths of a second of a fresh process), else from importlib.metadata;
    LookupError when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None:
        raise LookupError(package)
    for where in spec.submodule_search_locations or ():
        parent = os.path.dirname(os.path.abspath(where))
        found = [n for n in os.listdir(parent) if n.startswith(package + "-") and n.endswith(".dist-info")]
        if len(found) == 1:
            return found[0][len(package) + 1:-len(".dist-info")]
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        raise LookupError(package) from None


def pins(environ=None) -> dict:
    """The variables to set: ``{name: value}``, empty when the native kernels are asked for. A
    value already set is kept (XLA_FLAGS gains the cap unless it names one)."""
    env = os.environ if environ is None else environ
    if env.get("REPRO_NATIVE_KERNELS", "") == "1":
        return {}
    out = {"NPY_DISABLE_CPU_FEATURES": env.get("NPY_DISABLE_CPU_FEATURES") or numpy_features()}
    flags = env.get("XLA_FLAGS", "")
    if "--xla_cpu_max_isa" not in flags:
        flags = f"{flags} --xla_cpu_max_isa={XLA_MAX_ISA}".strip()
    out["XLA_FLAGS"] = flags
    return out


#: whether NumPy was loaded before :func:`apply` set its pin, without the pin in its environment:
#: its kernels are then the CPU's own (recorded by :func:`state`; :func:`warn_if_unpinned` says so
#: where that matters)
_NUMPY_FIRST = [False]


def apply() -> dict:
    """Set the pins in ``os.environ``; return them. Where NumPy came first (a notebook that imports
    NumPy or pandas before repro) its pin cannot apply: that is recorded, not printed (:func:`state`,
    ``numpy_pinned``); the experiments, whose results are compared bit for bit, warn
    (:func:`warn_if_unpinned`)."""
    values = pins()
    if values.get("NPY_DISABLE_CPU_FEATURES") != os.environ.get("NPY_DISABLE_CPU_FEATURES") and "numpy" in sys.modules:
        _NUMPY_FIRST[0] = True
    os.environ.update(values)
    return values


def numpy_pinned() -> bool:
    """Whether NumPy runs under its pin: False where it was imported before :func:`apply`, without
    the pin in its environment, or where the native kernels were asked for."""
    return not native() and not _NUMPY_FIRST[0]


def numpy_dispatch_on() -> list[str] | None:
    """NumPy's dispatched CPU features that are on (None where NumPy does not say)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return None
    return [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]


def unpinned_warning(numpy_first: bool, dispatch_on, pin: str | None) -> str | None:
    """The warning where NumPy came first and so runs features its pin turns off (``pin``: the
    value of ``NPY_DISABLE_CPU_FEATURES``), which can move results' last bits; None otherwise (on a
    CPU without those features the pin changes nothing)."""
    if not numpy_first or not pin:
        return None
    above = [f for f in (dispatch_on or ()) if f in pin.split()]
    if not above:
        return None
    return (f"NumPy was imported before repro: its kernel pin does not apply, and NumPy runs {' '.join(above)} "
            "kernels, so results may differ in the last bits from the committed ones (import repro first, or "
            "run through make)")


def warn_if_unpinned(file=None) -> str | None:
    """Print :func:`unpinned_warning` for this process (stderr) where it applies; return it. Called
    where the pin changes what is compared: the experiments (``experiments/__init__.py``: every make
    target and ``make repro-check``)."""
    first = _NUMPY_FIRST[0] and not native()  # NumPy's features are asked only then (no import)
    message = unpinned_warning(first, numpy_dispatch_on() if first else None, pins().get("NPY_DISABLE_CPU_FEATURES"))
    if message:
        print(f"warning: {message}", file=sys.stderr if file is None else file)
    return message


#: the CPU XLA compiles for when its cap removes a feature of the host (XLA's CpuTargetFromMaxFeature)
CAP_TARGETS = {"SSE4_2": "nehalem", "AVX": "sandybridge", "AVX2": "haswell", "AVX512": "skylake-avx512"}
#: the host features each cap removes (XLA's ShouldEnableX86CpuFeature), as /proc/cpuinfo names them
_ABOVE = {"SSE4_2": ("avx", "f16c", "vaes", "vpclmulqdq", "fma"), "AVX": ("avx2", "fma", "avx512"),
          "AVX2": ("avx512",), "AVX512": ("avx512_vnni", "avx512_bf16", "amx")}


def cpu_info(path: str = "/proc/cpuinfo") -> dict:
    """The first processor's vendor, family, model and flags from ``path`` (empty where unreadable)."""
    out: dict = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                out[key.strip()] = value.strip()
    except OSError:
        return {}
    return {"vendor": out.get("vendor_id", ""), "family": out.get("cpu family", ""), "model": out.get("model", ""),
            "flags": out.get("flags", "").split()}


def xla_cap(flags: str | None) -> str | None:
    """The ``--xla_cpu_max_isa`` of an XLA_FLAGS string (upper case), None where none is set."""
    for token in (flags or "").split():
        if token.startswith("--xla_cpu_max_isa="):
            return token.partition("=")[2].upper() or None
    return None


def code_class(flags: str | None = None, info: dict | None = None) -> str:
    """What XLA's CPU code, and so the trained weights' last bits, depend on: the CPU XLA compiles
    for and the host's widest vector ISA (docs/REPRODUCIBILITY.md).

    XLA names its target CPU from the cap only where the cap removes a feature the host has;
    otherwise it compiles for the host's own CPU, tuned to its model (``host:<vendor>-<family>-<model>``).
    The dot and reduce fusions go to YNNPACK, which chooses its kernels from the host's ISA
    (``ynn:avx512``, ``avx2``, ``avx``). Two machines of one class run the same code; machines of
    two classes may differ in the last bits of anything trained (measured: one ulp on a Zen 3
    against an AVX-512 EPYC, both under the AVX2 cap)."""
    flags = os.environ.get("XLA_FLAGS", "") if flags is None else flags
    info = cpu_info() if info is None else info
    have = set(info.get("flags", ()))
    cap = xla_cap(flags)
    stripped = cap in _ABOVE and any(f.startswith(p) for f in have for p in _ABOVE[cap])
    target = CAP_TARGETS[cap] if stripped else f"host:{info.get('vendor', '?')}-{info.get('family', '?')}-{info.get('model', '?')}"
    isa = next((name for name, flag in (("avx512", "avx512f"), ("avx2", "avx2"), ("avx", "avx")) if flag in have), "sse")
    return f"xla:{target} ynn:{isa}"


def state() -> dict:
    """What is in force, for provenance: the pins, whether NumPy runs under its pin
    (``numpy_pinned``: False where it was imported before repro), NumPy's dispatched features that
    are on, XLA's flags, and the OpenBLAS libraries with their kernels (threadpoolctl)."""
    out = {"native": native(), "NPY_DISABLE_CPU_FEATURES": os.environ.get("NPY_DISABLE_CPU_FEATURES"),
           "XLA_FLAGS": os.environ.get("XLA_FLAGS"),
           "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
           "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"), "code_class": code_class(),
           "numpy_pinned": numpy_pinned()}
    dispatch = numpy_dispatch_on()
    if dispatch is not None:
        out["numpy_dispatch_on"] = dispatch
    try:
        import scipy.linalg  # noqa: F401 - loads scipy's OpenBLAS, the one gensim calls
        from threadpoolctl import threadpool_info

        out["blas"] = [{k: i.get(k) for k in ("internal_api", "prefix", "version", "architecture")}
                       for i in threadpool_info() if i.get("user_api") == "blas"]
    except ImportError:
        out["blas"] = None
    return out


def main(argv=None) -> int:
    """The pins as JSON, or with ``--get NAME`` one pin's value (the Makefile's)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    values = pins()
    if argv[:1] == ["--get"] and len(argv) == 2:
        print(values.get(argv[1], ""))
        return 0
    import json

    print(json.dumps(values, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
