"""A command-line user's first call (issue 23): the shipped coefficient table spares ``repro
encode`` JAX's import and compilation, and gives the vectors JAX's table gives, bit for bit."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from codeclass import same_class
from repro.encode import weightedsums
from repro.io import store
from repro.encode.encoder import PRETRAINED

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("model", sorted(PRETRAINED))
def test_the_shipped_table_is_jaxs_table_of_the_shipped_weights_bit_for_bit(model):
    w, _ = store.load_weights(PRETRAINED[model])
    held = weightedsums.precomputed_table(w, 2 * w.size)
    assert held is not None, f"the coefficient table of the {model} model (repro/weights/) is stale: run make weights"
    computed = weightedsums.coefficient_table(w, 2 * w.size, precomputed=None)
    assert held.dtype == np.float32
    if same_class():  # JAX's table, made where XLA compiles as here (tests/codeclass.py)
        assert held.tobytes() == computed.tobytes()
    else:
        np.testing.assert_allclose(held, computed, rtol=1e-6, atol=1e-7)


def test_a_table_is_used_only_for_its_own_weights_and_width(tmp_path):
    w = np.array([0.9, 0.5, 0.25], np.float32)
    path = str(tmp_path / "coefficients.npz")
    store.write_npz(path, weights=w, table=np.full((7, 6), 3.0, np.float32))  # a marker, not a real table
    assert weightedsums.precomputed_table(w, 6, path)[0, 0] == 3.0
    assert weightedsums.coefficient_table(w, 6, precomputed=path)[0, 0] == 3.0
    assert weightedsums.precomputed_table(w, 5, path) is None  # another width
    assert weightedsums.precomputed_table(w + np.float32(1e-7), 6, path) is None  # other bits
    assert weightedsums.precomputed_table(w, 6, str(tmp_path / "none.npz")) is None
    real = weightedsums.coefficient_table(w, 6, precomputed=str(tmp_path / "none.npz"))
    np.testing.assert_allclose(real[1, :1], [0.9], rtol=1e-6)  # n = 1: z_1 = w_1
    np.testing.assert_allclose(real[3, :3], np.array([0.9, 0.5, 0.25]) / 3, rtol=1e-5)  # n = n_max: w itself / n


@pytest.mark.parametrize("model", ["default", "best", "paper"])
def test_repro_encode_with_the_shipped_weights_imports_no_jax(tmp_path, model):
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    rng = np.random.default_rng(0)
    store.save_vectors(str(tmp_path / "vec"), words, rng.standard_normal((8, 5)).astype(np.float32))
    # with word counts (as `repro df` writes them): model="best"'s Zipfian whitening reads p(w)
    store.save_word_df(str(tmp_path / "df.npz"), words, np.arange(1, 9), 10, counts=np.arange(3, 11))
    (tmp_path / "texts.txt").write_text("alpha beta\ngamma delta alpha\n")
    code = ("import sys; from repro.cli import main; rc = main(['encode', sys.argv[1], '--vectors', sys.argv[2], "
            "'--df', sys.argv[3], '--out', sys.argv[4], '--quiet'] + sys.argv[5:]); print('jax' in sys.modules); "
            "sys.exit(rc)")
    out = str(tmp_path / "X.npy")
    flag = [] if model == "default" else ["--pretrained", model]  # the default: no flag
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "texts.txt"), str(tmp_path / "vec"),
                           str(tmp_path / "df.npz"), out, *flag], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"
    from repro.encode.encoder import Encoder

    enc = Encoder.pretrained(str(tmp_path / "vec"), str(tmp_path / "df.npz"), model=model)
    enc._coef = weightedsums.coefficient_table(enc.weights_, 2 * enc.n_max, precomputed=None)  # JAX's own table
    assert np.load(out).tobytes() == enc.transform(["alpha beta", "gamma delta alpha"]).tobytes()
