"""In-place sorting of integer prefixes without allocation, for step kernels.

The engine's run loop is compiled without numba's reference counting
(:mod:`duelbench.engine.loop`), so the per-step kernels it calls may not allocate; numba's
``ndarray.sort`` and ``np.sort`` allocate a work stack (and ``np.sort`` a copy).  The kernels
that sort a list of arm or pair indices each step (CCB's shortlists, ECW-RMED's pass list) use
:func:`sort_prefix` instead.  On integers every correct sort gives the same result, so the
choice of method changes no output: insertion sort for short prefixes, heapsort (O(n log n),
no extra memory) beyond.
"""

import numba

#: Prefixes up to this length are insertion-sorted (fewer comparisons and moves when short).
INSERTION_MAX = 16


@numba.njit(cache=True, inline="always")
def _sift_down(a, start, end):
    """Restore the max-heap property of ``a[start:end]`` below ``start``."""
    root = start
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and a[child] < a[child + 1]:
            child += 1
        if a[root] < a[child]:
            a[root], a[child] = a[child], a[root]
            root = child
        else:
            return


@numba.njit(cache=True, inline="always")
def sort_prefix(a, n):
    """Sort ``a[:n]`` in increasing order, in place, allocating nothing."""
    if n <= INSERTION_MAX:
        for m in range(1, n):
            x = a[m]
            r = m - 1
            while r >= 0 and a[r] > x:
                a[r + 1] = a[r]
                r -= 1
            a[r + 1] = x
        return
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(a, start, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift_down(a, 0, end)
