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

What is promised bit for bit depends on the machine (docs/REPRODUCIBILITY.md): the OpenBLAS
kernel (threadpoolctl names it) moves word2vec and the scores (``BLAS_STAGES``), and XLA's code
class (:func:`repro.pins.code_class`: the CPU XLA compiles for, the host's vector ISA) moves
everything trained (``CODE_STAGES``). Where either is not the committed one, those stages are not
promised: the check still reports each of them, as the largest absolute difference of its arrays
from the committed run's (``results/repro-reference.npz``: at most ``SAMPLE`` evenly spaced
entries of each file, shared by its arrays) and, for the tables, "equal to the printed digits" or the cell that moved.
A check fails only where a promised stage differs, and then names every such stage. Without
gensim: ``PYTHONPATH=$PWD python3 -m experiments.reprocheck check --part synthetic``.

Size ``reduced`` (tests/test_reprocheck.py, in ``make test-slow``) runs both parts on a tiny synthetic
corpus in a minute or two, most of it compiling.
Timings in the files (a model's ``*_seconds``) are not hashed: a ``.npz`` hashes as its arrays'
names, dtypes, shapes and bytes, every other file as its bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile

import numpy as np

from experiments import compare, score, score_tokens, tables, token_df, tokenrows, train_family, train_tokenfamily, train_weights
from repro import settings
from repro.evaluate import family
from repro.io import store
from repro.data.wikipedia import paragraphdf
from repro.data.wikipedia import embeddings
from repro.data.wikipedia import wikidump
from repro.data.wikipedia import wikipairs
from repro.errors import InputError, run
from repro.pins import state
from repro.io.layout import Layout
from repro.io.provenance import git_commit, hardware, lock_state, versions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKSUMS = os.path.join(ROOT, "results", "repro-checksums.json")
#: the committed run's arrays (sampled) and tables, for the distance of a stage that is not promised
REFERENCE = os.path.join(ROOT, "results", "repro-reference.npz")
#: entries kept of each output file in the reference, shared evenly by its arrays (evenly spaced
#: entries of each, first and last included): a score file's hundred-odd arrays keep a few each, so
#: the reference stays small (4.3 MB at 512 entries per array)
SAMPLE = 512
STAGES = ("paragraphs", "word2vec", "docfreq", "pairs", "weights", "family", "scores", "tables")
PARTS = ("full", "synthetic")
SETTINGS = ("wiki20", "wikivar")
LOSSES = settings.LOSSES
#: the stages whose bits follow the OpenBLAS kernel (docs/REPRODUCIBILITY.md): compared only
#: where the kernel is the committed one
BLAS_STAGES = {"full": ("word2vec", "weights", "family", "scores", "tables"), "synthetic": ("family", "scores", "tables")}
#: the stages XLA's compiled code moves (training, and what reads the trained weights): compared
#: bit for bit only within the committed code class (repro.pins.code_class)
CODE_STAGES = ("weights", "family", "scores", "tables")
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
    _ok(token_df.main, ["--paragraphs", lay.paragraphs, "--out", tokenrows.df_path(lay)])  # the WordLlama rows
    for s in SETTINGS:
        _ok(train_tokenfamily.main, ["--data", data, "--setting", s, "--seed", "0", *SIZES[size]["train"]])
        _ok(score_tokens.main, ["--data", data, "--setting", s, "--out", tokenrows.scores_path(lay, s)])
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


def sampled(a: np.ndarray, n: int = SAMPLE) -> np.ndarray:
    """At most ``n`` evenly spaced entries of ``a`` (flattened), first and last included."""
    flat = np.ravel(a)
    if flat.size <= n:
        return flat
    return flat[np.linspace(0, flat.size - 1, max(n, 2)).round().astype(np.int64)]


def samples(work: str) -> dict[str, np.ndarray]:
    """{``<file>:<array>``: sampled float array} of every ``.npz``/``.npy`` output of ``work``'s chain
    (timings aside; :data:`SAMPLE` entries a file, shared by its arrays), and {``<file>``: its text}
    of the tables' Markdown (paths relative to work)."""
    files = stage_files(os.path.join(work, "data"), os.path.join(work, "results"))
    out = {}
    for stage in STAGES:
        for path in files[stage]:
            rel = os.path.relpath(path, work)
            if path.endswith(".npz"):
                with np.load(path, allow_pickle=False) as z:
                    keys = sorted(k for k in z.files if "seconds" not in k and z[k].dtype.kind == "f")
                    for key in keys:
                        out[f"{rel}:{key}"] = sampled(z[key], SAMPLE // len(keys))
            elif path.endswith(".npy"):
                out[f"{rel}:"] = sampled(np.load(path, allow_pickle=False))
            elif path.endswith(".md"):
                with open(path, encoding="utf-8") as f:
                    out[rel] = np.array(f.read())
    return out


def first_difference(want: dict, got: dict, skip=()) -> str | None:
    """The first stage (in chain order, ``skip`` aside) whose files or digests differ, with the
    first such file."""
    differing = differences(want, got, skip)
    return None if not differing else f"{differing[0][0]} ({differing[0][1]})"


def differences(want: dict, got: dict, skip=()) -> list[tuple[str, str]]:
    """[(stage, its first differing file with both digests)] of every stage (in chain order,
    ``skip`` aside) whose files or digests differ."""
    out = []
    for st in (s for s in STAGES if s not in skip):
        w, g = want.get(st, {}), got.get(st, {})
        for f in sorted(set(w) | set(g)):
            if w.get(f) != g.get(f):
                out.append((st, f"{f}: {str(g.get(f))[:12]} here, {str(w.get(f))[:12]} committed"))
                break
    return out


def distance(stage: str, files, got: dict, want: dict) -> str:
    """How far one stage's outputs ``got`` (:func:`samples`) are from the committed ``want``: the
    tables as printed (:func:`experiments.compare.markdown_comparison`), arrays by the largest
    absolute difference of their sampled entries and where it is."""
    if stage == "tables":
        said = [f"{f}: {where}" for f in files if f.endswith(".md") and f in got and f in want
                and (where := compare.markdown_comparison(str(got[f]), str(want[f]))) is not None]
        return "equal to the printed digits" if not said else "differ as printed: " + "; ".join(said)
    keys = sorted(k for k in want if k.split(":")[0] in files)
    if not keys:
        return "no reference arrays"
    for key in keys:
        if key not in got or got[key].shape != want[key].shape:
            return f"{key} has another shape or is missing"
    far = {k: float(np.max(np.abs(got[k].astype(np.float64) - want[k].astype(np.float64)), initial=0.0)) for k in keys}
    where = max(keys, key=far.get)  # the first of the largest, in file and array order
    return f"max |difference| {far[where]:.3g} ({where})"


def provenance() -> dict:
    """What made a set of checksums: commit, versions, hardware and the kernels in force."""
    return {"commit": git_commit(), "versions": versions(), "hardware": hardware(), "kernels": state(),
            "lock": lock_state()}


def run_parts(size: str, parts, work: str | None, keep: dict | None = None) -> dict:
    """``{part: hashes}`` for each part, each in its own folder under ``work`` (a temporary one);
    ``keep`` (a dict), if given, gets each part's :func:`samples`."""
    with tempfile.TemporaryDirectory(prefix="reprocheck-") as tmp:
        base, out = work or tmp, {}
        for p in parts:
            out[p] = hashes(os.path.join(base, f"{size}-{p}"), size, p)
            if keep is not None:
                keep[p] = samples(os.path.join(base, f"{size}-{p}"))
        return out


def blas_kernel(kernels: dict | None) -> str | None:
    """The OpenBLAS kernel(s) threadpoolctl named, as one string (None where unknown), with the L2
    size the machine told OpenBLAS (``OPENBLAS_L2_SIZE``, where set: it sets the blocking)."""
    blas = (kernels or {}).get("blas")
    if not blas:
        return None
    l2 = (kernels or {}).get("OPENBLAS_L2_SIZE")
    return "/".join(sorted({str(b.get("architecture")) for b in blas})) + (f" (L2 {l2})" if l2 else "")


def unpromised(committed_kernels: dict | None, here: dict) -> dict[str, dict[str, str]]:
    """{part: {stage: why its bits are not promised here}}: the stages that follow the OpenBLAS
    kernel where it is not the committed one, and the trained stages where XLA's code class is not."""
    out = {p: {} for p in PARTS}
    theirs, ours = blas_kernel(committed_kernels), blas_kernel(here)
    if theirs != ours and None not in (theirs, ours):
        for p in PARTS:
            for st in BLAS_STAGES[p]:
                out[p][st] = f"OpenBLAS kernel {ours} here, {theirs} committed"
    theirs, ours = (committed_kernels or {}).get("code_class"), here.get("code_class")
    if theirs != ours:
        for p in PARTS:
            for st in CODE_STAGES:
                out[p].setdefault(st, f"XLA code class {ours} here, {theirs} committed")
    return out


def load_reference(path: str, size: str, part: str) -> dict:
    """The committed samples of one size and part ({} where the file or the part is missing)."""
    if not os.path.exists(path):
        return {}
    prefix = f"{size}/{part}/"
    with np.load(path, allow_pickle=False) as z:
        return {k[len(prefix):]: z[k] for k in z.files if k.startswith(prefix)}


def check(size: str, parts, work: str | None, checksums: str = CHECKSUMS, notes=None,
          reference: str = REFERENCE) -> list[str]:
    """The failures of each part against the committed checksums: one line per promised stage
    that differs, empty if none. ``notes`` (a list) gets a line for every stage that is not
    promised on this machine (:func:`unpromised`): the same SHA-256, or how far it is."""
    committed = store.read_json(checksums)
    skip = unpromised(committed.get("provenance", {}).get("kernels"), state())
    kept: dict = {}
    got = run_parts(size, parts, work, keep=kept)
    out = []
    for p in parts:
        want = committed.get("sizes", {}).get(size, {}).get(p)
        if want is None:
            out.append(f"{p} ({size}): no committed checksums in {checksums} (make repro-checksums)")
            continue
        ref = load_reference(reference, size, p)
        differing = dict(differences(want, got[p]))
        for st, why in skip[p].items() if notes is not None else ():
            said = distance(st, want.get(st, {}), kept[p], ref) if st in differing else "the same SHA-256"
            notes.append(f"{p} ({size}): {st}: {said} (not promised bit for bit: {why})")
        for st, where in differing.items():
            if st not in skip[p]:
                out.append(f"{p} ({size}): {st} differs ({where}; {distance(st, want.get(st, {}), kept[p], ref)})")
    return out


def write(sizes, work: str | None, checksums: str = CHECKSUMS) -> None:
    """Compute both parts at each size and write them, with their provenance, to ``checksums``."""
    old = store.read_json(checksums) if os.path.exists(checksums) else {}
    out = {"about": "SHA-256 of every stage's output (python -m experiments.reprocheck write; "
                    "docs/REPRODUCIBILITY.md)", "sizes": old.get("sizes", {})}
    arrays = {}
    if os.path.exists(REFERENCE):
        with np.load(REFERENCE, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files if k.split("/")[0] not in sizes}
    for size in sizes:
        kept: dict = {}
        out["sizes"][size] = run_parts(size, PARTS, work, keep=kept)
        arrays.update({f"{size}/{p}/{k}": v for p in kept for k, v in kept[p].items()})
    out["provenance"] = provenance()
    store.write_json(checksums, out)
    store.write_npz(REFERENCE, **arrays)


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
        print(f"repro-check: every stage of {', '.join(parts)} ({size}) promised on this machine has the "
              "committed SHA-256")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
