"""Encoder files (repro/encode/encoderfile.py, issue 33 item 3): a file written by the code before the
word space and the files moved out of repro/encode/encoder.py loads, encodes and scores as it did, bit
for bit, and saving it again writes the same arrays and description."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from codeclass import same_class
from repro.encode import encoderfile
from repro.encode.encoder import Encoder
from repro.errors import InputError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = [f"w{i}" for i in range(40)]
#: An encoder file (.npz and .json) and its outputs (-out.npz) written by :func:`write_case` with the
#: repro of f4f52ed (before issue 33's word space) on PYTHONPATH: ``np.savez(OUT, **write_case(Encoder, CASE))``.
CASE = os.path.join(ROOT, "tests", "data", "encoder-f4f52ed.npz")
OUT = os.path.join(ROOT, "tests", "data", "encoder-f4f52ed-out.npz")
#: An encoder file of main at 2d3f1bc (after issue 33 item 2's ``word_components`` and the registry)
#: and its outputs, written by :func:`write_cc_case` the same way (its module's functions run on that repro).
CC_CASE = os.path.join(ROOT, "tests", "data", "encoder-2d3f1bc-cc.npz")
CC_OUT = os.path.join(ROOT, "tests", "data", "encoder-2d3f1bc-cc-out.npz")
pytestmark = pytest.mark.filterwarnings("ignore::repro.encode.encoder.SparseDfWarning")


def case_inputs():
    """Word vectors, a corpus (w30..w39 never in it: df 1, count 1), training couples and texts."""
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((len(WORDS), 6)).astype(np.float32)
    p = 1.0 / np.arange(1, 31)
    corpus = [list(rng.choice(WORDS[:30], rng.integers(2, 9), p=p / p.sum())) for _ in range(200)]
    couples, labels = [], []
    for i in range(120):
        a, b = list(rng.choice(WORDS, rng.integers(2, 9))), list(rng.choice(WORDS, rng.integers(2, 9)))
        if i % 2 == 0:
            b[0] = a[0]
        couples.append((a, b))
        labels.append(int(i % 2 == 0))
    texts = [list(rng.choice(WORDS + ["unknown"], rng.integers(1, 40))) for _ in range(40)]
    return matrix, corpus, couples, labels, texts


def outputs(enc, texts) -> dict:
    return {"vectors": enc.transform(texts), "cosine": enc.similarity(texts[:20], texts[20:]),
            "euclidean": enc.similarity(texts[:20], texts[20:], metric="euclidean")}


def write_case(Encoder, path: str) -> dict:
    """Fit an encoder with every option beyond the paper (uSIF's length from the couples, Zipfian
    whitening, two common components, learned under 1 - cos), save it to ``path``, and return what
    the file loaded back gives."""
    matrix, corpus, couples, labels, texts = case_inputs()
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_weights="usif", whiten="zipf", components=2)
    enc.fit(couples, labels, kappa=20.0, max_epochs=5, distance="cosine")
    enc.save(path)
    return outputs(Encoder.load(path, vectors=(WORDS, matrix)), texts)


def write_cc_case(Encoder, path: str) -> dict:
    """Fit an encoder whose word map removes the word vectors' common component after SIF weights
    (``word_components=1``: the learned family's ``cc``, refitted on the couples' distinct texts),
    learned under the Euclidean distance, save it to ``path``, and return what the file loaded back
    gives."""
    matrix, corpus, couples, labels, texts = case_inputs()
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=4, word_weights="sif", word_components=1)
    enc.fit(couples, labels, kappa=20.0, max_epochs=5)
    enc.save(path)
    return outputs(Encoder.load(path, vectors=(WORDS, matrix)), texts)


def test_a_file_of_the_code_before_loads_and_encodes_bit_for_bit():
    """Loading is NumPy only (the map comes from the file): bit for bit where the committed results'
    code class runs, else to float32 rounding."""
    matrix, _, _, _, texts = case_inputs()
    enc = Encoder.load(CASE, vectors=(WORDS, matrix))
    assert (enc.metric, enc.metric_from, enc.record_.distance) == ("cosine", "training", "cosine")
    assert enc.settings["usif_length_from"] == "fit" and enc.settings["components"] == 2
    now = outputs(enc, texts)
    with np.load(OUT) as z:
        before = {k: z[k] for k in z.files}
    assert sorted(now) == sorted(before)
    for key in before:
        assert now[key].dtype == before[key].dtype, key
        if same_class():
            assert now[key].tobytes() == before[key].tobytes(), key
        else:
            np.testing.assert_allclose(now[key], before[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert np.abs(before["vectors"]).max() > 0.1  # the texts encode to something: the check can fail


def test_a_file_with_word_components_of_main_loads_encodes_and_saves_again_the_same(tmp_path):
    """A file written by main's encoder (2d3f1bc) whose map removes the word vectors' common component
    (``word_components``, recorded in its .json; the map's matrix in its .npz) loads with it, encodes and
    scores as it did, and saving it again writes the same arrays and description."""
    matrix, _, _, _, texts = case_inputs()
    enc = Encoder.load(CC_CASE, vectors=(WORDS, matrix))
    assert enc.settings["word_components"] == 1 and enc.settings["word_weights"] == "sif"
    assert enc.word_space.base is not None  # a fit would refit the map on its couples' texts
    now = outputs(enc, texts)
    with np.load(CC_OUT) as z:
        before = {k: z[k] for k in z.files}
    assert sorted(now) == sorted(before)
    for key in before:
        if same_class():
            assert now[key].tobytes() == before[key].tobytes(), key
        else:
            np.testing.assert_allclose(now[key], before[key], rtol=1e-5, atol=1e-6, err_msg=key)
    path = str(tmp_path / "again.npz")
    enc.save(path)
    with np.load(CC_CASE) as old, np.load(path) as new:
        assert sorted(old.files) == sorted(new.files) and "map_matrix" in old.files
        for k in old.files:
            assert old[k].dtype == new[k].dtype and old[k].tobytes() == new[k].tobytes(), k
    with open(CC_CASE[:-4] + ".json") as f, open(path[:-4] + ".json") as g:
        assert json.load(f) == json.load(g)


def test_saving_again_writes_the_same_file(tmp_path):
    matrix = case_inputs()[0]
    path = str(tmp_path / "again.npz")
    Encoder.load(CASE, vectors=(WORDS, matrix)).save(path)
    with np.load(CASE) as old, np.load(path) as new:
        assert sorted(old.files) == sorted(new.files)
        assert {k for k in old.files if k.startswith(encoderfile.MAP_PREFIX)} == {"map_shift", "map_matrix", "map_scale"}
        assert any(k.startswith(encoderfile.RECORD_PREFIX) for k in old.files) and "word_counts" in old.files
        for k in old.files:
            assert old[k].dtype == new[k].dtype and old[k].tobytes() == new[k].tobytes(), k
    with open(CASE[:-4] + ".json") as f, open(path[:-4] + ".json") as g:
        old, new = json.load(f), json.load(g)
    # the file records no word_components (it came before them, issue 33 item 2): it loads with 0,
    # which the encoder now records; nothing else changes
    assert "word_components" not in old and new == {**old, "word_components": 0}


def test_a_damaged_part_is_one_line_naming_the_file(tmp_path):
    matrix = case_inputs()[0]
    path = str(tmp_path / "enc.npz")
    shutil.copy(CASE[:-4] + ".json", tmp_path / "enc.json")
    with np.load(CASE) as z:
        arrays = {k: z[k] for k in z.files}
    for change, message in ((dict(word_counts=arrays["word_counts"][:-1]), "word_counts of shape"),
                            (dict(map_matrix=arrays["map_matrix"][:-1]), "word map: matrix"),
                            (dict(components=arrays["components"][:, :-1]), "components of shape"),
                            (dict(df_unlisted=arrays["df_unlisted"][:-1]), "df_unlisted of shape")):
        np.savez(path, **{**arrays, **change})
        with pytest.raises(InputError, match=rf"enc.npz: {message}"):
            Encoder.load(path, vectors=(WORDS, matrix))
