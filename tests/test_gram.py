import jax
import jax.numpy as jnp
import numpy as np
import pytest

from repro import gram
from repro.pairset import PairSet
from repro.train import Data, TrainConfig, batch_loss, prepare, sq_distances, train

from synthetic import signal_pairs


def _pairs(rng, p, width, fixed):
    lo = width if fixed else 1
    return PairSet(rng.integers(0, 50, (p, width)).astype(np.int32), rng.integers(0, 50, (p, width)).astype(np.int32),
                   rng.integers(lo, width + 1, p).astype(np.int32), rng.integers(lo, width + 1, p).astype(np.int32),
                   (np.arange(p) % 2).astype(np.int8))


@pytest.mark.parametrize("fixed", [True, False])
def test_gram_form_gives_the_gather_distances(fixed):
    rng = np.random.default_rng(0)
    table = rng.normal(size=(50, 7)).astype(np.float32)
    pairs = _pairs(rng, 30, 6, fixed)
    g = gram.build(table, pairs, block=8)  # several blocks, a padded tail
    assert isinstance(g, gram.DiffGram if fixed else gram.PairGram)
    assert g.gram.shape == ((30, 6, 6) if fixed else (30, 12, 12))
    dense = Data(jnp.asarray(table), jnp.asarray(pairs.a), jnp.asarray(pairs.b),
                 jnp.asarray(pairs.len_a), jnp.asarray(pairs.len_b))
    w = jnp.asarray(rng.uniform(size=5), jnp.float32)  # n_max = 5 != width: interpolation
    idx = jnp.arange(30)
    np.testing.assert_allclose(sq_distances(w, g, idx), sq_distances(w, dense, idx), rtol=2e-4, atol=1e-6)


def test_gram_loss_gradient_matches_finite_differences():
    with jax.enable_x64(True):
        rng = np.random.default_rng(1)
        table = rng.normal(size=(50, 7))
        pairs = _pairs(rng, 12, 6, fixed=False)
        g = gram.build(jnp.asarray(table), pairs)
        cfg = TrainConfig(lam=1e-2)
        f = lambda w: batch_loss(w, g, jnp.arange(12), 6, cfg, 5.0)
        w0 = rng.uniform(0.2, 1.0, size=5)
        grad = np.asarray(jax.grad(f)(jnp.asarray(w0)))
        h = 1e-6
        fd = [(f(jnp.asarray(w0 + h * e)) - f(jnp.asarray(w0 - h * e))) / (2 * h) for e in np.eye(5)]
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("variable", [False, True])
def test_training_is_the_same_in_both_forms(variable):
    table, pairs = signal_pairs(n_pairs=600, width=10, seed=2, variable=variable)
    cfg = TrainConfig(kappa=40.0, max_epochs=8)
    a = train(table, pairs, cfg._replace(data_form="gather"), seed=3)
    b = train(table, pairs, cfg._replace(data_form="gram"), seed=3)
    assert a.epochs == b.epochs
    np.testing.assert_allclose(a.weights, b.weights, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(a.history, b.history, rtol=1e-4)


def test_auto_form_respects_the_budget():
    table, pairs = signal_pairs(n_pairs=100, width=10, seed=0)
    assert isinstance(prepare(table, pairs), gram.DiffGram)
    assert isinstance(prepare(table, pairs, config=TrainConfig(gram_budget=10)), Data)
    with pytest.raises(ValueError, match="data_form"):
        prepare(table, pairs, config=TrainConfig(data_form="sparse"))
