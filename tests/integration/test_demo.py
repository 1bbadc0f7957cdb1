"""`make demo` runs a real multi-round task on the bundled shop; this keeps it working."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_demo_runs_every_round(tmp_path):
    env = {**os.environ, "EGO_DEMO_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(ROOT / "demo" / "run_demo.py")], env=env, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "cheapest: Travel Kettle 0.5 L 19.99" in out
    assert 'button "Add to cart"' in out and "Added Travel Kettle 0.5 L to the cart" in out
    assert "Travel Kettle 0.5 L — €19.99" in out  # the cart, read back in the last round
    assert "'closed_space': True" in out
