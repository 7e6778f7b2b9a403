"""``make repro-check``: the SHA-256 of every stage's output on a small dump, against the committed
checksums (results/repro-checksums.json; docs/REPRODUCIBILITY.md).

    python -m experiments.reprocheck check [--size small|reduced] [--part full|synthetic] [--work DIR]
    python -m experiments.reprocheck write [--size small|reduced]     # the committed checksums
    python -m experiments.reprocheck hashes --size small --part full --work DIR --out FILE.json

Two parts, each the chain's stages in order (paragraphs, word2vec, docfreq, pairs, weights, the
learned family, scores, tables):

- ``full``: the whole chain. At size ``small``, on gensim's 106-article dump (QUICK=1's corpus),
  word2vec included (its bits depend on the OpenBLAS kernel: docs/REPRODUCIBILITY.md).
- ``synthetic``: every stage after word2vec, on seeded synthetic paragraphs and seeded unit word
  vectors (NumPy's ``default_rng``, bit-exact on any machine), so the later stages are checked
  where word2vec differs. It needs no gensim.

The OpenBLAS kernel moves word2vec and the scores (docs/REPRODUCIBILITY.md); where it is not the
committed one (threadpoolctl names it), the stages of ``BLAS_STAGES`` are left out, with a line
saying so. Without gensim: ``PYTHONPATH=$PWD python3 -m experiments.reprocheck check --part synthetic``.

Size ``reduced`` (tests/test_reprocheck.py, in ``make test``) runs both parts on a tiny synthetic
corpus in seconds. A check fails with one line naming the first stage whose output differs.
Timings in the files (a model's ``*_seconds``) are not hashed: a ``.npz`` hashes as its arrays'
names, dtypes, shapes and bytes, every other file as its bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile

import numpy as np

from experiments import score, tables, train_family, train_weights
from repro import family, settings, store
from repro.data.wikipedia import paragraphdf
from repro.data.wikipedia import embeddings
from repro.data.wikipedia import wikidump
from repro.data.wikipedia import wikipairs
from repro.errors import InputError, run
from repro.kernels import state
from repro.layout import Layout
from repro.provenance import git_commit, hardware, lock_state, versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKSUMS = os.path.join(ROOT, "results", "repro-checksums.json")
STAGES = ("paragraphs", "word2vec", "docfreq", "pairs", "weights", "family", "scores", "tables")
PARTS = ("full", "synthetic")
SETTINGS = ("wiki20", "wikivar")
LOSSES = settings.LOSSES
#: the stages whose bits follow the OpenBLAS kernel (docs/REPRODUCIBILITY.md): compared only
#: where the kernel is the committed one
BLAS_STAGES = {"full": ("word2vec", "weights", "family", "scores", "tables"), "synthetic": ("family", "scores", "tables")}
#: per size: the synthetic corpus (articles, paragraphs each, words each), word2vec, training
SIZES = {
    "small": dict(corpus=(60, 6, 120), dim=50, w2v_epochs=2, min_count=5,
                  train=["--max-epochs", "10", "--kappa-grid", "20,80,160", "--batch-related", "20"]),
    "reduced": dict(corpus=(12, 4, 130), dim=16, w2v_epochs=3, min_count=1,
                    train=["--max-epochs", "4", "--kappa-grid", "20,160", "--batch-related", "4"]),
}


def digest(path: str) -> str:
    """SHA-256 of a file; of a ``.npz``'s arrays (name, dtype, shape, bytes; no ``*seconds``)."""
    if not path.endswith(".npz"):
        return store.sha256(path)
    h = hashlib.sha256()
    with np.load(path, allow_pickle=False) as z:
        for key in sorted(k for k in z.files if "seconds" not in k):
            a = np.ascontiguousarray(z[key])
            h.update(f"{key}|{a.dtype.str}|{a.shape}|".encode())
            h.update(a.tobytes())
    return h.hexdigest()


def stage_files(data: str, results: str) -> dict[str, list[str]]:
    """Each stage's output files, in stage order."""
    lay = Layout(data)
    return {
        "paragraphs": [lay.paragraphs],
        "word2vec": [lay.vocab, lay.vectors],
        "docfreq": [lay.df],
        "pairs": [lay.pairs(s, k) for s in SETTINGS for k in ("train", "validation", "test")],
        "weights": [lay.model(s, loss) for s in SETTINGS for loss in LOSSES],
        "family": [lay.family(s, m.key) for s in SETTINGS for m in family.members()],
        "scores": [lay.scores(s) for s in (*SETTINGS, "other")],
        "tables": [os.path.join(results, f) for f in ("table1.md", "table1.csv", "table1.tex")],
    }


def synthetic_paragraphs(path: str, articles: int, paragraphs: int, words: int, seed: int = 0) -> None:
    """Seeded articles whose paragraphs mix topic words of their own with common words."""
    rng = np.random.default_rng(seed)
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]

    def word() -> str:
        return "".join(syllables[i] for i in rng.integers(0, len(syllables), 3))

    common = [word() for _ in range(80)]
    lines = []
    for art in range(articles):
        topic = [word() for _ in range(25)]
        for _ in range(paragraphs):
            picks = rng.random(words) < 0.5
            toks = [topic[rng.integers(25)] if p else common[rng.integers(80)] for p in picks]
            lines.append(f"{art + 1}\t{' '.join(toks)}\n")
    store.write_text(path, "".join(lines))


def synthetic_vectors(paragraphs: str, out: str, dim: int, min_count: int, seed: int = 1) -> None:
    """Seeded unit vectors for the words of count >= min_count (descending count, then the word)."""
    counts: dict[str, int] = {}
    with open(paragraphs, encoding="utf-8") as f:
        for line in f:
            for tok in line.partition("\t")[2].split():
                counts[tok] = counts.get(tok, 0) + 1
    words = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    m = np.random.default_rng(seed).standard_normal((len(words), dim))
    m /= np.sqrt(np.einsum("ij,ij->i", m, m))[:, None]  # float64, then float32: no reduction order
    store.save_vectors(out, words, m.astype(np.float32))


def other_vectors(vocab: str, path: str, seed: int = 5) -> None:
    """A seeded GloVe text file (8 dimensions) of every other corpus word: the "other" setting."""
    words = store.read_vocab(vocab)[::2]
    rng = np.random.default_rng(seed)
    store.write_text(path, "".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=8)) + "\n"
                                   for w in words))


def word_stages(work: str, size: str, part: str) -> None:
    """paragraphs and word2vec (or the synthetic vectors) into ``work/data``."""
    cfg, lay = SIZES[size], Layout(os.path.join(work, "data"))
    os.makedirs(lay.w2v, exist_ok=True)
    if part == "full" and size == "small":
        _ok(wikidump.main, ["--out", lay.paragraphs, "--workers", "1"])
    else:
        synthetic_paragraphs(lay.paragraphs, *cfg["corpus"])
    if part == "full":  # gensim: only here
        _ok(embeddings.main, ["--paragraphs", lay.paragraphs, "--out", lay.w2v, "--epochs", str(cfg["w2v_epochs"]),
                              "--dim", str(cfg["dim"]), "--min-count", str(cfg["min_count"]), "--seed", "1"])
    else:
        synthetic_vectors(lay.paragraphs, lay.w2v, cfg["dim"], cfg["min_count"])


def later_stages(work: str, size: str) -> None:
    """docfreq, pairs, weights, scores and Table 1 from ``work/data`` (results in ``work/results``)."""
    data = os.path.join(work, "data")
    lay = Layout(data)
    _ok(paragraphdf.main, ["--paragraphs", lay.paragraphs, "--vocab", lay.vocab, "--out", lay.df, "--workers", "1"])
    for s in SETTINGS:
        _ok(wikipairs.main, ["--paragraphs", lay.paragraphs, "--vocab", lay.vocab, "--df", lay.df,
                             "--setting", s, "--seed", "0", "--out", lay.path(s)])
        for loss in LOSSES:
            _ok(train_weights.main, ["--data", data, "--setting", s, "--loss", loss, "--seed", "0",
                                     "--out", lay.model(s, loss), *SIZES[size]["train"]])
        _ok(train_family.main, ["--data", data, "--setting", s, "--seed", "0", *SIZES[size]["train"]])
    other = os.path.join(work, "other.txt")
    other_vectors(lay.vocab, other)
    for s in (*SETTINGS, "other"):
        _ok(score.main, ["--data", data, "--setting", s, "--out", lay.scores(s), "--other-vectors", other])
    _ok(tables.main, ["--table", "1", "--data", data, "--results", os.path.join(work, "results"), "--seed", "0"])


def _ok(main, argv) -> None:
    """Run one stage's ``main``; a failure stops the check with the stage's own message."""
    code = run(main, argv)
    if code not in (0, None):
        raise SystemExit(f"error: {main.__module__} {' '.join(argv)} exited {code}")


def hashes(work: str, size: str, part: str) -> dict[str, dict[str, str]]:
    """Run one part at one size in ``work``; ``{stage: {file: sha256}}`` (paths relative to work)."""
    word_stages(work, size, part)
    later_stages(work, size)
    files = stage_files(os.path.join(work, "data"), os.path.join(work, "results"))
    return {st: {os.path.relpath(p, work): digest(p) for p in files[st]} for st in STAGES}


def first_difference(want: dict, got: dict, skip=()) -> str | None:
    """The first stage (in chain order, ``skip`` aside) whose files or digests differ, with the
    first such file."""
    for st in (s for s in STAGES if s not in skip):
        w, g = want.get(st, {}), got.get(st, {})
        for f in sorted(set(w) | set(g)):
            if w.get(f) != g.get(f):
                return f"{st} ({f}: {str(g.get(f))[:12]} here, {str(w.get(f))[:12]} committed)"
    return None


def provenance() -> dict:
    """What made a set of checksums: commit, versions, hardware and the kernels in force."""
    return {"commit": git_commit(), "versions": versions(), "hardware": hardware(), "kernels": state(),
            "lock": lock_state()}


def run_parts(size: str, parts, work: str | None) -> dict:
    """``{part: hashes}`` for each part, each in its own folder under ``work`` (a temporary one)."""
    with tempfile.TemporaryDirectory(prefix="reprocheck-") as tmp:
        base = work or tmp
        return {p: hashes(os.path.join(base, f"{size}-{p}"), size, p) for p in parts}


def blas_kernel(kernels: dict | None) -> str | None:
    """The OpenBLAS kernel(s) threadpoolctl named, as one string (None where unknown)."""
    blas = (kernels or {}).get("blas")
    return "/".join(sorted({str(b.get("architecture")) for b in blas})) if blas else None


def check(size: str, parts, work: str | None, checksums: str = CHECKSUMS, notes=None) -> list[str]:
    """The failures of each part against the committed checksums: one line each, empty if none.
    Where the OpenBLAS kernel is not the committed one, the stages that follow it are left out
    and ``notes`` (a list) gets a line saying so."""
    committed = store.read_json(checksums)
    theirs, ours = blas_kernel(committed.get("provenance", {}).get("kernels")), blas_kernel(state())
    skip = {} if theirs == ours or None in (theirs, ours) else BLAS_STAGES
    got = run_parts(size, parts, work)
    out = []
    for p in parts:
        want = committed.get("sizes", {}).get(size, {}).get(p)
        if want is None:
            out.append(f"{p} ({size}): no committed checksums in {checksums} (make repro-checksums)")
            continue
        if skip and notes is not None:
            notes.append(f"{p} ({size}): {', '.join(skip[p])} not compared: OpenBLAS kernel {ours} here, "
                         f"{theirs} committed (docs/REPRODUCIBILITY.md)")
        if (where := first_difference(want, got[p], skip.get(p, ()))) is not None:
            out.append(f"{p} ({size}): the first stage that differs is {where}")
    return out


def write(sizes, work: str | None, checksums: str = CHECKSUMS) -> None:
    """Compute both parts at each size and write them, with their provenance, to ``checksums``."""
    old = store.read_json(checksums) if os.path.exists(checksums) else {}
    out = {"about": "SHA-256 of every stage's output (python -m experiments.reprocheck write; "
                    "docs/REPRODUCIBILITY.md)", "sizes": old.get("sizes", {})}
    for size in sizes:
        out["sizes"][size] = run_parts(size, PARTS, work)
    out["provenance"] = provenance()
    store.write_json(checksums, out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=("check", "write", "hashes"))
    ap.add_argument("--size", choices=tuple(SIZES), default=None, help="default: small (write: both)")
    ap.add_argument("--part", choices=PARTS, default=None, help="default: both")
    ap.add_argument("--work", default=None, help="folder to keep the outputs in (default: a temporary one)")
    ap.add_argument("--checksums", default=CHECKSUMS)
    ap.add_argument("--out", default=None, help="hashes: the JSON file to write")
    args = ap.parse_args(argv)
    parts = (args.part,) if args.part else PARTS
    if args.action == "write":
        write((args.size,) if args.size else tuple(SIZES), args.work, args.checksums)
        print(f"wrote {args.checksums}")
        return 0
    size = args.size or "small"
    if args.action == "hashes":
        if not (args.out and args.work):
            raise InputError("hashes", "--out and --work are required")
        store.write_json(args.out, {"size": size, "parts": run_parts(size, parts, args.work),
                                    "provenance": provenance()})
        return 0
    notes: list[str] = []
    failures = check(size, parts, args.work, args.checksums, notes)
    for line in notes:
        print(f"repro-check: {line}")
    for line in failures:
        print(f"repro-check: {line}", file=sys.stderr)
    if not failures:
        print(f"repro-check: every stage of {', '.join(parts)} ({size}) has the committed SHA-256")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
