"""Evaluation of score files into table rows, and the rows into Markdown and LaTeX."""

from __future__ import annotations

import numpy as np

from repro.core import metrics
from repro.settings import GROUPS, LABELS, METHODS, OURS, PEER_FAMILY, RIVALS, row_metric, score_key


def table_scores(z, metric: str, methods=METHODS) -> dict:
    """The scores of a score file (:func:`repro.io.store.load_scores`) that the table of ``metric``
    reads, keyed ``<split>_<method>`` (each row under :func:`repro.settings.row_metric`), with the
    labels and bootstrap groups."""
    out = {k: z[k] for k in z if k.endswith("_label") or k.endswith("_group")}
    for split in ("validation", "test"):
        for m in methods:
            out[f"{split}_{m}"] = z[score_key(split, m, row_metric(m, metric))]
    return out


def _plain(d: metrics.PairedDiff) -> dict:
    return {"difference": d.difference, "low": d.low, "high": d.high, "p_value": d.p_value}


def evaluate(scores: dict, methods=METHODS, reference: str | None = "learned_median", ours=OURS) -> dict:
    """Per method: split error, threshold, JS divergence, error counts, the 95% intervals of the
    split error (exact binomial; cluster bootstrap over the test couples' units), the binomial
    test p-value of ``reference`` against it (paper, section 5.3), the exact McNemar p-value on
    the same test couples, and paired cluster-bootstrap differences of split error against
    ``reference`` and against the best row (the lowest split error); the rows of ``ours`` also
    against the peer family's row (chosen on validation, as ours are: ``boot_diff_vs_peer_family``)
    and against the best peer by test error (the rival of the lowest test split error:
    ``boot_diff_vs_best_peer``). Couples of one unit (``test_group``: an article, a component of related tweets)
    are resampled together; without groups every couple is its own unit. Every interval comes
    from the same 2,000 resamples (seed 0)."""
    methods = tuple(methods)
    rows, wrong = {}, {}
    labels = scores["test_label"]
    groups = scores.get("test_group")
    for m in methods:
        sp = metrics.split(scores[f"validation_{m}"], scores["validation_label"],
                           scores[f"test_{m}"], labels)
        js = metrics.js_divergence(scores[f"validation_{m}"], scores[f"test_{m}"], labels)
        n = sp.n_related + sp.n_unrelated
        wrong[m] = sp.wrong
        rows[m] = {"split_error": sp.error, "threshold": sp.threshold, "js": js,
                   "test_errors": sp.errors, "test_pairs": n, "split_error_ci95": metrics.binomial_ci(sp.errors, n)}
    e = metrics.bootstrap_split_errors(np.stack([wrong[m] for m in methods]), labels, groups)  # (n_boot, K)
    for k, m in enumerate(methods):
        lo, hi = np.quantile(e[:, k], [0.025, 0.975])
        rows[m]["split_error_boot95"] = (float(lo), float(hi))
    _, n_rel, n_unrel = metrics.bootstrap_units(labels, groups)
    clusters = metrics.effective_clusters(labels, groups)
    best = min(methods, key=lambda m: (rows[m]["split_error"], methods.index(m)))
    peers = [m for m in RIVALS if m in rows]
    top = min(peers, key=lambda m: (rows[m]["split_error"], peers.index(m))) if peers else None
    family = next((m for m in PEER_FAMILY if m in rows), None)  # chosen on validation, like ours
    ref = rows.get(reference) if reference else None
    asks = [(m, best, "boot_diff_vs_best") for m in methods if m != best]  # (row, against, key)
    if ref is not None:
        asks += [(m, reference, "boot_diff_vs_" + reference) for m in methods if m != reference]
    if top is not None:
        asks += [(m, top, "boot_diff_vs_best_peer") for m in ours if m in rows]
    if family is not None:
        asks += [(m, family, "boot_diff_vs_peer_family") for m in ours if m in rows]
    diffs = metrics.paired_bootstraps(np.stack([wrong[a] for a, _, _ in asks]), np.stack([wrong[b] for _, b, _ in asks]),
                                      labels, groups) if asks else []
    for m, r in rows.items():
        r["boot_units"] = {"related": int(n_rel), "unrelated": int(n_unrel), "effective_clusters": clusters}
        r["best"] = m == best
        r["boot_diff_vs_best"] = None
        if not reference:
            continue
        r["boot_diff_vs_" + reference] = None
        r["p_value_vs_" + reference] = None if (ref is None or m == reference) else metrics.binomial_test(
            r["test_errors"], r["test_pairs"], ref["test_errors"], ref["test_pairs"])
        if ref is not None and m != reference:
            p, only_m, only_ref = metrics.mcnemar_test(wrong[m], wrong[reference])
            r["mcnemar_p_vs_" + reference] = p
            r["mcnemar_discordant_vs_" + reference] = {"only_this_wrong": only_m, f"only_{reference}_wrong": only_ref}
        else:
            r["mcnemar_p_vs_" + reference] = None
    for (m, against, key), d in zip(asks, diffs):
        rows[m][key] = _plain(d)
    for m in ours:
        if m in rows and top is not None:
            rows[m]["best_peer"] = top
        if m in rows and family is not None:
            rows[m]["peer_family"] = family
    return rows


def _best(results: dict, setting: str, key: str, lower: bool):
    vals = {m: r[key] for m, r in results[setting].items()}
    target = min(vals.values()) if lower else max(vals.values())
    return {m for m, v in vals.items() if np.isclose(v, target, rtol=0, atol=1e-12)}


def _bests(results: dict) -> dict:
    return {s: (_best(results, s, "split_error", True), _best(results, s, "js", False)) for s in results}


def interval_columns(results: dict, ci: bool) -> list[tuple[str, str]]:
    """(key, column title) of the intervals every row of every setting has, when ``ci``."""
    if not ci:
        return []
    keys = [("split_error_ci95", "95% CI"), ("split_error_boot95", "bootstrap 95%")]
    return [(k, t) for k, t in keys if all(k in r for res in results.values() for r in res.values())]


def _cells(results: dict, m: str, best: dict, percent: str, bold, intervals=()) -> list[str]:
    """Split error (with its intervals, ``(key, title)`` pairs) and JS cells of method ``m`` in
    every setting, the best ones in ``bold``."""
    cells = []
    for s, res in results.items():
        e, j = f"{100 * res[m]['split_error']:.2f}{percent}", f"{res[m]['js']:.4f}"
        cells.append(bold(e) if m in best[s][0] else e)
        for key, _ in intervals:
            lo, hi = res[m][key]
            cells.append(f"{100 * lo:.1f}–{100 * hi:.1f}{percent}")
        cells.append(bold(j) if m in best[s][1] else j)
    return cells


def markdown(results: dict, titles: dict, ci: bool = False) -> str:
    """The paper's table layout: split error (%) and JS divergence per setting, best in bold;
    with ``ci``, each split error's 95% confidence interval beside it."""
    settings = list(results)
    intervals = interval_columns(results, ci)
    kinds = ["split error"] + [t for _, t in intervals] + ["JS"]
    head = "| Method | " + " | ".join(f"{titles[s]}: {k}" for s in settings for k in kinds) + " |"
    lines = [head, "|---|" + "---:|" * (len(kinds) * len(settings))]
    best = _bests(results)
    for m in METHODS:
        cells = _cells(results, m, best, "%", lambda x: f"**{x}**", intervals)
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def points(d: dict) -> str:
    """A paired difference in percentage points with its interval: ``+1.23 (-0.50 to +2.96)``."""
    return f"{100 * d['difference']:+.2f} ({100 * d['low']:+.2f} to {100 * d['high']:+.2f})"


def _bootstrap_p(p: float, n_boot: int = 2000) -> str:
    """A bootstrap p-value as printed: below its resolution 1 / n_boot it is "< 0.0005" (2,000
    resamples), not 0."""
    return f"< {1 / n_boot:.2g}" if p < 1 / n_boot else f"{p:.2g}"


def pvalues_markdown(results: dict, titles: dict, reference: str = "learned_median") -> str:
    """Every row against ``reference``: the paper's binomial test and the exact McNemar test
    (both take the test couples as independent), and the paired cluster bootstrap (the same
    resamples of the couples' units for both rows): the difference of split error, this row minus
    ``reference``, in points with its 95% interval, and its two-sided p-value."""
    settings = list(results)
    kinds = ("binomial", "McNemar", "paired difference, points (95%)", "bootstrap p")
    lines = ["| Method | " + " | ".join(f"{titles[s]}: {t}" for s in settings for t in kinds) + " |",
             "|---|" + "---:|" * (len(kinds) * len(settings))]
    for m in METHODS:
        if m == reference:
            continue
        cells = []
        for s in settings:
            r = results[s][m]
            d = r["boot_diff_vs_" + reference]
            cells += [f"{r['p_value_vs_' + reference]:.2g}", f"{r['mcnemar_p_vs_' + reference]:.2g}",
                      points(d), _bootstrap_p(d["p_value"])]
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def peer_markdown(results: dict, titles: dict) -> str:
    """Every row of ours (:data:`repro.settings.OURS`) against the peers: the peer family's row, chosen
    on validation as ours are, and the best peer by test error (the rival of the lowest test split
    error in the column, a choice on test: the strongest competitor in hindsight). Each cell is the
    paired cluster-bootstrap difference of split error, this row minus the peer, in points with its
    95% interval; the last line names each column's best peer by test error."""
    settings = list(results)
    kinds = (("peer_family", "boot_diff_vs_peer_family", "against the peers' best configuration (validation)"),
             ("best_peer", "boot_diff_vs_best_peer", "against the best peer by test error"))
    kinds = [k for k in kinds if any(r.get(k[0]) for res in results.values() for r in res.values())]
    lines = ["| Method | " + " | ".join(f"{titles[s]}: {title}, points (95%)" for s in settings for _, _, title in kinds)
             + " |", "|---|" + "---:|" * (len(settings) * len(kinds))]
    for m in OURS:
        cells = [points(results[s][m][key]) if results[s].get(m, {}).get(name) else "-"
                 for s in settings for name, key, _ in kinds]
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\nThe best peer by test error of each column: " + best_peers(results, titles, OURS[0]) + ".\n"


def best_peers(results: dict, titles: dict, row: str) -> str:
    """Each column's best peer (the one ``row`` was compared with) and its split error:
    ``<title>: <peer> (<error>%)``, joined by "; " (columns where ``row`` has none left out)."""
    parts = []
    for s, rows in results.items():
        peer = rows.get(row, {}).get("best_peer")
        if peer:
            parts.append(f"{titles[s]}: {LABELS[peer].split(' (')[0]} ({100 * rows[peer]['split_error']:.2f}%)")
    return "; ".join(parts)


def clusters(rows: dict) -> float | None:
    """The effective number of clusters of a column's related test couples (every row has it in
    ``boot_units``); None for results written before it was recorded."""
    return next(iter(rows.values())).get("boot_units", {}).get("effective_clusters")


def rankable(rows: dict) -> bool:
    """Whether a column has the clusters to rank its rows by the paired cluster bootstrap: at
    least :data:`repro.core.metrics.MIN_CLUSTERS` effective clusters (or none recorded)."""
    n = clusters(rows)
    return n is None or n >= metrics.MIN_CLUSTERS


def _versus(rows: dict, m: str, which: str) -> str:
    """Row ``m`` against its peer ``which`` ("peer_family" or "best_peer"): "better than", "worse
    than" or "level with" by the paired interval, "not ranked against" in a column with too few
    effective clusters, then the peer's name and the numbers; '' when the row has no such peer."""
    ref = rows.get(m, {})
    peer = ref.get(which)
    if not peer:
        return ""
    d = ref["boot_diff_vs_" + which]
    what = "the peers' best configuration chosen on validation" if which == "peer_family" else \
        f"{LABELS[peer].split(' (')[0]}, the best peer by test error"
    verdict = "not ranked against" if not rankable(rows) else \
        "better than" if d["high"] < 0 else "worse than" if d["low"] > 0 else "level with"
    return (f"{verdict} {what} ({100 * ref['split_error']:.2f}% against {100 * rows[peer]['split_error']:.2f}%, "
            f"difference {points(d)} points)")


def _against_peer(rows: dict, m: str) -> str:
    """Row ``m`` against the peers: first the peers' best configuration, chosen on validation as
    ours are (the like-for-like verdict), then the best peer by test error (the rival of the lowest
    test split error) unless that is the same row; '' when the row has neither."""
    ref = rows.get(m, {})
    family, best = _versus(rows, m, "peer_family"), _versus(rows, m, "best_peer")
    if family and ref.get("best_peer") == ref.get("peer_family"):
        return f"{LABELS[m]}: {family}; that configuration is also the best peer by test error."
    parts = [x for x in (family, best) if x]
    return f"{LABELS[m]}: " + "; ".join(parts) + "." if parts else ""


def findings(results_by_metric: dict, titles: dict, references=("learned_median", "learned_best")) -> str:
    """The verdicts the numbers give, one line per column and metric: the best row (lowest split
    error), the rows level with it (their paired 95% interval against it contains 0), and each of
    ``references`` against the peers' best configuration chosen on validation (the like-for-like
    verdict), then against the best peer by test error. A column whose related test couples have fewer than
    :data:`repro.core.metrics.MIN_CLUSTERS` effective clusters is not ranked: its line says so and
    gives the numbers without a verdict. Written from the results, never by hand."""
    names = {"euclidean": "Euclidean (the paper's)", "cosine": "cosine"}
    lines = []
    for metric, results in results_by_metric.items():
        for s, rows in results.items():
            best = next(m for m, r in rows.items() if r["best"])
            head = f"- **{titles[s]}, {names.get(metric, metric)}:** "
            if not rankable(rows):
                text = (head + f"lowest split error {LABELS[best]} ({100 * rows[best]['split_error']:.2f}%); too few "
                        f"independent clusters to rank ({clusters(rows):.1f} effective clusters of related test "
                        f"couples, fewer than {metrics.MIN_CLUSTERS}: the cluster bootstrap's intervals are not trusted). ")
            else:
                level = [m for m, r in rows.items() if not r["best"]
                         and r["boot_diff_vs_best"]["low"] <= 0.0 <= r["boot_diff_vs_best"]["high"]]
                text = head + f"best row {LABELS[best]} ({100 * rows[best]['split_error']:.2f}%); "
                text += ("level with it (paired 95% interval of the difference contains 0): "
                         + "; ".join(LABELS[m] for m in level) if level else "every other row is worse (paired 95% "
                         "interval of the difference above 0)") + ". "
            text += " ".join(x for x in (_against_peer(rows, m) for m in references) if x)
            lines.append(text.rstrip())
    return "\n".join(lines) + "\n"


def latex(results: dict, titles: dict, caption: str, ci: bool = False) -> str:
    settings = list(results)
    best = _bests(results)
    intervals = interval_columns(results, ci)
    width = 2 + len(intervals)
    cols = " | ".join([" ".join(["c"] * width)] * len(settings))
    out = [r"\begin{table*}[t]", r"\centering", rf"\caption{{{caption}}}", rf"\begin{{tabular}}{{l | {cols}}}",
           r"\toprule",
           " & " + " & ".join(rf"\multicolumn{{{width}}}{{c}}{{{titles[s]}}}" for s in settings) + r" \\",
           " & " + " & ".join([" & ".join(["Split error"] + [t.replace("%", r"\%") for _, t in intervals]
                                          + ["JS divergence"])] * len(settings)) + r" \\"]
    for group in GROUPS:
        out.append(r"\hline")
        for m in group:
            cells = _cells(results, m, best, r"\%", lambda x: rf"\textbf{{{x}}}", intervals)
            out.append(LABELS[m].replace("%", r"\%") + " & " + " & ".join(cells) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}", r"\end{table*}"]
    return "\n".join(out) + "\n"


def csv_rows(results: dict) -> list[dict]:
    """One row per method, keyed ``method``; ``<setting>_split_error`` (a fraction) and ``<setting>_js``."""
    rows = []
    for m in METHODS:
        row = {"method": m}
        for s, res in results.items():
            row[f"{s}_split_error"] = res[m]["split_error"]
            row[f"{s}_js"] = res[m]["js"]
        rows.append(row)
    return rows
