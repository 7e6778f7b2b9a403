"""The docfreq stage: document frequencies of the vocabulary words, a paragraph being a document (original ``docfreq.py``).

    python -m repro docfreq --paragraphs DATA/paragraphs.tsv --vocab DATA/w2v/vocab.txt
                            --out DATA/df.npz [--workers N]

``df[i]`` is the number of paragraphs (lines of the TSV) whose token set contains word ``i``
of ``vocab.txt``; tokens outside the vocabulary are ignored. ``n_docs`` is N, the number of
paragraphs, all of them; ``counts[i]`` is the number of occurrences of word ``i`` (the word
counts of the SIF and uSIF peers). Output: ``df.npz`` with ``df`` (V,) int64, ``n_docs`` ()
int64 and ``counts`` (V,) int64, written under a temporary name and renamed. The idf of the paper's equation 1 is then
``repro.words.docfreq.idf(df, n_docs)``; the file is read by :func:`repro.io.store.load_df`.

The file is streamed in blocks of lines; a ``multiprocessing.Pool`` counts the blocks
(``imap_unordered``: integer sums do not depend on the order) and the parent adds the counts.
Workers are forked, or spawned in a process that runs other threads (numpy's BLAS threads
count), by :func:`repro.data.parallel.worker_pool`, and only for files of 16 MB or more: below
that, starting them costs more than it saves.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import sys
import time

import numpy as np
from tqdm import tqdm

from repro.errors import InputError, run
from repro.data import couplestage
from repro.data.parallel import pool_map, worker_pool
from repro.words.docfreq import count_known, idf
from repro.io.store import read_vocab, save_df

BLOCK_LINES = 2000
#: Below this file size the workers cost more to start than they save; one process counts.
MIN_POOL_BYTES = 16 << 20

_index: dict[str, int] = {}



def count_block(lines: list[str], index: dict[str, int]):
    """The :class:`repro.words.docfreq.BlockCounts` of a block of TSV lines (the text after each
    line's tab is a document)."""
    return count_known((line[line.index("\t") + 1:].split() for line in lines), index)


def _init_worker(words: list[str]) -> None:
    global _index
    _index = {w: i for i, w in enumerate(words)}


def _count(lines: list[str]):
    return count_block(lines, _index)


def _blocks(path: str, block: int | None = None):
    """Blocks of lines; each line checked for the article-id tab (error names the line)."""
    block = block or BLOCK_LINES
    with open(path, encoding="utf-8") as f:
        lineno = 0
        while True:
            lines = list(itertools.islice(f, block))
            if not lines:
                return
            for i, line in enumerate(lines):
                if "\t" not in line:
                    raise InputError(path, f"line {lineno + i + 1}: no tab between article id and text")
            lineno += len(lines)
            yield lines


def document_frequencies(paragraphs: str, words: list[str], workers: int = 1,
                         progress: bool | None = None, counts: bool = False):
    """(df (V,) int64, N) for the vocabulary ``words`` over the paragraph TSV; with ``counts``,
    (df, N, word counts (V,) int64)."""
    df = np.zeros(len(words), dtype=np.int64)
    terms = np.zeros(len(words), dtype=np.int64)
    n_docs = 0
    blocks = _blocks(paragraphs)
    if os.path.getsize(paragraphs) < MIN_POOL_BYTES:
        workers = 1
    # one process counts with its own index; workers each build theirs once (_init_worker)
    serial = functools.partial(count_block, index={w: i for i, w in enumerate(words)}) if workers <= 1 else None
    with worker_pool(workers, _init_worker, (words,)) as pool, \
            tqdm(desc="docfreq", unit=" paragraphs", disable=progress is False or None) as bar:
        for block in pool_map(pool, serial or _count, blocks, ordered=False):
            df[block.words] += block.df  # indices are unique within a block
            terms[block.words] += block.terms
            n_docs += block.documents
            bar.update(block.documents)
    return (df, n_docs, terms) if counts else (df, n_docs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m repro docfreq", description=__doc__.split("\n\n")[0])
    ap.add_argument("--paragraphs", required=True, help=couplestage.PARAGRAPHS_HELP)
    couplestage.add_inputs(ap, df=False)
    ap.add_argument("--out", required=True, help="df.npz to write")
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="counting processes (default: all cores)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.workers < 1:
        raise InputError(args.out, "--workers must be at least 1")
    words = read_vocab(args.vocab)
    with couplestage.reading(args.paragraphs):
        df, n_docs, terms = document_frequencies(args.paragraphs, words, args.workers, counts=True)
    if n_docs == 0:
        raise InputError(args.paragraphs, "no paragraphs")
    save_df(args.out, df, n_docs, counts=terms)
    values = idf(df, n_docs)
    print(f"docfreq: {n_docs} paragraphs, {len(words)} words ({int((df == 0).sum())} with df 0), "
          f"idf {values.min():.2f}..{values.max():.2f} in {time.perf_counter() - t0:.2f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
