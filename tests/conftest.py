"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest

from wikixml import export_xml


@pytest.fixture(scope="session")
def make_export_xml():
    """:func:`export_xml` as a fixture, for fixtures of any scope."""
    return export_xml
