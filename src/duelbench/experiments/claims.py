"""Evaluating a paper's published-number registry from measurements the paper's package computes.

A package maps every ``statistic`` of its registry to a
:class:`~duelbench.report.checks.Measurement`; a statistic the active fidelity does not produce
(a panel or algorithm that is not configured, too few runs) is a :class:`Missing` measurement
with the reason, evaluated as ``inconclusive`` and never filled in from a published value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from duelbench.report.checks import CheckResult, Measurement, evaluate_registry, outcome_counts, write_checks_csv


class Missing(Measurement):
    """A statistic the active fidelity does not produce (evaluated as ``inconclusive``)."""

    def __init__(self, reason: str):
        super().__init__(value=None, a=[], b=[], evidence=reason)


def evaluate_with_reasons(registry: Mapping, measure: Callable[[str], Measurement], fidelity: str) -> list[CheckResult]:
    """Evaluate every check of ``registry`` on ``measure(statistic)``
    (:func:`~duelbench.report.checks.evaluate_registry`): a :class:`Missing` statistic keeps its
    reason as the evidence of the ``inconclusive`` outcome, and a measurement's own evidence
    (e.g. which algorithms A and B are) leads the test's evidence."""
    ms = {c["statistic"]: measure(c["statistic"]) for c in registry["checks"]}
    results = evaluate_registry(registry, ms, fidelity)
    for r in results:
        m = ms.get(r.check["statistic"])
        if isinstance(m, Missing):
            r.outcome, r.adjusted, r.decision, r.evidence = "inconclusive", "inconclusive", None, m.evidence
        elif m is not None and m.evidence and not r.evidence.startswith(m.evidence):
            r.evidence = f"{m.evidence}; {r.evidence}"
    return results


def checks_table(ctx, evaluate: Callable[[dict], list[CheckResult]]) -> dict:
    """The body of a paper's ``checks`` step on the framework's harness: ``evaluate`` the registry
    of input ``registry`` (as the plan scores it,
    :meth:`~duelbench.experiments.contract.StepContext.registry`), write output ``csv``
    (:func:`~duelbench.report.checks.write_checks_csv`) with one log line per check; returns the
    outcome counts (recorded in the sidecar)."""
    results = evaluate(ctx.registry(ctx.input.registry))
    write_checks_csv(results, ctx.output.csv)
    for r in results:
        print(f"{r.check['id']}: {r.outcome} ({r.evidence[:120]})", flush=True)
    return {"outcomes": outcome_counts(results)}
