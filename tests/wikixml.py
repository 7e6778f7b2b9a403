"""MediaWiki export XML that the tests write themselves (pages as tuples)."""

from __future__ import annotations

from xml.sax.saxutils import escape

HEADER = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">
  <siteinfo>
    <sitename>Test</sitename>
    <namespaces>
      <namespace key="0" case="first-letter" />
      <namespace key="4" case="first-letter">Wikipedia</namespace>
      <namespace key="10" case="first-letter">Template</namespace>
    </namespaces>
  </siteinfo>
"""


def page_xml(title, ns, pid, redirect, text):
    red = f'    <redirect title="{escape(text.split("[[")[-1].rstrip("]"))}" />\n' if redirect else ""
    return (f"  <page>\n    <title>{escape(title)}</title>\n    <ns>{ns}</ns>\n    <id>{pid}</id>\n{red}"
            f"    <revision>\n      <id>{pid}00</id>\n      <model>wikitext</model>\n"
            f'      <text xml:space="preserve">{escape(text)}</text>\n    </revision>\n  </page>\n')


def export_xml(pages) -> str:
    """A MediaWiki export of ``pages``: (title, ns, page id, is redirect, wikitext) tuples."""
    return HEADER + "".join(page_xml(*p) for p in pages) + "</mediawiki>\n"
