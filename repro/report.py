"""Evaluation of score files into table rows, and the rows into Markdown and LaTeX."""

from __future__ import annotations

import numpy as np

from repro import metrics
from repro.settings import GROUPS, LABELS, METHODS


def evaluate(scores: dict, methods=METHODS, reference: str = "learned_median") -> dict:
    """Per method: split error, threshold, JS divergence, error counts, and the binomial
    test p-value of ``reference`` against it (paper, section 5.3)."""
    rows = {}
    for m in methods:
        sp = metrics.split(scores[f"validation_{m}"], scores["validation_label"],
                           scores[f"test_{m}"], scores["test_label"])
        js = metrics.js_divergence(scores[f"validation_{m}"], scores[f"test_{m}"], scores["test_label"])
        n = sp.n_related + sp.n_unrelated
        rows[m] = {"split_error": sp.error, "threshold": sp.threshold, "js": js,
                   "test_errors": sp.errors, "test_pairs": n, "split_error_ci95": metrics.binomial_ci(sp.errors, n)}
    ref = rows.get(reference)
    for m, r in rows.items():
        r["p_value_vs_" + reference] = None if (ref is None or m == reference) else metrics.binomial_test(
            r["test_errors"], r["test_pairs"], ref["test_errors"], ref["test_pairs"])
    return rows


def _best(results: dict, setting: str, key: str, lower: bool):
    vals = {m: r[key] for m, r in results[setting].items()}
    target = min(vals.values()) if lower else max(vals.values())
    return {m for m, v in vals.items() if np.isclose(v, target, rtol=0, atol=1e-12)}


def _bests(results: dict) -> dict:
    return {s: (_best(results, s, "split_error", True), _best(results, s, "js", False)) for s in results}


def _cells(results: dict, m: str, best: dict, percent: str, bold, ci: bool = False) -> list[str]:
    """Split error (with its 95% interval when ``ci``) and JS cells of method ``m`` in every
    setting, the best ones in ``bold``."""
    cells = []
    for s, res in results.items():
        e, j = f"{100 * res[m]['split_error']:.2f}{percent}", f"{res[m]['js']:.4f}"
        cells.append(bold(e) if m in best[s][0] else e)
        if ci:
            lo, hi = res[m]["split_error_ci95"]
            cells.append(f"{100 * lo:.1f}–{100 * hi:.1f}{percent}")
        cells.append(bold(j) if m in best[s][1] else j)
    return cells


def markdown(results: dict, titles: dict, ci: bool = False) -> str:
    """The paper's table layout: split error (%) and JS divergence per setting, best in bold;
    with ``ci``, each split error's 95% confidence interval beside it."""
    settings = list(results)
    kinds = ["split error"] + (["95% CI"] if ci else []) + ["JS"]
    head = "| Method | " + " | ".join(f"{titles[s]}: {k}" for s in settings for k in kinds) + " |"
    lines = [head, "|---|" + "---:|" * (len(kinds) * len(settings))]
    best = _bests(results)
    for m in METHODS:
        cells = _cells(results, m, best, "%", lambda x: f"**{x}**", ci)
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def pvalues_markdown(results: dict, titles: dict, reference: str = "learned_median") -> str:
    """Two-tailed binomial-test p-values of ``reference`` against every other row."""
    settings = list(results)
    key = "p_value_vs_" + reference
    lines = ["| Method | " + " | ".join(titles[s] for s in settings) + " |", "|---|" + "---:|" * len(settings)]
    for m in METHODS:
        if m == reference:
            continue
        cells = [f"{results[s][m][key]:.2g}" for s in settings]
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def latex(results: dict, titles: dict, caption: str, ci: bool = False) -> str:
    settings = list(results)
    best = _bests(results)
    cols = " | ".join(["c c c" if ci else "c c"] * len(settings))
    out = [r"\begin{table*}[t]", r"\centering", rf"\caption{{{caption}}}", rf"\begin{{tabular}}{{l | {cols}}}",
           r"\toprule",
           " & " + " & ".join(rf"\multicolumn{{{3 if ci else 2}}}{{c}}{{{titles[s]}}}" for s in settings) + r" \\",
           " & " + " & ".join(["Split error & 95\\% CI & JS divergence" if ci else "Split error & JS divergence"]
                              * len(settings)) + r" \\"]
    for group in GROUPS:
        out.append(r"\hline")
        for m in group:
            cells = _cells(results, m, best, r"\%", lambda x: rf"\textbf{{{x}}}", ci)
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
