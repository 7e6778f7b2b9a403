"""repro.core.forms: every data form gives the gather form's distances, losses and gradients; repro.core.forms.build chooses."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from repro.core import forms
from repro.core.prepared import prepare
from repro.core.train import TrainConfig, batch_loss, train

from synthetic import random_pairs, signal_pairs


@pytest.mark.parametrize("fixed", [True, False])
def test_gram_form_gives_the_gather_distances(fixed):
    rng = np.random.default_rng(0)
    table = rng.normal(size=(50, 7)).astype(np.float32)
    pairs = random_pairs(rng, 30, 6, fixed)
    g = forms.gram(table, pairs, block=8)  # several blocks, a padded tail
    assert isinstance(g, forms.DiffGram if fixed else forms.PairGram)
    assert g.gram.shape == ((30, 6, 6) if fixed else (30, 12, 12))
    dense = forms.gathered(jnp.asarray(table), pairs)
    w = jnp.asarray(rng.uniform(size=5), jnp.float32)  # n_max = 5 != width: interpolation
    idx = jnp.arange(30)
    np.testing.assert_allclose(g.sq_distances(w, idx), dense.sq_distances(w, idx), rtol=2e-4, atol=1e-6)


@pytest.mark.parametrize("form", ["gram", "quadratic"])
@pytest.mark.parametrize("variable", [False, True])
def test_training_is_the_same_in_every_form(variable, form):
    table, pairs = signal_pairs(n_pairs=600, width=10, seed=2, variable=variable)
    cfg = TrainConfig(max_epochs=8)
    a = train(prepare(table, pairs, form="gather"), cfg, 40.0, seed=3)
    b = train(prepare(table, pairs, form=form), cfg, 40.0, seed=3)
    assert a.epochs == b.epochs
    np.testing.assert_allclose(a.weights, b.weights, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(a.history, b.history, rtol=1e-4)


def test_auto_form_respects_the_budget():
    table, pairs = signal_pairs(n_pairs=100, width=10, seed=0)
    q = prepare(table, pairs).form
    assert isinstance(q, forms.QuadForm) and q.r.shape == (100, 55)  # 10 x 11 / 2 packed
    assert prepare(table, pairs, n_max=4).form.r.shape == (100, 10)
    assert forms.quad_bytes(pairs, 10) == 100 * 55 * 4 and forms.quad_bytes(pairs, 10, "cosine") == 3 * 100 * 55 * 4
    assert forms.choose(pairs, 10, budget=100 * 55 * 4) == "quadratic"
    assert forms.choose(pairs, 10, budget=100 * 55 * 4 - 1) == "gather"
    assert isinstance(prepare(table, pairs, budget=100 * 55 * 4 - 1).form, forms.Gathered)
    assert isinstance(prepare(table, pairs, form="gram").form, forms.DiffGram)
    with pytest.raises(ValueError, match="data form"):
        prepare(table, pairs, form="sparse")


def _reference_v(table, pairs, n_max):
    """V (P, d, n_max) by brute force: column k is t_a - t_b under the weights e_k, with the
    interpolation written out as in test_model (NumPy, float64, no matrices)."""
    def text(tokens, n, w):
        pos = np.arange(n) * (n_max - 1) / max(n - 1, 1)
        lo, hi = np.floor(pos).astype(int), np.ceil(pos).astype(int)
        z = (w[hi] - w[lo]) * (pos - lo) / (hi - lo + 1e-5) + w[lo]
        return z @ table[tokens[:n]] / n

    out = np.zeros((pairs.size, table.shape[1], n_max))
    for p in range(pairs.size):
        for k, e in enumerate(np.eye(n_max)):
            out[p, :, k] = text(pairs.a[p], pairs.len_a[p], e) - text(pairs.b[p], pairs.len_b[p], e)
    return out


@pytest.mark.parametrize("fixed, n_max", [(True, 6), (True, 4), (False, 5), (False, 9)])
def test_quadratic_form_is_v_transpose_v(fixed, n_max):
    rng = np.random.default_rng(4)
    table = rng.normal(size=(50, 7))
    pairs = random_pairs(rng, 20, 6, fixed)
    q = forms.quadratic(jnp.asarray(table, jnp.float32), pairs, n_max, block=8)
    v = _reference_v(table, pairs, n_max)
    r = _unpacked(np.asarray(q.r), n_max)
    np.testing.assert_allclose(r, np.einsum("pdk,pdl->pkl", v, v), rtol=1e-5, atol=1e-6)
    if fixed and n_max == 6:  # R = G / n^2 with the difference Gram matrix
        g = np.asarray(forms.gram(table, pairs).gram)
        np.testing.assert_allclose(r, g / 36.0, rtol=1e-5, atol=1e-7)


def _unpacked(packed, n):
    """(P, T) packed forms -> (P, n, n) symmetric matrices, written out by loops: the diagonal
    as stored, each off-diagonal entry half of its stored sum r_ij + r_ji."""
    out = np.zeros(packed.shape[:-1] + (n, n))
    t = 0
    for i in range(n):
        for j in range(i, n):
            out[..., i, j] = out[..., j, i] = packed[..., t] if i == j else packed[..., t] / 2
            t += 1
    assert t == packed.shape[-1]
    return out


def test_pack_and_pair_products_give_w_r_w_for_any_square_matrix():
    rng = np.random.default_rng(8)
    r = rng.normal(size=(3, 6, 6))  # not symmetric
    w = rng.normal(size=6)
    with jax.enable_x64(True):
        got = np.asarray(forms.packed_values(jnp.asarray(w), forms.pack(jnp.asarray(r))))
        pp = np.asarray(forms.pair_products(jnp.asarray(w)))
        full = _unpacked(np.asarray(forms.pack(jnp.asarray(r))), 6)
    np.testing.assert_allclose(got, np.einsum("i,pij,j->p", w, r, w), rtol=1e-12)
    assert pp.shape == (21,) and np.array_equal(pp, np.array([w[i] * w[j] for i in range(6) for j in range(i, 6)]))
    np.testing.assert_allclose(full, (r + np.swapaxes(r, 1, 2)) / 2, rtol=1e-15)


@pytest.mark.parametrize("loss", ["median", "contrastive"])
@pytest.mark.parametrize("fixed, n_max", [(True, 6), (False, 5), (False, 8)])
def test_quadratic_loss_and_gradient_equal_the_gather_form(fixed, n_max, loss):
    rng = np.random.default_rng(5)
    table = rng.normal(size=(50, 7)).astype(np.float32) / 3
    pairs = random_pairs(rng, 40, 6, fixed)
    cfg = TrainConfig(loss=loss)
    q = prepare(table, pairs, n_max, form="quadratic").form
    dense = prepare(table, pairs, n_max, form="gather").form
    w = jnp.asarray(rng.uniform(0.2, 1.0, size=n_max), jnp.float32)
    idx = jnp.asarray(rng.permutation(40)[:30])
    f = jax.jit(jax.value_and_grad(lambda w, data: batch_loss(w, data, idx, 15, cfg, 7.0)))  # one program per form
    lq, gq = f(w, q)
    ld, gd = f(w, dense)
    np.testing.assert_allclose(float(lq), float(ld), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(gq), np.asarray(gd), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(q.sq_distances(w, idx), dense.sq_distances(w, idx), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("form", ["gather", "gram", "quadratic"])
@pytest.mark.parametrize("loss", ["median", "contrastive"])
@pytest.mark.parametrize("distance", ["euclidean", "sqeuclidean"])
def test_batch_loss_gradient_matches_finite_differences(loss, form, distance):
    with jax.enable_x64(True):
        rng = np.random.default_rng(6)
        table = jnp.asarray(rng.normal(size=(50, 7)))
        pairs = random_pairs(rng, 12, 6, fixed=False)
        data = {"gather": forms.gathered, "gram": forms.gram,
                "quadratic": lambda t, p: forms.quadratic(t, p, 5)}[form](table, pairs)
        assert jax.tree_util.tree_leaves(data)[0].dtype == jnp.float64
        cfg = TrainConfig(loss=loss, distance=distance, lam=1e-2)
        f = jax.jit(lambda w: batch_loss(w, data, jnp.arange(12), 6, cfg, 5.0))  # one program, not one per operation
        w0 = rng.uniform(0.2, 1.0, size=5)
        grad = np.asarray(jax.grad(f)(jnp.asarray(w0)))
        h = 1e-6
        fd = [(f(jnp.asarray(w0 + h * e)) - f(jnp.asarray(w0 - h * e))) / (2 * h) for e in np.eye(5)]
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)


def test_quadratic_form_refuses_other_weight_counts():
    rng = np.random.default_rng(7)
    q = forms.quadratic(jnp.asarray(rng.normal(size=(50, 7)), jnp.float32), random_pairs(rng, 4, 6, False), 5)
    with pytest.raises(ValueError, match="quadratic form was built for n_max = 5"):
        q.sq_distances(jnp.ones(6), jnp.arange(4))
