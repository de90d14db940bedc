"""Mutation testing of the algorithm modules: how many one-line mutants does each module's own
test set kill?

For every module of ``src/duelbench/algorithms/`` and ``src/duelbench/cpe/`` (those with an entry
in :data:`MODULE_TESTS`) the script lists the one-line mutants of its code lines:

* numeric constants: an integer ``n`` → ``n + 1`` and ``n − 1``; a float ``x ≥ 1`` → ``x + 1``
  (2.0 → 3.0), a float ``0 < x < 1`` → ``0.8·x`` (0.5 → 0.4);
* comparisons ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``;
* binary ``+`` ↔ ``-`` (``+ 1`` → ``- 1`` on an index or counter, ``+=`` ↔ ``-=``);
* ``and`` ↔ ``or``.

Docstrings, comments, strings, imports, ``raise`` lines and argument validation (functions named
``*validate*`` or ``_check*``) are not mutated.  A seeded sample of ``--per-module`` mutants is
drawn from each module (all of them when there are fewer).  Each mutant is applied to a
temporary copy of the package (``<tmp>/pkg/duelbench``, first on ``PYTHONPATH``; the checkout is
never modified) and the module's tests (:data:`MODULE_TESTS`) run under pytest with a timeout and
a per-run temporary ``NUMBA_CACHE_DIR`` (seeded from a copy of ``--seed-cache`` when given; the
closure-keyed cache folders of :mod:`duelbench.provenance.compiled_cache` make a mutated module
and everything importing it recompile).  A mutant is *killed* when the tests fail (or time
out), *survived* when they pass.

Results go to ``results/mutants/<stamp>.csv`` (one row per mutant, written as it finishes) and
``results/mutants/<stamp>.md`` (kill rate per module, surviving mutants with file:line and the
change).  Not part of the package, not collected by pytest, not run by CI.

Usage
-----
::

    python tools/mutants.py                          # every mapped module, 30 mutants each
    python tools/mutants.py --per-module 10 --seed 1 cpe/condorcet.py algorithms/rucb.py
    python tools/mutants.py --list algorithms/dts.py # print the mutants, run nothing
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
PACKAGE = CHECKOUT / "src" / "duelbench"
GOLDEN = "tests/test_golden_trajectories.py::test_golden_trajectories"


def _golden(*names: str) -> list[str]:
    return [f"{GOLDEN}[{n}]" for n in names]


#: Module (relative to ``src/duelbench``) → its own tests (pytest node ids or files).
MODULE_TESTS = {
    "algorithms/batched.py": ["tests/test_algorithms_batched.py", "tests/test_reference_batched.py",
                              "tests/test_algorithm_constants.py", "tests/test_batched_rules.py",
                              *_golden("pcomp", "scomp", "scomp2")],
    "algorithms/btm.py": ["tests/test_algorithms_btm.py", "tests/test_reference_btm.py", *_golden("btm")],
    "algorithms/ccb.py": ["tests/test_algorithms_ccb.py", "tests/test_reference_ccb.py", *_golden("ccb")],
    "algorithms/condorcet_savage.py": ["tests/test_algorithms_condorcet_savage.py",
                                       "tests/test_reference_condorcet_savage.py", *_golden("condorcet_savage")],
    "algorithms/dts.py": ["tests/test_reference_dts.py", "tests/test_algorithm_constants.py", *_golden("dts")],
    "algorithms/dts_plus.py": ["tests/test_algorithms_dts_plus.py", "tests/test_reference_dts_plus.py",
                               "tests/test_algorithm_constants.py", *_golden("dts_plus")],
    "algorithms/ecw_rmed.py": ["tests/test_algorithms_ecw_rmed.py", "tests/test_reference_ecw_rmed.py",
                               *_golden("ecw_rmed")],
    "algorithms/kernels.py": ["tests/test_algorithms.py", "tests/test_reference_rucb.py", "tests/test_reference_dts.py",
                              "tests/test_recorder_kernels.py", *_golden("rucb", "dts", "dts_plus")],
    "algorithms/random.py": ["tests/test_algorithms.py", *_golden("random")],
    "algorithms/rcs.py": ["tests/test_algorithms_rcs.py", "tests/test_reference_rcs.py",
                          "tests/test_algorithm_constants.py", *_golden("rcs")],
    "algorithms/rmed.py": ["tests/test_reference_rmed.py", "tests/test_rmed_rules.py", *_golden("rmed1")],
    "algorithms/rucb.py": ["tests/test_reference_rucb.py", *_golden("rucb")],
    "algorithms/savage.py": ["tests/test_algorithms_savage.py", "tests/test_reference_savage.py",
                             *_golden("copeland_savage")],
    "algorithms/scb.py": ["tests/test_algorithms_scb.py", "tests/test_reference_scb.py", *_golden("scb")],
    "algorithms/sparring.py": ["tests/test_algorithms_sparring.py", "tests/test_reference_sparring.py",
                               *_golden("sparring")],
    "cpe/borda.py": ["tests/test_cpe_borda.py", "tests/test_cpe_borda_rules.py", "tests/test_cpe_golden.py"],
    "cpe/borda_kernel.py": ["tests/test_cpe_borda.py", "tests/test_cpe_borda_rules.py", "tests/test_cpe_golden.py"],
    "cpe/condorcet.py": ["tests/test_cpe_condorcet.py", "tests/test_reference_cpe_condorcet.py",
                         "tests/test_cpe_golden.py"],
    "cpe/exact.py": ["tests/test_cpe_exact.py"],
}

COMPARISONS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ARITHMETIC = {"+": "-", "-": "+", "+=": "-=", "-=": "+="}
BOOLEAN = {"and": "or", "or": "and"}


@dataclass(frozen=True)
class Mutant:
    """One textual change of one line: ``line`` (1-based), columns ``[col, end)`` → ``new``."""

    module: str
    line: int
    col: int
    end: int
    old: str
    new: str

    def describe(self) -> str:
        return f"{self.module}:{self.line}: {self.old!r} -> {self.new!r}"


def _skipped_lines(tree: ast.AST) -> set[int]:
    """Lines of docstrings, imports, ``raise`` statements and validation functions."""
    out: set[int] = set()
    for node in ast.walk(tree):
        span = range(getattr(node, "lineno", 0), (getattr(node, "end_lineno", None) or 0) + 1)
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Raise)):
            out.update(span)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update(span)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                "validate" in node.name or node.name.startswith("_check")):
            out.update(span)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            out.update(span)
    return out


def _number_variants(text: str) -> list[str]:
    """Replacements of a numeric literal (see the module docstring)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return []
    if isinstance(value, bool) or isinstance(value, complex):
        return []
    if isinstance(value, int):
        return [str(value + 1)] + ([str(value - 1)] if value > 0 else [])
    if value >= 1.0:
        return [repr(value + 1.0)]
    if value > 0.0:
        return [repr(value * 0.8)]
    return []


def list_mutants(module: str) -> list[Mutant]:
    """Every one-line mutant of ``src/duelbench/<module>``."""
    source = (PACKAGE / module).read_text(encoding="utf-8")
    skipped = _skipped_lines(ast.parse(source))
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    out: list[Mutant] = []
    prev = None
    for tok in tokens:
        (row, col), (erow, ecol) = tok.start, tok.end
        if row in skipped or row != erow:
            prev = tok if tok.type not in (tokenize.NL, tokenize.COMMENT) else prev
            continue
        new: list[str] = []
        if tok.type == tokenize.NUMBER:
            new = _number_variants(tok.string)
        elif tok.type == tokenize.OP and tok.string in COMPARISONS:
            new = [COMPARISONS[tok.string]]
        elif tok.type == tokenize.OP and tok.string in ARITHMETIC:
            binary = prev is not None and (prev.type in (tokenize.NAME, tokenize.NUMBER)
                                           or prev.string in (")", "]"))
            binary = binary and (prev.type != tokenize.NAME or prev.string not in ("return", "in", "if", "else",
                                                                                   "and", "or", "not"))
            new = [ARITHMETIC[tok.string]] if binary else []
        elif tok.type == tokenize.NAME and tok.string in BOOLEAN:
            new = [BOOLEAN[tok.string]]
        for n in new:
            out.append(Mutant(module, row, col, ecol, tok.string, n))
        if tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            prev = tok
    return out


def apply(mutant: Mutant, source: str) -> str:
    """``source`` with the mutant's change."""
    lines = source.splitlines(keepends=True)
    text = lines[mutant.line - 1]
    assert text[mutant.col:mutant.end] == mutant.old, (mutant, text)
    lines[mutant.line - 1] = text[:mutant.col] + mutant.new + text[mutant.end:]
    return "".join(lines)


def run_tests(targets: list[str], env: dict, timeout: float) -> tuple[str, float]:
    """Run pytest on ``targets``; ``("passed" | "failed" | "timeout" | "error", seconds)``."""
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", *targets]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=CHECKOUT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # pytest and any process it started (its own group)
        proc.wait()
        return "timeout", time.monotonic() - start
    seconds = time.monotonic() - start
    if proc.returncode == 0:
        return "passed", seconds
    if proc.returncode == 1:
        return "failed", seconds
    return "error", seconds


def _environment(root: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root / "pkg")
    env["NUMBA_CACHE_DIR"] = str(root / "cache")
    env.setdefault("DUELBENCH_DATA_MIRROR", str(CHECKOUT.parent / "shared" / "data" / "mslr"))
    return env


def _write_markdown(path: Path, rows: list[dict], per_module: int, seed: int) -> None:
    lines = [f"# Mutation testing ({per_module} sampled mutants per module, seed {seed})", "",
             "| module | mutants (sampled / all) | killed | survived | kill rate |", "|---|---|---|---|---|"]
    modules = sorted({r["module"] for r in rows})
    for mod in modules:
        mine = [r for r in rows if r["module"] == mod]
        killed = sum(r["outcome"] != "passed" for r in mine)
        lines.append(f"| {mod} | {len(mine)} / {mine[0]['population']} | {killed} | {len(mine) - killed} | "
                     f"{100.0 * killed / len(mine):.0f} % |")
    lines += ["", "## Surviving mutants", ""]
    lines += [f"- `{r['module']}:{r['line']}` `{r['old']}` → `{r['new']}`" for r in rows if r["outcome"] == "passed"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="modules relative to src/duelbench (default: all mapped)")
    parser.add_argument("--per-module", type=int, default=30, help="mutants sampled per module (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument("--timeout-factor", type=float, default=2.0,
                        help="timeout = factor × the unmutated run's time, at least 60 s")
    parser.add_argument("--seed-cache", type=Path, default=None,
                        help="NUMBA_CACHE_DIR to copy into the run's temporary cache first")
    parser.add_argument("--max-minutes", type=float, default=None, help="stop starting mutants after this")
    parser.add_argument("--list", action="store_true", help="print the sampled mutants and exit")
    args = parser.parse_args(argv)
    modules = args.modules or list(MODULE_TESTS)
    unknown = [m for m in modules if m not in MODULE_TESTS]
    if unknown:
        parser.error(f"no tests mapped for {unknown}")
    rng = random.Random(args.seed)
    plan = []
    for mod in modules:
        everything = list_mutants(mod)
        sample = everything if len(everything) <= args.per_module else rng.sample(everything, args.per_module)
        plan.append((mod, len(everything), sorted(sample, key=lambda m: (m.line, m.col, m.new))))
    if args.list:
        for mod, population, sample in plan:
            print(f"# {mod}: {len(sample)} of {population}")
            for m in sample:
                print(m.describe())
        return 0
    out_dir = CHECKOUT / "results" / "mutants"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    csv_path, md_path = out_dir / f"{stamp}.csv", out_dir / f"{stamp}.md"
    fields = ["module", "population", "line", "old", "new", "outcome", "seconds"]
    rows: list[dict] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="duelbench-mutants-") as tmp, open(csv_path, "w", newline="") as fh:
        root = Path(tmp)
        shutil.copytree(PACKAGE, root / "pkg" / "duelbench", ignore=shutil.ignore_patterns("__pycache__"))
        if args.seed_cache is not None and args.seed_cache.is_dir():
            shutil.copytree(args.seed_cache, root / "cache")
        env = _environment(root)
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for mod, population, sample in plan:
            if args.max_minutes is not None and time.monotonic() - started > 60 * args.max_minutes:
                print(f"{mod}: not run (--max-minutes reached)", flush=True)
                continue
            target = root / "pkg" / "duelbench" / mod
            pristine = target.read_text(encoding="utf-8")
            stat = target.stat()
            status, base = run_tests(MODULE_TESTS[mod], env, timeout=3600)
            print(f"{mod}: unmutated tests {status} in {base:.0f} s; {len(sample)} of {population} mutants",
                  flush=True)
            if status != "passed":
                continue
            timeout = max(60.0, args.timeout_factor * base)
            for m in sample:
                if args.max_minutes is not None and time.monotonic() - started > 60 * args.max_minutes:
                    break
                try:
                    target.write_text(apply(m, pristine), encoding="utf-8")
                    os.utime(target, (stat.st_atime, stat.st_mtime + 1000))
                    outcome, seconds = run_tests(MODULE_TESTS[mod], env, timeout)
                finally:
                    target.write_text(pristine, encoding="utf-8")
                    os.utime(target, (stat.st_atime, stat.st_mtime))
                row = dict(module=mod, population=population, line=m.line, old=m.old, new=m.new, outcome=outcome,
                           seconds=round(seconds, 1))
                rows.append(row)
                writer.writerow(row)
                fh.flush()
                print(f"  {m.describe()}: {'survived' if outcome == 'passed' else 'killed (' + outcome + ')'} "
                      f"[{seconds:.0f} s]", flush=True)
                _write_markdown(md_path, rows, args.per_module, args.seed)
    print(f"wrote {csv_path} and {md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
