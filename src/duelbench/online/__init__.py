"""Every registered algorithm used online: ask for a pair, tell its outcome (docs/online.md).

::

    p = duelbench.policy("dts", K=5, seed=0)
    i, j = p.select()
    p.update(i, j, judge(i, j))
    p.recommend(), p.save("dts.npz"), duelbench.load_policy("dts.npz")

* :mod:`.policy` — :class:`OnlinePolicy`, :func:`policy`, :func:`load_policy`;
* :mod:`.drivers` — each algorithm one comparison at a time on its own kernels;
* :mod:`.state_file` — the saved-policy file.
"""

from .policy import DEFAULT_DATASET, OnlinePolicy, code_hash, load_policy, policy
from .state_file import FORMAT_VERSION, PolicyFileError

__all__ = ["OnlinePolicy", "policy", "load_policy", "code_hash", "PolicyFileError", "FORMAT_VERSION",
           "DEFAULT_DATASET"]
