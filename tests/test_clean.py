"""Cleaning rules: the paper's text rules of repro.words.text (number rule, characters), markup and paragraph split of repro.data.wikipedia.wikitext."""

import random

import pytest

from repro.data.wikipedia.wikitext import MIN_TOKENS, article_paragraphs, plain_paragraphs, split_paragraphs, strip_markup
from repro.words.text import NUMBER_RE, clean, replace_numbers


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1,234.5", "0"),
        ("1990s", "0s"),
        ("h2o", "h0o"),
        ("-3.5", "0"),
        ("+7", "0"),
        (".5", "0"),
        ("1990-2000", "00"),  # the second number takes the hyphen as its sign, as in the original
        ("pi is 3.14159, e is 2.718.", "pi is 0, e is 0."),  # [digits,]* comes before the dot only
        ("no digits, here.", "no digits, here."),
        ("a,,..5 b", "a0 b"),
    ],
)
def test_number_rule(text, expected):
    assert replace_numbers(text) == expected


def test_fast_number_rule_equals_the_plain_regex():
    rng = random.Random(0)
    for _ in range(20000):
        s = "".join(rng.choice("a1-+,. 9.x") for _ in range(rng.randint(0, 16)))
        assert replace_numbers(s) == NUMBER_RE.sub("0", s), s


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello, World!", "hello world"),
        ("It's 1,234.5 km (about 0.8 mi).", "it s 0 km about 0 mi"),
        ("Café in Zürich", "caf in z rich"),  # a non-ASCII character splits the word, as in the original
        ("snake_case  and\ttabs\nnewlines", "snake_case and tabs newlines"),
        ("H2O in the 1990s", "h0o in the 0s"),
        ("K-12 \u212a", "k0"),  # the Kelvin sign becomes a space, not a 'k'
        ("", ""),
    ],
)
def test_clean_text(text, expected):
    assert clean(text) == expected


def test_clean_output_alphabet():
    out = clean("Ünïcödé — “quotes” & <tags> 3½ ½ ² x²")
    assert set(out) <= set("abcdefghijklmnopqrstuvwxyz0123456789_ ")
    assert "  " not in out and out == out.strip()


WIKITEXT = """{{Infobox letter|name=Alpha|size={{convert|3|km}}}}
'''Alpha''' is a [[Greek alphabet|letter]] of the ''Greek'' alphabet.<ref>A source, 1999.</ref> It was used in 1,234.5 texts by the 1990s, like H2O.<!-- a hidden note -->

== History ==
The letter came from [[Phoenicia]]<ref name="x"/> about 3000 years ago, see [http://example.com the site] or http://example.org/page now.
It has a second line in the same paragraph.

[[File:Alpha.png|thumb|right|The [[letter]] alpha in a caption that is long]]
* a list item that is not a paragraph at all
* another list item with many words in it to drop
# numbered item also dropped here please
: an indented line of several words here
; definition term with words

{| class="wikitable"
|-
! Header one !! Header two
|-
| cell one || cell two with some words in it
|}
Short line.

Caf\u00e9 owners near Z\u00fcrich paid -3.5 or +7 euros &amp; more&nbsp;today for the game_show tickets.
Text before a list item continues here.
* the list ends the paragraph
Text after the list is a new paragraph of words.
[[Category:Letters]]
[[de:Alpha]]
__NOTOC__
"""


def test_split_paragraphs_drops_structure_and_joins_lines():
    paragraphs = split_paragraphs(WIKITEXT)
    assert paragraphs == [
        "Alpha is a letter of the Greek alphabet. It was used in 1,234.5 texts by the 1990s, like H2O.",
        "The letter came from Phoenicia about 3000 years ago, see the site or now. "
        "It has a second line in the same paragraph.",
        "Short line.",
        "Caf\u00e9 owners near Z\u00fcrich paid -3.5 or +7 euros & more today for the game_show tickets. "
        "Text before a list item continues here.",
        "Text after the list is a new paragraph of words.",
    ]


def test_article_paragraphs_exact_tokens():
    assert article_paragraphs(WIKITEXT) == [
        "alpha is a letter of the greek alphabet it was used in 0 texts by the 0s like h0o",
        "the letter came from phoenicia about 0 years ago see the site or now it has a second line in the same paragraph",
        "caf owners near z rich paid 0 or 0 euros more today for the game_show tickets text before a list item continues here",
        "text after the list is a new paragraph of words",
    ]


def test_min_tokens():
    text = "one two three four\n\none two three four five\n\nx"
    assert MIN_TOKENS == 5
    assert plain_paragraphs(text) == ["one two three four five"]
    assert plain_paragraphs(text, min_tokens=1) == ["one two three four", "one two three four five", "x"]


def test_markup_pieces():
    assert "caption" not in strip_markup("a [[File:x.jpg|thumb|a [[nested]] caption]] b")
    assert strip_markup("a {{outer|{{inner|x}}|y}} b") == "a  b"
    assert strip_markup("a <gallery>\nFile:x.jpg|cap\n</gallery> b") == "a  b"
    assert strip_markup("x <math>\\alpha^2</math> y").split() == ["x", "y"]
    assert strip_markup("[[Target page|shown words]] and [[plain link]]") == "shown words and plain link"
    # a table inside a template and a template inside a table both vanish
    assert strip_markup("s {{box|\n{|\n| c\n|}\n}} e").split() == ["s", "e"]
    assert strip_markup("{|\n| {{flag|x}} cell\n|-\n{|\n| inner\n|}\n|}\nafter").strip() == "after"
    # an unclosed template does not swallow the rest of the page
    assert "rest" in strip_markup("{{cite web\n|title=x\n\nthe rest of the page")


def test_headings_and_residue_lines_are_not_paragraphs():
    text = "==Heading==\n=== Sub heading ===\n|}\n{{\n}}\n! cell\n| cell"
    assert split_paragraphs(text) == []


def test_a_less_than_sign_never_swallows_paragraphs():
    """The audit's case: "a<b" and, two paragraphs later, "p>q" are text, not one tag."""
    text = ("In this paper a<b holds for many of the words here.\n\n"
            "Second paragraph has many more words than the first one did.\n\n"
            "Third: if p>q then we are done with it.")
    assert article_paragraphs(text) == [
        "in this paper a b holds for many of the words here",
        "second paragraph has many more words than the first one did",
        "third if p q then we are done with it",
    ]


@pytest.mark.parametrize("wikitext, plain", [
    ('x <span style="color:red">red</span> y', "x red y"),
    ("x <div class=box>boxed</div> y", "x boxed y"),
    ("x <sup>2</sup> <small title='t'>s</small> y", "x 2 s y"),
    ("if x<y and z>w then", "if x<y and z>w then"),  # not a tag: no name=value attributes
    ("x <y>z</y> w", "x <y>z</y> w"),  # unknown names are shown as text by MediaWiki
    ("a <span\nstyle='c'>b</span> c", "a <span\nstyle='c'>b c"),  # a tag lies on one line
])
def test_tags_are_known_names_with_attributes_on_one_line(wikitext, plain):
    assert strip_markup(wikitext) == plain
