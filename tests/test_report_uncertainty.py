"""Every figure's caption states its error bars, their source of variability and the compute
used (duelbench.report.uncertainty), in REPORT.md and in the Snakemake report."""

from __future__ import annotations

import pytest

from duelbench.config.files import checkout_config
from duelbench.experiments.contract import Item
from duelbench.experiments.planning import plan
from duelbench.experiments.reporting import configured_items
from duelbench.report import markdown, uncertainty

FIDELITIES = ("paper", "quick", "smoke")


def _figures(fidelity: str) -> dict[tuple[str, str], object]:
    config = checkout_config(fidelity=fidelity)
    return {(name, item.id): (plan(config, name), item) for name, items in configured_items(config).items()
            for item in uncertainty.figure_items(items)}


@pytest.mark.parametrize("fidelity", FIDELITIES)
def test_every_figure_has_a_declaration_and_every_declaration_a_figure(fidelity):
    figures = _figures(fidelity)
    assert sorted(set(figures) - set(uncertainty.FIGURES)) == [], "figures without error-bar declaration"
    if fidelity == "paper":
        assert sorted(set(uncertainty.FIGURES) - set(figures)) == [], "declarations of no figure"


def test_statements_name_bars_variability_and_compute_with_the_run_counts():
    for (name, item_id), (p, item) in _figures("paper").items():
        text = uncertainty.statement(name, item_id, p.settings)
        assert text.startswith("Error bars: ") and ". Source of variability: " in text and ". Compute: " in text
        assert "?" not in text and "{" not in text, (name, item_id, text)
    komiyama = plan(checkout_config(fidelity="paper"), "komiyama2016")
    assert "over the 100 runs of each curve" in uncertainty.statement("komiyama2016", "figure1", komiyama.settings)
    quick = plan(checkout_config(fidelity="quick"), "komiyama2016")
    assert f"over the {quick.settings['runs']} runs of each curve" in uncertainty.statement(
        "komiyama2016", "figure1", quick.settings)
    assert uncertainty.statement("komiyama2016", "table1") == ""  # a table: no statement


def test_the_report_prints_the_statement_under_each_figure_only():
    figure = Item("figure1", "figure", "Figure 1 (regret)", "The caption.", ("x/komiyama2016/figure1.png",), True)
    table = Item("table1", "table", "Table 1 (constants)", "A table.", ("x/komiyama2016/table1.csv",), True)
    lines = markdown.paper_section("komiyama2016", "Title", [figure, table], [], [], "x", settings={"runs": 7})
    text = "\n".join(lines)
    statement = uncertainty.statement("komiyama2016", "figure1", {"runs": 7})
    assert "over the 7 runs of each curve" in statement
    assert text.index("The caption.") < text.index(statement) < text.index("### Table 1")
    assert text.count("Error bars: ") == 1


def test_the_snakemake_report_caption_carries_the_statement():
    p = plan(checkout_config(fidelity="paper"), "wu2016")
    item = next(i for i in p.items if i.id == "figure2")
    assert uncertainty.with_statement(p, item).caption == f"{item.caption} {uncertainty.statement('wu2016', 'figure2', p.settings)}"
    table = next(i for i in p.items if not uncertainty.figure_items([i]))
    assert uncertainty.with_statement(p, table) is table
