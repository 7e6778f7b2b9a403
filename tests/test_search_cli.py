"""repro index, repro dedup --keep, repro neighbours INDEX/ and repro stream end to end on a tiny
vectors folder written here, and their one-line errors (issue 58)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from repro import cli
from repro.encode.encoder import Encoder
from repro.search import dedup
from test_neighbours_cli import encoder_options, tiny_files, tsv_rows

TEXTS = ["alpha beta gamma", "beta delta", "epsilon zeta eta alpha", "theta beta", "Alpha beta gamma!",
         "gamma delta zeta", "eta theta", "alpha beta gamma"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tiny_files(tmp_path_factory.mktemp("search"), TEXTS)
    (d / "more.jsonl").write_text('{"text": "beta gamma alpha", "id": "m1"}\n{"text": "zeta eta"}\n')
    return d


def test_an_index_is_built_added_to_and_searched_as_the_library_does(files, tmp_path, capsys):
    ix = str(tmp_path / "ix")
    assert cli.main(["index", str(files / "texts.txt"), ix, *encoder_options(files)]) == 0
    assert capsys.readouterr().out.strip() == f"index: 8 items, 5-d, cosine, 1 cells -> {ix}"
    assert cli.main(["index", str(files / "more.jsonl"), ix, "--add"]) == 0  # the index's own encoder
    capsys.readouterr()
    assert cli.main(["neighbours", ix, "alpha gamma beta", "-k", "3"]) == 0
    got = tsv_rows(capsys.readouterr().out)
    enc = Encoder.pretrained(str(files / "folder"), str(files / "df.npz"))
    every = TEXTS + ["beta gamma alpha", "zeta eta"]
    ids, scores = enc.neighbours(["alpha gamma beta"], every, k=3)
    names = [str(i) for i in range(8)] + ["m1", "9"]
    assert [r[2] for r in got] == [names[i] for i in ids[0]]
    np.testing.assert_allclose([float(r[3]) for r in got], scores[0], atol=5e-7)
    # dedup of the index folder: the groups of its vectors; keep first drops the later spellings
    assert cli.main(["dedup", ix, "--threshold", "0.9999"]) == 0
    want_group, want_size = dedup.groups(enc.transform(every), 0.9999, "cosine")
    assert [int(r[1]) for r in tsv_rows(capsys.readouterr().out)] == want_group.tolist()
    assert cli.main(["dedup", ix, "--threshold", "0.9999", "--keep", "first"]) == 0
    first = tsv_rows(capsys.readouterr().out)
    assert first[4][:3] == ["4", "0", "0"] and first[7][:3] == ["7", "0", "0"] and first[0] == ["0", "1", "-1", ""]


def test_dedup_keep_first_of_texts_into_an_npz_with_either_method(files, tmp_path, capsys):
    out = tmp_path / "first.npz"
    enc = Encoder.pretrained(str(files / "folder"), str(files / "df.npz"))
    x = enc.transform(TEXTS)
    for method in ("--exact", "--cells"):
        assert cli.main(["dedup", str(files / "texts.txt"), "--threshold", "0.9999", "--keep", "first", method,
                         "--out", str(out), *encoder_options(files)]) == 0
        with np.load(out) as z:
            assert z["kept"].tolist() == [True, True, True, True, False, True, True, False]
            assert z["duplicate_of"].tolist() == [-1, -1, -1, -1, 0, -1, -1, 0]
            assert str(z["rule"]) == "first" and str(z["method"]) == method[2:]
            assert z["score"][4] == dedup.exact(x, [4], x, [0], "cosine")[0]
        assert capsys.readouterr().out.strip() == (
            f"dedup: 8 items, 6 kept, 2 dropped, cosine >= 0.9999 ({method[2:]}) -> {out}")


def test_the_stream_writes_each_texts_earlier_related_texts(files, tmp_path, capsys):
    lines = [{"text": t, "id": f"s{i}", "time": 60.0 * i} for i, t in enumerate(TEXTS)]
    src = tmp_path / "s.jsonl"
    src.write_text("".join(json.dumps(o) + "\n" for o in lines))
    capsys.readouterr()
    assert cli.main(["stream", str(src), "--threshold", "0.9999", "--batch", "3", *encoder_options(files)]) == 0
    out = capsys.readouterr()
    assert tsv_rows(out.out) == [["s4", "s0", tsv_rows(out.out)[0][2]], ["s7", "s0", "1.000000"], ["s7", "s4", "1.000000"]]
    assert out.err.startswith("stream: 8 texts, 3 related couples (cosine >= 0.9999)")
    # four minutes: s7 (minute 7) is too late for s0 (minute 0); s4 (minute 4) is not
    assert cli.main(["stream", str(src), "--threshold", "0.9999", "--minutes", "4", *encoder_options(files)]) == 0
    assert [r[:2] for r in tsv_rows(capsys.readouterr().out)] == [["s4", "s0"], ["s7", "s4"]]
    # a window of two texts: none of them
    assert cli.main(["stream", str(src), "--threshold", "0.9999", "--window", "2", *encoder_options(files)]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("args, line", [
    (["index", "{d}/texts.txt", "{d}/ix", "--add"], "error: {d}/ix: not an index folder (no such folder)"),
    (["index", "{d}/empty.txt", "{d}/new"], "error: {d}/empty.txt: no texts (empty input)"),
    (["index", "{d}/wide.npy", "{d}/built", "--add"], "error: vectors: 4-d vectors, but the index's are 5-d"),
    (["index", "{d}/more.jsonl", "{d}/built", "--add", "--pretrained", "paper", "--vectors", "{d}/folder",
      "--df", "{d}/df.npz"],
     "error: {d}/built: was built by another encoder than the one the options name (leave them out to use the "
     "index's own)"),
    (["index", "{d}/texts.txt", "{d}/built"],
     "error: {d}/built: exists already: add to it (repro index --add) or name a new folder"),
    (["dedup", "{d}/built", "--threshold", "1.5"], "error: --threshold: the cosine lies in [-1, 1], got 1.5"),
    (["stream", "{d}/empty.txt", "--threshold", "0.9", "--vectors", "{d}/folder", "--df", "{d}/df.npz"],
     "error: {d}/empty.txt: no texts (empty input)"),
    (["stream", "{d}/texts.txt", "--threshold", "-2", "--vectors", "{d}/folder", "--df", "{d}/df.npz"],
     "error: threshold: the cosine lies in [-1, 1], got -2.0"),
    (["stream", "{d}/more.jsonl", "--threshold", "0.5", "--minutes", "5", "--vectors", "{d}/folder", "--df",
      "{d}/df.npz"], "error: {d}/more.jsonl: text 0: no \"time\", which --minutes needs"),
])
def test_bad_input_is_one_error_line(files, capsys, args, line):
    (files / "empty.txt").write_text("")
    np.save(files / "wide.npy", np.ones((2, 4), np.float32))
    if not (files / "built").exists():
        assert cli.main(["index", str(files / "texts.txt"), str(files / "built"), *encoder_options(files)]) == 0
    capsys.readouterr()
    assert cli.main([a.format(d=files) for a in args]) == 1
    out = capsys.readouterr()
    assert out.err == line.format(d=files) + "\n" and out.out == ""


def test_the_encoder_builds_searches_and_dedups_an_index(files, tmp_path):
    from repro.errors import InputError
    from repro.search.indexfolder import load
    enc = Encoder.pretrained(str(files / "folder"), str(files / "df.npz"))
    index = enc.index(TEXTS[:5], str(tmp_path / "ix"), ids=[f"t{i}" for i in range(5)])
    index = enc.index(TEXTS[5:], str(tmp_path / "ix"), add=True)
    assert index.n == 8 and index.id_of([0, 7]) == ["t0", "7"]
    ids, scores = enc.neighbours(["alpha gamma beta"], load(str(tmp_path / "ix")), k=3)
    want = enc.neighbours(["alpha gamma beta"], TEXTS, k=3)
    np.testing.assert_array_equal(ids, want[0])
    np.testing.assert_array_equal(scores, want[1])
    first = enc.dedup(TEXTS, 0.9999, keep="first")
    assert first.kept.tolist() == [True, True, True, True, False, True, True, False]
    assert np.array_equal(enc.dedup(index, 0.9999, keep="first").duplicate_of, first.duplicate_of)
    assert np.array_equal(enc.dedup(TEXTS, 0.9999).group, dedup.groups(enc.transform(TEXTS), 0.9999, "cosine")[0])
    other = Encoder.pretrained(str(files / "folder"), str(files / "df.npz"), model="paper")
    with pytest.raises(InputError, match="was built by another encoder"):
        other.neighbours(["alpha"], index, k=1)
