"""Common components (:mod:`repro.spaces.components`, NumPy only): an encoder that removes them loads,
encodes and scores texts, short and long, without importing JAX."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from repro.io import store
from repro.spaces.components import remove_components
from repro.encode.encoder import Encoder
from repro.encode.longtext import SHORT_WORDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Loads a saved encoder, encodes and scores texts, and says which JAX modules it imported.
CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    from repro.encode.encoder import Encoder
    enc = Encoder.load(sys.argv[1])
    with open(sys.argv[2]) as f:
        a, b = json.load(f)
    np.save(sys.argv[3], enc.transform(a))
    np.save(sys.argv[4], enc.similarity(a, b))
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib"))))
""")


def _word(i: int) -> str:
    """Letters only (the paper's tokeniser turns digits into 0): 0 -> "ba", 1 -> "bb", ..."""
    s, i = "", i + 26
    while i:
        s, i = chr(97 + i % 26) + s, i // 26
    return s


def test_an_encoder_with_components_encodes_without_jax(tmp_path):
    v, d = 300, 12
    words = [_word(i) for i in range(v)]
    rng = np.random.default_rng(5)
    store.save_vectors(str(tmp_path / "vec"), words, rng.standard_normal((v, d)).astype(np.float32))
    df = rng.integers(1, 500, v)
    store.save_word_df(str(tmp_path / "df.npz"), words, df, 1000, counts=3 * df)
    enc = Encoder.pretrained(str(tmp_path / "vec"), str(tmp_path / "df.npz"))

    def texts(n: int, length: int) -> list[str]:
        return [" ".join(words[i] for i in rng.integers(0, v, length)) for _ in range(n)]

    long = texts(2, 5 * SHORT_WORDS)  # past the coefficient table: the long-text path
    a, b = texts(3, 6) + long, texts(2, 9) + long[::-1] + texts(1, 4)
    plain = enc.transform(a)
    enc.fit_components(texts(60, 8), k=2)
    model = str(tmp_path / "cc.npz")
    enc.save(model)
    want_x, want_s = enc.transform(a), enc.similarity(a, b)
    # the components change the vectors, and transform removes exactly them (t - sum_k (t.c_k) c_k)
    assert enc.components_.vectors.shape == (2, d)
    assert np.abs(want_x - plain).max() > 1e-3
    np.testing.assert_allclose(want_x, remove_components(plain, enc.components_), rtol=1e-5, atol=1e-6)

    with open(tmp_path / "texts.json", "w") as f:
        json.dump([a, b], f)
    proc = subprocess.run([sys.executable, "-c", CHILD, model, str(tmp_path / "texts.json"),
                           str(tmp_path / "x.npy"), str(tmp_path / "s.npy")], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []  # no JAX module imported
    np.testing.assert_allclose(np.load(tmp_path / "x.npy"), want_x, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.load(tmp_path / "s.npy"), want_s, rtol=1e-6, atol=1e-6)


def test_the_components_of_several_k_from_one_svd_are_each_ones_own_bits():
    from repro.spaces.components import fit_components, fit_components_each

    x = np.random.default_rng(3).normal(size=(40, 6)) + 0.5
    for scales in ("one", "share", "share_squared"):
        each = fit_components_each(x, (0, 1, 2, 5), scales)
        for k, got in zip((0, 1, 2, 5), each):
            alone = fit_components(x, k, scales)
            assert got.vectors.shape == (k, 6)
            for a, b in zip(got, alone):
                assert np.array_equal(a, b)
    # k = 0 needs no SVD and removes nothing
    none = fit_components(x, 0)
    assert none.vectors.shape == (0, 6) and np.array_equal(remove_components(x, none), x)
    with pytest.raises(ValueError, match="k must lie in 0..6"):
        fit_components_each(x, (1, 7))
