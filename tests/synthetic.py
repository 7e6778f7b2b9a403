"""Tiny synthetic couples on which only the first rank positions carry signal."""

from __future__ import annotations

import numpy as np

from repro.core.pairset import PairSet


def signal_pairs(n_pairs: int = 2000, width: int = 10, informative: int = 3, vocab: int = 400,
                 dim: int = 16, seed: int = 0, variable: bool = False):
    """(table, PairSet): related couples share topic words in their first ``informative``
    rank positions; every other position, and every word of an unrelated couple, is a
    random word. With ``variable`` the lengths vary in width//2..width."""
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(vocab, dim)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    n_topics = 20
    topics = rng.normal(size=(n_topics, dim))
    topics /= np.linalg.norm(topics, axis=1, keepdims=True)
    # the first 100 words are topic words: near their topic's centre
    topic_of = np.arange(100) % n_topics
    table[:100] = topics[topic_of] + 0.3 * rng.normal(size=(100, dim))
    table[:100] /= np.linalg.norm(table[:100], axis=1, keepdims=True)
    by_topic = [np.flatnonzero(topic_of == t) for t in range(n_topics)]

    def text(topic):
        toks = rng.integers(100, vocab, size=width)
        if topic is not None:
            toks[:informative] = rng.choice(by_topic[topic], size=informative)
        return toks

    a, b, la, lb, y = [], [], [], [], []
    for i in range(n_pairs):
        related = i % 2 == 0
        ta, tb = (rng.integers(n_topics),) * 2 if related else (None, None)
        a.append(text(ta))
        b.append(text(tb))
        lo = width // 2 if variable else width
        la.append(rng.integers(lo, width + 1))
        lb.append(rng.integers(lo, width + 1))
        y.append(int(related))
    pairs = PairSet(np.array(a, np.int32), np.array(b, np.int32), np.array(la, np.int32),
                    np.array(lb, np.int32), np.array(y, np.int8))
    return table, pairs


def random_pairs(rng: np.random.Generator, p: int, width: int, fixed: bool) -> PairSet:
    """``p`` couples of random word ids below 50 and random lengths (all ``width`` when ``fixed``,
    else 1..width), labels alternating related, unrelated."""
    lo = width if fixed else 1
    return PairSet(rng.integers(0, 50, (p, width)).astype(np.int32), rng.integers(0, 50, (p, width)).astype(np.int32),
                   rng.integers(lo, width + 1, p).astype(np.int32), rng.integers(lo, width + 1, p).astype(np.int32),
                   (np.arange(p) % 2).astype(np.int8))
