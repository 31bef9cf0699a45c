"""Random affine loop nests for the dependence oracle (hypothesis strategies).

A program is a Python structure that renders to C (``to_c``), to a hand-built Scop
(``to_scop``: isl strings written from the structure, independent of the C front
end) and that this module can execute itself (``trace``): the execution trace,
with every read and write address per statement instance in execution order, is
all the brute-force oracle needs -- no isl involved.

Shapes: several statements, imperfect nests up to depth 3, triangular bounds,
loops counting down, affine guards, shifted and permuted subscripts, scalars,
compound assignments.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

PARAMS = ("N", "M")
ARRAYS = {"A": 2, "B": 2, "x": 1, "y": 1, "s": 0}   # name -> rank
EXTENT = 64   # declared extent of every array dimension (subscripts stay in 0..EXTENT)


@dataclass(frozen=True)
class Affine:
    """``const + sum(coeff * name)`` over loop variables and parameters."""

    terms: tuple[tuple[str, int], ...]
    const: int = 0

    def eval(self, env: dict[str, int]) -> int:
        return self.const + sum(c * env[n] for n, c in self.terms)

    def c(self) -> str:
        parts = []
        for name, coeff in self.terms:
            if coeff == 1:
                parts.append(name)
            elif coeff == -1:
                parts.append(f"-{name}")
            else:
                parts.append(f"{coeff} * {name}")
        text = " + ".join(parts).replace("+ -", "- ") if parts else ""
        if self.const or not text:
            text = f"{text} + {self.const}" if text else str(self.const)
            text = text.replace("+ -", "- ")
        return text


def var(name: str, const: int = 0) -> Affine:
    return Affine(((name, 1),), const)


@dataclass
class Loop:
    """``for (v = lower; v <= upper; v++)`` or, if ``down``,
    ``for (v = upper; v >= lower; v--)``."""

    var: str
    lower: Affine
    upper: Affine
    body: list
    down: bool = False


@dataclass
class Guard:
    """``if (lhs >= rhs) body``."""

    lhs: Affine
    rhs: Affine
    body: list


@dataclass
class Stmt:
    """``target op= sources`` where target/sources are ``(array, [Affine, ...])``."""

    name: str
    target: tuple[str, tuple[Affine, ...]]
    sources: list[tuple[str, tuple[Affine, ...]]]
    compound: bool = False
    iterators: list[str] = field(default_factory=list)


def _ref(ref) -> str:
    array, subs = ref
    if ARRAYS[array] == 0:
        return array
    return array + "".join(f"[{s.c()}]" for s in subs)


class Program:
    def __init__(self, body: list, params: tuple[str, ...]):
        self.body = body
        self.params = params
        self.statements: list[Stmt] = []
        self._number(body, [])

    def _number(self, body, iterators):
        for node in body:
            if isinstance(node, Stmt):
                node.name = f"S{len(self.statements)}"
                node.iterators = list(iterators)
                self.statements.append(node)
            elif isinstance(node, Loop):
                self._number(node.body, iterators + [node.var])
            else:
                self._number(node.body, iterators)

    # ------------------------------------------------------------- C text
    def to_c(self) -> str:
        args = ", ".join([f"int {p}" for p in self.params]
                         + [f"double {a}" + f"[{EXTENT}]" * r for a, r in ARRAYS.items() if r]
                         + ["double s_out[1]"])
        lines = [f"void kernel({args})", "{", "  int i, j, k;", "  double s = s_out[0];",
                 "#pragma scop"]
        self._c(self.body, lines, 1)
        lines += ["#pragma endscop", "  s_out[0] = s;", "}"]
        return "\n".join(lines) + "\n"

    def _c(self, body, lines, depth):
        pad = "  " * depth
        for node in body:
            if isinstance(node, Loop):
                if node.down:
                    head = (f"for ({node.var} = {node.upper.c()}; {node.var} >= "
                            f"{node.lower.c()}; {node.var}--)")
                else:
                    head = (f"for ({node.var} = {node.lower.c()}; {node.var} <= "
                            f"{node.upper.c()}; {node.var}++)")
                lines.append(pad + head + " {")
                self._c(node.body, lines, depth + 1)
                lines.append(pad + "}")
            elif isinstance(node, Guard):
                lines.append(pad + f"if ({node.lhs.c()} >= {node.rhs.c()}) {{")
                self._c(node.body, lines, depth + 1)
                lines.append(pad + "}")
            else:
                rhs = " + ".join(f"0.5 * {_ref(r)}" for r in node.sources) or "1.0"
                op = "+=" if node.compound else "="
                lines.append(pad + f"{_ref(node.target)} {op} {rhs};")

    # ------------------------------------------------------------- execution
    def trace(self, values: dict[str, int]) -> list:
        """``[((stmt, (i, ...)), reads, [("write", address)]), ...]`` in execution
        order; an address is ``(array, (index, ...))``; reads before the write."""
        out = []
        self._run(self.body, dict(values), [], out)
        return out

    def _run(self, body, env, iters, out):
        for node in body:
            if isinstance(node, Loop):
                lo, hi = node.lower.eval(env), node.upper.eval(env)
                rng = range(hi, lo - 1, -1) if node.down else range(lo, hi + 1)
                for v in rng:
                    env[node.var] = v
                    self._run(node.body, env, iters + [node.var], out)
                env.pop(node.var, None)
            elif isinstance(node, Guard):
                if node.lhs.eval(env) >= node.rhs.eval(env):
                    self._run(node.body, env, iters, out)
            else:
                def address(ref):
                    array, subs = ref
                    return (array, tuple(s.eval(env) for s in subs))
                reads = [address(r) for r in node.sources]
                if node.compound:
                    reads.insert(0, address(node.target))
                inst = (node.name, tuple(env[v] for v in iters))
                out.append((inst, reads, [("write", address(node.target))]))

    # ------------------------------------------------------------- isl model
    def to_scop(self):
        """A Scop built from this structure with isl strings (no C front end): the
        schedule tree mirrors the loops, sequences order siblings."""
        import islpy as isl

        from oracle_model import make_scop

        params = ", ".join(self.params)
        stmts = []
        self._domains(self.body, [], [], stmts)
        specs = []
        for stmt, cons in stmts:
            it = ", ".join(stmt.iterators)
            dom = f"[{params}] -> {{ {stmt.name}[{it}] : {' and '.join(cons) or 'true'} }}"

            def rel(ref):
                array, subs = ref
                return f"[{params}] -> {{ {stmt.name}[{it}] -> {array}[{', '.join(s.c() for s in subs)}] }}"
            accs = [("read", rel(r)) for r in stmt.sources]
            if stmt.compound:
                accs.append(("read", rel(stmt.target)))
            accs.append(("write", rel(stmt.target)))
            specs.append((stmt.name, stmt.iterators, dom, accs))
        context = f"[{params}] -> {{ : {' and '.join(f'{p} >= 1' for p in self.params)} }}"
        domain = "; ".join(spec[2].split("{", 1)[1].rsplit("}", 1)[0] for spec in specs)
        tree = self._tree(self.body, f"[{params}]")
        yaml = f'{{ domain: "[{params}] -> {{ {domain} }}"' + (f", child: {tree} }}" if tree else " }")
        return make_scop(list(self.params), context, specs, yaml)

    def _domains(self, body, iters, cons, out):
        for node in body:
            if isinstance(node, Loop):
                v = node.var
                c = cons + [f"{node.lower.c()} <= {v} <= {node.upper.c()}"]
                self._domains(node.body, iters + [v], c, out)
            elif isinstance(node, Guard):
                self._domains(node.body, iters, cons + [f"{node.lhs.c()} >= {node.rhs.c()}"], out)
            else:
                out.append((node, cons))

    def _stmts_under(self, body):
        result = []
        for node in body:
            if isinstance(node, Stmt):
                result.append(node)
            else:
                result += self._stmts_under(node.body)
        return result

    def _tree(self, body, params) -> str:
        """YAML of the schedule subtree for ``body``: a sequence of filters when
        there are several children, a band per loop."""
        children = []
        for node in body:
            stmts = self._stmts_under([node])
            if not stmts:
                continue
            filt = "; ".join(f"{s.name}[{', '.join(s.iterators)}]" for s in stmts)
            if isinstance(node, Loop):
                sign = "-" if node.down else ""
                part = "; ".join(f"{s.name}[{', '.join(s.iterators)}] -> [({sign}{node.var})]"
                                 for s in stmts)
                inner = self._tree(node.body, params)
                band = f'{{ schedule: "{params} -> [{{ {part} }}]"' + (
                    f", child: {inner} }}" if inner else " }")
                children.append((filt, band))
            elif isinstance(node, Guard):
                children.append((filt, self._tree(node.body, params)))
            else:
                children.append((filt, None))
        if not children:
            return ""
        if len(children) == 1:
            return children[0][1] or ""
        items = []
        for filt, sub in children:
            item = f'{{ filter: "{params} -> {{ {filt} }}"'
            item += f", child: {sub} }}" if sub else " }"
            items.append(item)
        return "{ sequence: [ " + ", ".join(items) + " ] }"


# ------------------------------------------------------------------ strategies

LOOP_VARS = ("i", "j", "k")


@st.composite
def _subscript(draw, iters):
    if iters and draw(st.integers(0, 5)) > 0:
        v = draw(st.sampled_from(iters))
        return var(v, draw(st.integers(-1, 2)))
    return Affine((), draw(st.integers(0, 3)))


@st.composite
def _refs(draw, iters, arrays=("A", "A", "A", "x", "x", "B", "y", "s")):
    # Few arrays, mostly A and x, so that references collide and dependences exist.
    array = draw(st.sampled_from(arrays))
    return (array, tuple(draw(_subscript(iters)) for _ in range(ARRAYS[array])))


@st.composite
def _stmt(draw, iters):
    target = draw(_refs(iters))
    sources = draw(st.lists(_refs(iters), min_size=0, max_size=3))
    return Stmt("", target, sources, compound=draw(st.booleans()))


@st.composite
def _bound(draw, outer, params, upper):
    """A loop bound: a parameter-based or an outer-iterator-based (triangular) one."""
    choice = draw(st.integers(0, 3))
    if outer and choice >= 2:
        v = draw(st.sampled_from(outer))
        return var(v, draw(st.integers(0, 2)) if upper else draw(st.integers(-1, 0)))
    if upper:
        p = draw(st.sampled_from(params))
        return var(p, draw(st.integers(-1, 0)))
    return Affine((), draw(st.integers(1, 2)))


@st.composite
def _body(draw, depth, iters, params, budget):
    """A list of 1..3 nodes; ``budget`` is a one-element list counting statements."""
    nodes = []
    for _ in range(draw(st.integers(1, 3))):
        if budget[0] <= 0:
            break
        kind = draw(st.integers(0, 9))
        if depth < 3 and kind < 5:
            v = LOOP_VARS[depth]
            lower = draw(_bound(iters, params, upper=False))
            upper = draw(_bound(iters, params, upper=True))
            body = draw(_body(depth + 1, iters + [v], params, budget))
            if body:
                nodes.append(Loop(v, lower, upper, body, down=draw(st.integers(0, 5)) == 0))
        elif kind < 6 and iters:
            a, b = draw(st.sampled_from(iters)), draw(st.sampled_from(iters + list(params)))
            body = draw(_body(depth, iters, params, budget))
            if body and a != b:
                nodes.append(Guard(var(a), var(b, draw(st.integers(-1, 1))), body))
        else:
            budget[0] -= 1
            nodes.append(draw(_stmt(iters)))
    return nodes


@st.composite
def programs(draw, max_statements: int = 4):
    params = ("N", "M") if draw(st.booleans()) else ("N",)
    body = draw(_body(0, [], params, [draw(st.integers(1, max_statements))]))
    if not body:
        body = [draw(_stmt([]))]
    return Program(body, params)
