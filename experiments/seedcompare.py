"""A run's table against the published seeds (issue 46): the conclusion of ``make table1`` and
``make table2`` (:mod:`experiments.compare` prints it last).

Another BLAS kernel or another seed gives other word2vec vectors, so a run's cells move as a new
seed's would. The question a run's last line answers is whether they moved *more*:

- **cells**: every split error and JS of every row, column and metric against the band one more
  seed should fall in, from the published seeds (:func:`repro.evaluate.seedrows.band`: the 99%
  t prediction interval, at least the printed resolution wide);
- **verdicts**: each comparison of :data:`repro.evaluate.seedrows.CLAIMS`, this run's one-run word
  (the paired cluster bootstrap of its table JSON) against the published seeds': the same as the
  seed-aware word, or a word one of the published seeds gave alone, agrees; anything else differs.

The three outcomes: "agrees with the published results", "outside the published seeds' band" (the
cells named with their values and bands), "verdicts differ" (named, with the published words). A
99% band leaves about one cell in a hundred outside by chance, so the run is "outside" only when
more cells are outside than chance gives (:func:`chance_outside`); the cells line names them either way.

Two sets of seeds against each other (another set of seeds, the same seeds on another BLAS kernel
or machine), verdict by verdict: :func:`between_sets`, and

    python -m experiments.seedcompare results/seeds_table1.json other/seeds_table1.json

**Check sets.** The published verdicts are checked against such sets, kept under
``results/checks/<name>/`` (``make check-set``; :func:`check_sets`): a claim that any of them reads
with another word is published as "depends on the seed" (:func:`claim_across`,
:func:`repro.core.verdicts.across_sets`), and a run's one-run word agrees with it when any published
or check seed gave that word alone.
"""

from __future__ import annotations

import argparse
import os
import sys

from repro import settings
from repro.core import verdicts
from repro.evaluate import report, seedrows
from repro.evaluate.seedrows import CLAIMS

#: The band's coverage and its least half-width per number (a fraction's printed resolution).
LEVEL = 0.99
FLOOR = {"split_error": 0.5e-4, "js": 0.5e-4}
RESULTS = {"euclidean": "results", "cosine": "results_cosine"}
METRIC_SHORT = {"euclidean": "Euclidean", "cosine": "cosine"}


def _word(d: dict | None, flip: bool = False) -> str | None:
    """The one-run word of a paired difference (``flip``: of its negation), by the rule that gave
    the published seeds' own words (:func:`repro.core.verdicts.word_of` with one seed)."""
    if not d:
        return None
    low, high, diff = (-d["high"], -d["low"], -d["difference"]) if flip else (d["low"], d["high"], d["difference"])
    return verdicts.word_of(low, high, [diff])


def run_word(rows: dict, ours: str, against: str) -> str | None:
    """This run's one-run word for ``ours`` against ``against`` from its table JSON's rows (None
    where the JSON holds no such comparison)."""
    if not report.rankable(rows):
        return "not ranked"
    r = rows.get(ours) or {}
    if against in settings.PEER_FAMILY:
        return _word(r.get("boot_diff_vs_peer_family"))
    if ours == "learned_median":  # every row holds its difference against the median row
        return _word((rows.get(against) or {}).get("boot_diff_vs_learned_median"), flip=True)
    return None


def cells_outside(run: dict, seeds: dict) -> tuple[int, list]:
    """(cells compared, [(metric, column, method, number, value, low, high)] outside the band)."""
    n, out = 0, []
    for metric, key in RESULTS.items():
        for c, rows in (seeds.get("results", {}).get(metric) or {}).items():
            mine = run.get(key, {}).get(c, {})
            for m, numbers in rows.items():
                if m not in mine:
                    continue
                for number, sp in numbers.items():
                    lo, hi = seedrows.band(sp["per_seed"], LEVEL, FLOOR[number])
                    n += 1
                    value = mine[m][number]
                    if not lo <= value <= hi:
                        out.append((metric, c, m, number, value, lo, hi))
    return n, out


CHECKS = "checks"


def check_sets(results: str, file: str) -> list[tuple[str, dict]]:
    """The check sets' ``file`` (``seeds_table1.json``, ``seeds_table2.json``, ``seeds_sts.json``)
    under ``<results>/checks/<name>/``: [(name, JSON)], by name; [] where there are none."""
    from repro.io.store import read_json

    root = os.path.join(results, CHECKS)
    names = sorted(os.listdir(root)) if os.path.isdir(root) else []
    return [(name, read_json(os.path.join(root, name, file))) for name in names
            if os.path.exists(os.path.join(root, name, file))]


def seeds_label(seeds) -> str:
    """``seeds 5–9`` for a run of consecutive seeds, ``seeds 0, 2, 7`` otherwise."""
    seeds = list(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}–{seeds[-1]}"
    return ("seed " if len(seeds) == 1 else "seeds ") + ", ".join(map(str, seeds))


def set_label(prov: dict) -> str:
    """A set of seeds in words, from its JSON's provenance: its seeds, the machine's CPU, OpenBLAS's
    kernel and the commit (``seeds 5–9 (AMD EPYC, OpenBLAS Haswell, commit aadd9ac67bf4)``)."""
    from repro.io.readmeblock import short_commit

    where = [x for x in ((prov.get("hardware") or {}).get("cpu"),
                         f"OpenBLAS {_blas(prov)}" if _blas(prov) else None,
                         f"commit {short_commit(prov['commit'])}" if prov.get("commit") else None) if x]
    return seeds_label(prov.get("seeds", [])) + (f" ({', '.join(where)})" if where else "")


def _blas(prov: dict) -> str | None:
    arch = {b.get("architecture") for b in ((prov.get("kernels") or {}).get("blas") or [])} - {None}
    return "/".join(sorted(arch)) or None


def short_label(prov: dict, published: dict) -> str:
    """A check set in a few words beside the published set ``published``: its seeds, and where
    they are the same seeds, what else differs (OpenBLAS's kernel, the CPU): ``seeds 5–9``,
    ``seeds 0–4, OpenBLAS Sandybridge``."""
    label = seeds_label(prov.get("seeds", []))
    if prov.get("seeds") != published.get("seeds"):
        return label
    cpu = (prov.get("hardware") or {}).get("cpu")
    other = [f"OpenBLAS {_blas(prov)}" if _blas(prov) != _blas(published) else None,
             cpu if cpu != (published.get("hardware") or {}).get("cpu") else None]
    return ", ".join([label] + ([x for x in other if x] or ["another run"]))


def claim_across(v: dict, others: list) -> tuple[str, list]:
    """One claim over the published set and its check sets.

    Args:
      v: the published set's claim (``word``, ``difference``, as in a seed table's JSON).
      others: [(label, the same claim in a check set, or None where that set lacks it)].

    Returns:
      (the word over every set, by :func:`repro.core.verdicts.across_sets`; [(label, word,
      difference)] of the check sets whose word is not the published one).
    """
    there = [(label, o) for label, o in others if o]
    word = verdicts.across_sets([v["word"]] + [o["word"] for _, o in there])
    return word, [(label, o["word"], o["difference"]) for label, o in there if o["word"] != v["word"]]


def across_cell(v: dict, others: list, own: str, scale: float = 100.0) -> str:
    """A claim's cell: ``word (difference)`` where every set agrees; else ``depends on the seed``
    with each set's word and difference (``own``: the published set's label). ``scale``: 100 for
    split errors as fractions (points), 1 for Pearson points."""
    word, differ = claim_across(v, others)
    if not differ:
        return f"{word} ({scale * v['difference']:+.2f})"
    sets = [(own, v["word"], v["difference"])] + differ
    return f"{word} (" + "; ".join(f"{label}: {w}, {scale * d:+.2f}" for label, w, d in sets) + ")"


def verdicts_differ(run: dict, seeds: dict, checks: list = ()) -> tuple[int, list]:
    """(verdicts compared, [(metric, column, claim, this run's word, published word, one-run words)]).

    ``checks``: the check sets' JSON of the same table ([(name, JSON)], :func:`check_sets`). The
    published word is then the word over every set; a run's word agrees when it is that word or a
    word one seed of any set gave alone."""
    n, out = 0, []
    for metric, key in RESULTS.items():
        for c, claims in (seeds.get("verdicts", {}).get(metric) or {}).items():
            rows = run.get(key, {}).get(c)
            if not rows:
                continue
            for name, _, _ in CLAIMS:
                v = claims[name]
                mine = run_word(rows, v["row"], v["against"])
                if mine is None:
                    continue
                n += 1
                others = [claim_of(p, metric, c, name) for _, p in checks]
                published = verdicts.across_sets([v["word"]] + [o["word"] for o in others if o])
                alone = list(v["one_run"]) + [w for o in others if o for w in o.get("one_run", [])]
                if mine not in {published, v["word"]} | {o["word"] for o in others if o} and mine not in alone:
                    out.append((metric, c, name, mine, published, seedrows.counts(alone)))
    return n, out


def claim_of(prov: dict, metric: str, c: str, name: str) -> dict | None:
    """The claim ``name`` of column ``c`` under ``metric`` in a seed table's JSON, None where it has none."""
    return ((prov.get("verdicts") or {}).get(metric) or {}).get(c, {}).get(name)


def chance_outside(n: int, level: float = LEVEL, confidence: float = 0.99) -> int:
    """The most cells of ``n`` that fall outside their ``level`` bands by chance alone, at
    ``confidence``: the binomial quantile of n cells each outside with probability 1 - ``level``
    (the cells taken as independent; they are not quite, which makes this generous)."""
    from scipy import stats

    return int(stats.binom.ppf(confidence, n, 1.0 - level)) if n else 0


def _title(c: str) -> str:
    return settings.SETTINGS[c].title if c in settings.SETTINGS else c


def _amount(number: str, x: float) -> str:
    return f"{100 * x:.2f}%" if number == "split_error" else f"{x:.4f}"


def lines(run: dict, seeds: dict, seeds_path: str, run_path: str, checks: list = ()) -> list[str]:
    """The closing block: the cells line, the verdicts line, the conclusion last (``checks``: the
    check sets of :func:`verdicts_differ`)."""
    table = run.get("table", "?")
    k = len(seeds.get("seeds", []))
    n_cells, outside = cells_outside(run, seeds)
    n_verdicts, differ = verdicts_differ(run, seeds, checks)
    out = [f"Table {table} ({run_path}) against the published results over {k} seeds ({seeds_path}):"]
    if outside:
        named = "; ".join(f"{_title(c)}, {METRIC_SHORT[metric]}, {settings.LABELS.get(m, m)}, "
                          f"{'split error' if number == 'split_error' else 'JS'} {_amount(number, v)} "
                          f"(band {_amount(number, lo)} to {_amount(number, hi)})"
                          for metric, c, m, number, v, lo, hi in outside)
        out.append(f"  cells: {len(outside)} of {n_cells} outside the seeds' {100 * LEVEL:g}% band: {named}")
    else:
        out.append(f"  cells: all {n_cells} inside the seeds' {100 * LEVEL:g}% band (where one more seed falls)")
    if differ:
        named = "; ".join(f"{_title(c)}, {METRIC_SHORT[metric]}, {name}: {mine} here, published {pub} "
                          f"(one seed alone: {', '.join(f'{w} in {n}' for w, n in words)})"
                          for metric, c, name, mine, pub, words in differ)
        out.append(f"  verdicts: {len(differ)} of {n_verdicts} differ from the published seeds': {named}")
    else:
        out.append(f"  verdicts: all {n_verdicts} as the published seeds give them")
    allowed = chance_outside(n_cells)
    if differ:
        out.append(f"Table {table}: the run's verdicts differ from the published results (named above).")
    elif len(outside) > allowed:
        out.append(f"Table {table}: the run is outside the published seeds' spread in {len(outside)} cell(s) "
                   "(named above); its verdicts agree.")
    elif outside:
        out.append(f"Table {table}: the run agrees with the published results ({len(outside)} of {n_cells} cells "
                   f"outside the {100 * LEVEL:g}% band, no more than chance leaves outside: up to {allowed}).")
    else:
        out.append(f"Table {table}: the run agrees with the published results.")
    return out


def between_sets(a: dict, b: dict) -> list[tuple]:
    """Every comparison of :data:`repro.evaluate.seedrows.CLAIMS` in two seed tables' JSON (the
    same table over two sets of seeds): [(metric, column, claim, word in a, word in b, seed-mean
    difference in a, in b)], in the tables' order."""
    out = []
    for metric, cols in (a.get("verdicts") or {}).items():
        for c, claims in cols.items():
            other = ((b.get("verdicts") or {}).get(metric) or {}).get(c) or {}
            for name, _, _ in CLAIMS:
                if name in claims and name in other:
                    va, vb = claims[name], other[name]
                    out.append((metric, c, name, va["word"], vb["word"], va["difference"], vb["difference"]))
    return out


def between_sets_markdown(a: dict, b: dict, names=("a", "b")) -> str:
    """:func:`between_sets` as a Markdown table, the verdicts that differ marked, a count last."""
    rows = between_sets(a, b)
    head = [f"| Column | Metric | Claim | {names[0]} (seeds {', '.join(map(str, a.get('seeds', [])))}) | "
            f"{names[1]} (seeds {', '.join(map(str, b.get('seeds', [])))}) | |", "|---|---|---|---|---|---|"]
    body = [f"| {_title(c)} | {METRIC_SHORT[m]} | {name} | {wa} ({100 * da:+.2f}) | {wb} ({100 * db:+.2f}) | "
            f"{'' if wa == wb else 'differs'} |" for m, c, name, wa, wb, da, db in rows]
    same = sum(r[3] == r[4] for r in rows)
    return "\n".join(head + body + ["", f"{same} of {len(rows)} verdicts read the same."])


def main(argv=None) -> int:
    from repro.errors import InputError
    from repro.io.store import read_json

    ap = argparse.ArgumentParser(description="Two seed tables' verdicts side by side (seeds_table<N>.json files)")
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args(argv)
    tables = [read_json(args.a), read_json(args.b)]
    if tables[0].get("table") != tables[1].get("table"):
        raise InputError(args.b, f"table {tables[1].get('table')}, not table {tables[0].get('table')} as {args.a}")
    print(between_sets_markdown(*tables, names=(args.a, args.b)))
    return 0


if __name__ == "__main__":
    from repro.errors import run

    sys.exit(run(main))
