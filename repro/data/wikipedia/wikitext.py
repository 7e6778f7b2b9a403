"""Wikitext to clean paragraphs (paper, section 4.1; original code's ``clean.pyx``).

Three pure steps, each importable and tested on its own:

* :func:`strip_markup` removes wiki markup, outermost structures first: comments;
  ``<ref>``, ``<math>``, ``<gallery>``, ``<pre>`` and similar elements with their content;
  nested templates (innermost first); tables, line by line and nested too; file and image
  links with their captions; interlanguage links; magic words; bare URLs; bold and italic
  quotes. Then HTML entities are decoded and the inline markup goes, repeated until nothing
  changes: remaining tags, category links, external links (their description is kept),
  internal links (their label is kept); leftover brackets last. This is what gensim's
  :func:`gensim.corpora.wikicorpus.filter_wiki` does, plus what it misses or gets wrong (it
  keeps captions, table cells, interlanguage links and magic words, drops the rest of a page
  after an unclosed template, and takes any ``<`` ... ``>`` for a tag, so that a "<10 ppm"
  can delete the paragraphs up to the next ``>``; here a tag is a name MediaWiki knows with
  ``name=value`` attributes, on one line). Its code is not used: 70% of its time goes
  into three table expressions with look-behinds tried at every character and into a
  character-by-character template scanner, and importing gensim takes a second or more.
* :func:`split_paragraphs` cuts the markup-free text into paragraphs: blocks of text lines
  separated by blank lines. Headings (``== x ==``), list items (``*``, ``#``), indented and
  definition lines (``:``, ``;``) and table or template residue (``|``, ``!``, ``{``, ``}``)
  are dropped and also end the current paragraph, as they do in rendered MediaWiki. Lines of
  one block are joined with a space (a single newline does not end a wiki paragraph).
* :func:`repro.words.text.clean` applies the paper's text rules, which live in :mod:`repro.words.text`
  because the tweet stage and the encoder apply them too: lower case, the number rule
  (:data:`repro.words.text.NUMBER_RE`), every character outside ``[a-z0-9_]`` becomes a space,
  whitespace collapsed.

:func:`article_paragraphs` chains the three and drops paragraphs of fewer than
:data:`MIN_TOKENS` tokens.
"""

from __future__ import annotations

import html
import re

from repro.words.text import clean

#: Paragraphs with fewer cleaned tokens are dropped. What falls below 5 tokens after the
#: markup and line rules is nearly always residue (a lone caption, a signature, "0 0" left
#: from a formula, a one-word line); a related pair needs at least 2 x 10 + 2 tokens anyway,
#: and such lines would only inflate N, the number of documents behind idf.
MIN_TOKENS = 5


# ---- block markup, removed first --------------------------------------------------------------
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_REF_SELF = re.compile(r"<ref\b[^>]*?/>", re.IGNORECASE)
_REF_BLOCK = re.compile(r"<ref\b[^>]*>.*?</ref\s*>", re.IGNORECASE | re.DOTALL)
_CONTENT_TAGS = (
    "math|gallery|pre|source|syntaxhighlight|timeline|score|imagemap|chem|ce|hiero|graph|"
    "mapframe|maplink|templatedata|inputbox|categorytree"
)
_TAG_BLOCK = re.compile(
    rf"<({_CONTENT_TAGS})\b[^>]*?(?:/>|>.*?</\1\s*>)", re.IGNORECASE | re.DOTALL
)
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_STRAY_BRACES = re.compile(r"\{\{|\}\}")
_TABLE_OPEN = re.compile(r"^[\s:]*\{\|")
_TABLE_CLOSE = re.compile(r"^\s*\|\}")
_FILE_START = re.compile(r"\[\[\s*(?:file|image|media)\s*:", re.IGNORECASE)
_BRACKETS = re.compile(r"\[\[|\]\]|\n")
_INTERLANGUAGE = re.compile(r"\[\[[a-z]{2,3}(?:-[a-z]+)*:[^\[\]\n]*\]\]")
_MAGIC_WORD = re.compile(r"__[A-Z]+__")
_BOLD_ITALIC = re.compile(r"'{2,}")
_BARE_URL = re.compile(r"(?<![\[=/\w])(?:https?|ftp)://[^\s\]\[|<>\"]+")

# inline markup, removed in a loop until nothing changes (a link may sit in another's label)
_LINE_BREAK_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)
#: Tags MediaWiki renders as markup: its HTML whitelist and its common extension tags. Any other
#: "<name ...>" is shown as text by MediaWiki, so it is text here too.
_TAG_NAMES = (
    "abbr|b|bdi|bdo|big|blockquote|br|caption|center|cite|code|data|dd|del|dfn|div|dl|dt|em|font|"
    "h[1-6]|hr|i|ins|kbd|li|link|mark|meta|ol|p|pre|q|rb|rp|rt|rtc|ruby|s|samp|small|span|strike|"
    "strong|sub|sup|table|td|th|time|tr|tt|u|ul|var|wbr|"
    "ref|references|nowiki|poem|includeonly|noinclude|onlyinclude|section|templatestyles|indicator|"
    "charinsert"
)
#: A tag: a known name, then attributes of the form name=value, all on one line. So "a<b holds
#: ... p>q", "< 5 ppm" or "x<y and z>w" are text, and no tag can swallow a paragraph break.
_ANY_TAG = re.compile(
    rf"</?(?:{_TAG_NAMES})(?:[ \t]+[\w:.-]+[ \t]*=[ \t]*(?:\"[^\"\n<>]*\"|'[^'\n<>]*'|[^\s\"'<>]+))*[ \t]*/?>",
    re.IGNORECASE,
)
_CATEGORY = re.compile(r"\[\[\s*category\s*:[^\[\]]*\]\]", re.IGNORECASE)
_EXTERNAL_LINK = re.compile(r"\[(?:[a-z][a-z0-9+.-]*:)?//[^\s\[\]]*\s*([^\[\]]*)\]", re.IGNORECASE)
_PIPED_LINK = re.compile(r"\[\[[^\[\]|]*\|([^\[\]]*)\]\]")
_PLAIN_LINK = re.compile(r"\[\[([^\[\]|]*)\]\]")
_INLINE_STEPS = ((_ANY_TAG, ""), (_CATEGORY, ""), (_EXTERNAL_LINK, r"\1"), (_PIPED_LINK, r"\1"), (_PLAIN_LINK, r"\1"))

# ---- line classes after markup removal ----------------------------------------------------------
_STRUCTURAL_START = tuple("*#:;|!{}")


def _remove_templates(text: str) -> str:
    """Remove ``{{...}}`` templates, nested ones included, innermost first."""
    while "{{" in text:
        text, n = _TEMPLATE.subn("", text)
        if not n:
            break
    return text


def _remove_tables(text: str) -> str:
    """Drop every line of a ``{| ... |}`` table, nested tables included."""
    if "{|" not in text:
        return text
    kept, depth = [], 0
    for line in text.split("\n"):
        if _TABLE_OPEN.match(line):
            depth += 1
        elif depth and _TABLE_CLOSE.match(line):
            depth -= 1
        elif not depth:
            kept.append(line)
    return "\n".join(kept)


def _remove_file_links(text: str) -> str:
    """Remove ``[[File:...]]`` / ``[[Image:...]]`` links with their captions (nested links too).

    An unclosed one is removed up to the end of its line.
    """
    if "[[" not in text:
        return text
    parts, pos = [], 0
    while True:
        m = _FILE_START.search(text, pos)
        if m is None:
            break
        parts.append(text[pos : m.start()])
        depth, end = 1, len(text)
        for b in _BRACKETS.finditer(text, m.end()):
            tok = b.group()
            if tok == "\n" and depth == 1:  # captions never span lines at top level
                end = b.start()
                break
            if tok == "[[":
                depth += 1
            elif tok == "]]":
                depth -= 1
                if depth == 0:
                    end = b.end()
                    break
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def strip_markup(wikitext: str) -> str:
    """Wikitext to plain text with line structure kept (headings and list markers survive)."""
    text = _COMMENT.sub("", wikitext)
    text = _REF_SELF.sub("", text)
    text = _REF_BLOCK.sub("", text)
    text = _TAG_BLOCK.sub("", text)
    text = _remove_templates(text)
    text = _remove_tables(text)
    text = _remove_templates(text)  # templates that held a table
    text = _STRAY_BRACES.sub("", text)  # an unclosed template keeps its text, not the rest of the page
    text = _remove_file_links(text)
    text = _INTERLANGUAGE.sub("", text)
    text = _MAGIC_WORD.sub("", text)
    text = _BARE_URL.sub("", text)
    text = _BOLD_ITALIC.sub("", text)
    text = html.unescape(text)  # '&amp;nbsp;' arrives as '&nbsp;' and becomes a no-break space
    text = _LINE_BREAK_TAG.sub(" ", text)
    for _ in range(5):
        old = text
        for pattern, repl in _INLINE_STEPS:
            text = pattern.sub(repl, text)
        if text == old:
            break
    return text.replace("[", "").replace("]", "")


def is_structural(line: str) -> bool:
    """True for a stripped line that is a heading, list item, indented line or table/template residue."""
    return line.startswith(_STRUCTURAL_START) or (line.startswith("=") and line.endswith("="))


def split_text_blocks(text: str) -> list[str]:
    """Markup-free text to paragraphs: blank lines and structural lines end a paragraph.

    The lines of one paragraph are joined and all whitespace runs (no-break spaces included)
    become single spaces; structural lines are dropped.
    """
    paragraphs, current = [], []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or is_structural(line):
            if current:
                paragraphs.append(" ".join(" ".join(current).split()))
                current = []
            continue
        current.append(line)
    if current:
        paragraphs.append(" ".join(" ".join(current).split()))
    return paragraphs


def split_paragraphs(wikitext: str) -> list[str]:
    """Wikitext to its text paragraphs (markup removed, not yet lower-cased or tokenised)."""
    return split_text_blocks(strip_markup(wikitext))


def keep_cleaned(paragraphs, min_tokens: int = MIN_TOKENS) -> list[str]:
    """Clean each paragraph and keep those of at least ``min_tokens`` tokens."""
    out = []
    for p in paragraphs:
        c = clean(p)
        if c and c.count(" ") + 1 >= min_tokens:
            out.append(c)
    return out


def article_paragraphs(wikitext: str, min_tokens: int = MIN_TOKENS) -> list[str]:
    """Wikitext of one article to its cleaned paragraphs of at least ``min_tokens`` tokens."""
    return keep_cleaned(split_paragraphs(wikitext), min_tokens)


def plain_paragraphs(text: str, min_tokens: int = MIN_TOKENS) -> list[str]:
    """Plain text (no markup, e.g. a lead section) to cleaned paragraphs, same rules."""
    return keep_cleaned(split_text_blocks(text), min_tokens)
