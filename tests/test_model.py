import jax
import jax.numpy as jnp
import numpy as np
import pytest

from repro.core import model


def test_init_weights_is_half():
    w = model.init_weights(7)
    assert w.shape == (7,) and np.all(np.asarray(w) == 0.5)
    with pytest.raises(ValueError, match="n_max"):
        model.init_weights(0)


def test_interpolated_weights_hand_computed():
    w = np.array([1.0, 2.0, 4.0, 8.0, 16.0], np.float32)  # n_max = 5
    z = np.asarray(model.interpolated_weights(w, np.array([1, 2, 3, 5, 4, 9, 0]), 9))
    eps = 1e-5
    # n = 1: w[0]; n = 2: ends; n = 3: positions 0, 2, 4; n = n_max: w itself
    np.testing.assert_allclose(z[0], [1, 0, 0, 0, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(z[1], [1, 16, 0, 0, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(z[2], [1, 4, 16, 0, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(z[3], [1, 2, 4, 8, 16, 0, 0, 0, 0])
    # n = 4: positions 0, 4/3, 8/3, 4
    p1, p2 = 4 / 3, 8 / 3
    z41 = (4 - 2) * (p1 - 1) / (1 + eps) + 2
    z42 = (8 - 4) * (p2 - 2) / (1 + eps) + 4
    np.testing.assert_allclose(z[4], [1, z41, z42, 16, 0, 0, 0, 0, 0], rtol=1e-6)
    # n = 9 > n_max: positions 0, .5, 1, ..., 4
    half = [(w[i + 1] - w[i]) * 0.5 / (1 + eps) + w[i] for i in range(4)]
    expected = [1, half[0], 2, half[1], 4, half[2], 8, half[3], 16]
    np.testing.assert_allclose(z[5], expected, rtol=1e-6)
    np.testing.assert_allclose(z[6], 0.0)


@pytest.mark.parametrize("n_max,width", [(30, 40), (109, 30), (7, 9), (1, 5)])
def test_the_compiled_interpolation_is_the_op_by_op_bits(n_max, width):
    """interpolated_weights is one compiled program per shape (the encoder asks for a new width
    often); its bits are those of running the same operations one by one, as it did before."""
    rng = np.random.default_rng(n_max)
    w = rng.normal(size=n_max).astype(np.float32) * 3
    lengths = np.concatenate([np.arange(width + 1), rng.integers(0, width + 1, 20)])
    with jax.disable_jit():
        op_by_op = np.asarray(model.interpolated_weights(w, lengths, width))
    assert np.asarray(model.interpolated_weights(w, lengths, width)).tobytes() == op_by_op.tobytes()


def test_interpolation_matches_numpy_linspace_reference():
    rng = np.random.default_rng(3)
    w = rng.normal(size=30).astype(np.float32)
    lengths = np.arange(1, 41)
    z = np.asarray(model.interpolated_weights(w, lengths, 40))
    for row, n in zip(z, lengths):
        # the paper's I_j = 1 + (j-1)(n_max-1)/(n-1), 0-based (linspace without rounding)
        pos = np.arange(n) * 29 / max(n - 1, 1)
        lo, hi = np.floor(pos).astype(int), np.ceil(pos).astype(int)
        hi = np.minimum(hi, 29)
        ref = (w[hi] - w[lo]) * (pos - lo) / (hi - lo + 1e-5) + w[lo]
        np.testing.assert_allclose(row[:n], ref, rtol=1e-5, atol=1e-5)  # float32
        assert np.all(row[n:] == 0)


def test_represent_hand_computed():
    table = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-1.0, 3.0]], np.float32)
    w = np.array([1.0, 0.5, 0.25], np.float32)
    tokens = np.array([[2, 0, 1], [3, 1, 0]], np.int32)
    lengths = np.array([3, 2])
    t = np.asarray(model.represent(w, table, tokens, lengths))
    # text 0, n = 3 = n_max: (1*[2,2] + .5*[1,0] + .25*[0,1]) / 3
    np.testing.assert_allclose(t[0], [2.5 / 3, 2.25 / 3], rtol=1e-6)
    # text 1, n = 2: weights w[0], w[2] -> (1*[-1,3] + .25*[0,1]) / 2
    np.testing.assert_allclose(t[1], [-0.5, 3.25 / 2], rtol=1e-6)


def test_represent_fixed_length_is_plain_weighted_mean():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(50, 8)).astype(np.float32)
    tokens = rng.integers(0, 50, size=(6, 20)).astype(np.int32)
    w = rng.uniform(size=20).astype(np.float32)
    t = np.asarray(model.represent(w, table, tokens, np.full(6, 20)))
    ref = np.einsum("j,bjd->bd", w, table[tokens]) / 20
    np.testing.assert_allclose(t, ref, rtol=1e-5, atol=1e-6)


def test_represent_empty_text():
    table = np.eye(3, dtype=np.float32)
    tokens = np.array([[1, 0], [0, 0]], np.int32)
    with pytest.raises(ValueError, match=r"lengths\[1\] is 0"):
        model.represent(np.ones(2), table, tokens, np.array([2, 0]))
    t = np.asarray(model.represent(np.ones(2), table, tokens, np.array([2, 0]), allow_empty=True))
    np.testing.assert_allclose(t[1], 0.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(table=np.full((3, 2), np.nan, np.float32)), "table: contains NaN"),
        (dict(table=np.array([[np.inf, 0]] * 3, np.float32)), "table: contains NaN"),
        (dict(table=np.zeros((0, 2), np.float32)), "table: must be a non-empty"),
        (dict(tokens=np.zeros((0, 2), np.int32), lengths=np.zeros(0, np.int32)), "tokens: empty"),
        (dict(tokens=np.array([[0, 5]], np.int32)), "tokens: word indices"),
        (dict(tokens=np.zeros(2, np.int32)), "tokens: must be a 2-D"),
        (dict(lengths=np.array([1, 2])), "lengths: has 2 entries"),
        (dict(lengths=np.array([3])), "exceeds the width"),
        (dict(w=np.array([np.nan, 1.0])), "w: contains NaN"),
    ],
)
def test_represent_bad_input(kwargs, match):
    args = dict(w=np.ones(2, np.float32), table=np.ones((3, 2), np.float32),
                tokens=np.array([[0, 1]], np.int32), lengths=np.array([2]))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        model.represent(args["w"], args["table"], args["tokens"], args["lengths"])


def test_represent_gradient_matches_finite_differences():
    with jax.enable_x64(True):
        rng = np.random.default_rng(1)
        table = jnp.asarray(rng.normal(size=(30, 5)))
        tokens = jnp.asarray(rng.integers(0, 30, size=(4, 12)))
        lengths = jnp.asarray([12, 7, 1, 10])
        w = jnp.asarray(rng.uniform(size=8))
        v = jnp.asarray(rng.normal(size=(4, 5)))
        f = jax.jit(lambda w: jnp.sum(v * model.represent_unchecked(w, table, tokens, lengths)))  # one program
        g = np.asarray(jax.grad(f)(w))
        h = 1e-6
        fd = [(f(w.at[i].add(h)) - f(w.at[i].add(-h))) / (2 * h) for i in range(8)]
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


COLUMN_SUMS_CHILD = """
import numpy as np, jax, jax.numpy as jnp
from repro.core import model
rng = np.random.default_rng(7)
for v, d, width, n_max in ((500, 50, 60, 30), (300, 400, 20, 20), (50, 16, 3, 5)):
    table = jnp.asarray(rng.normal(size=(v, d)).astype(np.float32))
    tokens = jnp.asarray(rng.integers(0, v, size=(257, width)).astype(np.int32))
    lengths = jnp.asarray(rng.integers(0, width + 1, size=257).astype(np.int32))
    w = jnp.asarray(rng.uniform(-1, 2, size=n_max).astype(np.float32))
    einsum = np.asarray(jax.jit(model.represent_unchecked)(w, table, tokens, lengths))
    columns = np.asarray(jax.jit(model.represent_rows)(w, table, tokens, lengths))
    assert np.array_equal(einsum, columns), (v, d, width, np.abs(einsum - columns).max())
    z = jnp.asarray(rng.uniform(0, 2, size=(257, width)).astype(np.float32))  # any per-word weights
    plain = jax.jit(lambda z, t, k: jnp.einsum("bw,bwd->bd", z, t[k], precision=model.HIGHEST))(z, table, tokens)
    assert np.array_equal(np.asarray(plain), np.asarray(jax.jit(model.column_sums)(z, table, tokens)))
print("same")
"""


@pytest.mark.parametrize("isa", ["AVX2", "AVX", "SSE4_2"])
def test_the_column_sums_are_the_einsums_bits_under_every_instruction_set_cap(isa):
    """represent_rows (the encoder's and the scoring surface's text vectors, one column at a time)
    gives the bits of the einsum over gathered rows (represent_unchecked, the kappa search's), whatever code
    XLA compiles: each cap compiles other code, as another CPU would. The child runs on the CPU
    (the cap is the CPU's) also where this process has a GPU (make test-gpu)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XLA_FLAGS": f"--xla_cpu_max_isa={isa}", "JAX_PLATFORMS": "cpu"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", COLUMN_SUMS_CHILD], cwd=root, env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split()[-1] == "same", out.stderr[-2000:]
