"""The learned family's own table (not in the paper): every member of :mod:`repro.evaluate.family` in every
column of a table, under both metrics, against the best peer.

Each member's split error on the test couples takes its threshold from the validation couples,
as every row of the tables; its validation split error (the threshold and the error both on the
validation couples) is the number the row "learned weights, best transform (validation)" chose
by; the paired cluster-bootstrap difference against the best peer (the peer of the lowest test
split error, as in the tables' verdicts) uses the same 2,000 resamples of the couples' units.
"""

from __future__ import annotations

from repro import settings
from repro.evaluate import family, report
from repro.io.readmeblock import readme_markers, short_commit

#: Every member's score name: the word family's, then those on WordLlama's token space (repro.evaluate.tokentables).
NAMES = tuple(settings.family_method(k) for k in family.keys())


def evaluate(files: dict, metric: str) -> dict:
    """{column: {row: result}} of the peers and every member under ``metric`` (each score file of
    ``files`` loaded with :func:`load_names`'s names)."""
    rows = settings.RIVALS + NAMES
    return {s: report.evaluate(report.table_scores(z, metric, rows), rows, reference=None, ours=NAMES)
            for s, z in files.items()}


def load_names() -> list[str]:
    """The score names the family table reads: the peers' and every member's, under both metrics."""
    return [f"{m}@{metric}" for m in settings.RIVALS + NAMES for metric in settings.TABLE_METRICS]


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
    for key in family.keys():
        name = settings.family_method(key)
        lines.append(f"| {family.member(key).label} | " + " | ".join(
            _cell(results[s][name], validation[s][key], chosen[s] == key) for s in cols) + " |")
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
    lines += kappa_lines(prov.get("family_kappas") or {})
    return "\n".join(lines)


def kappa_lines(kappas: dict) -> list[str]:
    """One line per family (``kappas`` {setting: {member key: summary}}, :func:`kappas`): each
    member's kappa and how it was had; a search whose winner sat at the grid's edge names the
    kappas it went on to (†), a flat one (every mean held-out error within the winner's fold
    spread) is marked ~."""
    lines = []
    for s, members in kappas.items():
        title = settings.SETTINGS[s].title if s in settings.SETTINGS else s
        parts, sources = [], {m["source"] for m in members.values()}
        for key, m in members.items():
            mark = (f" † (searched on to {', '.join(f'{k:g}' for k in m['extended'])})" if m.get("extended") else "") + \
                (" ~" if m.get("flat") else "")
            parts.append(f"{family.short_name(key)}/{'1 - cos' if key.endswith('-cosine') else 'Euclidean'} {m['kappa']:g}{mark}")
        how = ("by 5-fold CV over the family's grid" if sources == {"cv"} else
               "each member's the wikivar family's, as the tweets' median models take the wikivar model's"
               if sources == {"model"} else "from " + ", ".join(sorted(sources)))
        lines += ["", f"Kappa of the {title} family, {how}: " + "; ".join(parts) + "."
                  + (" †: the grid's edge won, and the search went on beyond it (repro.core.crossval.beyond_edge)."
                     if any(m.get("extended") for m in members.values()) else "")
                  + (" ~: flat, every kappa's mean held-out error within the winner's fold spread (kappa undetermined)."
                     if any(m.get("flat") for m in members.values()) else "")]
    return lines


def kappas(layout, settings_: list) -> dict:
    """{setting: {member key: {"kappa", "source", "extended", "flat"}}} of the families of
    ``settings_`` (their model files under ``layout``), for :func:`kappa_lines`."""
    from repro.io import store
    import os

    from experiments import tokenrows

    out = {}
    for s in settings_:
        members = {}
        for key in family.keys():
            path = tokenrows.family_path(layout, s, key) if key.startswith(family.TOKEN_PREFIX) else layout.family(s, key)
            if not os.path.exists(path):
                continue
            summary = store.load_model(path).summary()
            members[key] = {"kappa": summary["kappa"], "source": summary["kappa_source"],
                              "extended": summary.get("cv_extended", []), "flat": summary.get("cv_flat", False)}
        if members:
            out[s] = members
    return out


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
