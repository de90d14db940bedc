"""The step kernels that numba must inline into the run loop stay inlined.

A call that numba does not inline hands every array of its arguments to the callee with an
atomic reference-count update; for RUCB at K = 5 that was about half of the step
(:mod:`duelbench.stats.confident_beats`, README "Benchmarks").  Speed itself is measured by
``duelbench bench``, never asserted; this test pins the compile option that buys it, so that a
new kernel added to one of these modules without it is caught.
"""

import importlib

import numba
import pytest

#: Modules whose every compiled kernel is inlined (``numba.njit(cache=True, inline="always")``).
INLINED_MODULES = (
    "duelbench.stats.confident_beats",
    "duelbench.stats.heap",
    "duelbench.algorithms.rucb",
    "duelbench.algorithms.ccb",
    "duelbench.algorithms.dts",
    "duelbench.algorithms.dts_plus",
    "duelbench.algorithms.rcs",
    "duelbench.algorithms.ecw_rmed",
)


def _own_kernels(module):
    return {name: obj for name, obj in vars(module).items()
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.py_func.__module__ == module.__name__}


@pytest.mark.parametrize("name", INLINED_MODULES)
def test_every_kernel_of_the_module_is_inlined(name):
    module = importlib.import_module(name)
    kernels = _own_kernels(module)
    assert kernels, f"{name} defines no compiled kernel"
    not_inlined = sorted(k for k, d in kernels.items() if d.targetoptions.get("inline") != "always")
    assert not not_inlined, f"{name}: kernels compiled without inline='always': {not_inlined}"


def test_the_check_sees_a_kernel_that_is_not_inlined():
    """The test above can fail: a module-level kernel without the option is reported."""
    import types

    module = types.ModuleType("probe_module")

    def plain(x):
        return x + 1

    plain.__module__ = module.__name__
    module.plain = numba.njit(plain)
    kernels = _own_kernels(module)
    assert list(kernels) == ["plain"]
    assert kernels["plain"].targetoptions.get("inline") != "always"
