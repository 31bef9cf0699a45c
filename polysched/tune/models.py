"""Cost models behind one interface: ``rank(configs) -> scores`` (lower: predicted faster).

- :class:`SOLModel` (speed of light, roofline): the kernel's flops against the bytes it
  must move at least (every array element touched once, from memory), with the peak
  rate and bandwidth *measured* by :mod:`polysched.tune.probe`; it sees parallelism and
  vectorization, not the tile sizes.
- :class:`ProjectedModel`: per band, the data of a tile and of its sub-tiles (outer
  point loops fixed to one iteration, in the point order) from the access relations
  with isl (``polysched.tiling.footprint``); the traffic into each cache level is
  (instances / sub-tile instances) x sub-tile footprint for the largest sub-tile that
  fits the level; time = max(compute, bytes per level / that level's bandwidth).
- :class:`LearnedModel`: gradient-boosted trees (LightGBM) on the configuration's
  features (flags, tile sizes, footprints, the analytic estimates), trained online from
  this campaign's measurements and from earlier ones on this machine (stored features,
  times relative to each campaign's default); before it has enough, it ranks like the
  projected model. Opt-in (``LearnedModel(members=5)``; one booster by default): the mean
  of a small ensemble of boosters, each on a bagged subset of the rows and features.
  With the few dozen measurements a search has, one booster interpolates its training
  rows; on the grids of issue 13 the ensemble made no difference beyond the seed-to-seed
  spread (experiments/results/search_efficiency.txt), so the default stays one booster.

:func:`spearman` is the rank correlation used to compare them against measurements.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
import re
from typing import Sequence

import numpy as np

from polysched.errors import ArgumentError

from .space import FUSIONS, IDENTITY, TENSORIZE, WHOLE, BandInfo, SearchSpace

MODELS = ("sol", "projected", "learned")
FEATURE_VERSION = 3          # 2: the micro-kernel calls (fuse_tensorize); 3: fuse_isl, fuse_diamond
CACHE_SHARE = 0.5
_OPS = re.compile(r"(?<![+\-*/=<>!&|])[+\-*/](?![+\-*/=])|\b(?:sqrt|exp|pow|log|fabs|fmax|fmin)\s*\(|[<>]=?")


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties); nan with < 2 points or no spread."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2 or len(a) != len(b):
        return float("nan")

    def ranks(x):
        order = np.argsort(x, kind="mergesort")
        r = np.empty(len(x))
        r[order] = np.arange(len(x), dtype=float)
        for value in np.unique(x):       # ties: the average rank
            same = x == value
            if same.sum() > 1:
                r[same] = r[same].mean()
        return r

    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def _ops(body: str) -> int:
    """Arithmetic operations of a statement body (an assignment operator ``op=`` counts 1)."""
    text = re.sub(r"\[[^\]]*\]", "", body)           # subscripts are address arithmetic
    count = len(_OPS.findall(text))
    count += len(re.findall(r"[+\-*/]=", text))
    return max(1, count)


class Analysis:
    """What the analytic models and the features need, per configuration, cached."""

    def __init__(self, space: SearchSpace, probe: dict, threads: int):
        from polysched.tiling import cache_sizes
        self.space = space
        self.probe = probe
        self.threads = max(1, int(threads))
        caches = cache_sizes()
        self.levels = [caches.l1d, caches.l2, caches.l3]
        scop = space.program.scop
        self.ops = {s.name: _ops(s.body) for s in scop.statements}
        self.refs = {s.name: max(1, len(s.accesses)) for s in scop.statements}
        self._footprints: dict = {}
        self._identity_bands: list[BandInfo] | None = None
        self._compulsory: float | None = None
        self._flops: float | None = None

    # -- pieces ------------------------------------------------------------------------
    def footprint(self, band_key, band: BandInfo, sizes: tuple) -> int:
        from polysched.tiling.footprint import footprint_bytes
        key = (band_key, sizes)
        if key not in self._footprints:
            self._footprints[key] = footprint_bytes(band.space, list(sizes))
        return self._footprints[key]

    def identity_bands(self) -> list[BandInfo]:
        if self._identity_bands is None:
            from polysched.dependence.loops import prefix_rows
            from polysched.tiling.footprint import band_space

            from .space import _dfs_bands, _sets, outer_count
            program = self.space.program
            nodes: list = []
            _dfs_bands(program.schedule.get_root(), nodes)
            order = [s.name for s in program.scop.statements]
            bands = []
            for node in nodes:
                present = {s.get_tuple_name() for s in _sets(node.get_domain()) if not s.is_empty()}
                space = band_space(program.scop, node.get_domain(), node.band_get_partial_schedule(),
                                   prefix_rows(node))
                bands.append(BandInfo([s for s in order if s in present], node.band_n_member(), space,
                                      False, None, False, False, False, node.get_schedule_depth(),
                                      outer_count(program.scop, node)))
            self._identity_bands = bands
        return self._identity_bands

    def bands_of(self, config: dict) -> list[tuple[object, BandInfo, list[int] | None, list[int] | None, list | None]]:
        """(cache key, band, tile sizes or None, point order, uaj) per band."""
        if config["fuse"] in WHOLE:       # the calls run the original loops' instances
            return [(("id", k), b, None, None, None) for k, b in enumerate(self.identity_bands())]
        structure = self.space.structures[config["fuse"]]
        out = []
        for k, band in enumerate(structure.bands):
            if band.tiled and band.gene is not None:
                gene = structure.genes[band.gene]
                sizes = list(config["sizes"][band.gene])[:band.members]
                sizes += gene.model_sizes[True][len(sizes):band.members]
                order = gene.point_order if config["reorder"] else list(range(band.members))
                out.append(((config["fuse"], k), band, sizes, order, config["uaj"][band.gene]))
            else:
                out.append(((config["fuse"], k), band, None, None, None))
        return out

    def band_terms(self, key, band: BandInfo, sizes, order, config: dict) -> dict:
        """Instances, flops, and bytes into L1/L2/L3 and from memory of one band."""
        space = band.space
        statements = band.statements
        ops = sum(self.ops.get(s, 1) for s in statements)
        refs = sum(self.refs.get(s, 1) for s in statements)
        if space is None:
            return {"instances": 0.0, "flops": 0.0, "loads": 0.0, "traffic": [0.0, 0.0, 0.0], "tiles": 1.0,
                    "footprint": 0.0, "inner": 1.0}
        extents = [max(1, e) for e in space.extents]
        outer = float(max(1, band.outer))
        instances = outer * float(np.prod(extents, dtype=float))
        n = len(extents)
        tile = [min(int(s), e) for s, e in zip(sizes, extents)] if sizes else list(extents)
        order = list(order) if order else list(range(n))
        tiles = outer * float(np.prod([math.ceil(e / t) for e, t in zip(extents, tile)], dtype=float))
        # sub-tiles: the outer point loops (in the point order) fixed one by one
        chain = []
        current = list(tile)
        for k in range(n + 1):
            volume = float(np.prod(current, dtype=float))
            chain.append((self.footprint(key, band, tuple(current)), volume))
            if k < n:
                current = list(current)
                current[order[k]] = 1
        traffic = []
        for capacity in self.levels:
            fit = next(((f, v) for f, v in chain if f <= CACHE_SHARE * capacity), chain[-1])
            traffic.append(instances / max(1.0, fit[1]) * fit[0])
        return {"instances": instances, "flops": instances * ops, "loads": instances * refs * 8.0,
                "traffic": traffic, "tiles": tiles, "footprint": float(chain[0][0]),
                "inner": float(tile[order[-1]]) if tile else 1.0}

    def compulsory_bytes(self) -> float:
        """Every element the region touches, once (at the known sizes)."""
        if self._compulsory is None:
            import islpy as isl

            from polysched.islutil import sets_of
            from polysched.tiling.footprint import element_bytes, known_parameters
            scop = self.space.program.scop
            context = known_parameters(scop)
            total = 0.0
            touched: dict = {}
            for stmt in scop.statements:
                for access in stmt.accesses:
                    image = isl.UnionMap.from_map(access.relation).intersect_params(context).range()
                    for piece in sets_of(image):
                        name = piece.get_tuple_name()
                        touched[name] = touched[name].union(piece) if name in touched else piece
            for name, region in touched.items():
                try:
                    count = region.count_val()
                    elements = count.to_python() if count.is_int() else 0
                except Exception:  # noqa: BLE001 -- unbounded: ignore
                    elements = 0
                array = scop.arrays.get(name)
                total += elements * (element_bytes(array.element_type) if array is not None else 8)
            self._compulsory = total
        return self._compulsory

    def parallel_factor(self, band: BandInfo, config: dict) -> float:
        if config["fuse"] in WHOLE or not config.get("parallel") or not band.parallel:
            return 1.0
        if band.wavefront:
            return 1.0 if not config.get("wavefront") else max(1.0, 0.75 * self.threads)
        return float(self.threads)

    # -- estimates ---------------------------------------------------------------------
    def projected(self, config: dict) -> dict:
        p = self.probe
        if config["fuse"] == TENSORIZE:
            # packed, cache-blocked micro-kernels: the roofline on every thread, the
            # compulsory traffic at each level
            moved = float(self.compulsory_bytes())
            return {"flops": self.kernel_flops(), "traffic": [moved] * 3, "tiles": 0.0, "loads": 0.0,
                    "seconds": self.sol(config)}
        seconds = 0.0
        total = {"flops": 0.0, "traffic": [0.0, 0.0, 0.0], "tiles": 0.0, "loads": 0.0}
        for key, band, sizes, order, _uaj in self.bands_of(config):
            terms = self.band_terms(key, band, sizes, order, config)
            if terms["instances"] == 0:
                continue
            par = self.parallel_factor(band, config)
            simd = band.simd and (config["fuse"] != IDENTITY and (config["reorder"] or not sizes))
            peak = (p["peak_simd_gflops"] if simd else p["peak_scalar_gflops"]) * 1e9
            inner = terms["inner"]
            vector_efficiency = inner / (inner + 4.0) if simd else 1.0
            compute = terms["flops"] / (peak * vector_efficiency * par)
            l1 = terms["loads"] / (p["bw_l1_gbs"] * 1e9 * par)
            into_l1 = terms["traffic"][0] / (p["bw_l2_gbs"] * 1e9 * par)
            into_l2 = terms["traffic"][1] / (p["bw_l3_gbs"] * 1e9 * min(par, 2.0))
            into_l3 = terms["traffic"][2] / (p["bw_mem_gbs"] * 1e9)
            overhead = terms["tiles"] * 2e-7 / par
            seconds += max(compute, l1, into_l1, into_l2, into_l3) + overhead
            total["flops"] += terms["flops"]
            total["loads"] += terms["loads"]
            total["tiles"] += terms["tiles"]
            total["traffic"] = [a + b for a, b in zip(total["traffic"], terms["traffic"])]
        total["seconds"] = max(seconds, 1e-9)
        return total

    def kernel_flops(self) -> float:
        if self._flops is None:
            self._flops = sum(self.band_terms(k, b, None, None, {"fuse": IDENTITY})["flops"]
                              for k, b, *_ in self.bands_of({"fuse": IDENTITY})) or 1.0
        return self._flops

    def sol(self, config: dict) -> float:
        p = self.probe
        parallel = config["fuse"] == TENSORIZE or config["fuse"] != IDENTITY and config.get("parallel") and any(
            b.parallel and (not b.wavefront or config.get("wavefront"))
            for _, b, *_ in self.bands_of(config))
        simd = config["fuse"] == TENSORIZE or config["fuse"] != IDENTITY and any(
            b.simd for _, b, *_ in self.bands_of(config))
        peak = (p["peak_simd_gflops"] if simd else p["peak_scalar_gflops"]) * 1e9
        threads = self.threads if parallel else 1
        return max(self.kernel_flops() / (peak * threads), self.compulsory_bytes() / (p["bw_mem_gbs"] * 1e9))

    def features(self, config: dict) -> list[float]:
        """The learned model's inputs (:data:`FEATURE_NAMES`)."""
        fuse = config["fuse"]
        out = [float(fuse == f) for f in (*FUSIONS, *WHOLE)]
        out += [float(bool(config.get("parallel"))), float(bool(config.get("wavefront", True))),
                float(bool(config.get("reorder", True))), math.log2(max(1, int(config.get("unroll") or 1)))]
        bands = self.bands_of(config)
        slots = []
        for key, band, sizes, order, uaj in bands:
            if sizes is None or band.space is None:
                continue
            terms = self.band_terms(key, band, sizes, order, config)
            padded = (list(sizes) + [1, 1, 1])[:3]
            foot = max(1.0, terms["footprint"])
            slots.append((terms["instances"], [
                *(math.log2(max(1, s)) for s in padded),
                math.log2(max(1.0, float(np.prod(sizes, dtype=float)))),
                math.log2(foot),
                math.log2(foot / self.levels[0]), math.log2(foot / self.levels[1]),
                math.log2(max(1.0, terms["tiles"])), math.log2(max(1.0, terms["inner"])),
                float(uaj[0]) if uaj else 0.0, math.log2(uaj[1]) if uaj else 0.0]))
        slots.sort(key=lambda item: -item[0])
        for k in range(2):
            out += slots[k][1] if k < len(slots) else [0.0] * 11
        out.append(float(len(slots)))
        projected = self.projected(config)
        flops = self.kernel_flops()
        out += [math.log(projected["seconds"]), math.log(self.sol(config)),
                *(math.log1p(t / flops) for t in projected["traffic"]),
                math.log2(1.0 + self.threads), math.log10(flops)]
        return out


FEATURE_NAMES = ([f"fuse_{f}" for f in (*FUSIONS, *WHOLE)] + ["parallel", "wavefront", "reorder", "log_unroll"]
                 + [f"band{k}_{n}" for k in range(2) for n in
                    ("s0", "s1", "s2", "volume", "footprint", "fp_l1", "fp_l2", "tiles", "inner", "uaj_loop", "uaj")]
                 + ["tiled_bands", "log_projected", "log_sol", "traffic_l1", "traffic_l2", "traffic_l3",
                    "threads", "log_flops"])


class CostModel(ABC):
    name = "model"

    def __init__(self, analysis: Analysis):
        self.analysis = analysis

    @abstractmethod
    def rank(self, configs: Sequence[dict]) -> list[float]:
        """A score per candidate, lower is predicted faster."""

    def observe(self, config: dict, status: str, median: float | None) -> None:
        pass


class SOLModel(CostModel):
    name = "sol"

    def rank(self, configs):
        return [self.analysis.sol(c) for c in configs]


class ProjectedModel(CostModel):
    name = "projected"

    def rank(self, configs):
        return [self.analysis.projected(c)["seconds"] for c in configs]


class LearnedModel(CostModel):
    """LightGBM on :meth:`Analysis.features`; targets ``log(median / reference)``. With
    ``members`` > 1 the score is the mean of that many boosters, each trained on a bagged
    80% of the rows and 80% of the features (seeds derived from ``seed``: deterministic);
    with 1 (the default), one booster on every row."""

    name = "learned"
    MIN_SAMPLES = 6

    def __init__(self, analysis: Analysis, history: Sequence[tuple[list[float], float]] = (), seed: int = 0,
                 members: int = 1):
        super().__init__(analysis)
        self.members = max(1, int(members))
        self.prior = list(history)             # (features, relative log time) of earlier campaigns
        self.samples: list[tuple[list[float], str, float | None]] = []
        self.seed = seed
        self._models: list = []
        self._trained_on = -1
        self._fallback = ProjectedModel(analysis)

    def observe(self, config, status, median):
        self.samples.append((self.analysis.features(config), status, median))

    def add(self, features: list[float], status: str, median: float | None) -> None:
        self.samples.append((list(features), status, median))

    def training_set(self):
        ok = [(f, math.log(m)) for f, s, m in self.samples if s == "ok" and m]
        if not ok:
            return [], []
        reference = float(np.median([y for _, y in ok]))
        rows = [(f, y - reference) for f, y in ok]
        worst = max(y for _, y in rows)
        # a failed candidate (slow, wrong, illegal) is worse than any measured one
        rows += [(f, worst + 1.0) for f, s, _ in self.samples if s != "ok"]
        rows += self.prior
        return [r[0] for r in rows], [r[1] for r in rows]

    def fit(self) -> bool:
        n_ok = sum(1 for _, s, m in self.samples if s == "ok" and m)
        if n_ok + len(self.prior) < self.MIN_SAMPLES:
            return False
        if self._trained_on == len(self.samples):
            return bool(self._models)
        import lightgbm as lgb
        x, y = self.training_set()
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        models = []
        for member in range(self.members):
            params = {"objective": "regression", "learning_rate": 0.08, "num_leaves": 15, "min_data_in_leaf": 2,
                      "min_data_in_bin": 1, "lambda_l2": 1.0, "deterministic": True, "force_row_wise": True,
                      "num_threads": 1, "seed": self.seed, "verbosity": -1}
            if self.members > 1:
                params.update(seed=self.seed * 31 + member, bagging_fraction=0.8, bagging_freq=1,
                              feature_fraction=0.8)
            data = lgb.Dataset(x, y, params={"verbosity": -1})
            models.append(lgb.train(params, data, num_boost_round=150))
        self._models = models
        self._trained_on = len(self.samples)
        return True

    def rank(self, configs):
        if not self.fit():
            return self._fallback.rank(configs)
        x = np.asarray([self.analysis.features(c) for c in configs], dtype=float)
        if len(self._models) == 1:
            return [float(v) for v in self._models[0].predict(x)]
        predictions = np.mean([model.predict(x) for model in self._models], axis=0)
        return [float(v) for v in predictions]


def prior_history(store, machine_fp: str, kernel_fp: str) -> list[tuple[list[float], float]]:
    """Features and relative log times of other kernels' measurements on this machine
    (stored by earlier campaigns), each relative to its campaign's median."""
    if store is None:
        return []
    rows = store.conn.execute(
        "SELECT campaign_id, features, median, status FROM measurements WHERE machine_fp = ? AND "
        "kernel_fp != ? AND features IS NOT NULL", (machine_fp, kernel_fp)).fetchall()
    by_campaign: dict = {}
    import json
    for r in rows:
        data = json.loads(r["features"])
        if data.get("version") != FEATURE_VERSION:
            continue
        by_campaign.setdefault(r["campaign_id"], []).append((data["x"], r["status"], r["median"]))
    out = []
    for items in by_campaign.values():
        ok = [math.log(m) for _, s, m in items if s == "ok" and m]
        if len(ok) < 3:
            continue
        reference = float(np.median(ok))
        out += [(x, math.log(m) - reference) for x, s, m in items if s == "ok" and m]
    return out


def make_model(kind: str, space: SearchSpace, *, store=None, machine_fp: str | None = None,
               kernel_fp: str | None = None, threads: int = 1, cc: str = "gcc", dataset=None,
               seed: int = 0, probe: dict | None = None) -> CostModel:
    from .probe import machine_probe
    if kind not in MODELS:
        raise ArgumentError(f"unknown model {kind!r}; choose one of {', '.join(MODELS)}")
    probe = probe or machine_probe(store, machine_fp, cc)
    analysis = Analysis(space, probe, threads)
    if kind == "sol":
        return SOLModel(analysis)
    if kind == "projected":
        return ProjectedModel(analysis)
    return LearnedModel(analysis, prior_history(store, machine_fp, kernel_fp) if store is not None else [],
                        seed=seed)


__all__ = ["FEATURE_NAMES", "FEATURE_VERSION", "MODELS", "Analysis", "CostModel", "LearnedModel",
           "ProjectedModel", "SOLModel", "make_model", "prior_history", "spearman"]
