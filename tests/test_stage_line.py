"""experiments/tables.py: the README's line of stage times and make's wall time."""

from __future__ import annotations

from experiments import compare, tables

STAGES = {"install": 30.0, "wikidump": 1.0, "word2vec": 119.0, "family-wikivar": 200.0, "family-wiki20": 100.0,
          "scores-wikivar": 60.0, "weights-twitter-median": 5.0}


def test_make_jobs_reads_the_j_option_of_makeflags():
    assert tables.make_jobs(" -j2 --jobserver-auth=3,4") == 2
    assert tables.make_jobs("-j 3") == 3 and tables.make_jobs("rs -j12") == 12
    assert tables.make_jobs("") == 1 and tables.make_jobs(" --jobserver-auth=3,4") == 1


def test_the_stage_line_sums_the_tables_stages_and_says_make_s_wall_time():
    line = tables._stage_line(tables.SPECS[1], STAGES, wall=330.0, jobs=2)[1]
    # 30 + 1 + 119 + 300 + 60 = 510 s of stages (the tweet model is Table 2's); make took 5.5 min with 2 jobs
    assert line.startswith("Time of the stages, as last run: 8.5 min in all (install 30 s, data chain 120 s, "
                           "kappa search and training 300 s, scoring 60 s); make's wall time from its start to "
                           "this table 5.5 min, 2 jobs side by side;")
    assert "one job at a time" in tables._stage_line(tables.SPECS[1], STAGES, wall=510.0, jobs=1)[1]
    assert "wall time" not in tables._stage_line(tables.SPECS[1], STAGES)[1]  # not recorded: not said
    assert tables._stage_line(tables.SPECS[1], {}) == []


def test_the_jobs_are_provenance_not_results():
    assert "make_jobs" in compare.PROVENANCE
