"""experiments/tour.ipynb runs headlessly from top to bottom without a cell error."""
from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).parent.parent / "experiments" / "tour.ipynb"


def test_tour_notebook_executes(monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)      # the kernel's inline backend makes PNGs
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()          # raises CellExecutionError on any cell error
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "must run before" in text                      # the illegal step's witness
    assert "equal" in text                                # the verification
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 3
