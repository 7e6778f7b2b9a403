"""The encoder's mapped space cached beside the vectors (issue 35, item 2; repro.spaces.cachedspace): the same
bits as computing it, never a stale entry, written atomically, on one BLAS thread."""

from __future__ import annotations

import os

import numpy as np
import pytest

from repro import cli
from repro.io import cachefolder, store
from repro.spaces import cachedspace, transforms, wordmap
from repro.encode.encoder import Encoder

WORDS = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(300)]
TEXTS = ["wab wac wad", "wba wbb wzz", "waa", "wcc wcd wce wcf wcg"]

pytestmark = pytest.mark.usefixtures("cache_beside_the_vectors")


def write_vectors(folder, seed: int = 0, change=None):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((len(WORDS), 16)).astype(np.float32)
    if change is not None:
        m[change] += np.float32(1e-3)
    store.save_vectors(str(folder), WORDS, m)
    return str(folder)


def write_df(path, seed: int = 1, counts_seed: int = 1):
    """A df file with word counts (p(w)); the counts (>= 1,000) do not depend on the df (<= 50)."""
    df = np.random.default_rng(seed).integers(1, 50, len(WORDS))
    counts = 1000 + np.random.default_rng(counts_seed).integers(0, 500, len(WORDS))
    store.save_word_df(str(path), WORDS, df, 100, counts=counts)
    return str(path)


def test_the_cached_space_is_the_computed_space_bit_for_bit(tmp_path, monkeypatch, cache_entries, uncomputable):
    vec, df = write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz")
    first = Encoder.pretrained(vec, df, model="best")  # model="best": Zipfian whitening
    assert first.settings["whiten"] == "zipf"
    cache = vec + ".mapped"
    names = cache_entries(cache)
    assert len(names) == 2 and names[0].startswith("map-") and names[1].startswith("table-")
    with monkeypatch.context() as m:
        uncomputable(m, (wordmap, "word_map"), (transforms, "apply"))
        second = Encoder.pretrained(vec, df, model="best")
    assert isinstance(second.word_space.table, np.memmap)  # read back, memory-mapped
    m.setenv(cachefolder.ENV, "0")
    fresh = Encoder.pretrained(vec, df, model="best")  # no cache at all
    assert cache_entries(cache) == names
    for enc in (second, fresh):
        assert np.asarray(enc.word_space.table).tobytes() == np.asarray(first.word_space.table).tobytes()
        for part in ("shift", "matrix"):
            assert getattr(enc.word_map_, part).tobytes() == getattr(first.word_map_, part).tobytes()
        assert enc.transform(TEXTS).tobytes() == first.transform(TEXTS).tobytes()
        assert enc.similarity(TEXTS[:2], TEXTS[2:]).tobytes() == first.similarity(TEXTS[:2], TEXTS[2:]).tobytes()


@pytest.mark.parametrize("what", ["vectors", "counts", "df"])
def test_a_stale_entry_is_never_used(tmp_path, monkeypatch, what, cache_entries):
    """Other vectors (one number changed), other word counts (p(w)) or other df (another idf
    order) give another key: the old entry is not read, and the new space is the one computed."""
    vec, df = write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz")
    old = Encoder.pretrained(vec, df, model="best")
    if what == "vectors":
        write_vectors(tmp_path / "vec", change=17)
    elif what == "counts":
        write_df(tmp_path / "df.npz", counts_seed=9)
    else:
        write_df(tmp_path / "df.npz", seed=5)  # the same counts, another idf order
    new = Encoder.pretrained(vec, df, model="best")
    assert len([n for n in cache_entries(vec + ".mapped") if n.startswith("table-")]) == 2
    monkeypatch.setenv(cachefolder.ENV, "0")
    want = Encoder.pretrained(vec, df, model="best")
    assert np.asarray(new.word_space.table).tobytes() == want.word_space.table.tobytes() != np.asarray(old.word_space.table).tobytes()
    assert new.transform(TEXTS).tobytes() == want.transform(TEXTS).tobytes()


def test_a_damaged_entry_is_computed_again(tmp_path, cache_entries):
    vec, df = write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz")
    want = Encoder.pretrained(vec, df, model="best")
    table = [n for n in cache_entries(vec + ".mapped") if n.startswith("table-")][0]
    path = os.path.join(vec + ".mapped", table)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)  # as a disk that filled up might leave it
    again = Encoder.pretrained(vec, df, model="best")
    assert np.asarray(again.word_space.table).tobytes() == want.word_space.table.tobytes()
    assert os.path.getsize(path) == 128 + want.word_space.table.nbytes  # written whole again (.npy header + data)


def test_a_saved_encoder_reads_its_mapped_table_from_the_cache(tmp_path, monkeypatch):
    vec, df = write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz")
    enc = Encoder.pretrained(vec, df, model="best")
    enc.save(str(tmp_path / "enc.npz"))
    with monkeypatch.context() as m:
        m.setattr(transforms, "apply", lambda *a, **k: (_ for _ in ()).throw(AssertionError("applied again")))
        back = Encoder.load(str(tmp_path / "enc.npz"))
    assert back.transform(TEXTS).tobytes() == enc.transform(TEXTS).tobytes()


def test_the_cache_folder_moves_turns_off_or_cannot_be_written(tmp_path, monkeypatch, cache_entries):
    vec, df = write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz")
    monkeypatch.setenv(cachefolder.ENV, str(tmp_path / "elsewhere"))
    want = Encoder.pretrained(vec, df, model="best")
    assert len(cache_entries(tmp_path / "elsewhere")) == 2 and not os.path.exists(vec + ".mapped")
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv(cachefolder.ENV, str(tmp_path / "a-file"))  # cannot hold entries: no cache, no error
    assert Encoder.pretrained(vec, df, model="best").transform(TEXTS).tobytes() == want.transform(TEXTS).tobytes()
    monkeypatch.setenv(cachefolder.ENV, "0")
    Encoder.pretrained(vec, df, model="best")
    assert not os.path.exists(vec + ".mapped")
    assert [n for n in os.listdir(tmp_path / "elsewhere") if n.startswith(".tmp")] == []  # no temporary left


def test_in_memory_vectors_and_the_papers_model_cache_nothing(tmp_path):
    vec, df = write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz")
    Encoder.pretrained(vec, df, model="paper")  # no word map
    assert not os.path.exists(vec + ".mapped")
    words, matrix = store.load_vectors(vec)
    Encoder.pretrained((words, np.asarray(matrix)), df, model="best")
    assert not os.path.exists(vec + ".mapped")


def test_only_the_most_recent_entries_are_kept(tmp_path, monkeypatch, cache_entries):
    monkeypatch.setattr(cachedspace, "KEEP", 2)
    vec = write_vectors(tmp_path / "vec")
    for seed in range(4):
        Encoder.pretrained(vec, write_df(tmp_path / f"df{seed}.npz", counts_seed=10 + seed), model="best")
    names = cache_entries(vec + ".mapped")
    assert len([n for n in names if n.startswith("table-")]) == 2 and len(names) == 4


def test_the_map_runs_on_one_blas_thread(tmp_path, monkeypatch):
    from threadpoolctl import threadpool_info

    seen = []
    moments = transforms.weighted_moments

    def spy(*a, **k):
        seen.append({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})
        return moments(*a, **k)

    monkeypatch.setattr(transforms, "weighted_moments", spy)
    monkeypatch.setenv(cachefolder.ENV, "0")
    Encoder.pretrained(write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz"), model="best")
    assert seen == [{cachedspace.THREADS}] and cachedspace.THREADS == 1


def test_repro_similarity_a_second_time_reads_the_cache(tmp_path, capsys, monkeypatch, cache_entries, uncomputable):
    vec, df = write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz")
    args = ["similarity", "wab wac", "wab wad wzz", "--vectors", vec, "--df", df, "--quiet", "--pretrained", "best"]
    assert cli.main(args) == 0
    first = capsys.readouterr().out
    names = cache_entries(vec + ".mapped")
    uncomputable(monkeypatch, (wordmap, "word_map"), (transforms, "apply"))
    assert cli.main(args) == 0
    assert capsys.readouterr().out == first and cache_entries(vec + ".mapped") == names


def test_the_cache_keeps_no_unmapped_table_alive(tmp_path):
    """After mapping, the encoder drops its unmapped table (a second V x d array); the cache's
    digest must not hold it."""
    import gc

    enc = Encoder.pretrained(write_vectors(tmp_path / "vec"), write_df(tmp_path / "df.npz"), model="best")
    assert enc.word_space.base is None
    base = enc.word_space.cache._base
    gc.collect()
    assert base() is None  # a weak reference, dead once the encoder let the table go
