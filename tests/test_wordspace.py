"""The encoder's word space, one immutable value (repro/encode/wordspace.py, issue 33 item 1): built by
hand on tiny tables, mapped into new values, and swapped whole by the Encoder, which assigns it
nowhere but in its constructor and in the one swap of fit (checked over the AST of the class)."""

from __future__ import annotations

import ast
import dataclasses
import os
import textwrap

import numpy as np
import pytest

from repro.spaces import wordmap
from repro.encode.encoder import Encoder
from repro.spaces.transforms import IDENTITY, Transform
from repro.encode.wordspace import WordSpace, refits

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = [f"w{i}" for i in range(30)]
pytestmark = pytest.mark.filterwarnings("ignore::repro.encode.encoder.SparseDfWarning")
#: What an Encoder held of its word space before it had one (issue 33): none may be assigned now.
LEGACY = {"vocabulary", "settings", "word_map_", "_table", "_base", "_counts", "_unlisted", "_unlisted_rank", "_maps",
          "_space", "_tokenise"}
#: The Encoder's word-space fields: the space itself, its fields, and what it held before.
FIELDS = {"word_space"} | {f.name for f in dataclasses.fields(WordSpace)} | LEGACY


def assignments(source: str, cls: str = "Encoder") -> list[tuple[str, str]]:
    """(method, field) for every assignment in class ``cls`` of ``source`` to an attribute named in
    :data:`FIELDS` (of any object: ``self.x``, ``enc.x``, ``self.word_space.x``), to an item of one
    (``self.settings[k] = ...``), or by ``setattr``."""
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    found = []

    def targets(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                yield from targets(e)
        elif isinstance(t, ast.Starred):
            yield from targets(t.value)
        else:
            yield t

    for method in (n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for sub in ast.walk(method):
            written = []
            if isinstance(sub, ast.Assign):
                written = [t for target in sub.targets for t in targets(target)]
            elif isinstance(sub, (ast.AugAssign, ast.AnnAssign)):
                written = list(targets(sub.target))
            elif isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Name, ast.Attribute)) and \
                    getattr(sub.func, "id", getattr(sub.func, "attr", None)) in ("setattr", "__setattr__"):
                name = sub.args[1] if len(sub.args) > 1 else None
                if isinstance(name, ast.Constant) and name.value in FIELDS:
                    found.append((method.name, name.value))
            for t in written:
                while isinstance(t, ast.Subscript):  # an item of a field is the field
                    t = t.value
                if isinstance(t, ast.Attribute) and t.attr in FIELDS:
                    found.append((method.name, t.attr))
                elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Attribute) and \
                        t.value.attr in FIELDS:  # self.word_space.table = ...
                    found.append((method.name, t.value.attr))
    return found


def test_the_encoder_assigns_its_word_space_in_its_constructor_and_one_swap_only():
    with open(os.path.join(ROOT, "repro", "encode", "encoder.py"), encoding="utf-8") as f:
        source = f.read()
    assert sorted(assignments(source)) == [("_setup", "word_space"), ("fit", "word_space")]
    # __init__ and load both construct through _setup; no other method assigns the space
    tree = ast.parse(source)
    enc = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Encoder")
    calls = {m.name for m in enc.body if isinstance(m, ast.FunctionDef)
             for c in ast.walk(m) if isinstance(c, ast.Call) and getattr(c.func, "attr", None) == "_setup"}
    assert calls == {"__init__", "load"}


def test_the_check_finds_every_kind_of_assignment():
    """The AST check can fail: each way of writing a word-space field is found."""
    bad = textwrap.dedent("""
        class Encoder:
            def a(self):
                self._table, self.weights_ = t, w
            def b(self, enc):
                enc.word_space = s
            def c(self):
                self.settings["usif_length"] = 3.0
            def d(self):
                self.word_space.table = t
            def e(self):
                setattr(self, "word_map_", m)
            def f(self):
                self.weights_ = w  # not a word-space field
            def g(self):
                self.word_space.anything = x
    """)
    assert sorted(assignments(bad)) == [("a", "_table"), ("b", "word_space"), ("c", "settings"), ("d", "table"),
                                        ("e", "word_map_"), ("g", "word_space")]


def unit(m):
    m = np.asarray(m, np.float64)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_build_by_hand():
    words = ["a", "b", "c"]
    matrix = np.array([[3.0, 4.0], [0.0, 2.0], [1.0, 0.0]], np.float32)
    # idf = log(N / (1 + df)): c (df 0) first, then a (df 1), then b (df 5)
    ws = WordSpace.build(words, matrix, [1, 5, 0], 10, unlisted=[False, False, True])
    assert ws.vocabulary.rank.tolist() == [1, 2, 0] and ws.table.shape == (4, 2) and ws.dim == 2
    np.testing.assert_array_equal(ws.table, np.array([[1, 0], [0.6, 0.8], [0, 1], [0, 0]], np.float32))
    assert ws.unlisted_rank.tolist() == [True, False, False, False]  # c, by its rank 0; the sentinel never
    raw = WordSpace.build(words, matrix, [1, 5, 0], 10, normalize=False)
    np.testing.assert_array_equal(raw.table[:3], matrix[[2, 0, 1]])
    assert ws.word_map is IDENTITY and ws.counts is None and ws.base is None and ws.space is None
    assert ws.tokens(["A b, c!", ["b"]]) == [["a", "b", "c"], ["b"]]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ws.table = raw.table


def test_map_returns_a_new_space_and_leaves_the_old_one():
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((len(WORDS), 4)).astype(np.float32)
    ws = WordSpace.build(WORDS, matrix, rng.integers(0, 9, len(WORDS)), 20, counts=np.arange(1, 31))
    before = ws.table.copy()
    scale = np.linspace(0.5, 2.0, len(WORDS))  # word order
    t = Transform(shift=np.full(4, 0.1), scale=scale)
    kept = ws.map(t, final=False, usif_length=4.0, usif_length_from="fit")
    assert kept is not ws and ws.table.tobytes() == before.tobytes() and ws.word_map is IDENTITY
    assert ws.usif_length is None and (kept.usif_length, kept.usif_length_from) == (4.0, "fit")
    want = (unit(matrix) - 0.1) * scale[:, None]  # word order, then into rank order
    np.testing.assert_allclose(kept.table[ws.vocabulary.rank], want, rtol=1e-6, atol=1e-7)
    assert not kept.table[-1].any()  # the zero row stays zero
    assert kept.base is ws.table and kept.unmapped is ws.table  # kept while fit may map again
    again = kept.map(Transform(scale=np.ones(len(WORDS))))  # maps the unmapped table, not the mapped one
    np.testing.assert_allclose(again.table, ws.table, rtol=1e-6)
    assert again.base is None and again.counts is ws.counts
    with pytest.raises(ValueError, match="keeps no unmapped table"):
        again.map(t)


def test_mapped_by_the_options_is_sif_by_hand():
    words, matrix = ["x", "y", "z"], np.array([[1, 0], [0, 1], [1, 1]], np.float32)
    ws = WordSpace.build(words, matrix, [1, 1, 1], 3, counts=[6, 3, 1])
    sif = ws.mapped_by(wordmap.of("sif"))
    p = np.array([0.6, 0.3, 0.1])
    np.testing.assert_allclose(sif.word_map.scale, 1e-3 / (1e-3 + p), rtol=1e-12)
    np.testing.assert_allclose(sif.table[ws.vocabulary.rank], unit(matrix) * (1e-3 / (1e-3 + p))[:, None], rtol=1e-6)
    assert sif.base is None  # final: SIF never changes again
    usif, sif_ = wordmap.of("usif"), wordmap.of("sif")
    assert refits(usif, "corpus") and refits(usif, "fit") and not refits(usif, "given") and not refits(sif_, None)
    # the word vectors' common components are always the training texts' (the family's cc)
    assert refits(wordmap.of(word_components=1), None) and refits(wordmap.of("usif", None, 1), "given")
    assert ws.mapped_by(usif, 2.0, "corpus").base is ws.table


def test_a_failed_fit_keeps_the_word_space_whole():
    rng = np.random.default_rng(4)
    matrix = rng.standard_normal((len(WORDS), 5)).astype(np.float32)
    corpus = [list(rng.choice(WORDS, rng.integers(2, 7))) for _ in range(80)]
    couples = [(list(rng.choice(WORDS, 4)), list(rng.choice(WORDS, 3))) for _ in range(40)]
    labels = np.arange(40) % 2
    enc = Encoder((WORDS, matrix), corpus=corpus, n_max=3, word_weights="usif", whiten="centre")
    space, settings = enc.word_space, enc.settings
    assert settings["usif_length_from"] == "corpus"
    with pytest.raises(ValueError, match="^distance: expected one of"):
        enc.fit(couples, labels, kappa=20.0, distance="manhattan")  # fails after uSIF's length is taken from the couples
    assert enc.word_space is space and enc.settings == settings and enc.weights_ is None
    enc.fit(couples, labels, kappa=20.0, max_epochs=2)
    assert enc.word_space is not space and enc.settings["usif_length_from"] == "fit"
    distinct = {tuple(sorted(t)) for c in couples for t in c}  # the couples' distinct texts, of 4 and 3 words
    assert enc.settings["usif_length"] == pytest.approx(np.mean([len(t) for t in distinct])) != settings["usif_length"]
