"""Evaluation of score files into table rows, and the rows into Markdown and LaTeX."""

from __future__ import annotations

import numpy as np

from repro import metrics
from repro.settings import GROUPS, LABELS, METHODS


def paired_row(wrong, wrong_reference, labels, groups=None) -> dict:
    """The paired bootstrap of a row against the reference row on the same test couples
    (:func:`repro.metrics.paired_bootstrap`, clusters of related couples resampled whole when
    ``groups`` is given): {"difference", "low", "high", "p_value"} as floats, the difference
    being this row's split error minus the reference's."""
    d = metrics.paired_bootstrap(wrong, wrong_reference, labels, groups)
    return {"difference": d.difference, "low": d.low, "high": d.high, "p_value": d.p_value}


def evaluate(scores: dict, methods=METHODS, reference: str = "learned_median") -> dict:
    """Per method: split error, threshold, JS divergence, error counts, the binomial test p-value
    of ``reference`` against it (paper, section 5.3), the exact McNemar p-value on the same
    test couples (the paired test) and the paired bootstrap of the difference (:func:`paired_row`)."""
    rows, wrong = {}, {}
    groups = scores.get("test_group")
    for m in methods:
        sp = metrics.split(scores[f"validation_{m}"], scores["validation_label"],
                           scores[f"test_{m}"], scores["test_label"])
        js = metrics.js_divergence(scores[f"validation_{m}"], scores[f"test_{m}"], scores["test_label"])
        n = sp.n_related + sp.n_unrelated
        wrong[m] = sp.wrong
        rows[m] = {"split_error": sp.error, "threshold": sp.threshold, "js": js,
                   "test_errors": sp.errors, "test_pairs": n, "split_error_ci95": metrics.binomial_ci(sp.errors, n)}
        if groups is not None:  # clusters of related couples: resample them whole
            rows[m]["split_error_boot95"] = metrics.cluster_bootstrap_ci(sp.wrong, scores["test_label"], groups)
            rows[m]["boot_units_related"] = metrics.bootstrap_units(scores["test_label"], groups)[1]
            rows[m]["test_groups"] = int(np.unique(groups).size)
    ref = rows.get(reference)
    for m, r in rows.items():
        r["p_value_vs_" + reference] = None if (ref is None or m == reference) else metrics.binomial_test(
            r["test_errors"], r["test_pairs"], ref["test_errors"], ref["test_pairs"])
        if ref is not None and m != reference:
            p, only_m, only_ref = metrics.mcnemar_test(wrong[m], wrong[reference])
            r["mcnemar_p_vs_" + reference] = p
            r["mcnemar_discordant_vs_" + reference] = {"only_this_wrong": only_m, f"only_{reference}_wrong": only_ref}
            r["boot_diff_vs_" + reference] = paired_row(wrong[m], wrong[reference], scores["test_label"], groups)
        else:
            r["mcnemar_p_vs_" + reference] = None
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


def pvalues_markdown(results: dict, titles: dict, reference: str = "learned_median") -> str:
    """Two-tailed p-values of ``reference`` against every other row: the paper's binomial test
    and the exact McNemar test on the couples where the two disagree."""
    settings = list(results)
    lines = ["| Method | " + " | ".join(f"{titles[s]}: {t}" for s in settings for t in ("binomial", "McNemar")) + " |",
             "|---|" + "---:|---:|" * len(settings)]
    for m in METHODS:
        if m == reference:
            continue
        cells = [f"{results[s][m][k + reference]:.2g}" for s in settings for k in ("p_value_vs_", "mcnemar_p_vs_")]
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
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
