"""experiments/compare.py: the last line of a user's make table1 / table2, against results/."""

from __future__ import annotations

import copy
import json

from experiments import compare


def table(overrides=None) -> dict:
    """A two-row, one-column table JSON, both metrics, with ``overrides`` {(metric key, method): {number: value}}."""
    rows = {"mean": {"split_error": 0.1437, "js": 0.1389}, "learned_median": {"split_error": 0.1059, "js": 0.1597}}
    out = {"table": 1, "results": {"wiki20": copy.deepcopy(rows)}, "results_cosine": {"wiki20": copy.deepcopy(rows)}}
    for (key, method), numbers in (overrides or {}).items():
        out[key]["wiki20"][method].update(numbers)
    return out


def test_the_same_table_matches_exactly():
    assert compare.comparison(table(), table(), "results/table1.json") == \
        "matches the committed table (results/table1.json) exactly"


def test_differences_below_the_printed_digits_match_as_printed():
    new = table({("results", "mean"): {"js": 0.1389 + 3e-6},
                 ("results_cosine", "learned_median"): {"split_error": 0.1059 + 2e-6}})
    assert compare.comparison(new, table()) == (
        "matches the committed table (results) as printed (largest differences: split error 0.0002 points, JS 3e-06)")


def test_a_printed_difference_names_each_column_that_moved_and_its_row():
    new = table({("results", "mean"): {"split_error": 0.1437 + 0.0012},
                 ("results", "learned_median"): {"split_error": 0.1059 + 0.0004},
                 ("results_cosine", "learned_median"): {"js": 0.1597 - 0.002}})
    assert compare.comparison(new, table()) == (
        "differs from the committed table (results); largest difference per column: "
        "Wikipedia, 20 words, Euclidean, split error 0.12 points (Mean); "
        "Wikipedia, 20 words, cosine, JS 0.002 (Learned weights, median)")


def test_a_missing_row_is_named():
    new = table()
    del new["results"]["wiki20"]["mean"]
    assert compare.comparison(new, table()) == "differs from the committed table (results): rows missing: wiki20/mean"


def test_a_row_the_committed_table_lacks_is_named():
    """A run with a new row (a newer checkout's method) is not a match, even where the shared rows agree."""
    new = table()
    new["results"]["wiki20"]["sif"] = {"split_error": 0.1, "js": 0.1}
    assert compare.comparison(new, table()) == (
        "differs from the committed table (results): rows the committed table lacks: wiki20/sif")


def test_the_command_prints_one_line(tmp_path, capsys):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(table()))
    assert compare.main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    assert capsys.readouterr().out == (f"Table 1 ({tmp_path / 'a.json'}) matches the committed table "
                                       f"({tmp_path / 'b.json'}) exactly\n")
