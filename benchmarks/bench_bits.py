"""Where the bits come from: the chain on a small dump under each kernel switch, and the stages
whose SHA-256 moves (docs/REPRODUCIBILITY.md).

    python -m benchmarks.bench_bits run VARIANT [VARIANT ...]   # benchmarks/results/bits/VARIANT.json
    python -m benchmarks.bench_bits doc                         # docs/REPRODUCIBILITY.md's table

Each variant runs ``python -m experiments.reprocheck hashes --size small`` (both parts: the whole
chain on gensim's dump, and the stages after word2vec on seeded synthetic vectors) in a fresh
process with its own environment, and records the kernels in force (repro.pins.state). The
table compares every variant with ``pinned`` (the default: NumPy and XLA capped at AVX2).
OpenBLAS's variables are never set here: the ``openblas-*`` variants are run by one measuring
command that sets or unsets them itself (docs/REPRODUCIBILITY.md gives it), and the script
records the kernel threadpoolctl then names.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from repro.errors import run
from repro.io.readmeblock import ReadmeBlock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results", "bits")
DOC = os.path.join(ROOT, "docs", "REPRODUCIBILITY.md")
STAGES = ("paragraphs", "word2vec", "docfreq", "pairs", "weights", "scores", "tables")
NUMPY_BASELINE = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"  # NumPy 2.4: only its x86-64-v2 baseline

#: name: (environment on top of the caller's, what it is)
VARIANTS = {
    "pinned": ({}, "the pins: NumPy and XLA capped at AVX2 (the default)"),
    "native": ({"REPRO_NATIVE_KERNELS": "1"}, "no pins: NumPy and XLA use AVX-512"),
    "xla-native": ({"REPRO_NATIVE_KERNELS": "1", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"},
                   "XLA native (AVX-512), NumPy pinned"),
    "xla-avx": ({"XLA_FLAGS": "--xla_cpu_max_isa=AVX"}, "XLA capped at AVX, NumPy pinned"),
    "xla-sse4_2": ({"XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2"}, "XLA capped at SSE4.2, NumPy pinned"),
    "numpy-native": ({"REPRO_NATIVE_KERNELS": "1", "XLA_FLAGS": "--xla_cpu_max_isa=AVX2"},
                     "NumPy native (AVX-512), XLA pinned"),
    "numpy-baseline": ({"NPY_DISABLE_CPU_FEATURES": NUMPY_BASELINE},
                       "NumPy's dispatched features all off (x86-64-v2 only), XLA pinned"),
    "openblas-auto": ({}, "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset by the measuring command (OpenBLAS picks)"),
    "openblas-prescott": ({}, "OPENBLAS_CORETYPE=Prescott OPENBLAS_L2_SIZE=512 set by the measuring command"),
}


def run_variant(name: str, work: str) -> dict:
    """The hashes of both parts under one variant, with the kernels in force."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for k in ("REPRO_NATIVE_KERNELS", "NPY_DISABLE_CPU_FEATURES", "XLA_FLAGS"):
        env.pop(k, None)
    env.update(VARIANTS[name][0])
    out = os.path.join(work, f"{name}.json")
    cmd = [sys.executable, "-m", "experiments.reprocheck", "hashes", "--size", "small",
           "--work", os.path.join(work, name), "--out", out]
    subprocess.run(cmd, env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        res = json.load(f)
    res["variant"], res["about"] = name, VARIANTS[name][1]
    return res


def moved(base: dict, other: dict) -> dict[str, dict[str, bool]]:
    """``{part: {stage: whether any file's digest differs from the baseline's}}``."""
    return {part: {st: base["parts"][part][st] != other["parts"][part][st] for st in STAGES}
            for part in base["parts"]}


def blas_kernel(res: dict) -> str:
    """The OpenBLAS kernel(s) a run used, as threadpoolctl named them."""
    blas = res["provenance"]["kernels"].get("blas") or []
    return "/".join(sorted({str(b.get("architecture")) for b in blas})) or "?"


def table(results: dict[str, dict]) -> list[str]:
    """Markdown rows: one per variant, a column per stage of each part ("moves" or "same")."""
    base = results["pinned"]
    parts = list(base["parts"])
    head = "| switch | OpenBLAS kernel | " + " | ".join(f"{p}: {st}" for p in parts for st in STAGES) + " |"
    lines = [head, "|" + "---|" * (2 + len(parts) * len(STAGES))]
    for name, res in results.items():
        m = moved(base, res)
        cells = ["**moves**" if m[p][st] else "same" for p in parts for st in STAGES]
        lines.append(f"| `{name}`: {res['about']} | {blas_kernel(res)} | " + " | ".join(cells) + " |")
    return lines


def load(folder: str = RESULTS) -> dict[str, dict]:
    """The recorded variants, in VARIANTS order."""
    out = {}
    for name in VARIANTS:
        path = os.path.join(folder, f"{name}.json")
        if os.path.exists(path):
            with open(path) as f:
                out[name] = json.load(f)
    if "pinned" not in out:
        raise SystemExit(f"error: {folder}: no pinned.json (python -m benchmarks.bench_bits run pinned)")
    return out


def doc_block(results: dict[str, dict]) -> str:
    """The generated block of docs/REPRODUCIBILITY.md."""
    base = results["pinned"]["provenance"]
    lines = [f"Measured at {base['commit'][:12]} on {base['hardware'].get('cpu')} ({base['hardware'].get('cpus')} "
             f"cores), Python {base['versions']['python']}, NumPy {base['versions']['numpy']}, jaxlib "
             f"{base['versions']['jaxlib']}, gensim {base['versions']['gensim']}; `make repro-check`'s small size. "
             "**moves**: some output of the stage has another SHA-256 than under `pinned`.", ""]
    return "\n".join(lines + table(results))


def other_machines(folder: str = RESULTS) -> list[dict]:
    """The records of other machines (``other-*.json``): the synthetic part's hashes per run."""
    out = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("other-") and name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                out.append(json.load(f))
    return out


def other_block(records: list[dict], checksums: dict) -> str:
    """Per other machine and run: which stages of the synthetic part have the committed SHA-256."""
    lines = ["| machine | run | OpenBLAS kernel | NumPy features on | same SHA-256 as committed | differ |",
             "|---|---|---|---|---|---|"]
    for rec in records:  # against the checksums committed at the record's commit, where it keeps them
        ref = (rec.get("reference") or {}).get("synthetic") or checksums["sizes"]["small"]["synthetic"]
        m = rec["machine"]
        where = (f"{m['cpu']}, {m['cpus']} cores, Python {m['python']}, "
                 + ", ".join(f"{k} {v}" for k, v in sorted(m["versions"].items())))
        for run, r in rec["runs"].items():
            same = [s for s in r["hashes"] if r["hashes"][s] == ref.get(s)]
            differ = [s for s in r["hashes"] if r["hashes"][s] != ref.get(s)]
            kernel = ", ".join(sorted({b["architecture"] for b in r["kernels"].get("blas", [])}))
            lines.append(f"| {where} | {run} | {kernel} | {' '.join(r['kernels'].get('numpy_dispatch_on', []))} | "
                         f"{', '.join(same)} | {', '.join(differ) or 'none'} |")
    return "\n".join(lines)


def write_doc(results: dict[str, dict], path: str = DOC, others: list | None = None,
              checksums_path: str = os.path.join(ROOT, "results", "repro-checksums.json")) -> None:
    """Replace the blocks between the markers of ``path``: this machine's table, and the other
    machines' records where there are any (every block checked before either is written)."""
    here = ReadmeBlock(path, "bits")
    there = ReadmeBlock(path, "bits-other") if others else None
    here.fill_body(doc_block(results))
    if there is not None:
        with open(checksums_path) as f:
            there.fill_body(other_block(others, json.load(f)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("run", "doc"))
    ap.add_argument("variants", nargs="*", help=f"run: some of {', '.join(VARIANTS)}")
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--doc", default=DOC)
    args = ap.parse_args(argv)
    if args.action == "doc":
        write_doc(load(args.results), args.doc, other_machines(args.results))
        print(f"wrote {args.doc}")
        return 0
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown or not args.variants:
        raise SystemExit(f"error: run takes variants among {', '.join(VARIANTS)} (not {unknown or 'none'})")
    os.makedirs(args.results, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bits-") as work:
        for name in args.variants:
            res = run_variant(name, work)
            with open(os.path.join(args.results, f"{name}.json"), "w") as f:
                json.dump(res, f, indent=1)
            print(f"{name}: OpenBLAS {blas_kernel(res)}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
