"""Start-up cost of the command line (issue #9: `optimize` on a suite kernel in < 2 s):
OR-Tools' CP-SAT module is loaded without pandas (polysched/schedule/cp_sat.py), and
its pandas API still works once the process imports the real pandas."""
import subprocess
import sys


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_scheduler_loads_without_pandas():
    assert _run("import sys, polysched.schedule.ilp, polysched.pipeline; print('pandas' in sys.modules)") == "False"


def test_cp_model_pandas_api_works_after_a_real_pandas_import():
    out = _run(
        "from polysched.schedule.cp_sat import cp_model\n"
        "import pandas as pd\n"
        "m = cp_model.CpModel()\n"
        "xs = m.new_int_var_series('x', pd.Index(range(3)), 0, 5)\n"
        "m.add(xs.sum() == 7)\n"
        "m.minimize(xs[0] * 2 + xs[1] * 3 + xs[2])\n"
        "s = cp_model.CpSolver()\n"
        "assert s.solve(m) == cp_model.OPTIMAL\n"
        "print(type(xs).__module__.split('.')[0], list(s.values(xs)))\n")
    assert out == "pandas [2, 0, 5]"


def test_nothing_is_an_instance_of_the_stand_in_classes_without_pandas():
    assert _run("import sys\n"
                "from polysched.schedule.cp_sat import cp_model\n"
                "print(isinstance([1], cp_model.pd.Series), isinstance(1, cp_model.pd.Index), "
                "'pandas' in sys.modules)") == "False False False"
