"""A run's table against the committed one: the last line of ``make table1`` and ``make table2``.

    python -m experiments.compare out/table1.json results/table1.json

Every column (setting) of both metrics' tables is compared row by row on the two numbers the
table prints, the split error and the JS divergence. The line says the run "matches the
committed table" when every number agrees as printed (split errors to 0.01 points, JS to 4
decimals; word2vec's float arithmetic differs a little across CPUs, README), adding "exactly"
when they agree to the last bit; otherwise it gives the largest difference of each column and
the row where it is.
"""

from __future__ import annotations

import argparse
import json
import sys

from repro import settings
from repro.errors import InputError, run

#: The two numbers of a row, with the digits the table prints them to (a fraction's digits).
NUMBERS = {"split_error": 4, "js": 4}
METRICS = {"results": "Euclidean", "results_cosine": "cosine"}


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


def comparison(new: dict, ref: dict, ref_path: str = "results") -> str:
    """The one line that compares the table ``new`` (a table JSON) with the committed ``ref``."""
    missing, extra = _missing(new, ref), _missing(ref, new)
    if missing or extra:
        said = ([f"rows missing: {', '.join(missing)}"] if missing else []) + (
            [f"rows the committed table lacks: {', '.join(extra)}"] if extra else [])
        return f"differs from the committed table ({ref_path}): " + "; ".join(said)
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
    return f"differs from the committed table ({ref_path}); largest difference per column: " + "; ".join(parts)


def _load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except json.JSONDecodeError as err:
        raise InputError(path, f"not JSON ({err.msg})") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("new", help="the run's table JSON")
    ap.add_argument("reference", help="the committed table JSON")
    args = ap.parse_args(argv)
    new, ref = _load(args.new), _load(args.reference)
    print(f"Table {new.get('table', '?')} ({args.new}) {comparison(new, ref, args.reference)}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
