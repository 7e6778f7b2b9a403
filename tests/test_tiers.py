"""The two tiers of the suite (make test, make test-slow): a test that runs a whole chain is marked
slow, and conftest refuses one that uses a chain's fixture unmarked (issue 45)."""

from __future__ import annotations

import pathlib
from types import SimpleNamespace

from conftest import CHAIN_FIXTURES, unmarked_chain_tests


def _item(file, fixtures, slow):
    mark = SimpleNamespace(name="slow") if slow else None
    return SimpleNamespace(nodeid=f"tests/{file}::t", path=pathlib.Path("tests") / file, fixturenames=list(fixtures),
                           get_closest_marker=lambda name: mark if name == "slow" else None)


def test_a_chain_fixture_without_the_mark_is_named():
    items = [_item("test_table2_chain.py", ["workspace", "tmp_path"], slow=False),  # unmarked: named
             _item("test_table2_chain.py", ["table2"], slow=True),
             _item("test_table2_chain.py", ["tmp_path"], slow=False),  # no chain: the fast tier
             _item("test_other.py", ["chain"], slow=False),  # another file's fixture of that name
             _item("test_table1_chain.py", ["chain", "monkeypatch"], slow=False),
             _item("test_reprocheck.py", ["reduced"], slow=False),
             _item("test_reprocheck.py", ["reduced"], slow=True)]
    assert unmarked_chain_tests(items) == ["tests/test_table2_chain.py::t", "tests/test_table1_chain.py::t",
                                           "tests/test_reprocheck.py::t"]


def test_every_chain_fixture_exists_in_its_file():
    """A renamed fixture would silently leave its tests in the fast tier."""
    here = pathlib.Path(__file__).parent
    for name, fixtures in CHAIN_FIXTURES.items():
        text = (here / name).read_text()
        for f in fixtures:
            assert f"@pytest.fixture(scope=\"module\")\ndef {f}(" in text, (name, f)


def test_the_slow_marker_is_registered(pytestconfig):
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))
