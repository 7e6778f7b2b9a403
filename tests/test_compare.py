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


MD = """Made by `make table1` (commit `abc`), in 12 s.

| Method | Wikipedia, 20 words: split error | Wikipedia, 20 words: JS |
|---|---:|---:|
| Mean | 14.37% | 0.1389 |
| Learned weights, median | **10.59%** | 0.1597 |

| Method | against the best peer, points (95%) |
|---|---:|
| Mean | +3.77 (+3.22 to +4.33) |
"""


def test_markdown_cells_are_keyed_by_table_row_and_column():
    cells = compare.markdown_cells(MD)
    assert cells[0, "Learned weights, median", "Wikipedia, 20 words: split error"] == "**10.59%**"
    assert cells[1, "Mean", "against the best peer, points (95%)"] == "+3.77 (+3.22 to +4.33)"
    assert len(cells) == 5


def test_the_text_around_the_tables_is_not_compared():
    other = MD.replace("`abc`), in 12 s", "`def`), in 99 s")
    assert compare.markdown_comparison(other, MD) is None


def test_a_moved_cell_is_named_with_its_row_column_and_both_values():
    new = MD.replace("0.1597", "0.1598").replace("+3.22 to", "+3.20 to")
    said = compare.markdown_comparison(new, MD)
    assert said == ("2 cell(s) differ; largest (0.02): row 'Mean', column 'against the best peer, points (95%)': "
                    "'+3.77 (+3.20 to +4.33)' here, '+3.77 (+3.22 to +4.33)' committed")
    assert compare.cell_difference("**10.59%**", "10.59%") == 0.0  # a moved bold mark: no number moved
    assert compare.cell_difference("best", "+0.2 (-0.1 to +0.5)") == float("inf")


def test_a_missing_row_is_named_in_the_markdown_comparison():
    new = MD.replace("| Mean | 14.37% | 0.1389 |\n", "")
    assert compare.markdown_comparison(new, MD).startswith("2 committed cell(s) missing, first row 'Mean'")


def test_json_numbers_leave_out_provenance_seconds_and_paths():
    a = {"commit": "x", "seconds": 3.0, "results": {"s": {"m": {"split_error": 0.1, "js": 0.2}}},
         "stage_seconds": {"a": 1}, "family_choices": {"s": {"member": "zipf-cosine"}},
         "pairs": {"s": {"paragraphs_file": "/tmp/a/data/paragraphs.tsv"}}}
    b = copy.deepcopy(a)
    b.update(commit="y", seconds=9.0)
    b["pairs"]["s"]["paragraphs_file"] = "/home/b/data/paragraphs.tsv"  # where the run lay: not a result
    assert compare.json_comparison(a, b) == (True, "every number the same to the last bit")
    b["results"]["s"]["m"]["js"] = 0.2 + 1e-9
    b["family_choices"]["s"]["member"] = "plain-cosine"
    exact, said = compare.json_comparison(a, b)
    assert not exact and said.startswith("1 number(s) differ, largest 1e-09 at /results/s/m/js (0.2 here, ")
    assert said.endswith("1 other value(s) differ, first /family_choices/s/member ('zipf-cosine' here, "
                         "'plain-cosine' committed)")


def test_the_report_gives_a_line_per_generated_file(tmp_path):
    run_dir, ref_dir = tmp_path / "out", tmp_path / "results"
    run_dir.mkdir()
    ref_dir.mkdir()
    for d in (run_dir, ref_dir):
        (d / "table1.json").write_text(json.dumps(table()))
        (d / "table1.md").write_text(MD)
        (d / "table1_family.md").write_text(MD)
    (ref_dir / "table1.csv").write_text("not compared")
    lines = compare.report(str(run_dir), str(ref_dir), "table1")
    assert lines[1:] == [f"  {run_dir / 'table1.md'}: matches", f"  {run_dir / 'table1_family.md'}: matches"]
    # digits below the printed ones: every file equal to the printed digits, and one line on the JSON
    (run_dir / "table1.json").write_text(json.dumps(table({("results", "mean"): {"js": 0.1389 + 3e-6}})))
    (run_dir / "table1_family.md").write_text(MD.replace("0.1389", "0.1390"))
    lines = compare.report(str(run_dir), str(ref_dir), "table1")
    assert lines[1] == f"  {run_dir / 'table1.md'}: equal to the printed digits"
    assert lines[2].startswith(f"  {run_dir / 'table1_family.md'}: differs: 1 cell(s) differ; largest (0.0001): "
                               "row 'Mean', column 'Wikipedia, 20 words: JS': '0.1390' here, '0.1389' committed")
    assert lines[3].startswith(f"  {run_dir / 'table1.json'}: unprinted digits differ from {ref_dir / 'table1.json'} "
                               "(not a failure): 1 number(s) differ, largest 3e-06 at /results/wiki20/mean/js")
