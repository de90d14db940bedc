"""Indexed binary min-heap over integer items with float keys (numba kernels).

The heap is a tuple ``(keys, heap, pos, size)``: ``keys[item]`` is the item's key, ``heap[k]``
the item at heap slot k, ``pos[item]`` its slot (−1 if absent) and ``size[0]`` the number of
items.  Every item is present at most once, so the capacity is the number of distinct items
(the K(K−1)/2 pairs for :mod:`duelbench.stats.confident_beats`) and never grows with time.
Ties between equal keys are broken by the smaller item, so the pop order is fully determined
by the keys.
"""

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def heap_new(n_items):
    """An empty heap for items ``0 .. n_items − 1``."""
    keys = np.zeros(n_items, dtype=np.float64)
    heap = np.zeros(n_items, dtype=np.int64)
    pos = np.full(n_items, -1, dtype=np.int64)
    size = np.zeros(1, dtype=np.int64)
    return keys, heap, pos, size


@numba.njit(cache=True, inline="always")
def _less(keys, a, b):
    return keys[a] < keys[b] or (keys[a] == keys[b] and a < b)


@numba.njit(cache=True, inline="always")
def _swap(heap, pos, k, m):
    a = heap[k]
    b = heap[m]
    heap[k] = b
    heap[m] = a
    pos[b] = k
    pos[a] = m


@numba.njit(cache=True, inline="always")
def _sift_up(keys, heap, pos, k):
    while k > 0:
        parent = (k - 1) // 2
        if _less(keys, heap[k], heap[parent]):
            _swap(heap, pos, k, parent)
            k = parent
        else:
            break


@numba.njit(cache=True, inline="always")
def _sift_down(keys, heap, pos, n, k):
    while True:
        left = 2 * k + 1
        if left >= n:
            break
        best = left
        right = left + 1
        if right < n and _less(keys, heap[right], heap[left]):
            best = right
        if _less(keys, heap[best], heap[k]):
            _swap(heap, pos, k, best)
            k = best
        else:
            break


@numba.njit(cache=True, inline="always")
def heap_upsert(h, item, key):
    """Insert ``item`` with ``key``, or change its key if it is already present."""
    keys, heap, pos, size = h
    keys[item] = key
    k = pos[item]
    if k < 0:
        k = size[0]
        heap[k] = item
        pos[item] = k
        size[0] += 1
        _sift_up(keys, heap, pos, k)
    else:
        _sift_up(keys, heap, pos, k)
        _sift_down(keys, heap, pos, size[0], pos[item])


@numba.njit(cache=True, inline="always")
def heap_remove(h, item):
    """Remove ``item`` if present."""
    keys, heap, pos, size = h
    k = pos[item]
    if k < 0:
        return
    last = size[0] - 1
    if k != last:
        _swap(heap, pos, k, last)
    pos[item] = -1
    size[0] = last
    if k < last:
        _sift_up(keys, heap, pos, k)
        _sift_down(keys, heap, pos, last, pos[heap[k]])


@numba.njit(cache=True, inline="always")
def heap_top(h):
    """The item with the minimum key (its key is ``h[0][item]``), or −1 if the heap is empty.

    (Returns the item alone: a mixed (int, float) tuple return cost ~50 ns per call in numba before
    these kernels were inlined; see :mod:`duelbench.stats.confident_beats`.)
    """
    if h[3][0] == 0:
        return -1
    return h[1][0]
