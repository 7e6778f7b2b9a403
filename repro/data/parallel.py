"""Worker processes that are safe to start from any process of the chain."""

from __future__ import annotations

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
