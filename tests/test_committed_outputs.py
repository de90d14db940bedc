"""The committed paper-fidelity outputs are exactly those recorded in ``figures/MANIFEST.sha256``
(no output changed, added or removed without the manifest recording it)."""

from pathlib import Path

from duelbench.report import manifest

FIGURES = Path(__file__).resolve().parent.parent / "figures"


def test_committed_outputs_match_their_manifest():
    recorded = manifest.read(FIGURES / "MANIFEST.sha256")
    # every folder of outputs is recorded (an experiment left off the manifest would be unguarded);
    # the engine throughput table is a timing of the host, never committed
    folders = {p.name for p in FIGURES.iterdir() if p.is_dir() and p.name != "engine"}
    assert set(manifest.experiments_of(recorded)) == folders >= {"komiyama2016", "zoghi2015"}
    assert manifest.compare(FIGURES, recorded) == {"added": [], "missing": [], "changed": []}


def test_a_changed_output_is_reported(tmp_path):
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "table.csv").write_text("a\n1\n")
    (tmp_path / "paper" / "table.csv.json").write_text("{}")
    manifest.write(tmp_path, tmp_path / "M", ["paper"])
    assert manifest.read(tmp_path / "M").keys() == {"paper/table.csv"}
    (tmp_path / "paper" / "table.csv").write_text("a\n2\n")
    (tmp_path / "paper" / "new.csv").write_text("b\n")
    assert manifest.compare(tmp_path, manifest.read(tmp_path / "M")) == {
        "added": ["paper/new.csv"], "missing": [], "changed": ["paper/table.csv"]}
