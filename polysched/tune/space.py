"""The search space: traces of schedule primitives over one kernel.

A point of the space is a *configuration* (JSON data, the genotype the search mutates)
and the *trace* it denotes (the candidate: ``Program.replay(trace)`` gives the program):

    {"fuse": "cost", "sizes": [[32, 64, 128], ...], "uaj": [[2, 4] | null, ...],
     "reorder": true, "unroll": 1, "parallel": true, "wavefront": true}

    -> [auto_schedule("pluto", fuse=...)  (or a schedule kind: "isl", "diamond"),
        auto_tile(sizes={"S1": [32, 64, 128], ...}, intra_tile_reorder=..., unroll=..., threads=...,
                  parallel=..., wavefront=..., caches=...),
        unroll_and_jam(S, depth, factor), ...]

``sizes`` and ``uaj`` have one entry per *gene*: a group of the bands that the default
tiling policy tiles for this fusion choice, keyed by the first statement they schedule
(``TileOptions.sizes`` per statement: a band takes the sizes of the first statement it
schedules that has some). ``uaj`` ``[k, f]``: unroll-and-jam by ``f`` the point loop
``k`` loops above the innermost one. ``{"fuse": "identity"}`` is the original schedule
(the empty trace); ``{"fuse": "tensorize"}``, where ``optimize --tile`` would call
micro-kernels, is that program (`polysched.tensorize.default_tensorize`; the default
configuration then, as in ``optimize``). The structure (bands, their extents at the known sizes, the model's
sizes, the point order) is found once per fusion choice by dry runs of ``auto_tile``;
fusion choices that give the same schedule as an earlier one are dropped.

Per member, the tile-size choices are the footprint model's size, powers of two up to
the extent (``SpaceOptions.powers``), and divisors of the extent in the same range.
"""
from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import islpy as isl

from polysched.errors import TransformError
from polysched.tiling import CacheSizes, TileOptions

FUSIONS = ("cost", "max", "no", "isl", "diamond")
# schedule kinds besides the pluto scheduler's fusion policies, each one more choice of
# the "fuse" field: isl's scheduler, and Pluto's with diamond hyperplanes for a stencil's
# time band (on a program without one, the same schedule as "cost": dropped)
SCHEDULE_KINDS = {"isl": {"scheduler": "isl", "fuse": "smart"},
                  "diamond": {"scheduler": "pluto", "fuse": "cost", "diamond": True}}
IDENTITY = "identity"
TENSORIZE = "tensorize"
WHOLE = (IDENTITY, TENSORIZE)   # configurations that are one program each: no genes
IDENTITY_WEIGHT = 0.1      # relative chance of drawing one of those at random


_LATER_FIELDS = {"max_genes": 0}     # SpaceOptions fields added after campaigns were recorded


@dataclass
class SpaceOptions:
    """What the space varies. The defaults are the whole space of issue 13; tests pass
    tiny ones (a single fusion, two sizes per member, no flags)."""

    scheduler: str = "pluto"
    fusions: tuple[str, ...] = FUSIONS
    identity: bool = True                     # the original schedule as a candidate
    tensorize: bool = True                    # optimize's micro-kernel calls, where it makes some
    powers: tuple[int, ...] = (8, 16, 32, 64, 128, 256)
    divisors: int = 2                         # divisors of the extent per member (0: none)
    model_sizes: bool = True
    reorder: tuple[bool, ...] = (True, False)
    unroll: tuple[int, ...] = (1, 2, 4, 8)
    parallel: tuple[bool, ...] = (True, False)
    wavefront: tuple[bool, ...] = (True, False)
    uaj: tuple[int, ...] = (2, 4)             # unroll-and-jam factors (empty: never)
    max_members: int = 3                      # members of a gene whose sizes vary; deeper: model
    max_genes: int = 0                        # genes whose sizes vary, heaviest first; the
                                              # rest keep the model's sizes (0: every gene)

    def to_dict(self) -> dict:
        # a field added later is left out at its default, so that a campaign recorded
        # before it existed is still found by --resume (campaign options match exactly)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in vars(self).items()
                if not (k in _LATER_FIELDS and v == _LATER_FIELDS[k])}

    @classmethod
    def from_dict(cls, data: dict) -> "SpaceOptions":
        known = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()
                 if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class Gene:
    """Bands tiled together (same key statement): the sizes and the unroll-and-jam."""

    key: str                        # the statement whose per-statement sizes they take
    members: int
    extents: list[int | None]
    model_sizes: dict[bool, list[int]]     # parallel -> the model's sizes
    size_choices: list[list[int]]          # per member
    point_order: list[int]                 # with intra_tile_reorder
    uaj_stmt: str
    uaj_loops: int                         # loops of uaj_stmt after the default auto_tile (0: no uaj;
                                           # trace_steps counts them per configuration)
    band_indices: list[int] = field(default_factory=list)   # in Structure.bands
    varied: bool = True                    # False: the model's sizes and no unroll-and-jam

    def uaj_choices(self, factors: Sequence[int]) -> list[list[int] | None]:
        if self.uaj_loops == 0 or self.members < 2 or not self.varied:
            return [None]
        return [None] + [[k, f] for k in range(1, self.members) for f in factors]


@dataclass
class BandInfo:
    """One band of the scheduled (untiled) tree, in depth-first order: what the cost
    models need (its space at the known sizes, whether the policy tiles it, where the
    parallel loop goes)."""

    statements: list[str]
    members: int
    space: object                  # polysched.tiling.footprint.BandSpace | None
    tiled: bool
    gene: int | None
    parallel: bool                 # the policy marks a loop of it parallel (parallel=True)
    wavefront: bool                # ... through a wavefront
    simd: bool
    depth: int
    outer: int = 1                 # iterations of the loops around it (at the known sizes)


@dataclass
class Structure:
    """The bands of one fusion choice."""

    fuse: str
    schedule: str
    genes: list[Gene]
    bands: list[BandInfo]


def _dfs_bands(node: isl.ScheduleNode, out: list) -> None:
    if node.get_type() == isl.schedule_node_type.band and node.band_n_member() > 0:
        out.append(node)
    for i in range(node.n_children()):
        _dfs_bands(node.child(i), out)


def _divisors(extent: int | None, low: int, high: int, count: int) -> list[int]:
    if not extent or count <= 0:
        return []
    found = [d for d in range(low, min(high, extent) + 1) if extent % d == 0 and d & (d - 1)]
    if len(found) <= count:
        return found
    # spread over the range: the largest, then ones near the middle powers
    picks = [found[-1]]
    for target in (32, 64, 16, 128):
        best = min(found, key=lambda d: abs(d - target))
        if best not in picks:
            picks.append(best)
        if len(picks) == count:
            break
    return sorted(picks[:count])


def _size_choices(extent: int | None, model: int, options: SpaceOptions) -> list[int]:
    powers = list(options.powers)
    if extent:
        below = [p for p in powers if p < extent]
        above = [p for p in powers if p >= extent]
        powers = below + above[:1]
    choices = set(powers)
    if options.model_sizes:
        choices.add(int(model))
    lo, hi = (min(options.powers), max(options.powers)) if options.powers else (8, 256)
    choices.update(_divisors(extent, lo, hi, options.divisors))
    return sorted(choices) or [int(model)]


class SearchSpace:
    """The space over one program (``polysched.Program`` as loaded, no step applied)."""

    def __init__(self, program, options: SpaceOptions | None = None, caches=None,
                 threads: int | None = None):
        from polysched.tiling import cache_sizes, openmp_threads
        from polysched.program import MODEL_STEPS
        # the candidates start where `optimize` starts: the scalars it would expand,
        # expanded, the arrays it would transpose, transposed (the first steps of every
        # trace but the identity's)
        self.program = program.prepared() if not program.trace.steps else program
        self.prefix = [dict(step) for step in self.program.trace.steps if step["op"] in MODEL_STEPS]
        program = self.program
        self.options = options or SpaceOptions()
        used = caches or cache_sizes()
        self.caches = {"l1d": used.l1d, "l2": used.l2, "l3": used.l3}
        self.threads = threads or openmp_threads()      # the candidates are made for (and timed at)
        self.structures: dict[str, Structure] = {}
        self.illegal_fusions: dict[str, str] = {}
        self._scheduled: dict[str, object] = {}
        self._tiled: dict[tuple, object] = {}          # (fuse, auto_tile args) -> Program or None
        self._program_keys: dict[str, str] = {}
        self.tensorize_steps: list[dict] | None = None
        if self.options.tensorize:
            from polysched.tensorize import default_tensorize
            tensorized, _ = default_tensorize(program, parallel=True)
            if tensorized is not None:
                self.tensorize_steps = [dict(step) for step in tensorized.trace.steps]
        for fuse in self.options.fusions:
            try:
                structure = self._analyze(fuse)
            except TransformError as err:
                self.illegal_fusions[fuse] = str(err)
                continue
            if any(s.schedule == structure.schedule for s in self.structures.values()):
                continue          # the same schedule as an earlier fusion choice
            self.structures[fuse] = structure
        if not self.structures and not self.options.identity and self.tensorize_steps is None:
            raise TransformError("no fusion choice schedules this program: "
                                 + "; ".join(self.illegal_fusions.values()))

    # -- structure -----------------------------------------------------------------------
    def schedule_args(self, fuse: str) -> dict:
        """The ``auto_schedule`` arguments of the fusion choice (or schedule kind) ``fuse``."""
        return dict(SCHEDULE_KINDS.get(fuse) or {"scheduler": self.options.scheduler, "fuse": fuse})

    def scheduled(self, fuse: str):
        if fuse not in self._scheduled:
            self._scheduled[fuse] = self.program.auto_schedule(**self.schedule_args(fuse))
        return self._scheduled[fuse]

    def _analyze(self, fuse: str) -> Structure:
        from polysched.dependence.loops import prefix_rows
        from polysched.tiling.footprint import band_space
        scheduled = self.scheduled(fuse)
        runs = {}
        for parallel in (True, False):
            runs[parallel] = scheduled.auto_tile(parallel=parallel, caches=self.caches, threads=self.threads)
        nodes: list = []
        _dfs_bands(scheduled.schedule.get_root(), nodes)
        reports = {p: runs[p].tiling_report.bands for p in runs}
        bands: list[BandInfo] = []
        genes: list[Gene] = []
        by_key: dict[str, int] = {}
        order = [s.name for s in scheduled.scop.statements]
        for k, node in enumerate(nodes):
            present = {s.get_tuple_name() for s in _sets(node.get_domain()) if not s.is_empty()}
            statements = [s for s in order if s in present]
            report = reports[True][k] if k < len(reports[True]) else None
            report_seq = reports[False][k] if k < len(reports[False]) else None
            space = band_space(scheduled.scop, node.get_domain(), node.band_get_partial_schedule(),
                               prefix_rows(node))
            # the policy's reports follow the bands it planned: after a sink step (conv2d)
            # those are not this tree's bands one for one; a report of another shape
            # leaves the band's sizes out of the space (the policy still tiles it)
            tiled = bool(report is not None and report.tiled and report_seq is not None and report_seq.tiled
                         and report.members == report_seq.members == node.band_n_member()
                         and not any(n.startswith("left as it is") for n in report.notes))
            info = BandInfo(statements, node.band_n_member(), space, tiled, None,
                            bool(report and report.parallel), bool(report and report.wavefront),
                            bool(report and report.simd), node.get_schedule_depth(),
                            outer_count(scheduled.scop, node))
            bands.append(info)
            if not tiled or not statements:
                continue
            key = statements[0]
            if key in by_key:
                gene = genes[by_key[key]]
                gene.band_indices.append(k)
                info.gene = by_key[key]
                continue
            extents = list(space.extents) if space is not None else [None] * info.members
            members = info.members
            varied = min(members, self.options.max_members)
            choices = [_size_choices(extents[m], report.sizes[m], self.options) if m < varied
                       else [report.sizes[m]] for m in range(members)]
            # the statement named by the band's tile step, and its loops after tiling
            tile_step = next((s for s in report.steps if s["op"] == "tile"), None)
            stmt = tile_step["args"]["stmt"] if tile_step else key
            leaf = not any(nodes[j] is not node and _below(node, nodes[j]) for j in range(len(nodes)))
            loops = len(runs[True].loops(stmt)) if leaf else 0
            gene = Gene(key, members, extents, {True: list(report.sizes), False: list(report_seq.sizes)},
                        choices, list(report.point_order or range(members)), stmt, loops, [k])
            by_key[key] = len(genes)
            info.gene = len(genes)
            genes.append(gene)
        if self.options.max_genes:
            _fix_light_genes(genes, bands, self.options.max_genes)
        return Structure(fuse, str(scheduled.schedule), genes, bands)

    def __repr__(self) -> str:
        # (a tester: CampaignResult's repr held '<...SearchSpace object at 0x...>')
        origin = self.program.scop.filename
        return (f"SearchSpace({Path(origin).name if origin else '?'}: fusions {', '.join(self.fusions) or 'none'}; "
                f"default {self.describe(self.default())})")

    # -- configurations ------------------------------------------------------------------
    @property
    def fusions(self) -> list[str]:
        return (list(self.structures) + ([TENSORIZE] if self.tensorize_steps is not None else [])
                + ([IDENTITY] if self.options.identity else []))

    def default(self) -> dict:
        """``pluto-tile-par``, as ``optimize --tile --parallel`` makes it: the micro-kernel
        calls where it makes some, else the first fusion choice, the model's sizes,
        every flag on."""
        if self.tensorize_steps is not None:
            return {"fuse": TENSORIZE}
        fuse = next(iter(self.structures), IDENTITY)
        if fuse == IDENTITY:
            return {"fuse": IDENTITY}
        structure = self.structures[fuse]
        return {"fuse": fuse, "sizes": [list(g.model_sizes[True]) for g in structure.genes],
                "uaj": [None] * len(structure.genes), "reorder": True, "unroll": 1,
                "parallel": True, "wavefront": True}

    def canonical(self, config: dict) -> dict:
        """The same program with one spelling: flags that cannot matter reset."""
        config = copy.deepcopy(config)
        if config["fuse"] in WHOLE:
            return {"fuse": config["fuse"]}
        if not config["parallel"]:
            config["wavefront"] = True
        return config

    def _flag_choices(self) -> dict:
        o = self.options
        return {"reorder": list(o.reorder) or [True], "unroll": list(o.unroll) or [1],
                "parallel": list(o.parallel) or [True], "wavefront": list(o.wavefront) or [True]}

    def enumerate(self) -> Iterator[dict]:
        """Every configuration (canonical, without repeats), the default first."""
        seen = set()
        default = self.default()
        seen.add(config_key(default))
        yield default
        flags = self._flag_choices()
        for fuse in self.fusions:
            if fuse in WHOLE:
                candidates = [{"fuse": fuse}]
            else:
                genes = self.structures[fuse].genes
                per_gene_sizes = [list(itertools.product(*g.size_choices)) for g in genes]
                per_gene_uaj = [g.uaj_choices(self.options.uaj) for g in genes]

                def generate(fuse=fuse, per_gene_sizes=per_gene_sizes, per_gene_uaj=per_gene_uaj):
                    for sizes in itertools.product(*per_gene_sizes):
                        for uaj in itertools.product(*per_gene_uaj):
                            for r, u, p, w in itertools.product(flags["reorder"], flags["unroll"],
                                                                flags["parallel"], flags["wavefront"]):
                                yield {"fuse": fuse, "sizes": [list(s) for s in sizes],
                                       "uaj": [None if x is None else list(x) for x in uaj],
                                       "reorder": r, "unroll": u, "parallel": p, "wavefront": w}
                candidates = generate()
            for config in candidates:
                config = self.canonical(config)
                key = config_key(config)
                if key not in seen:
                    seen.add(key)
                    yield config

    def size(self) -> int:
        """Number of configurations (with the flag duplicates that canonical() removes
        counted once only approximately: wavefront without parallel is not counted)."""
        flags = self._flag_choices()
        n_flags = len(flags["reorder"]) * len(flags["unroll"])
        par = flags["parallel"]
        n_flags *= sum(len(flags["wavefront"]) if p else 1 for p in par)
        total = int(self.options.identity) + int(self.tensorize_steps is not None)
        for structure in self.structures.values():
            count = n_flags
            for g in structure.genes:
                for choices in g.size_choices:
                    count *= len(choices)
                count *= len(g.uaj_choices(self.options.uaj))
            total += count
        return total

    def sample(self, rng: random.Random) -> dict:
        """A random configuration (the original schedule and the micro-kernel calls drawn
        rarely: each is one point)."""
        fusions = self.fusions
        weights = [IDENTITY_WEIGHT if f in WHOLE else 1.0 for f in fusions]
        fuse = rng.choices(fusions, weights)[0]
        return self._sample_in(fuse, rng)

    def _sample_in(self, fuse: str, rng: random.Random) -> dict:
        if fuse in WHOLE:
            return {"fuse": fuse}
        flags = self._flag_choices()
        genes = self.structures[fuse].genes
        return self.canonical({
            "fuse": fuse,
            "sizes": [[rng.choice(c) for c in g.size_choices] for g in genes],
            "uaj": [rng.choice(g.uaj_choices(self.options.uaj)) for g in genes],
            "reorder": rng.choice(flags["reorder"]), "unroll": rng.choice(flags["unroll"]),
            "parallel": rng.choice(flags["parallel"]), "wavefront": rng.choice(flags["wavefront"])})

    def mutate(self, config: dict, rng: random.Random) -> dict:
        """One change: a tile size of one member (to a neighbouring or any choice), an
        unroll-and-jam, a flag, or the fusion choice (the genes then re-drawn, keeping
        the sizes of genes with the same key)."""
        config = copy.deepcopy(config)
        fields = ["fuse"] if len(self.fusions) > 1 else []
        if config["fuse"] not in WHOLE:
            genes = self.structures[config["fuse"]].genes
            fields += ["sizes"] * (3 * len(genes)) + (["uaj"] * len(genes)
                                                       if any(len(g.uaj_choices(self.options.uaj)) > 1 for g in genes)
                                                       else [])
            fields += [f for f, c in self._flag_choices().items() if len(c) > 1]
        if not fields:
            return config
        what = rng.choice(fields)
        if what == "fuse":
            other = rng.choice([f for f in self.fusions if f != config["fuse"]])
            new = self._sample_in(other, rng)
            if other not in WHOLE and config["fuse"] not in WHOLE:
                old = {g.key: s for g, s in zip(self.structures[config["fuse"]].genes, config["sizes"])}
                for k, g in enumerate(self.structures[other].genes):
                    if g.key in old and len(old[g.key]) == g.members:
                        new["sizes"][k] = list(old[g.key])
                for flag in self._flag_choices():
                    new[flag] = config[flag]
            return self.canonical(new)
        genes = self.structures[config["fuse"]].genes
        # (a gene whose sizes are fixed, see max_genes, is not drawn)
        open_genes = [k for k, g in enumerate(genes) if any(len(c) > 1 for c in g.size_choices)]
        if what == "sizes" and open_genes:
            k = rng.choice(open_genes)
            gene = genes[k]
            m = rng.choice([m for m, c in enumerate(gene.size_choices) if len(c) > 1])
            choices = gene.size_choices[m]
            current = config["sizes"][k][m]
            at = choices.index(current) if current in choices else 0
            if rng.random() < 0.6:
                at = max(0, min(len(choices) - 1, at + rng.choice((-1, 1))))
            else:
                at = rng.randrange(len(choices))
            config["sizes"][k][m] = choices[at]
        elif what == "uaj" and genes:
            k = rng.randrange(len(genes))
            config["uaj"][k] = rng.choice(genes[k].uaj_choices(self.options.uaj))
        elif what in self._flag_choices():
            choices = [c for c in self._flag_choices()[what] if c != config[what]]
            if choices:
                config[what] = rng.choice(choices)
        return self.canonical(config)

    def neighbours(self, config: dict) -> list[dict]:
        """Every configuration one step from ``config`` (canonical; in a fixed order, no
        randomness): each varied tile size to the next smaller or larger choice, each
        other unroll-and-jam choice of a gene, each other value of a flag. The fusion
        choice stays (another one re-draws the genes: not a small step). What the
        evolutionary search's local moves around its best measurements draw from."""
        if config["fuse"] in WHOLE:
            return []
        out: list[dict] = []
        seen = {config_key(self.canonical(config))}

        def add(candidate: dict) -> None:
            candidate = self.canonical(candidate)
            key = config_key(candidate)
            if key not in seen:
                seen.add(key)
                out.append(candidate)

        for k, gene in enumerate(self.structures[config["fuse"]].genes):
            for m, choices in enumerate(gene.size_choices):
                if len(choices) < 2:
                    continue
                current = config["sizes"][k][m]
                at = choices.index(current) if current in choices else 0
                for step in (-1, 1):
                    if 0 <= at + step < len(choices):
                        candidate = copy.deepcopy(config)
                        candidate["sizes"][k][m] = choices[at + step]
                        add(candidate)
            for uaj in gene.uaj_choices(self.options.uaj):
                if uaj != config["uaj"][k]:
                    candidate = copy.deepcopy(config)
                    candidate["uaj"][k] = copy.deepcopy(uaj)
                    add(candidate)
        for flag, values in self._flag_choices().items():
            for value in values:
                if value != config[flag]:
                    candidate = copy.deepcopy(config)
                    candidate[flag] = value
                    add(candidate)
        return out

    def crossover(self, a: dict, b: dict, rng: random.Random) -> dict:
        """Each field from either parent (genes from the parent of the fusion taken)."""
        if a["fuse"] != b["fuse"]:
            first, second = (a, b) if rng.random() < 0.5 else (b, a)
            child = copy.deepcopy(first)
            if child["fuse"] not in WHOLE and second["fuse"] not in WHOLE:
                for flag in self._flag_choices():
                    if rng.random() < 0.5:
                        child[flag] = second[flag]
            return self.canonical(child)
        if a["fuse"] in WHOLE:
            return {"fuse": a["fuse"]}
        child = copy.deepcopy(a)
        for k in range(len(child["sizes"])):
            child["sizes"][k] = [x if rng.random() < 0.5 else y for x, y in zip(a["sizes"][k], b["sizes"][k])]
            child["uaj"][k] = copy.deepcopy(a["uaj"][k] if rng.random() < 0.5 else b["uaj"][k])
        for flag in self._flag_choices():
            child[flag] = a[flag] if rng.random() < 0.5 else b[flag]
        return self.canonical(child)

    # -- traces --------------------------------------------------------------------------
    def trace_steps(self, config: dict) -> list[dict]:
        """The primitive steps the configuration denotes (a ``Trace``'s steps)."""
        fuse = config["fuse"]
        if fuse == IDENTITY:
            return []
        if fuse == TENSORIZE:
            if self.tensorize_steps is None:
                raise TransformError("this program has no micro-kernel calls to make")
            return [dict(step) for step in self.tensorize_steps]
        structure = self.structures.get(fuse)
        if structure is None:
            raise TransformError(f"fusion choice {fuse!r} is not in this space")
        genes = structure.genes
        if len(config["sizes"]) != len(genes):
            raise TransformError(f"configuration has {len(config['sizes'])} size lists for {len(genes)} bands")
        parallel = bool(config["parallel"])
        if all(list(s) == g.model_sizes[parallel] for s, g in zip(config["sizes"], genes)):
            sizes = None        # the model's own choice: the trace of the default policy
        else:
            sizes = {g.key: [int(x) for x in s] for g, s in zip(genes, config["sizes"])}
        unroll = int(config.get("unroll") or 1)
        tile_args = TileOptions(sizes=sizes, parallel=parallel, unroll=unroll if unroll > 1 else None,
                                wavefront=bool(config["wavefront"]), intra_tile_reorder=bool(config["reorder"]),
                                threads=self.threads).auto_tile_args(CacheSizes(**self.caches))
        steps = self.prefix + [{"op": "auto_schedule", "args": self.schedule_args(fuse)},
                               {"op": "auto_tile", "args": tile_args}]
        for gene, uaj in zip(genes, config.get("uaj") or []):
            if uaj is None or gene.uaj_loops == 0:
                continue
            above, factor = uaj
            depth = self._tiled_loops(fuse, tile_args, gene.uaj_stmt) - 1 - int(above)
            if depth < 0:
                continue
            steps.append({"op": "unroll_and_jam", "args": {"stmt": gene.uaj_stmt, "depth": depth,
                                                           "factor": int(factor)}})
        return steps

    def program_key(self, config: dict) -> str:
        """What the configuration's program is made of: its schedule tree (isl text, with
        the tiles, marks and jams), after its tiling steps on the fusion choice's
        schedule (cached; the ``auto_tile`` step's program is `_auto_tiled`'s, which the
        trace's jam depths were counted on). Two configurations with one key generate
        one C file (helper-94: on jacobi-1d 4 of 10 trials measured one program under
        four labels: flags the schedule leaves no room for). The configuration's own
        trace when a step fails (its measurement says why)."""
        fuse = config["fuse"]
        if fuse in WHOLE:
            return fuse
        steps = self.trace_steps(config)
        trace = self._trace_text(steps)
        key = trace_hash(trace)
        if key not in self._program_keys:
            at = len(self.prefix) + 1                   # the auto_tile step
            tiled = self._auto_tiled(fuse, steps[at]["args"])
            try:
                self._program_keys[key] = trace if tiled is None else str(tiled.replay(steps[at + 1:]).schedule)
            except TransformError:
                self._program_keys[key] = trace
        return self._program_keys[key]

    def _auto_tiled(self, fuse: str, tile_args: dict):
        """The fusion choice's schedule after ``auto_tile(**tile_args)`` (a dry run,
        cached), None when it fails (the replay reports why)."""
        key = (fuse, json.dumps(tile_args, sort_keys=True, default=str))
        if key not in self._tiled:
            try:
                self._tiled[key] = self.scheduled(fuse).auto_tile(**tile_args)
            except TransformError:
                self._tiled[key] = None
        return self._tiled[key]

    def _tiled_loops(self, fuse: str, tile_args: dict, stmt: str) -> int:
        """How many loops ``stmt`` has after this ``auto_tile`` (`_auto_tiled`). The
        flags change it (with ``parallel`` and no ``unroll`` the policy may strip-mine
        the innermost loop for registers), so "``k`` loops above the innermost" is
        counted per configuration (counted once per fusion choice, 56 of 384 random
        candidates over 12 kernels named the innermost loop and failed to replay)."""
        tiled = self._auto_tiled(fuse, tile_args)
        return 0 if tiled is None else len(tiled.loops(stmt))

    def trace_json(self, config: dict) -> str:
        return self._trace_text(self.trace_steps(config))

    def _trace_text(self, steps: list[dict]) -> str:
        return json.dumps({"polysched_trace": 1, "source": self.program.trace.source,
                           "region": self.program.region, "steps": steps})

    def describe(self, config: dict) -> str:
        """One short line: ``smart 32x64x128 uaj1x4 par wf reorder u4``."""
        if config["fuse"] == IDENTITY:
            return "original schedule"
        if config["fuse"] == TENSORIZE:
            # (the steps before the calls substitute or expand scalars: helper-94, a KeyError)
            return "micro-kernel calls (" + ", ".join(step["args"]["intrinsic"] for step in self.tensorize_steps
                                                      if "intrinsic" in step["args"]) + ")"
        parts = [config["fuse"]]
        genes = self.structures[config["fuse"]].genes
        for gene, sizes, uaj in zip(genes, config["sizes"], config["uaj"]):
            text = "x".join(str(s) for s in sizes)
            if sizes == gene.model_sizes[bool(config["parallel"])]:
                text += "(model)"
            if uaj:
                text += f" uaj{uaj[0]}x{uaj[1]}"
            parts.append(f"{gene.key}:{text}")
        if config["parallel"]:
            parts.append("par" + ("" if config["wavefront"] else " nowf"))
        else:
            parts.append("seq")
        if not config["reorder"]:
            parts.append("noreorder")
        if config.get("unroll", 1) > 1:
            parts.append(f"u{config['unroll']}")
        return " ".join(parts)


def outer_count(scop, node: isl.ScheduleNode) -> int:
    """How often the band at ``node`` is entered (outer loop iterations at the known sizes)."""
    from polysched.dependence.loops import prefix_is_empty, prefix_rows
    from polysched.tiling.footprint import outer_iterations
    prefix = prefix_rows(node)
    if prefix_is_empty(prefix):
        return 1
    count = outer_iterations(scop, node.get_domain(), prefix)
    return int(count) if count else 1


def _sets(union_set):
    from polysched.islutil import sets_of
    return sets_of(union_set)


def _below(outer: isl.ScheduleNode, inner: isl.ScheduleNode) -> bool:
    """Whether ``inner`` lies strictly below ``outer`` in the tree."""
    from polysched.transform.loops import path_of
    a, b = path_of(outer), path_of(inner)
    return len(b) > len(a) and tuple(b[:len(a)]) == tuple(a)


def _fix_light_genes(genes: list[Gene], bands: list[BandInfo], keep: int) -> None:
    """All but the ``keep`` heaviest genes take the model's sizes only. A gene's weight
    is the iterations of its bands at the known sizes (the loops around times the band's
    extents): the band where the time goes, as Ansor spends its trials on the dominant
    stage."""
    def weight(gene: Gene) -> float:
        total = 0.0
        for k in gene.band_indices:
            band = bands[k]
            extents = band.space.extents if band.space is not None else []
            total += band.outer * math.prod(max(e, 1) for e in extents)
        return total

    ranked = sorted(range(len(genes)), key=lambda g: (-weight(genes[g]), g))
    for g in ranked[keep:]:
        genes[g].size_choices = [[size] for size in genes[g].model_sizes[True]]
        genes[g].varied = False


def config_key(config: dict) -> str:
    return json.dumps(config, sort_keys=True)


def trace_hash(trace_json: str) -> str:
    """The identity of a candidate: a hash of its steps (source and region aside)."""
    data = json.loads(trace_json)
    steps = data["steps"] if isinstance(data, dict) else data
    return hashlib.sha256(json.dumps(steps, sort_keys=True).encode()).hexdigest()[:24]


__all__ = ["FUSIONS", "IDENTITY", "TENSORIZE", "BandInfo", "Gene", "SearchSpace", "SpaceOptions", "Structure",
           "config_key", "trace_hash"]
