"""The README's verdicts are the numbers': every findings block is what make writes from the
committed results (a hand edit of either side fails here)."""

from __future__ import annotations

import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _json(name: str) -> dict:
    with open(os.path.join(ROOT, "results", name), encoding="utf-8") as f:
        return json.load(f)


def _readme() -> str:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("number", [1, 2])
def test_table_findings_block_is_written_from_the_json(number):
    from experiments.tables import findings_block

    assert findings_block(number, _json(f"table{number}.json")) in _readme()


def test_sts_findings_block_is_written_from_the_json():
    from experiments.sts import findings_block

    assert findings_block(_json("sts.json")) in _readme()


def test_no_hand_written_ranking_outside_the_blocks():
    """The sentences that once ranked rows by hand are gone: outside the generated blocks no line
    says a row wins, beats or leads."""
    text = _readme()
    for name in ("findings-table1", "findings-table2", "findings-sts", "table1", "table2", "sts", "bench"):
        start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
        if start in text:
            head, rest = text.split(start, 1)
            text = head + rest.split(end, 1)[1]
    for word in (" win ", " wins ", " beat ", " beats ", " leads ", " the best row"):
        assert word not in text, word
