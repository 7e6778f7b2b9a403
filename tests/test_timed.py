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
