"""The learned family (repro/evaluate/family.py): each member's word map against its definition, the
validation choice, and the training stage reading the training couples only."""

from __future__ import annotations

import numpy as np
import pytest

from repro.core import pairset
from repro.evaluate import family, scoring
from repro.spaces import transforms, wordmap
from tests.synthetic import signal_pairs


@pytest.fixture(scope="module")
def setup():
    table, pairs = signal_pairs(n_pairs=300, width=10, vocab=120, dim=8, seed=3, variable=True)
    counts = np.random.default_rng(5).zipf(1.5, 120).astype(np.int64)
    return table, counts, pairs


def test_every_member_once_per_distance_and_keys_round_trip():
    keys = [m.key for m in family.members()]
    assert len(keys) == len(set(keys)) == len(family.maps()) * len(family.DISTANCES)
    assert all(family.parse(k).key == k for k in keys)
    with pytest.raises(ValueError, match="family member"):
        family.parse("zipf-manhattan")
    with pytest.raises(ValueError, match="unknown map"):
        family.member_map("nope", np.zeros((3, 2), np.float32), np.ones(3), None)


def test_maps_are_the_encoders_word_maps(setup):
    """Every member but cc is its parts of :mod:`repro.spaces.transforms` (the word weights and the
    whitening), uSIF's length the mean length of the distinct training texts."""
    table, counts, pairs = setup
    length = float(np.mean(pairset.training_texts(pairs)[1]))
    p = transforms.probabilities(counts)
    scales = {None: None, "sif": transforms.sif_weights(counts, 1e-3), "usif": transforms.usif_weights(counts, length)}
    whitened = {None: transforms.IDENTITY, "centre": transforms.zipf_whitening(table, p, "centre"),
                "zipf": transforms.zipf_whitening(table, p, "whiten")}
    for name in family.maps():
        m = wordmap.named(name)
        if m.word_components:
            continue
        got = family.member_map(name, table, counts, pairs)
        want = whitened[m.whiten]._replace(scale=scales[m.word_weights])
        for a, b in zip(got, want):
            assert (a is None and b is None) or np.array_equal(a, b), name
    assert family.member_map("plain", table, counts, pairs).identity


def test_common_component_map_equals_removing_it_from_every_text_vector(setup):
    """cc: the words mapped by I - c c^T give, for any weights, the text vectors with their
    projection on c removed; c the first singular vector of the training texts' plain means."""
    table, counts, pairs = setup
    t = family.member_map("cc", table, counts, pairs)
    tokens, lengths = pairset.training_texts(pairs)
    means = np.array([np.asarray(table[tokens[i, :n]], np.float64).mean(axis=0) for i, n in enumerate(lengths)])
    c = np.linalg.svd(means, full_matrices=False)[2][0]
    w = np.random.default_rng(6).uniform(0.2, 2.0, 10)
    plain = scoring.text_vectors(scoring.Encoding("rank", w), table, pairs.a, pairs.len_a)
    mapped = scoring.text_vectors(scoring.Encoding("rank", w, transform=t), table, pairs.a, pairs.len_a)
    np.testing.assert_allclose(mapped, plain - np.outer(plain @ c, c), atol=2e-5)
    assert abs(float(np.linalg.norm(c)) - 1.0) < 1e-9


def test_maps_read_no_couple_beyond_the_training_ones(setup):
    """Changing the training couples changes a text-fitted map; the map has no other couples to read."""
    table, counts, pairs = setup
    _, other = signal_pairs(n_pairs=300, width=10, vocab=120, dim=8, seed=9, variable=True)
    assert not np.array_equal(family.member_map("cc", table, counts, pairs).matrix,
                              family.member_map("cc", table, counts, other).matrix)
    np.testing.assert_array_equal(transforms.apply(family.member_map("zipf", table, counts, pairs), table),
                                  transforms.apply(family.member_map("zipf", table, counts, other), table))


def test_choice_is_the_lowest_validation_error_ties_to_the_earlier_member():
    errors = {"zipf-cosine": 0.1, "centre-euclidean": 0.1, "sif-cosine": 0.2}
    assert family.choose(errors) == ("centre-euclidean", 0.1)
    assert family.choose({"usif-cosine": 0.3, "plain-cosine": 0.4}) == ("usif-cosine", 0.3)


def test_a_family_run_checks_the_full_table_once_and_maps_it_once_per_map(setup, monkeypatch):
    """Issue 33 item 6: the table is checked once (where it enters :func:`repro.evaluate.family.fits`) and
    passed down as checked; each map makes one mapped table (none for the identity) and each
    member one device copy (:func:`repro.core.prepared.prepare`), for every member of the family."""
    import jax.numpy as jnp

    from repro import checks
    from repro.core import prepared

    table, counts, pairs = setup
    checked, applied, copied = [], [], []
    real_check, real_apply, real_asarray = checks.check_table, transforms.apply, jnp.asarray

    def check(x, *args, **kwargs):
        checked.append(np.shape(x))
        return real_check(x, *args, **kwargs)

    def apply(t, x, *args, **kwargs):
        applied.append(t)
        return real_apply(t, x, *args, **kwargs)

    def asarray(x, *args, **kwargs):
        if isinstance(x, np.ndarray) and x.shape == table.shape:  # a host table to the device
            copied.append(x)
        return real_asarray(x, *args, **kwargs)

    for module in (checks, prepared, scoring):
        monkeypatch.setattr(module, "check_table", check)
    monkeypatch.setattr(transforms, "apply", apply)
    monkeypatch.setattr(prepared.jnp, "asarray", asarray)
    runs = list(family.fits(table, counts, pairs, pairs, 10, lambda _: (20.0, "given"), max_epochs=1))
    assert [m.key for m, *_ in runs] == [m.key for m in family.members()]
    assert checked == [table.shape]  # once per column, whatever the members
    assert len(applied) == sum(not t.identity for t in {m.name: t for m, t, *_ in runs}.values()) == \
        len(family.maps()) - 1  # every map but plain maps the table once, for both distances
    assert len(copied) == len(family.members())  # one device copy per member
    # the plain member's table is the checked table itself, not a copy
    assert runs[0][1].identity
