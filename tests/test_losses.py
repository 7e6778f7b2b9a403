import jax
import jax.numpy as jnp
import numpy as np
import pytest

from repro.core import losses as L


def softplus(x):
    return np.log1p(np.exp(x))


def test_contrastive_hand_computed():
    v = L.contrastive_loss(jnp.array([1.0, 2.0]), jnp.array([3.0, 6.0]))
    assert float(v) == pytest.approx((1 + 2 - 3 - 6) / 4)


def test_median_even_and_odd_batches():
    assert float(L.batch_median(jnp.array([5.0, 1.0, 3.0, 2.0]))) == pytest.approx(2.5)
    assert float(L.batch_median(jnp.array([5.0, 1.0, 3.0]))) == pytest.approx(3.0)


def test_median_loss_hand_computed():
    k = 2.0
    d_rel, d_unrel = np.array([1.0, 3.0]), np.array([2.0, 5.0])
    mu = 2.5  # sorted 1, 2, 3, 5
    expected = np.mean([softplus(k * (1 - mu)), softplus(k * (3 - mu)),
                        softplus(k * (mu - 2)), softplus(k * (mu - 5))])
    assert float(L.median_loss(jnp.array(d_rel), jnp.array(d_unrel), k)) == pytest.approx(expected, rel=1e-6)


def _fd(f, x, h=1e-6):
    x = np.asarray(x, np.float64)
    out = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        out.append((float(f(jnp.asarray(x + e))) - float(f(jnp.asarray(x - e)))) / (2 * h))
    return np.array(out).reshape(x.shape)


def test_median_loss_gradient_flows_through_mu():
    with jax.enable_x64(True):
        rng = np.random.default_rng(0)
        d = rng.uniform(0.5, 1.5, size=10)
        f = lambda d: L.median_loss(d[:5], d[5:], 3.0)
        g = np.asarray(jax.grad(f)(jnp.asarray(d)))
        np.testing.assert_allclose(g, _fd(f, d), rtol=1e-6, atol=1e-9)
        # the two middle couples receive the mu term: their gradient differs from the
        # gradient with mu held fixed
        mu = float(L.batch_median(jnp.asarray(d)))
        fixed = lambda d: jnp.mean(jnp.concatenate([jax.nn.softplus(3.0 * (d[:5] - mu)),
                                                    jax.nn.softplus(3.0 * (mu - d[5:]))]))
        g_fixed = np.asarray(jax.grad(fixed)(jnp.asarray(d)))
        middle = np.argsort(d)[4:6]
        assert np.all(np.abs(g[middle] - g_fixed[middle]) > 1e-3)
        np.testing.assert_allclose(np.delete(g, middle), np.delete(g_fixed, middle), rtol=1e-12)


def test_contrastive_gradient_fd():
    with jax.enable_x64(True):
        d = np.random.default_rng(1).uniform(size=6)
        f = lambda d: L.contrastive_loss(d[:3], d[3:])
        np.testing.assert_allclose(np.asarray(jax.grad(f)(jnp.asarray(d))), _fd(f, d), rtol=1e-6)


@pytest.mark.parametrize("kappa", [1e-2, 160.0, 1e4])
def test_median_loss_is_stable(kappa):
    d_rel = jnp.array([0.0, 1e3, 5.0, 1e-3], jnp.float32)
    d_unrel = jnp.array([1e3, 0.0, 2.0, 7.0], jnp.float32)
    v, g = jax.value_and_grad(lambda d: L.median_loss(d[:4], d[4:], kappa))(jnp.concatenate([d_rel, d_unrel]))
    assert np.isfinite(float(v)) and np.all(np.isfinite(np.asarray(g)))
    assert float(v) > 0


def test_distances():
    x = jnp.array([[0.0, 0.0], [1.0, 1.0]])
    y = jnp.array([[3.0, 4.0], [1.0, 1.0]])
    np.testing.assert_allclose(L.distance(x, y), [5.0, 0.0])
    np.testing.assert_allclose(L.distance(x, y, "sqeuclidean"), [25.0, 0.0])
    g = jax.grad(lambda x: jnp.sum(L.distance(x, y)))(x)
    assert np.all(np.isfinite(np.asarray(g))) and np.all(np.asarray(g)[1] == 0)
    with pytest.raises(ValueError, match="distance must be one of"):
        L.distance(x, y, "manhattan")
    x2 = jnp.array([[1.0, 0.0], [0.0, 0.0], [2.0, 2.0]])
    y2 = jnp.array([[1.0, 1.0], [3.0, 4.0], [-1.0, -1.0]])
    np.testing.assert_allclose(L.distance(x2, y2, "cosine"), [1 - 1 / np.sqrt(2), 1.0, 2.0], rtol=1e-6)
    g = jax.grad(lambda x: jnp.sum(L.distance(x, y2, "cosine")))(x2)
    assert np.all(np.isfinite(np.asarray(g))) and np.all(np.asarray(g)[1] == 0)  # a zero vector: no gradient
    with pytest.raises(ValueError, match="^distance: the cosine needs the products"):
        L.distance_from_squared(jnp.ones(2), "cosine")


def test_l2_penalty():
    assert float(L.l2_penalty(jnp.array([1.0, 2.0]), 0.1)) == pytest.approx(0.5)


@pytest.mark.parametrize("loss", [L.contrastive_loss, lambda r, u: L.median_loss(r, u, 1.0)])
def test_empty_or_malformed_batches_are_refused(loss):
    with pytest.raises(ValueError, match="d_related must be a non-empty"):
        loss(jnp.zeros(0), jnp.ones(3))
    with pytest.raises(ValueError, match="d_unrelated must be a non-empty"):
        jax.jit(loss)(jnp.ones(3), jnp.ones((3, 2)))
