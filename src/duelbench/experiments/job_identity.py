"""The identity of a sample family's job: the hash that names its folder and may seed its runs.

It sits apart from :mod:`duelbench.experiments.samples` so that a family function deriving its
seeds from the job (Chen et al.'s cells, :func:`duelbench.experiments.chen2020.runs.cell_key`)
imports this hash and nothing else of the framework: the code key of its archived samples, the
hash of the function's import closure, then follows the function and the code it runs, not the
sample framework, the archive or the report.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping


def layout_of(job: Mapping) -> str:
    """10 hex digits of the sha256 of the canonical job (names the family's folder)."""
    text = json.dumps(job, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
