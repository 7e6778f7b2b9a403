"""``repro similarity``: scores of two texts, or of every couple of a TSV (minus the Euclidean distance, eq. 2, or the cosine).

    repro similarity "first text" "second text" --vectors glove300/ --df df.npz
    repro similarity "first text" "second text" --vectors glove300/ --df df.npz --metric cosine
    repro similarity --couples couples.tsv --model enc.npz --out scores.txt

Higher is more related: minus the Euclidean distance of the two text vectors (the paper's score;
its scale follows the weights', only the order means something), or their cosine in [-1, 1] with
``--metric cosine`` (0 for a text without a known word); by default the metric that ``--model``
records, or the shipped model's: the cosine for ``--pretrained default`` (the default) and ``best`` (the
learned family's winner), the Euclidean distance for ``--pretrained paper``. A couples
file holds ``text_a<TAB>text_b`` lines (a third label column is ignored) or JSON lines with
"a" and "b"; the scores go to ``--out`` (one per line) or to standard output, and nothing
else is printed unless a text has no known word (a warning) or a step is slow (a bar).
"""

from __future__ import annotations

import argparse
import sys
import warnings

from repro.io import store
from repro.errors import InputError, run
from repro.commands.options import add_encoder_options, add_metric_option, encoder_from, report_warnings


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="repro similarity", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("texts", nargs="*", help="two texts (or use --couples)")
    ap.add_argument("--couples", help="a TSV (or .jsonl) of couples")
    ap.add_argument("--out", help="where to write the scores of --couples (default: standard output)")
    add_metric_option(ap)
    add_encoder_options(ap)
    args = ap.parse_args(argv)
    if bool(args.couples) == bool(args.texts) or (args.texts and len(args.texts) != 2):
        raise InputError("similarity", "give two texts, or --couples FILE")
    couples = store.read_couples(args.couples, labels=False)[0] if args.couples else [tuple(args.texts)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc = encoder_from(args)
        scores = enc.similarity([a for a, _ in couples], [b for _, b in couples])
    report_warnings(caught)
    text = "".join(f"{s:.6f}\n" for s in scores)
    if args.out:
        store.write_text(args.out, text)
        print(f"similarity: {len(scores):,} scores -> {args.out}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
