"""Loading word vectors: the converted folder against text, and our text parser against gensim's, in one run.

    python -m benchmarks.bench_vectors                          # make bench: 400,000 x 300, about 5 minutes on 2 cores
    python -m benchmarks.bench_vectors --words 20000 --dim 50   # a quick check, seconds

A GloVe-style text file (no header) of ``--words`` words and ``--dim`` values is written once
(seed 0) into a temporary folder: words ``w0``, ``w1``, ... and values in (-1, 1) printed with 8
characters each, as GloVe prints them (400,000 x 300: 1.08 GB, the size of ``glove.6B.300d.txt``).
Then, in this process:

* **text**: :func:`repro.io.vectorfiles.read_text_vectors` (pandas' C parser) and gensim's
  ``KeyedVectors.load_word2vec_format(no_header=True)``, in interleaved rounds; their words and
  matrices must be identical, bit for bit;
* **folder**: the folder of ``repro vectors`` written once (:func:`repro.io.store.save_vectors`), then
  :func:`repro.spaces.vectors.load_word_vectors` on it with ``normalize=False`` (the memory-mapped
  matrix) and by default (unit length, what the encoder loads), and the whole
  ``Encoder.pretrained`` on it with a df file of 50,000 words (idf ranks and lookup table too;
  imports warm), each ``--repeats`` times; the page cache is warm (the folder was just written);
* **the command**: ``repro encode`` of 100 texts end to end in a fresh process (Python, NumPy and
  JAX imports included), once from the folder and once from the text file.

Writes benchmarks/results/vectors.json: ``folder_load_s`` (the unit-length load, the
encoder's), ``text_speedup_vs_gensim`` (gensim's median over ours), and every time measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from repro.io import store
from repro.words.docfreq import DocFreq
from repro.encode.encoder import Encoder
from repro.io.provenance import git_commit, hardware, versions
from repro.io.vectorfiles import read_text_vectors
from repro.spaces.vectors import load_word_vectors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_glove(path: str, n_words: int, dim: int, seed: int = 0, block: int = 20_000) -> None:
    """A GloVe text file: ``w<i>`` and ``dim`` values of 8 characters ("-0.12345" or "0.123456")."""
    rng = np.random.default_rng(seed)
    zero, dot, minus = ord("0"), ord("."), ord("-")
    with open(path, "wb") as f:
        for lo in range(0, n_words, block):
            n = min(block, n_words - lo)
            x = rng.random((n, dim))
            neg = rng.random((n, dim)) < 0.5
            six, five = (x * 1e6).astype(np.int64), (x * 1e5).astype(np.int64)
            chars = np.empty((n, dim, 9), np.uint8)
            chars[..., 0] = np.where(neg, minus, zero)
            chars[..., 1] = np.where(neg, zero, dot)
            chars[..., 2] = np.where(neg, dot, zero + six // 100_000 % 10)
            for k in range(5):
                chars[..., 3 + k] = np.where(neg, zero + five // 10 ** (4 - k) % 10, zero + six // 10 ** (4 - k) % 10)
            chars[..., 8] = ord(" ")
            chars[:, -1, 8] = ord("\n")
            rows = chars.reshape(n, -1)
            f.write(b"".join(b"w%d " % (lo + i) + rows[i].tobytes() for i in range(n)))


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def gensim_text(path: str):
    from gensim.models import KeyedVectors

    with warnings.catch_warnings():  # gensim leaves its first handle of a headerless file open
        warnings.simplefilter("ignore", ResourceWarning)
        kv = KeyedVectors.load_word2vec_format(path, binary=False, no_header=True)
    return kv.index_to_key, kv.vectors


def command_s(args: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "repro", *args], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"error: repro {args[0]} failed: {proc.stderr.strip()[-500:]}")
    return time.perf_counter() - t0


def time_text_readers(text: str, rounds: int) -> tuple[list, list, bool, list, np.ndarray]:
    """Interleaved rounds of our text parser and gensim's: (ours s, gensim s, identical, words, matrix)."""
    ours_s, gensim_s, identical = [], [], True
    for r in range(rounds):
        t, (words, matrix) = timed(read_text_vectors, text)
        ours_s.append(t)
        t, (g_words, g_matrix) = timed(gensim_text, text)
        gensim_s.append(t)
        identical &= bool(words == g_words and np.array_equal(matrix, g_matrix))
        del g_words, g_matrix
        print(f"round {r + 1}: ours {ours_s[-1]:.2f} s, gensim {gensim_s[-1]:.2f} s", flush=True)
    return ours_s, gensim_s, identical, words, matrix


def time_folder(folder: str, df_path: str, repeats: int) -> dict:
    """Loads of the folder: memory-mapped, unit length, and an encoder with the df file."""
    Encoder.pretrained(folder, df_path, model="paper")  # warm: imports, the coefficient table's JIT
    raw_s, unit_s, encoder_s = [], [], []
    for _ in range(repeats):
        t, (_, mapped) = timed(load_word_vectors, folder, normalize=False)
        raw_s.append(t)
        unit_s.append(timed(load_word_vectors, folder)[0])
        encoder_s.append(timed(Encoder.pretrained, folder, df_path, model="paper")[0])
    mapped_base = mapped
    while getattr(mapped_base, "base", None) is not None and not isinstance(mapped_base, np.memmap):
        mapped_base = mapped_base.base
    med = statistics.median
    return {"raw_s": raw_s, "unit_s": unit_s, "encoder_s": encoder_s,
            "raw_median_s": med(raw_s), "unit_median_s": med(unit_s), "encoder_median_s": med(encoder_s),
            "memory_mapped": isinstance(mapped_base, np.memmap)}


def time_commands(tmp: str, words: list[str], folder: str, text: str, df_path: str) -> dict:
    """``repro encode`` of 100 texts in a fresh process, from the folder and from the text file."""
    texts = os.path.join(tmp, "texts.txt")
    store.write_text(texts, "".join(" ".join(words[(7 * i + 13 * j) % len(words)] for j in range(12)) + "\n"
                                    for i in range(100)))
    # the paper's weights, as the loads above: the default model needs word counts, which this df file has not
    common = ["--df", df_path, "--pretrained", "paper", "--out", os.path.join(tmp, "X.npy"), "--quiet"]
    return {"texts": 100, "folder_s": command_s(["encode", texts, "--vectors", folder, *common]),
            "text_s": command_s(["encode", texts, "--vectors", text, *common])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=400_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the two text parsers")
    ap.add_argument("--repeats", type=int, default=5, help="loads of the folder")
    ap.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "vectors.json"))
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-vectors-") as tmp:
        text, folder = os.path.join(tmp, "glove.txt"), os.path.join(tmp, "folder")
        write_s, _ = timed(write_glove, text, args.words, args.dim)
        size_mb = os.path.getsize(text) / 1e6
        print(f"{args.words:,} x {args.dim} GloVe text: {size_mb:,.0f} MB written in {write_s:.1f} s", flush=True)
        ours_s, gensim_s, identical, words, matrix = time_text_readers(text, args.rounds)
        if not identical:
            print("error: the text parser and gensim read different vectors", file=sys.stderr)
            return 1
        save_s, _ = timed(store.save_vectors, folder, words, matrix)
        del matrix
        df_words, df_path = words[:50_000], os.path.join(tmp, "df.npz")
        store.save_word_df(df_path, df_words, np.random.default_rng(1).integers(1, 1000, len(df_words)), 10_000)
        loads = time_folder(folder, df_path, args.repeats)
        command = time_commands(tmp, words, folder, text, df_path)
    med = statistics.median
    result = {
        "words": args.words, "dim": args.dim, "text_mb": size_mb, "text_write_s": write_s,
        "text": {"ours_s": ours_s, "gensim_s": gensim_s, "ours_median_s": med(ours_s), "gensim_median_s": med(gensim_s),
                 "identical": identical, "parser": "pandas read_csv (C engine)"},
        "text_speedup_vs_gensim": med(gensim_s) / med(ours_s),
        "folder": {"save_s": save_s, **loads, "df_words": len(df_words)},
        "folder_load_s": loads["unit_median_s"], "command": command, "rounds": args.rounds, "repeats": args.repeats,
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "commit": git_commit(), **hardware(), "versions": versions(("numpy", "pandas", "gensim", "jax")),
    }
    store.write_json(args.out, result)
    print(f"vectors: folder {loads['raw_median_s']:.3f} s memory-mapped, {loads['unit_median_s']:.3f} s unit length, "
          f"encoder {loads['encoder_median_s']:.3f} s; text: ours {med(ours_s):.2f} s, gensim {med(gensim_s):.2f} s "
          f"({result['text_speedup_vs_gensim']:.1f}x); repro encode of 100 texts {command['folder_s']:.2f} s from the "
          f"folder, {command['text_s']:.2f} s from text -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
