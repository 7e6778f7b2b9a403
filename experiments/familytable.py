"""The learned family's own table (not in the paper): every member of :mod:`repro.family` in every
column of a table, under both metrics, against the best peer.

Each member's split error on the test couples takes its threshold from the validation couples,
as every row of the tables; its validation split error (the threshold and the error both on the
validation couples) is the number the row "learned weights, best transform (validation)" chose
by; the paired cluster-bootstrap difference against the best peer (the peer of the lowest test
split error, as in the tables' verdicts) uses the same 2,000 resamples of the couples' units.
"""

from __future__ import annotations

from repro import family, report, settings
from repro.readmeblock import readme_markers, short_commit

NAMES = tuple(settings.family_method(m.key) for m in family.members())


def evaluate(files: dict, metric: str) -> dict:
    """{column: {row: result}} of the peers and every member under ``metric`` (each score file of
    ``files`` loaded with :func:`load_names`'s names)."""
    rows = settings.PEERS + NAMES
    return {s: report.evaluate(report.table_scores(z, metric, rows), rows, reference=None, ours=NAMES)
            for s, z in files.items()}


def load_names() -> list[str]:
    """The score names the family table reads: the peers' and every member's, under both metrics."""
    return [f"{m}@{metric}" for m in settings.PEERS + NAMES for metric in settings.TABLE_METRICS]


def _cell(r: dict, validation_error: float, chosen: bool) -> str:
    mark = "**" if chosen else ""
    return (f"{mark}{100 * validation_error:.2f}%{mark} | {100 * r['split_error']:.2f}% | "
            f"{report.points(r['boot_diff_vs_best_peer'])}")


def markdown(results: dict, chosen: dict, validation: dict, titles: dict) -> str:
    """One table of a metric: a row per member, per column its validation split error (``validation``
    {column: {member key: error}}; bold: the member ``chosen`` {column: key}), test split error and
    difference from the best peer in points (95% interval)."""
    cols = list(results)
    lines = ["| Learned weights (median loss) | " + " | ".join(
        f"{titles[s]}: validation | test | vs best peer" for s in cols) + " |",
        "|---|" + "---:|---:|---:|" * len(cols)]
    for m in family.members():
        name = settings.family_method(m.key)
        lines.append(f"| {m.label} | " + " | ".join(
            _cell(results[s][name], validation[s][m.key], chosen[s] == m.key) for s in cols) + " |")
    return ("\n".join(lines) + "\n\nBest peer (lowest test split error): "
            + report.best_peers(results, titles, NAMES[0]) + ".\n")


def body(number: int, md: dict, prov: dict) -> str:
    """The family text of table ``number`` (``results/table<N>_family.md``, and the block of
    docs/RESULTS.md between its markers): both metrics' tables."""
    lines = [f"Made by `make table{number}` (commit `{short_commit(prov['commit'])}`), "
             f"`results/table{number}_family.md`. Validation: the split error on the validation couples, by which "
             "the row \"learned weights, best transform (validation)\" chose the member in bold (per column and "
             "metric); test: the split error on the test couples at the validation threshold; vs best peer: the "
             "difference of test split errors in points, member minus the best peer, with the paired 95% interval "
             "of the cluster bootstrap (2,000 resamples of articles or tweet components).", ""]
    for metric, text in md.items():
        lines += [f"**Scored by {'minus the Euclidean distance' if metric == 'euclidean' else 'the cosine'}:**", "",
                  text]
    return "\n".join(lines)


def block(number: int, text: str) -> str:
    """:func:`body`'s ``text`` between the ``family-table<N>`` markers."""
    start, end = readme_markers(f"family-table{number}")
    return "\n".join([start, "", text, end])


def tables(files: dict, meta: dict, titles: dict) -> dict:
    """{metric: markdown} of the family table from the score files ``files`` and the family part of
    their JSON, ``meta`` {column: {"chosen": ..., "validation_split_error": ...}}, both written by
    :func:`experiments.score.family_scores`."""
    out = {}
    for metric in settings.TABLE_METRICS:
        out[metric] = markdown(evaluate(files, metric), {s: meta[s]["chosen"][metric]["member"] for s in files},
                               {s: meta[s]["validation_split_error"][metric] for s in files}, titles)
    return out
