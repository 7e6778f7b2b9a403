"""Worker processes that are safe to start from any process of the chain, and the one way the
stages run a pool of them (:func:`worker_pool`, :func:`pool_map`)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os


def mp_context():
    """``fork`` while this process has a single thread (fast, safe), else ``spawn``.

    Forking a process that runs other threads (JAX and XLA start thread pools) can deadlock
    the child; spawning starts a fresh interpreter instead.
    """
    try:
        single = len(os.listdir("/proc/self/task")) == 1
    except OSError:
        single = False
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if single and "fork" in methods else "spawn")


@contextlib.contextmanager
def worker_pool(workers: int, initializer=None, initargs: tuple = ()):
    """A pool of ``workers`` processes (started by :func:`mp_context`), terminated and joined when
    the block ends, an error included; None for one worker: the caller then does the work in this
    process (:func:`pool_map` does either). Enter it before starting any thread of this process
    (a progress bar's), so that the workers can be forked."""
    if workers <= 1:
        yield None
        return
    pool = mp_context().Pool(workers, initializer=initializer, initargs=initargs)
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


def pool_map(pool, fn, jobs, ordered: bool = True):
    """``fn`` over ``jobs`` lazily: by the pool's workers (in order with ``ordered``, else as they
    finish), or in this process where ``pool`` is None."""
    if pool is None:
        return map(fn, jobs)
    return pool.imap(fn, jobs) if ordered else pool.imap_unordered(fn, jobs)
