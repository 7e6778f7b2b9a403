"""Every Makefile product depends on the project files its command really imports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from experiments import deps
from repro.cli import COMMANDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


#: Run in one fresh interpreter: for each module named on its command line, forget every module of
#: the project's packages, import it, and print the files then loaded as a JSON line. The third-party
#: packages stay loaded from one module to the next (each would otherwise cost a fresh interpreter
#: its seconds of imports); which project files a module loads does not depend on them (no project
#: module looks at what is loaded, sys.modules, but repro.pins, which only records whether NumPy came first).
IMPORTS = """
import importlib, json, sys
for module in sys.argv[2:]:
    for name in [n for n in sys.modules if n.split(".")[0] in sys.argv[1].split(",")]:
        del sys.modules[name]
    importlib.import_module(module)
    print(json.dumps([m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)]))
"""


def runtime_imports(modules) -> dict[str, set[str]]:
    """{module: the project source files loaded by importing it} for every module of ``modules``,
    each imported afresh (:data:`IMPORTS`)."""
    out = subprocess.run([sys.executable, "-c", IMPORTS, ",".join(deps.PACKAGES), *modules], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    found = {}
    for module, line in zip(modules, out.splitlines(), strict=True):
        files = {os.path.relpath(os.path.realpath(p), ROOT) for p in json.loads(line)}
        found[module] = {f for f in files if f.split(os.sep)[0] in deps.PACKAGES and f.endswith(".py")}
    return found


def make_rules(data: str) -> dict[str, tuple[set[str], str]]:
    """target -> (prerequisites, recipe) from make's database, nothing run."""
    db = subprocess.run(["make", "-pnq", f"DATA={data}", "RESULTS=results-probe", "PY=python", "STAMP="],
                        cwd=ROOT, capture_output=True, text=True).stdout
    rules, target, in_define = {}, None, False
    for line in db.splitlines():
        if re.match(r"^(override )?define ", line) or line == "endef":  # a variable's text, not a rule
            in_define, target = line != "endef", None
            continue
        if in_define:
            continue
        m = re.match(r"^([^\s#:=][^:=]*):(?!=)\s*(.*)$", line)
        if m and not line.startswith(("\t", ".")):
            target = m.group(1).strip()
            rules[target] = (set(m.group(2).replace("|", " ").split()), "")
        elif line.startswith("\t") and target in rules:
            pre, recipe = rules[target]
            rules[target] = (pre, recipe + line)
        elif not line.strip():
            target = None
    return rules


def recipe_module(recipe: str) -> str | None:
    m = re.search(r"-m repro (\w+)", recipe)
    if m:
        return COMMANDS[m.group(1)][0]
    m = re.search(r"-m (experiments\.\w+)(?! \S+/timings)", recipe.replace("-m experiments.timed", ""))
    return m.group(1) if m else None


MODULES = ["experiments.train_weights", "experiments.score", "experiments.tables", "experiments.figures",
           "experiments.ship_default",
           "experiments.token_df", "experiments.train_tokenfamily", "experiments.score_tokens",
           *sorted(m for m, _ in COMMANDS.values())]


@pytest.fixture(scope="module")
def imported():
    """:func:`runtime_imports` of every module of :data:`MODULES`."""
    return runtime_imports(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_static_dependencies_cover_the_real_imports(module, imported):
    static = set(deps.files(module))
    missing = imported[module] - static
    assert not missing, f"{module} imports {sorted(missing)} but experiments/deps.py does not list them"
    assert all(os.path.isfile(os.path.join(ROOT, f)) for f in static)


def test_every_product_depends_on_the_code_of_its_command():
    rules = make_rules("data-probe")
    checked = 0
    for target, (pre, recipe) in rules.items():
        module = recipe_module(recipe)
        if module is None:
            continue
        need = set(deps.files(module))
        assert need <= pre, f"{target}: missing prerequisites {sorted(need - pre)}"
        checked += 1
    # paragraphs, word2vec, df, pairs, models, three score files, table, figures
    assert checked >= 9, sorted(rules)


def test_the_cached_table_is_the_table_and_follows_every_change(tmp_path, monkeypatch):
    """deps.py --table --cache (the Makefile's): the words of --table; read from the cache while no
    file changed; parsed again when a file is added or edited (its size, or only its time); a cache
    that cannot be written costs only the time."""
    src = tmp_path / "src"
    for package in deps.PACKAGES:
        (src / package).mkdir(parents=True)
        (src / package / "__init__.py").write_text("")
    (src / "repro" / "a.py").write_text("import os\n")
    (src / "experiments" / "run.py").write_text("from repro import a\n")
    monkeypatch.setattr(deps, "ROOT", str(src))

    def fresh():  # as a new interpreter reads it
        deps._imported.cache_clear()
        return deps.table()

    cache = str(tmp_path / "deps-table")
    first = deps.cached_table(cache)
    assert first == fresh()
    assert "experiments.run=experiments/__init__.py,experiments/run.py,repro/__init__.py,repro/a.py" in first.split()
    with monkeypatch.context() as m:
        m.setattr(deps, "table", lambda: pytest.fail("parsed again though no file changed"))
        assert deps.cached_table(cache) == first
    (src / "repro" / "b.py").write_text("")
    (src / "repro" / "c.py").write_text("")
    (src / "repro" / "a.py").write_text("from repro import b\n")  # a new size
    deps._imported.cache_clear()
    second = deps.cached_table(cache)
    assert second == fresh() and "experiments.run=experiments/__init__.py,experiments/run.py,repro/__init__.py," \
        "repro/a.py,repro/b.py" in second.split()
    a = src / "repro" / "a.py"
    stamp = a.stat().st_mtime_ns
    a.write_text("from repro import c\n")  # the same size: only the time tells
    os.utime(a, ns=(stamp + 10**9, stamp + 10**9))
    deps._imported.cache_clear()
    third = deps.cached_table(cache)
    assert third == fresh() and "repro/a.py,repro/c.py" in third
    assert deps.cached_table(str(tmp_path / "no-such-folder" / "deps-table")) == third
    assert not (tmp_path / "no-such-folder").exists()
    assert sorted(os.listdir(tmp_path)) == ["deps-table", "src"]  # no temporary file left


def test_forms_and_metrics_reach_the_weights():
    """The audit's case: touching the data forms or metrics.py must re-run the kappa search."""
    files = set(deps.files("experiments.train_weights"))
    assert {"repro/core/forms.py", "repro/core/metrics.py", "repro/core/crossval.py", "repro/core/fit.py"} <= files


def test_each_table2_column_gets_its_own_tweets_options():
    """make -n table2: both news columns keep the news accounts, only the nort column drops manual
    retweets, and every column's models and scores follow from the patterns (nothing run)."""
    out = subprocess.run(["make", "-n", "--no-print-directory", "DATA=/nonexistent-probe", "PY=python", "STAMP=", "TWEET_OPTIONS=--drop-mentions",
                          "table2"], cwd=ROOT, capture_output=True, text=True).stdout.replace("\\\n", " ")
    lines = [" ".join(line.split()) for line in out.splitlines()]
    tweets = {m.group(1): line for line in lines if (m := re.search(r"-m repro tweets --out \S+/(\w+)/couples.jsonl", line))}
    assert list(tweets) == ["twitter_news", "twitter_news_nort", "twitter"]
    accounts = "--accounts experiments/news_accounts.txt"
    assert accounts in tweets["twitter_news"] and "--drop-manual-retweets" not in tweets["twitter_news"]
    assert accounts in tweets["twitter_news_nort"] and "--drop-manual-retweets" in tweets["twitter_news_nort"]
    assert accounts not in tweets["twitter"] and "--drop-manual-retweets" not in tweets["twitter"]
    assert all(line.endswith("--drop-mentions") for line in tweets.values())  # TWEET_OPTIONS: every column
    for s in tweets:
        assert any(f"tweetsets --couples /nonexistent-probe/{s}/couples.jsonl" in line and f"--setting {s} " in line
                   for line in lines)
        for loss in ("contrastive", "median"):
            assert any(f"--setting {s} --loss {loss} " in line and f"models/{s}-{loss}.npz" in line for line in lines)
        assert any(f"experiments.score --data /nonexistent-probe --setting {s} " in line for line in lines)


def dry_run(*args: str) -> list[str]:
    """The commands ``make -n ARGS`` would run (nothing run), one a line, continuations joined."""
    out = subprocess.run(["make", "-n", "--no-print-directory", "DATA=/nonexistent-probe", "PY=python", "STAMP=", *args], cwd=ROOT,
                         capture_output=True, text=True).stdout.replace("\\\n", " ")
    return [" ".join(line.split()) for line in out.splitlines() if line.strip()]


def test_a_users_run_writes_only_ignored_folders_and_ends_with_the_comparison():
    """make table1 / table2 on a fresh clone: the tables go to out/ (ignored), no README block is
    rewritten, and the last command compares every generated table with the committed ones."""
    for table, module in (("table1", "tables"), ("table2", "tables"), ("sts", "sts")):
        lines = dry_run(table)
        tables = [line for line in lines if f"-m experiments.{module}" in line]
        assert len(tables) == 1 and "--results out " in tables[0] and "--readme" not in tables[0]
        assert lines[-1] == f"python -m experiments.compare out results {table}"
    ignored = subprocess.run(["git", "check-ignore", "out/table1.md", "data/df.npz", ".venv/bin/python"], cwd=ROOT,
                             capture_output=True, text=True).stdout.split()
    assert ignored == ["out/table1.md", "data/df.npz", ".venv/bin/python"]


def test_publish_rewrites_the_committed_results_and_both_files_of_blocks():
    lines = dry_run("RESULTS=results", "table1")
    tables = next(line for line in lines if "-m experiments.tables" in line)
    assert "--results results " in tables and "--readme README.md --readme docs/RESULTS.md" in tables
    assert not any("experiments.compare" in line for line in lines)  # the reference is not compared with itself
    made = [line.split(" ", 1)[1] for line in dry_run("publish") if line.startswith("make ")]
    assert made == ["-j2 table1 RESULTS=results", "weights RESULTS=results", "default RESULTS=results",
                    "-j2 table2 RESULTS=results",
                    "sts figures RESULTS=results", "-j2 seeds RESULTS=results"]


def _jobs_flag(*args: str) -> list[str]:
    """The -j options make runs with for ``make -n ARGS`` (its MAKEFLAGS, printed by a probe rule)."""
    out = subprocess.run(["make", "-n", "--no-print-directory", "-f", "Makefile", "-f", "-", "DATA=/nonexistent-probe",
                          "PY=python", "STAMP=", *args], input="probe-flags:\n\t@echo FLAGS $(MAKEFLAGS)\n",
                         cwd=ROOT, capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                        if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")})
    line = next(l for l in out.stdout.splitlines() if l.startswith("echo FLAGS"))  # -n prints the probe's line
    return re.findall(r"-j\d+", line)


def test_the_tables_run_two_jobs_side_by_side_but_one_with_cuda():
    assert _jobs_flag("table1", "probe-flags") == ["-j2"] and _jobs_flag("table2", "probe-flags") == ["-j2"]
    assert _jobs_flag("JOBS=3", "table2", "probe-flags") == ["-j3"]
    assert _jobs_flag("EXTRAS=cuda,test", "table1", "probe-flags") == ["-j1"]  # two JAX processes on one GPU: no
    assert _jobs_flag("test", "probe-flags") == []  # the test suite's own make calls stay one at a time
