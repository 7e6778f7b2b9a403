"""The Dask recipe (repro.encode.daskencode): a Parquet data set of texts encoded with map_partitions on
Dask's local scheduler, one encoder per worker built from its file, the vectors of Encoder.transform."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="the dask extra is not installed (pip install -e '.[dask]'; "
                                                  "make test installs it)")

from repro.encode import daskencode  # noqa: E402
from repro.io import store
from repro.encode.encoder import Encoder  # noqa: E402

WORDS = [f"w{i}" for i in range(60)]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask")
    rng = np.random.default_rng(0)
    store.save_vectors(str(d / "vectors"), WORDS, rng.standard_normal((len(WORDS), 8)).astype(np.float32))
    corpus = [" ".join(rng.choice(WORDS, 6)) for _ in range(100)]
    Encoder.pretrained(str(d / "vectors"), corpus=corpus).save(str(d / "enc.npz"))
    texts = [" ".join(rng.choice(WORDS + ["unknown"], rng.integers(1, 15))).upper() for _ in range(97)]
    texts[5] = "nothing known here"
    frame = pd.DataFrame({"id": np.arange(97), "text": texts})
    (d / "texts").mkdir()
    for i, part in enumerate(np.array_split(np.arange(97), 4)):  # a data set of four files
        frame.iloc[part].to_parquet(d / "texts" / f"part-{i}.parquet")
    return d, texts


def test_the_recipe_gives_the_vectors_of_transform(data, monkeypatch):
    d, texts = data
    frame = dd.read_parquet(str(d / "texts"))
    assert frame.npartitions == 4
    daskencode._ENCODERS.clear()
    builds, load = [], Encoder.load

    def counted_load(*args, **kwargs):
        builds.append(args)
        return load(*args, **kwargs)

    monkeypatch.setattr(daskencode.Encoder, "load", counted_load)  # the encoders this process builds
    lazy = daskencode.encode_frame(frame, str(d / "enc.npz"), column="text")
    assert list(lazy.columns) == [f"v{j}" for j in range(8)] and (lazy.dtypes == np.float32).all()
    with pytest.warns(UserWarning, match="have no word with a vector"):  # "nothing known here", on its worker
        got = lazy.compute(scheduler="threads")
    # one encoder built in this process (the local scheduler's one worker), for four partitions
    assert builds == [(str(d / "enc.npz"),)]
    expected = load(str(d / "enc.npz"))
    with pytest.warns(UserWarning):
        want = expected.transform(texts)
    assert got.shape == (97, 8) and np.abs(want).sum() > 0
    np.testing.assert_array_equal(got.to_numpy(), want)  # bit for bit, whatever the partitions
    assert not got.iloc[5].any()


def test_the_tasks_carry_paths_not_the_encoder(data):
    import cloudpickle

    d, _ = data
    lazy = daskencode.encode_frame(dd.read_parquet(str(d / "texts")), str(d / "enc.npz"))
    graph = dict(lazy.__dask_graph__())
    pickled = cloudpickle.dumps(graph)
    assert str(d / "enc.npz").encode() in pickled  # the path travels
    assert b"Encoder" not in pickled and b"RankLookup" not in pickled  # the encoder does not
    _, matrix = store.load_vectors(str(d / "vectors"))
    assert all(row.tobytes() not in pickled for row in matrix)  # nor any vector


def test_the_column_must_exist(data):
    d, _ = data
    frame = dd.read_parquet(str(d / "texts"))
    with pytest.raises(ValueError, match="body: no such column"):
        daskencode.encode_frame(frame, str(d / "enc.npz"), column="body").compute(scheduler="synchronous")
