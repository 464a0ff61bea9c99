"""The demo is the main job: it must run, print its table and report the contract held."""

import subprocess
import sys

import pytest

from cvcclock.__main__ import main
from cvcclock.bench import CASES, run_bench
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


def test_bench_prints_each_call_in_ns_and_against_its_floor(capsys):
    assert main(["bench", "--number", "50", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    rows = {line[:40].strip(): line[40:].split() for line in out.splitlines()[1:]}
    assert list(rows) == [row for row, _, _ in CASES]
    assert rows["floor: [].count(x)"][1] == rows["floor: [].clear()"][1] == "1.00"
    for ns, ratio in rows.values():
        assert float(ns) > 0 and float(ratio) > 0
    for needed in ("clock.advance(1/60)", "follower.take(clock)", "clock.tick",
                   "binding.drive(1/60)"):
        assert any(row.startswith(needed) for row in rows)


def test_bench_needs_nothing_but_the_package():
    code = ("import sys; from cvcclock.__main__ import main; "
            "main(['bench', '--number', '20', '--repeat', '1']); "
            "assert not {'pytest', 'pytest_benchmark'} & set(sys.modules), sorted(sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "binding.drive(1/60)" in proc.stdout


@pytest.mark.parametrize("argv", [["--number", "0"], ["--repeat", "-1"], ["--number", "x"]])
def test_bench_refuses_a_bad_count(argv, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["bench", *argv])
    assert exit.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_run_bench_refuses_a_bad_count():
    with pytest.raises(ValueError, match="number and repeat"):
        run_bench(0, 1)
