"""The two tiers of the suite (make test, make test-slow): conftest marks slow every test that uses a
module fixture running a whole chain (CHAIN_FIXTURES), and pytest's -m selects by that mark (issue 45)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from types import SimpleNamespace

from conftest import CHAIN_FIXTURES, chain_tests

HERE = pathlib.Path(__file__).parent


def _item(file, fixtures):
    return SimpleNamespace(nodeid=f"tests/{file}::t{len(fixtures)}", path=pathlib.Path("tests") / file,
                           fixturenames=list(fixtures))


def test_the_chain_tests_are_those_that_use_a_chain_fixture_of_their_file():
    items = [_item("test_table2_chain.py", ["workspace", "tmp_path"]), _item("test_table2_chain.py", ["tmp_path"]),
             _item("test_other.py", ["chain", "x", "y"]),  # another file's fixture of that name
             _item("test_table1_chain.py", ["chain", "monkeypatch", "tmp_path", "capsys"]),
             _item("test_reprocheck.py", ["reduced", "a", "b", "c", "d"])]
    assert [i.nodeid for i in chain_tests(items)] == ["tests/test_table2_chain.py::t2", "tests/test_table1_chain.py::t4",
                                                      "tests/test_reprocheck.py::t5"]


def test_every_chain_fixture_exists_in_its_file():
    """A renamed fixture would silently leave its tests in the fast tier."""
    for name, fixtures in CHAIN_FIXTURES.items():
        text = (HERE / name).read_text()
        for f in fixtures:
            assert f"@pytest.fixture(scope=\"module\")\ndef {f}(" in text, (name, f)


def test_the_marks_reach_pytest_s_selection(pytestconfig):
    """Collected as make test and make test-slow select them: the chain files' tests split into the
    two tiers by the fixtures they use, and none is in both or neither."""
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))
    files = [str(HERE / name) for name in CHAIN_FIXTURES]

    def collected(mark):
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=", "-p", "no:xdist", "-p",
                              "no:cacheprovider", "-m", mark, *files], cwd=HERE.parent, capture_output=True, text=True,
                             env={**os.environ, "PYTEST_ADDOPTS": ""})
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
        return {line.split("[")[0] for line in out.stdout.splitlines() if "::" in line}

    slow, fast = collected("slow"), collected("not slow")
    assert not slow & fast
    assert "tests/test_table2_chain.py::test_make_table2_end_to_end" in slow
    assert "tests/test_table2_chain.py::test_make_table2_bad_input" in slow  # parametrized: every case
    assert "tests/test_reprocheck.py::test_every_promised_stage_has_the_committed_checksums" in slow
    assert "tests/test_table1_chain.py::test_table_has_every_row_and_column" in slow
    assert {"tests/test_table2_chain.py::test_three_columns_and_the_papers_table_has_only_its_own",
            "tests/test_reprocheck.py::test_a_models_digest_leaves_out_its_timings",
            "tests/test_table1_chain.py::test_cli_reports_bad_input"} <= fast
