"""The demo is the main job: it must run, print its table and report the contract held."""

import subprocess
import sys

from cvcclock.__main__ import main
from cvcclock.demo import contract_violations, run_all


def test_every_pacing_gives_the_same_trajectories():
    results = run_all()
    assert contract_violations(results) == []
    checked = [r for r in results if r.checked]
    assert len({r.hashes for r in checked}) == 1
    assert {"live 1x", "live 2x", "live 0.5x", "single-step"} <= {r.name for r in checked}


def test_python_m_cvcclock_demo_prints_the_table_and_exits_zero():
    proc = subprocess.run([sys.executable, "-m", "cvcclock", "demo"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "determinism contract: held" in proc.stdout
    for column in ("mode", "frames", "ticks", "dropped", "realized"):
        assert column in proc.stdout


def test_version(capsys):
    import cvcclock

    try:
        main(["--version"])
    except SystemExit as exit:
        assert exit.code == 0
    assert capsys.readouterr().out.strip() == f"cvcclock {cvcclock.__version__}"
