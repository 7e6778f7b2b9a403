"""python -m repro: subcommands, help, and the one error line."""

from __future__ import annotations

import subprocess
import sys

from repro import cli, errors


def test_usage_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in cli.COMMANDS)
    assert cli.main([]) == 2


def test_version_prints_the_package_version(capsys):
    import configparser
    import os
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "setup.cfg"))
    for flag in ("--version", "-V"):
        assert cli.main([flag]) == 0
        assert capsys.readouterr().out == f"repro {cfg['metadata']['version']}\n"  # the installed package's


def test_unknown_command(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_a_stage_runs_through_python_m_repro(tmp_path):
    out = subprocess.run([sys.executable, "-m", "repro", "docfreq", "--paragraphs", str(tmp_path / "none.tsv"),
                          "--vocab", str(tmp_path / "none.txt"), "--out", str(tmp_path / "df.npz")],
                         capture_output=True, text=True)
    assert out.returncode == 1 and out.stderr == f"error: {tmp_path / 'none.txt'}: no such file\n"
    help_ = subprocess.run([sys.executable, "-m", "repro", "pairs", "--help"], capture_output=True, text=True)
    assert help_.returncode == 0 and "--split-by" in help_.stdout


def test_run_turns_bad_input_into_one_line(capsys):
    assert cli.run is errors.run  # the one error path

    def main(argv):
        raise errors.InputError("some/file", "broken")

    assert errors.run(main, []) == 1
    assert capsys.readouterr().err == "error: some/file: broken\n"
    for err, line in ((FileNotFoundError(2, "No such file or directory", "x.tsv"),
                       "[Errno 2] No such file or directory: 'x.tsv'"),
                      (KeyboardInterrupt(), "interrupted (no output was completed)")):
        def raising(argv, err=err):
            raise err

        assert errors.run(raising, []) == 1
        assert capsys.readouterr().err == f"error: {line}\n"
    assert errors.run(lambda argv: 3, []) == 3 and errors.run(lambda argv: None, []) == 0
