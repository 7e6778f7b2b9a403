"""A run's tables against the committed ones: the closing lines of ``make table1``, ``make table2``
and ``make sts``.

    python -m experiments.compare out results table1      # every generated file of Table 1
    python -m experiments.compare out/table1.json results/table1.json   # the main table's line only

The first line compares the table JSON's two printed numbers (split error and JS divergence) of
every row, column and metric, as before: "matches the committed table exactly" (to the last bit),
"as printed" (to the digits the tables print), or the largest difference of each column and its row.

Then one line per generated Markdown file that results/ holds for that table (main, cosine,
learned family, against the best peer, p-values; for ``sts`` the STS table): every cell of every
Markdown table in it, keyed by its table, row and column, against the committed file's:

- "matches": every printed cell is the same, and the JSON's numbers are the same to the last bit;
- "equal to the printed digits": every printed cell is the same, but some unprinted digit of the
  JSON's numbers differs (the last line then says which number, and by how much);
- otherwise the largest difference: the cell's row and column and the two values.

Only table rows are compared: the text around them names the commit and the run's timings.

Where ``results/`` holds the published seeds (``seeds_table<N>.json``, make seeds), those lines
become a bit-for-bit check against the committed run (seed 0), and the conclusion comes last: the
run against the published seeds' spread and verdicts (:mod:`experiments.seedcompare`).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import sys

from experiments import seedcompare
from repro import settings
from repro.errors import InputError, run

#: The two numbers of a row, with the digits the table prints them to (a fraction's digits).
NUMBERS = {"split_error": 4, "js": 4}
METRICS = {"results": "Euclidean", "results_cosine": "cosine"}
#: JSON keys that hold provenance, not results: never compared (nor any key naming seconds, nor a
#: file's path: a key ending in ``_file``, which names where this run's input lay)
PROVENANCE = frozenset({"commit", "hardware", "versions", "lock", "kernels", "checksums", "models", "corpus",
                        "word2vec", "started", "other_vectors", "make_jobs", "make_ran_every_stage"})
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:e[-+]?\d+)?", re.IGNORECASE)


def _differences(new: dict, ref: dict) -> dict:
    """{(metric, setting, number): (largest |difference|, method, printed equal)} of the columns both hold."""
    out = {}
    for key in METRICS:
        for setting, rows in ref.get(key, {}).items():
            mine = new.get(key, {}).get(setting, {})
            for number, digits in NUMBERS.items():
                pairs = [(abs(mine[m][number] - row[number]), m,
                          round(mine[m][number], digits) == round(row[number], digits))
                         for m, row in rows.items() if m in mine]
                worst, where, _ = max(pairs, key=lambda t: t[0], default=(0.0, None, True))
                printed = all(p for _, _, p in pairs)
                out[key, setting, number] = (worst, where, printed)
    return out


def _missing(new: dict, ref: dict) -> list[str]:
    """'setting/method' of every row of ``ref`` that ``new`` lacks."""
    return [f"{s}/{m}" for key in METRICS for s, rows in ref.get(key, {}).items() for m in rows
            if m not in new.get(key, {}).get(s, {})]


def _amount(number: str, value: float) -> str:
    return f"{value * 100:.2g} points" if number == "split_error" else f"{value:.2g}"


def comparison(new: dict, ref: dict, ref_path: str = "results", differs: str = "differs from") -> str:
    """The one line that compares the table ``new`` (a table JSON) with the committed ``ref``;
    ``differs``: the words for a table that is not the committed one ("other digits than" where the
    published seeds judge the run, :func:`report`)."""
    missing, extra = _missing(new, ref), _missing(ref, new)
    if missing or extra:
        said = ([f"rows missing: {', '.join(missing)}"] if missing else []) + (
            [f"rows the committed table lacks: {', '.join(extra)}"] if extra else [])
        return f"{differs} the committed table ({ref_path}): " + "; ".join(said)
    diffs = _differences(new, ref)
    if all(worst == 0 for worst, _, _ in diffs.values()):
        return f"matches the committed table ({ref_path}) exactly"
    if all(printed for _, _, printed in diffs.values()):
        largest = {n: max(d[0] for k, d in diffs.items() if k[2] == n) for n in NUMBERS}
        return (f"matches the committed table ({ref_path}) as printed (largest differences: split error "
                f"{_amount('split_error', largest['split_error'])}, JS {_amount('js', largest['js'])})")
    parts = []
    for (key, setting, number), (worst, method, printed) in diffs.items():
        if not printed:
            title = settings.SETTINGS[setting].title if setting in settings.SETTINGS else setting
            parts.append(f"{title}, {METRICS[key]}, {'split error' if number == 'split_error' else 'JS'} "
                         f"{_amount(number, worst)} ({settings.LABELS.get(method, method)})")
    return f"{differs} the committed table ({ref_path}); largest difference per column: " + "; ".join(parts)


# ---- every printed cell of a Markdown file ------------------------------------------------------

def markdown_cells(text: str) -> dict:
    """{(table number, row label, column header): cell text} of every Markdown table in ``text``
    (a table: consecutive lines that start with ``|``; its first line the header, the second the
    rule). A row label that repeats within a table gets its occurrence appended (``label #2``)."""
    cells, table, header, seen = {}, -1, None, {}
    previous_was_row = False
    for line in text.splitlines():
        row = line.strip()
        if not row.startswith("|"):
            previous_was_row = False
            continue
        parts = [c.strip() for c in row.strip("|").split("|")]
        if not previous_was_row:
            table, header, seen = table + 1, parts, {}
        elif set("".join(parts)) <= set("-: "):
            pass  # the rule under the header
        else:
            label = parts[0]
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                label = f"{label} #{seen[label]}"
            for col, cell in zip(header[1:], parts[1:]):
                cells[table, label, col] = cell
        previous_was_row = True
    return cells


def _numbers(cell: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(cell.replace("\u2212", "-"))]


def cell_difference(new: str, ref: str) -> float:
    """The largest |difference| of the numbers of two cells that print the same numbers in the same
    places (inf where their text differs otherwise: another word, another count of numbers)."""
    a, b = _numbers(new), _numbers(ref)
    if len(a) != len(b) or _NUMBER.sub("#", new).replace("*", "") != _NUMBER.sub("#", ref).replace("*", ""):
        return math.inf
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def markdown_comparison(new_text: str, ref_text: str) -> str | None:
    """None where every cell of every table is the same; else the largest difference: the cell's
    row and column and the two values (rows or columns on one side only are named first)."""
    new, ref = markdown_cells(new_text), markdown_cells(ref_text)
    only_ref, only_new = [k for k in ref if k not in new], [k for k in new if k not in ref]
    if only_ref or only_new:
        said = []
        if only_ref:
            said.append(f"{len(only_ref)} committed cell(s) missing, first row {only_ref[0][1]!r}, "
                        f"column {only_ref[0][2]!r}")
        if only_new:
            said.append(f"{len(only_new)} cell(s) the committed file lacks, first row {only_new[0][1]!r}, "
                        f"column {only_new[0][2]!r}")
        return "; ".join(said)
    differing = [(cell_difference(new[k], ref[k]), k) for k in ref if new[k] != ref[k]]
    if not differing:
        return None
    size, k = max(differing, key=lambda t: t[0])
    _, row, col = k
    amount = "text" if math.isinf(size) else ("marks only" if size == 0 else f"{size:.4g}")
    return (f"{len(differing)} cell(s) differ; largest ({amount}): row {row!r}, column {col!r}: "
            f"{new[k]!r} here, {ref[k]!r} committed")


# ---- every number of a JSON, its provenance aside ----------------------------------------------

def json_numbers(obj, path: str = "") -> dict:
    """{path: value} of every number and string leaf of a results JSON, :data:`PROVENANCE` keys,
    keys that name seconds and keys of a file's path (``*_file``) left out."""
    out = {}
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in PROVENANCE or "seconds" in str(key) or str(key).endswith("_file"):
                continue
            out.update(json_numbers(value, f"{path}/{key}"))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            out.update(json_numbers(value, f"{path}[{i}]"))
    elif isinstance(obj, (int, float, str)) or obj is None:
        out[path or "/"] = obj
    return out


def json_comparison(new: dict, ref: dict) -> tuple[bool, str]:
    """(exactly equal, a phrase): whether every result leaf of two JSONs is the same to the last
    bit, and otherwise the largest numeric difference and where it is."""
    a, b = json_numbers(new), json_numbers(ref)
    keys = sorted(set(a) | set(b))
    differing = [k for k in keys if a.get(k) != b.get(k)]
    if not differing:
        return True, "every number the same to the last bit"
    numeric = [(abs(a[k] - b[k]), k) for k in differing
               if isinstance(a.get(k), (int, float)) and isinstance(b.get(k), (int, float))
               and not isinstance(a.get(k), bool)]
    other = [k for k in differing if k not in {k2 for _, k2 in numeric}]
    said = []
    if numeric:
        size, where = max(numeric)
        said.append(f"{len(numeric)} number(s) differ, largest {size:.3g} at {where} "
                    f"({a[where]!r} here, {b[where]!r} committed)")
    if other:
        said.append(f"{len(other)} other value(s) differ, first {other[0]} ({a.get(other[0])!r} here, "
                    f"{b.get(other[0])!r} committed)")
    return False, "; ".join(said)


def _load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except json.JSONDecodeError as err:
        raise InputError(path, f"not JSON ({err.msg})") from None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError(path, "no such file (the run did not write it)") from None


def generated_files(committed: str, name: str) -> list[str]:
    """The Markdown files of ``name`` ("table1", "table2", "sts") that ``committed`` holds, sorted."""
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(committed, f"{name}*.md"))
                  if re.fullmatch(rf"{re.escape(name)}(_[a-z_]+)?\.md", os.path.basename(p)))


def report(run_dir: str, committed: str, name: str) -> list[str]:
    """The closing lines of ``make <name>``: the table JSON's line (tables only), one line per
    generated Markdown file, and a line on the JSON's unprinted digits where they differ."""
    new_json, ref_json = os.path.join(run_dir, f"{name}.json"), os.path.join(committed, f"{name}.json")
    new, ref = _load(new_json), _load(ref_json)
    files = generated_files(committed, name)
    if not files:
        raise InputError(committed, f"no {name}*.md to compare with")
    seeds_json = os.path.join(committed, f"seeds_{name}.json")
    # where the published seeds judge the run (its conclusion, last), the committed run's cells are a
    # bit-for-bit check that holds on the committed kernel only
    seeded = name.startswith("table") and os.path.exists(seeds_json)
    lines = []
    if seeded:
        lines.append(f"Bit for bit, against the committed run (seed 0; {new_json}): "
                     + comparison(new, ref, ref_json, differs="other digits than"))
    elif name.startswith("table"):
        lines.append(f"Table {new.get('table', '?')} ({new_json}) {comparison(new, ref, ref_json)}")
    exact, said = json_comparison(new, ref)
    for f in files:
        where = markdown_comparison(_read(os.path.join(run_dir, f)), _read(os.path.join(committed, f)))
        verdict = ("matches" if exact else "equal to the printed digits") if where is None else \
            (f"other digits than the committed run: {where}" if seeded else f"differs: {where}")
        lines.append(f"  {os.path.join(run_dir, f)}: {verdict}")
    if not exact:
        lines.append(f"  {new_json}: unprinted digits differ from {ref_json} (not a failure): {said}")
    if seeded:
        lines += seedcompare.lines(new, _load(seeds_json), seeds_json, new_json,
                                   seedcompare.check_sets(committed, f"seeds_{name}.json"))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("new", help="the run's folder (or, with two arguments, the run's table JSON)")
    ap.add_argument("reference", help="the committed folder (or the committed table JSON)")
    ap.add_argument("name", nargs="?", help="table1, table2 or sts: compare every generated file of it")
    args = ap.parse_args(argv)
    if args.name is None:
        new, ref = _load(args.new), _load(args.reference)
        print(f"Table {new.get('table', '?')} ({args.new}) {comparison(new, ref, args.reference)}")
        return 0
    if args.name not in ("table1", "table2", "sts"):
        raise InputError("name", f"expected table1, table2 or sts, got {args.name!r}")
    print("\n".join(report(args.new, args.reference, args.name)))
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
