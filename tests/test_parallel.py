"""repro.data.parallel: the one pool lifecycle of the chain (wikidump, paragraphdf, synthdump)."""

from __future__ import annotations

import os

import pytest

from repro.data import parallel


def _square(x: int) -> int:
    return x * x


def _pid(_) -> int:
    return os.getpid()


_OFFSET = 0


def _set_offset(k: int) -> None:
    global _OFFSET
    _OFFSET = k


def _plus_offset(x: int) -> int:
    return x + _OFFSET


def test_one_worker_is_this_process():
    with parallel.worker_pool(1) as pool:
        assert pool is None
        assert list(parallel.pool_map(pool, _pid, range(3))) == [os.getpid()] * 3


def test_workers_keep_the_order_and_run_the_initializer():
    with parallel.worker_pool(2, _set_offset, (100,)) as pool:
        assert list(parallel.pool_map(pool, _plus_offset, range(6))) == [100, 101, 102, 103, 104, 105]
        assert sorted(parallel.pool_map(pool, _square, range(5), ordered=False)) == [0, 1, 4, 9, 16]
        assert os.getpid() not in set(parallel.pool_map(pool, _pid, range(4)))
    assert _OFFSET == 0  # the initializer ran in the workers only


def test_the_pool_is_ended_on_an_error():
    with pytest.raises(RuntimeError, match="stop"):
        with parallel.worker_pool(2) as pool:
            workers = list(pool._pool)
            raise RuntimeError("stop")
    assert all(not w.is_alive() for w in workers)  # terminated and joined, not left running
