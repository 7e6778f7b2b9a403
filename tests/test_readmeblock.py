"""repro.io.readmeblock: the one writer of the generated blocks of README.md and docs/*.md."""

from __future__ import annotations

import pytest

from repro.errors import InputError
from repro.io.readmeblock import ReadmeBlock, readme_markers, short_commit


def test_markers_and_commit():
    assert readme_markers("bench") == ("<!-- bench:start -->", "<!-- bench:end -->")
    assert short_commit("0123456789abcdef0123") == "0123456789ab"
    assert short_commit("0123456789abcdef0123+dirty") == "0123456789ab+dirty"


def test_two_blocks_of_one_file_filled_in_turn(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("head\n<!-- a:start -->\nold a\n<!-- a:end -->\nmid\n<!-- b:start -->old b<!-- b:end -->\ntail\n")
    a, b = ReadmeBlock(str(doc), "a"), ReadmeBlock(str(doc), "b")
    a.fill("<!-- a:start -->NEW A<!-- a:end -->")
    b.fill_body("new b")  # reads the file as a left it
    assert doc.read_text() == ("head\n<!-- a:start -->NEW A<!-- a:end -->\nmid\n<!-- b:start -->\nnew b\n"
                               "<!-- b:end -->\ntail\n")


def test_the_first_file_holding_the_block_is_the_one(tmp_path):
    first, second = tmp_path / "README.md", tmp_path / "docs.md"
    first.write_text("no block\n")
    second.write_text("x <!-- t:start -->old<!-- t:end --> y")
    block = ReadmeBlock([str(first), str(second)], "t")
    assert block.path == str(second) and block.link(str(tmp_path / "out" / "t.md")) == "out/t.md"
    block.fill_body("new")
    assert second.read_text() == "x <!-- t:start -->\nnew\n<!-- t:end --> y" and first.read_text() == "no block\n"


def test_a_missing_block_is_named_before_anything_is_written(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- a:start --> only a start\n")
    with pytest.raises(InputError, match=r"doc\.md: no <!-- a:start --> \.\.\. <!-- a:end --> block to fill"):
        ReadmeBlock(str(doc), "a")
    assert doc.read_text() == "<!-- a:start --> only a start\n"
