"""Compile a test's C program once and run it with several argument lists, at 1 and 2
threads: the outputs the transformed program must reproduce exactly."""
from __future__ import annotations

from polysched.bench import compile_c, run_binary

# -O1 compiles fast; polysched's parallel loops fork at any size
CFLAGS = ["-O1", "-ffp-contract=off", "-DPOLYSCHED_PARALLEL_MIN_WORK=0"]


def outputs_of(source: str, tmp_path, tag: str, arguments, threads=(1, 2)) -> list[str]:
    """The stdout of ``source`` (compiled as ``tmp_path/tag``) for each tuple of
    ``arguments`` at each thread count, in order; a failed build or run fails the test."""
    path = tmp_path / f"{tag}.c"
    path.write_text(source)
    built = compile_c(path, tmp_path / tag, cflags=CFLAGS, openmp=True)
    assert built.ok, built.reason
    outputs = []
    for args in arguments:
        for t in threads:
            run = run_binary(tmp_path / tag, args=[str(a) for a in args], threads=t, timeout=60)
            assert run.ok, f"{tag} {' '.join(map(str, args))} threads={t}: {run.reason}"
            outputs.append(run.stdout)
    return outputs


def image_driver(size_type: str, sizes) -> str:
    """The C ``main`` of the random image kernels (``kernel(w, h, a, b, c)`` over three
    float images of ``size_type`` sizes): each of ``sizes`` (``(w, h)`` pairs) on fresh
    data, printing a weighted sum of the images."""
    listed = ", ".join(f"{{{w}, {h}}}" for w, h in sizes)
    spec = "%u" if "unsigned" in size_type else "%d"
    return f"""int main(void) {{
  {size_type} sizes[][2] = {{{listed}}};
  for (int s = 0; s < {len(sizes)}; s++) {{
    {size_type} w = sizes[s][0], h = sizes[s][1];
    float *a = malloc(sizeof(float) * (w * h + 8)), *b = malloc(sizeof(float) * (w * h + 8)),
          *c = malloc(sizeof(float) * (w * h + 8));
    for ({size_type} i = 0; i < w * h + 8; i++) {{ a[i] = (i * 7 % 13) * 0.5f; b[i] = (i % 5) * 0.25f; c[i] = 1.0f; }}
    kernel(w, h, a, b, c);
    double sum = 0;
    for ({size_type} i = 0; i < w * h; i++) sum += (a[i] + 2 * b[i] + 3 * c[i]) * (i % 7 + 1);
    printf("{spec} {spec} %.9g\\n", w, h, sum);
    free(a); free(b); free(c);
  }}
  return 0;
}}
"""


def oracle_results(text: str, tmp_path, modes=("identity", "pluto-smart", "tile", "tile-par")) -> list:
    """The fuzzer's oracle (polysched.fuzz.runner.Evaluator: the original and each
    output compiled alike and run, at 1 and 2 threads) on the program ``text`` under
    ``modes``: each mode's result. The original must be a valid test."""
    from polysched.fuzz.runner import Evaluator
    evaluator = Evaluator(text, tmp_path, 60.0)
    assert not evaluator.invalid and not evaluator.skipped, evaluator.invalid or evaluator.skipped
    return evaluator.evaluate_all(list(modes))
