"""SAT == brute force on random statements: random nests, array shapes, element types,
subscripts and expression trees, half of them built around a matrix product (so that
matches exist) with loops, subscripts and operands shuffled."""
import random

from polysched.scop import extract
from polysched.tensorize import builtin_intrinsics
from polysched.tensorize.brute import brute_force_matches
from polysched.tensorize.problem import make_problem
from polysched.tensorize.sat import sat_matches

INTRINSICS = builtin_intrinsics()
EXTENTS = [4, 6, 8, 12, 16, 32]


def _subscript(rng, loops):
    kind = rng.random()
    if kind < 0.6:
        return rng.choice(loops)
    if kind < 0.8 and len(loops) > 1:
        a, b = rng.sample(loops, 2)
        return f"{a} + {b}"
    return f"{rng.choice(loops)} + {rng.randint(0, 2)}"


def _program(rng):
    n = rng.randint(2, 4)
    loops = [f"i{d}" for d in range(n)]
    extents = [rng.choice(EXTENTS) for _ in loops]
    elem = rng.choice(["double", "double", "double", "float", "int8_t"])
    out_t = "int32_t" if elem == "int8_t" else elem
    arrays = {}
    if rng.random() < 0.5 and n >= 3:
        # a product C[x][y] += A[x][z] * B[z][y], loops and operand order shuffled
        x, y, z = rng.sample(loops, 3)
        ref_a = f"A[{x}][{z}]" if rng.random() < 0.8 else f"A[{z}][{x}]"
        ref_b = f"B[{z}][{y}]" if rng.random() < 0.8 else f"B[{y}][{z}]"
        out = f"C[{x}][{y}]" if rng.random() < 0.8 else f"C[{y}][{x}]"
        if n == 4 and rng.random() < 0.5:
            w = [v for v in loops if v not in (x, y, z)][0]
            ref_a = ref_a.replace("A[", f"A[{w}][")
            out = out.replace("C[", f"C[{w}][")
        prod = [ref_a, ref_b]
        rng.shuffle(prod)
        rhs = f"{prod[0]} * {prod[1]}"
        if rng.random() < 0.2:
            rhs = f"alpha * {rhs}"
        body = rng.choice([f"{out} += {rhs};", f"{out} = {out} + {rhs};", f"{out} = {rhs} + {out};"])
        names = {"A": elem, "B": elem, "C": out_t}
    else:
        names = {"A": elem, "B": elem, "C": out_t, "D": elem}

        def ref(name):
            rank = rng.randint(1, 3)
            return name + "".join(f"[{_subscript(rng, loops)}]" for _ in range(rank))

        def expr(depth):
            if depth == 0 or rng.random() < 0.3:
                return ref(rng.choice("ABD"))
            return f"({expr(depth - 1)} {rng.choice('+*')} {expr(depth - 1)})"
        out = ref("C")
        body = f"{out} {rng.choice(['=', '+='])} {expr(2)};"
    # every array gets the largest rank any reference uses; sizes cover every subscript
    ranks = {}
    for name in names:
        rank = 0
        text = body
        start = text.find(name + "[")
        while start >= 0:
            k, count = start + len(name), 0
            while k < len(text) and text[k] == "[":
                count += 1
                k = text.index("]", k) + 1
            rank = max(rank, count)
            start = text.find(name + "[", k)
        ranks[name] = rank
    decls = []
    for name, t in names.items():
        if ranks[name]:
            decls.append(f"{t} {name}" + "[80]" * ranks[name])
    decls.append(f"{elem} alpha")
    nest = ""
    for d, (loop, extent) in enumerate(zip(loops, extents)):
        nest += "  " * (d + 1) + f"for ({loop} = 0; {loop} < {extent}; {loop}++)\n"
    text = (f"void f({', '.join(decls)})\n{{\n  int {', '.join(loops)};\n#pragma scop\n{nest}"
            f"{'  ' * (n + 1)}{body}\n#pragma endscop\n}}\n")
    return text, body


def test_sat_equals_brute_force_on_random_statements():
    rng = random.Random(20261122)
    programs = positives = skipped = 0
    while programs < 150:
        text, body = _program(rng)
        try:
            [scop] = extract(text, filename="random.c")
        except Exception:      # an array referenced with fewer subscripts than its rank
            skipped += 1
            continue
        programs += 1
        stmt = scop.statements[0]
        for intrinsic in INTRINSICS:
            problem = make_problem(scop, stmt, intrinsic)
            sat = sat_matches(problem)
            brute = brute_force_matches(problem)
            assert len(sat) == len(set(sat))
            assert set(sat) == set(brute), (body, intrinsic.name)
            positives += bool(sat)
    assert positives >= 30 and skipped < programs
