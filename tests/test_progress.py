"""Progress bars: one per step, only past repro.progress.DELAY seconds, on a terminal, silenced by --quiet."""

from __future__ import annotations

import io
import sys
import time

import numpy as np
import pytest

from repro import progress
from repro.encode.encoder import Encoder

WORDS = [f"w{i}" for i in range(30)]


class Terminal(io.StringIO):
    """A stderr that says it is a terminal, so that tqdm draws."""

    def isatty(self) -> bool:
        return True


def terminal(monkeypatch) -> Terminal:
    """sys.stderr replaced by a Terminal (in the test's body: pytest's capture sets sys.stderr
    again between a fixture's set-up and the test)."""
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    return term


@pytest.fixture(scope="module")
def enc():
    m = np.random.default_rng(0).standard_normal((len(WORDS), 4)).astype(np.float32)
    return Encoder.pretrained((WORDS, m), corpus=[" ".join(WORDS[i:i + 5]) for i in range(25)], chunk=4, workers=2,
                              progress=True)


def lines(text: str) -> list[str]:
    """The lines a terminal keeps: the last state of each line (after its last carriage return)."""
    return [line.rsplit("\r", 1)[-1] for line in text.split("\n")[:-1]]


def test_a_short_step_draws_nothing(monkeypatch):
    stderr = terminal(monkeypatch)
    with progress.bar(10, "short", show=True) as bar:
        bar.update(10)
    assert stderr.getvalue() == ""


def test_a_long_step_draws_one_bar_on_its_own_line(monkeypatch):
    stderr = terminal(monkeypatch)
    monkeypatch.setattr(progress, "DELAY", 0.05)
    for name in ("first", "second"):
        with progress.bar(3, name, show=True) as bar:
            for _ in range(3):
                time.sleep(0.04)
                bar.update(1)
    kept = lines(stderr.getvalue())
    assert len(kept) == 2 and kept[0].startswith("first: 100%") and kept[1].startswith("second: 100%")


def test_quiet_and_pipes_draw_nothing(monkeypatch):
    stderr = terminal(monkeypatch)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    with progress.bar(3, "quiet", show=False) as bar:
        bar.update(3)
    assert stderr.getvalue() == ""
    pipe = io.StringIO()  # not a terminal: a log file or a pipe
    with progress.bar(3, "piped", show=True, file=pipe) as bar:
        bar.update(3)
    assert pipe.getvalue() == ""


def test_the_encoder_draws_one_bar_per_step_and_none_for_one_chunk(enc, monkeypatch):
    stderr = terminal(monkeypatch)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    texts = [WORDS[i % 30:i % 30 + 3] for i in range(40)]  # 10 chunks of 4
    enc.transform(texts)
    enc.similarity(texts, texts[::-1])  # both sides in one step
    enc.transform(texts[:4])  # one chunk: no bar
    enc.similarity([["w1"]], [["w2"]])  # one couple: no bar
    kept = lines(stderr.getvalue())
    assert [line.split(":")[0] for line in kept] == ["encode", "encode couples"]
    assert "40/40" in kept[0] and "80/80" in kept[1]
    enc.progress = False
    try:
        enc.transform(texts)
    finally:
        enc.progress = True
    assert len(lines(stderr.getvalue())) == 2
