import numpy as np

from duelbench.stats.heap import heap_new, heap_remove, heap_top, heap_upsert


def test_indexed_heap_matches_reference_under_random_operations():
    rng = np.random.default_rng(7)
    n = 40
    h = heap_new(n)
    ref = {}
    for _ in range(5000):
        op = rng.integers(3)
        item = int(rng.integers(n))
        if op < 2:
            key = float(rng.integers(0, 30))  # many equal keys: tie order matters
            heap_upsert(h, item, key)
            ref[item] = key
        else:
            heap_remove(h, item)
            ref.pop(item, None)
        top = heap_top(h)
        if ref:
            want = min(ref.items(), key=lambda kv: (kv[1], kv[0]))
            assert (top, h[0][top]) == want
        else:
            assert top == -1
        assert h[3][0] == len(ref)


def test_heap_pops_in_key_order():
    h = heap_new(10)
    for item, key in [(3, 2.5), (1, 0.5), (7, 9.0), (2, 0.5), (5, 1.0)]:
        heap_upsert(h, item, key)
    heap_upsert(h, 7, 0.1)  # decrease-key
    order = []
    while True:
        item = heap_top(h)
        if item < 0:
            break
        order.append(item)
        heap_remove(h, item)
    assert order == [7, 1, 2, 5, 3]
