"""Learning the weights under the cosine distance 1 - cos (not in the paper): every data form
against a brute-force float64 reference, finite-difference gradients, training and the kappa
search in every form."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from repro.core import forms
from repro.core import losses as L
from repro.core.crossval import select_kappa
from repro.core.fit import fit
from repro.core.prepared import prepare
from repro.core.train import TrainConfig, batch_loss, train

from synthetic import random_pairs, signal_pairs


def _reference_cosine_distances(table, pairs, w):
    """1 - cos(t_a, t_b) in float64 with the paper's interpolation written out (eq. 3)."""
    n_max = len(w)

    def text(tokens, n):
        pos = np.arange(n) * (n_max - 1) / max(n - 1, 1)
        lo, hi = np.floor(pos).astype(int), np.ceil(pos).astype(int)
        z = (w[hi] - w[lo]) * (pos - lo) / (hi - lo + 1e-5) + w[lo]
        return z @ table[tokens[:n]] / n

    out = []
    for p in range(pairs.size):
        ta, tb = text(pairs.a[p], pairs.len_a[p]), text(pairs.b[p], pairs.len_b[p])
        out.append(1.0 - ta @ tb / np.linalg.norm(ta) / np.linalg.norm(tb))
    return np.array(out)


def _form(name, table, pairs, n_max):
    return {"gather": lambda: forms.gathered(table, pairs),
            "gram": lambda: forms.gram(table, pairs, block=8, distance="cosine"),
            "quadratic": lambda: forms.quadratic(table, pairs, n_max, block=8, distance="cosine")}[name]()


@pytest.mark.parametrize("form", ["gather", "gram", "quadratic"])
@pytest.mark.parametrize("fixed, n_max", [(True, 6), (False, 5), (False, 9)])
def test_every_form_gives_the_reference_cosine_distances(form, fixed, n_max):
    with jax.enable_x64(True):
        rng = np.random.default_rng(1)
        table = rng.normal(size=(50, 7))
        pairs = random_pairs(rng, 20, 6, fixed)
        data = _form(form, jnp.asarray(table), pairs, n_max)
        w = rng.uniform(0.2, 1.0, size=n_max)
        d = L.cosine_from_products(*data.products(jnp.asarray(w), jnp.arange(20)))
        np.testing.assert_allclose(np.asarray(d), _reference_cosine_distances(table, pairs, w), rtol=1e-9, atol=1e-12)
        if form != "gather":  # the cosine forms also give the Euclidean distances
            ref = forms.gathered(jnp.asarray(table), pairs).sq_distances(jnp.asarray(w), jnp.arange(20))
            np.testing.assert_allclose(data.sq_distances(jnp.asarray(w), jnp.arange(20)), ref, rtol=1e-8, atol=1e-12)
    assert isinstance(forms.gram(table, pairs, distance="cosine"), forms.PairGram)  # never the difference form


@pytest.mark.parametrize("form", ["gather", "gram", "quadratic"])
@pytest.mark.parametrize("loss", ["median", "contrastive"])
def test_cosine_batch_loss_gradient_matches_finite_differences(loss, form):
    with jax.enable_x64(True):
        rng = np.random.default_rng(6)
        table = jnp.asarray(rng.normal(size=(50, 7)))
        pairs = random_pairs(rng, 12, 6, fixed=False)
        data = _form(form, table, pairs, 5)
        cfg = TrainConfig(loss=loss, distance="cosine", lam=1e-2)
        f = jax.jit(lambda w: batch_loss(w, data, jnp.arange(12), 6, cfg, 5.0))  # one program, not one per operation
        w0 = rng.uniform(0.2, 1.0, size=5)
        grad = np.asarray(jax.grad(f)(jnp.asarray(w0)))
        h = 1e-6
        fd = [(f(jnp.asarray(w0 + h * e)) - f(jnp.asarray(w0 - h * e))) / (2 * h) for e in np.eye(5)]
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("form", ["gram", "quadratic"])
def test_training_under_the_cosine_is_the_same_in_every_form(form):
    table, pairs = signal_pairs(n_pairs=600, width=10, seed=2, variable=True)
    cfg = TrainConfig(max_epochs=8, distance="cosine")
    a = train(prepare(table, pairs, form="gather", distance="cosine"), cfg, 40.0, seed=3)
    b = train(prepare(table, pairs, form=form, distance="cosine"), cfg, 40.0, seed=3)
    assert isinstance(prepare(table, pairs, form="quadratic", distance="cosine").form, forms.CosQuadForm)
    assert a.epochs == b.epochs
    np.testing.assert_allclose(a.weights, b.weights, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(a.history, b.history, rtol=1e-4)


def test_the_kappa_search_and_fit_run_under_the_cosine_and_refuse_unprepared_couples():
    table, pairs = signal_pairs(n_pairs=400, width=10, seed=4, variable=True)
    prepared = prepare(table, pairs, distance="cosine")
    cv = select_kappa(prepared, (10.0, 40.0), folds=2, config=TrainConfig(max_epochs=3, distance="cosine"), extend=0)
    assert cv.kappa in (10.0, 40.0) and cv.errors.shape == (2, 2) and np.all(cv.errors < 0.5)
    wide = select_kappa(prepared, (10.0, 40.0), folds=2, config=TrainConfig(max_epochs=3, distance="cosine"))
    assert wide.grid.size == 2 + len(wide.extended) and np.all(wide.errors < 0.5)  # beyond the edge too
    result = fit(prepared, "median", 40.0, max_epochs=3, distance="cosine")
    assert result.distance == "cosine" and np.isfinite(result.weights).all()
    with pytest.raises(ValueError, match="^distance: training under the cosine"):
        fit(prepare(table, pairs), "median", 40.0, max_epochs=3, distance="cosine")
    with pytest.raises(ValueError, match="^distance: expected one of"):
        prepare(table, pairs, distance="manhattan")
    with pytest.raises(ValueError, match="^distance: this quadratic form"):
        prepare(table, pairs, form="quadratic").form.products(jnp.ones(10), jnp.arange(3))
    with pytest.raises(ValueError, match="^distance: the fixed-length Gram form"):
        forms.gram(table, signal_pairs(n_pairs=20, width=10, seed=4)[1]).products(jnp.ones(10), jnp.arange(3))
