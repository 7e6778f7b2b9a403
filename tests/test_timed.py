import json
import sys

from experiments import timed


def test_records_wall_time_of_a_successful_stage(tmp_path):
    assert timed.main([str(tmp_path), "stage", "--", sys.executable, "-c", "import time; time.sleep(0.2)"]) == 0
    rec = json.loads((tmp_path / "stage.json").read_text())
    assert rec["stage"] == "stage" and 0.2 <= rec["seconds"] < 10


def test_failure_passes_the_status_and_records_nothing(tmp_path):
    assert timed.main([str(tmp_path), "bad", "--", sys.executable, "-c", "raise SystemExit(3)"]) == 3
    assert not (tmp_path / "bad.json").exists()
    assert timed.main([str(tmp_path), "x"]) == 2


def test_generated_outputs_do_not_make_the_commit_dirty(tmp_path):
    import subprocess

    from repro.io.provenance import git_commit

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "t.md").write_text("a\n")
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "benchmarks" / "results" / "scale.json").write_text("{}\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "SCALE.md").write_text("a\n")
    (tmp_path / "docs" / "FIDELITY.md").write_text("a\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    head = git_commit(str(tmp_path))
    assert len(head) == 40
    (tmp_path / "results" / "t.md").write_text("b\n")
    assert git_commit(str(tmp_path)) == head  # a regenerated table is not a code change
    (tmp_path / "benchmarks" / "results" / "scale.json").write_text("{\"a\": 1}\n")
    (tmp_path / "docs" / "SCALE.md").write_text("b\n")
    assert git_commit(str(tmp_path)) == head  # nor a benchmark's results and the page made from them
    (tmp_path / "docs" / "FIDELITY.md").write_text("b\n")
    assert git_commit(str(tmp_path)) == head + "+dirty"  # other documents are written by hand
    (tmp_path / "docs" / "FIDELITY.md").write_text("a\n")
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_commit(str(tmp_path)) == head + "+dirty"


def test_repro_commit_names_the_commit_of_a_copy_without_history(tmp_path, monkeypatch):
    from repro.io.provenance import git_commit

    assert git_commit(str(tmp_path)) == "unknown"  # not a git checkout
    monkeypatch.setenv("REPRO_COMMIT", "0123abc")
    assert git_commit(str(tmp_path)) == "0123abc"
