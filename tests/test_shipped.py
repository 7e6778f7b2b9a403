"""The weights shipped in the package are the ones the committed Table 1 was made with."""

from __future__ import annotations

import json
import os

import numpy as np

from repro.io import store
from repro.encode.encoder import SHIPPED

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_shipped_weights_equal_table1s_wikivar_median_model():
    weights, meta = store.load_weights(SHIPPED)
    with open(os.path.join(ROOT, "results", "table1.json"), encoding="utf-8") as f:
        model = json.load(f)["models"]["wikivar-median"]
    np.testing.assert_array_equal(weights, np.asarray(model["weights"], np.float32))
    assert meta["kappa"] == model["kappa"] and meta["epochs"] == model["epochs"]
