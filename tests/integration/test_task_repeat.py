"""Issue 28 §7 measured: the repeat variants of the task benchmark run end to end (benchmarks/tasks/repeat.py).

The learning attempt, two later attempts that call the tool (one after a host restart) and a
drift attempt on the app with its markup changed. No timing here (the figures are the
benchmark's): every attempt does its task, and the drifted tool either heals or stops with its
step error — it never reports success on a record the app does not show.
"""

from __future__ import annotations

import sys

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks" / "tasks"))

import repeat  # noqa: E402


def test_catalog_repeats_and_drift_never_a_wrong_success():
    rows = repeat.run_task("catalog", 3.0, log=lambda *_: None)
    assert [r["attempt"] for r in rows] == ["1st (explores, learns)", "2nd (other record)",
                                            "3rd (after a host restart)", "drift"]
    assert all(r["ok"] for r in rows), [(r["attempt"], r["why"]) for r in rows]
    first, later = rows[0], rows[1:3]
    assert all(r["turns"] == 2 < first["turns"] for r in later)
    assert all(r["bytes"] < first["bytes"] for r in later)
    drift = rows[3]
    assert drift["why"] == "healed" or drift["why"].startswith("step error EGO_LEARNED_"), drift["why"]
    section = repeat.render({"catalog": rows}, 3.0)
    assert "### Repeat variants (issue 28 §7)" in section and "| catalog | drift |" in section


def test_drift_switch_changes_the_markup_and_asks_for_confirmation():
    import registry

    app = registry.TASKS["catalog"].app()
    app.drift = True
    with app.serve() as srv:
        import urllib.request

        pid = app.products[0]["id"]
        html = urllib.request.urlopen(srv.url(f"/admin/catalog/product/{pid}/change/"), timeout=10).read().decode()
    assert 'id="id_price"' not in html and 'id="product-price"' in html and 'class="form-row' not in html
    assert html.index('name="_continue"') < html.index('name="price"')  # the buttons moved above the fields
