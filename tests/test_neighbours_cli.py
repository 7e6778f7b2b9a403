"""repro neighbours and repro dedup end to end on a tiny vectors folder and df file written here,
their output formats, and their one-line errors (issue 35, item 3)."""

from __future__ import annotations

import numpy as np
import pytest

from repro import cli
from repro.search.dedup import groups
from repro.encode.encoder import Encoder

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
TEXTS = ["alpha beta gamma", "beta delta", "epsilon zeta eta alpha", "theta beta", "Alpha beta gamma!",
         "gamma delta zeta", "eta theta"]


def tiny_files(d, texts: list[str]):
    """In folder ``d``: 5-d vectors of WORDS (seed 0) as a vectors folder, ``texts.txt`` and its df file."""
    m = np.random.default_rng(0).standard_normal((len(WORDS), 5)).astype(np.float32)
    (d / "vec.txt").write_text("".join(w + " " + " ".join(f"{x:.6f}" for x in row) + "\n" for w, row in zip(WORDS, m)))
    (d / "texts.txt").write_text("\n".join(texts) + "\n")
    assert cli.main(["vectors", str(d / "vec.txt"), str(d / "folder")]) == 0
    assert cli.main(["df", str(d / "texts.txt"), "--out", str(d / "df.npz")]) == 0
    return d


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tiny_files(tmp_path_factory.mktemp("neighbours"), TEXTS)
    (d / "queries.txt").write_text("beta gamma\nzeta eta\n")
    return d


def encoder_options(files) -> list[str]:
    return ["--vectors", str(files / "folder"), "--df", str(files / "df.npz")]


def tsv_rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


def test_neighbours_of_query_texts_print_tsv_as_the_library_finds_them(files, capsys):
    capsys.readouterr()
    assert cli.main(["neighbours", str(files / "texts.txt"), "beta gamma", "zeta eta", "-k", "3",
                     *encoder_options(files)]) == 0
    out = capsys.readouterr()
    rows = tsv_rows(out.out)
    assert out.err == "" and len(rows) == 6 and all(len(r) == 4 for r in rows)
    assert [(int(q), int(rank)) for q, rank, _, _ in rows] == [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]
    enc = Encoder.pretrained(str(files / "folder"), str(files / "df.npz"))
    ids, scores = enc.neighbours(["beta gamma", "zeta eta"], TEXTS, k=3)
    assert enc.metric == "cosine"  # the shipped default model's
    assert [int(r[2]) for r in rows] == ids.ravel().tolist()
    np.testing.assert_allclose([float(r[3]) for r in rows], scores.ravel(), atol=5e-7)
    # "alpha beta gamma" and "Alpha beta gamma!" are one text to the tokeniser: a tie, the lower id first
    assert cli.main(["neighbours", str(files / "texts.txt"), "alpha gamma beta", "-k", "2", *encoder_options(files)]) == 0
    assert [int(r[2]) for r in tsv_rows(capsys.readouterr().out)] == [0, 4]


def test_neighbours_of_encoded_vectors_into_an_npz(files, capsys):
    x, nn = files / "X.npy", files / "nn.npz"
    assert cli.main(["encode", str(files / "texts.txt"), *encoder_options(files), "--out", str(x)]) == 0
    assert cli.main(["neighbours", str(x), "--queries", str(x), "--metric", "euclidean", "-k", "4",
                     "--out", str(nn)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"neighbours: 7 queries x top 4 of 7 items (euclidean) -> {nn}"
    with np.load(nn) as z:
        ids, scores, metric = z["ids"], z["scores"], str(z["metric"])
    vectors = np.load(x).astype(np.float64)
    distances = np.linalg.norm(vectors[:, None, :] - vectors[None, :, :], axis=2)
    want = np.array([np.lexsort((np.arange(7), d))[:4] for d in distances])  # nearest first, ties by index
    assert metric == "euclidean" and ids.shape == scores.shape == (7, 4)
    np.testing.assert_array_equal(ids, want)
    np.testing.assert_allclose(scores, -np.take_along_axis(distances, want, axis=1), atol=1e-12)
    # texts as queries against the encoded corpus: the same as texts against texts
    assert cli.main(["neighbours", str(x), "--queries", str(files / "queries.txt"), *encoder_options(files)]) == 0
    by_vectors = capsys.readouterr().out
    assert cli.main(["neighbours", str(files / "texts.txt"), "--queries", str(files / "queries.txt"),
                     *encoder_options(files)]) == 0
    assert capsys.readouterr().out == by_vectors and len(tsv_rows(by_vectors)) == 2 * 7  # k = 10 cut to 7


def test_dedup_groups_duplicates_by_the_rule(files, capsys):
    capsys.readouterr()
    assert cli.main(["dedup", str(files / "texts.txt"), "--threshold", "0.9999", *encoder_options(files)]) == 0
    rows = tsv_rows(capsys.readouterr().out)
    assert rows[0] == ["0", "0", "2"] and rows[4] == ["4", "0", "2"]  # the two spellings of one text
    assert [int(r[1]) for r in rows] == [0, 1, 2, 3, 0, 4, 5]
    x, out = files / "X.npy", files / "groups.npz"
    assert cli.main(["encode", str(files / "texts.txt"), *encoder_options(files), "--out", str(x)]) == 0
    assert cli.main(["dedup", str(x), "--threshold", "0.3", "--metric", "cosine", "--out", str(out)]) == 0
    want_group, want_size = groups(np.load(x), 0.3, "cosine")
    with np.load(out) as z:
        np.testing.assert_array_equal(z["group"], want_group)
        np.testing.assert_array_equal(z["size"], want_size)
        assert float(z["threshold"]) == 0.3 and str(z["metric"]) == "cosine"
    many = want_size > 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"dedup: 7 items in {want_size.size} groups ({many.sum()} of 2 or more, holding {want_size[many].sum()} items), "
        f"cosine >= 0.3 (exact) -> {out}")


@pytest.mark.parametrize("args, line", [
    (["neighbours", "{d}/texts.txt", "a", "-k", "0"], "error: -k: must be at least 1, got 0"),
    (["neighbours", "{d}/missing.npy", "--queries", "{d}/ones.npy", "--metric", "cosine"],
     "error: {d}/missing.npy: no such file"),
    (["neighbours", "{d}/missing.txt", "a", "--metric", "cosine"], "error: {d}/missing.txt: no such file"),
    (["neighbours", "{d}/ones.npy", "--queries", "{d}/wide.npy", "--metric", "cosine"],
     "error: {d}/ones.npy: 5-d vectors, but those of {d}/wide.npy are 4-d"),
    (["neighbours", "{d}/ones.npy", "--queries", "{d}/wide.npy", "--vectors", "{d}/folder", "--df", "{d}/df.npz"],
     "error: {d}/wide.npy: 4-d vectors, but the encoder's are 5-d"),
    (["neighbours", "{d}/ones.npy", "--queries", "{d}/ones.npy"],
     "error: --metric: required when every input is a .npy of vectors and no encoder is named (--model or --vectors): "
     "cosine or euclidean"),
    (["neighbours", "{d}/ones.npy", "--metric", "cosine"],
     "error: neighbours: give query texts, or --queries FILE (one of the two)"),
    (["neighbours", "{d}/flat.npy", "--queries", "{d}/ones.npy", "--metric", "cosine"],
     "error: {d}/flat.npy: expected an (n, d) array of numbers, got shape (4,) of float32"),
    (["dedup", "{d}/texts.txt.npy", "--threshold", "0.5", "--metric", "cosine"],
     "error: {d}/texts.txt.npy: not a NumPy .npy file (np.save writes one; repro encode --out X.npy)"),
    (["dedup", "{d}/objects.npy", "--threshold", "0.5", "--metric", "cosine"],
     "error: {d}/objects.npy: holds Python objects, which are never unpickled (not an array of numbers)"),
    (["dedup", "{d}/ones.npy", "--threshold", "1.5", "--metric", "cosine"],
     "error: --threshold: the cosine lies in [-1, 1], got 1.5"),
    (["dedup", "{d}/ones.npy", "--threshold", "0.5", "--metric", "euclidean"],
     "error: --threshold: scores under euclidean are minus a distance, so at most 0 (0: identical vectors only), got 0.5"),
    (["dedup", "{d}/texts.txt", "--threshold", "2", "--vectors", "{d}/folder", "--df", "{d}/df.npz"],
     "error: --threshold: the cosine lies in [-1, 1], got 2.0"),
    (["dedup", "{d}/texts.txt", "--threshold", "0.5", "--metric", "cosine", "--out", "{d}/g.txt"],
     "error: {d}/g.txt: the output must be a .npz file"),
])
def test_bad_input_is_one_error_line(files, capsys, args, line):
    np.save(files / "ones.npy", np.ones((3, 5), np.float32))
    np.save(files / "wide.npy", np.ones((2, 4), np.float32))
    np.save(files / "flat.npy", np.ones(4, np.float32))
    (files / "texts.txt.npy").write_text("not an array\n")
    np.save(files / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    capsys.readouterr()
    assert cli.main([a.format(d=files) for a in args]) == 1
    out = capsys.readouterr()
    assert out.err == line.format(d=files) + "\n" and out.out == ""


def test_k_above_the_items_is_a_warning_line(files, capsys):
    np.save(files / "three.npy", np.eye(3, 5, dtype=np.float32))
    capsys.readouterr()
    assert cli.main(["neighbours", str(files / "three.npy"), "--queries", str(files / "three.npy"), "--metric",
                     "cosine", "-k", "9"]) == 0
    out = capsys.readouterr()
    assert out.err == "warning: k=9 is more than the 3 items of the corpus: each query gets all 3\n"
    assert len(tsv_rows(out.out)) == 9
