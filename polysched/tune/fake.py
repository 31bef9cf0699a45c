"""Deterministic stand-ins for a timer, for tests and demonstrations of the search and
the executors (``Job.timer = "polysched.tune.fake:deterministic_time"``, or the hidden
``polysched tune --timer``): the same trace always gets the same "time", with no
machine noise, so two executors or two runs can be compared exactly."""
from __future__ import annotations

import hashlib
import json


def deterministic_time(steps, config=None) -> float:
    """A pseudo-time in [1, 2) ms from a hash of the trace's steps."""
    digest = hashlib.sha256(json.dumps(list(steps), sort_keys=True).encode()).digest()
    return 1e-3 * (1.0 + int.from_bytes(digest[:6], "big") / float(1 << 48))


def tile_volume_time(steps, config=None) -> float:
    """A smooth function of the configuration: best near 32x32x... tiles, parallel."""
    import math
    if not config or config.get("fuse") == "identity":
        return 1.0
    cost = 0.1
    for sizes in config.get("sizes") or []:
        cost += sum((math.log2(s) - 5.0) ** 2 for s in sizes) * 0.01
    cost *= 1.0 if config.get("parallel") else 1.8
    cost *= 1.0 + 0.05 * math.log2(max(1, config.get("unroll") or 1))
    return cost
