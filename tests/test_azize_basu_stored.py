"""The Azize & Basu 2022 ledger notes against the stored outputs they are worded from.

Each stored reproduction under ``docs/azize_basu/`` keeps both runs' evidence (``<stem>.json``:
the run at the paper's settings and its confirmation at 4x the runs with a fresh seed). The
rule decides them here again (:func:`dpaudit.stats.evidence.decide_experiment`, alpha 0.05),
and each cell a note quotes must have the side the note gives it. Deterministic: the stored
numbers are read, nothing is sampled.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpaudit.audits.azize_basu_2022 import statements as st
from dpaudit.stats.evidence import ExperimentEvidence, decide_experiment

DOCS = Path(__file__).resolve().parents[1] / "docs" / "azize_basu"


def _decided(stem: str):
    doc = json.loads((DOCS / f"{stem}.json").read_text())
    ev = ExperimentEvidence.from_dict(doc["evidence"])
    confirm = (None if doc["confirm_evidence"] is None
               else ExperimentEvidence.from_dict(doc["confirm_evidence"]))
    d = decide_experiment(ev, confirm=confirm, confirm_required=True)
    return d, {c.measurement.label: c for c in d.cells}, doc


def test_every_statement_quotes_the_paper_and_says_what_would_settle_the_undecidable() -> None:
    for s in st.STATEMENTS:
        assert s.quote, s.location
    by = {s.location: s for s in st.STATEMENTS}
    assert by["Theorem 3"].settle and by["Theorem 8, Eq. (8)"].settle
    assert by["Fig. 2"].settle


def test_fig2_ten_times_against_dp_se_is_not_reproduced_for_the_printed_index() -> None:
    d, cells, doc = _decided("azize_basu_fig2_ratio")
    assert d.status == "not reproduced" and d.stable is True
    assert doc["runs"] == 200_000 and doc["confirmation"]["runs"] == 800_000
    ten = " (paper: at least 10)"
    ucb = cells['DP-SE (beta = 1/T) / AdaP-UCB (bonus="printed")' + ten]
    kl = cells["DP-SE (beta = 1/T) / AdaP-KLUCB" + ten]
    order = cells['AdaP-UCB (bonus="printed") / AdaP-KLUCB (paper: at least 1)']
    second = cells['DP-SE (beta = 1/T) / AdaP-UCB (bonus="printed") (paper: at least 1)']
    assert all(c.stable for c in (ucb, kl, order, second))
    assert (ucb.outcome, kl.outcome, second.outcome) == ("wrong side",) * 3
    assert order.outcome == "right side" and ucb.ci_high < 1.0 and kl.ci_high < 10.0
    assert "200000 runs per algorithm (confirmed at 800000" in st.FIG2_NOTE


def test_theorem7_printed_is_above_its_bound_at_small_eps() -> None:
    d, cells, _ = _decided("adap_ucb_index_thm7")
    # cells that keep their runs (anytime-valid, batched 2000 -> 8000): no confirmation
    assert d.status == "not reproduced" and d.stable is None
    above = sorted(float(k.rsplit("=", 1)[1]) for k, c in cells.items()
                   if c.outcome == "wrong side")
    assert above[0] == pytest.approx(0.05) and above[-1] == pytest.approx(0.7071)
    assert "above the bound at eps 0.05 to 0.71" in st.THM7_NOTE


def test_theorem2_is_witnessed_on_the_two_level_instance() -> None:
    d, _, _ = _decided("azize_basu_thm2")
    assert d.status == "reproduced" and d.stable is None  # anytime-valid: no confirmation


def test_initial_release_factorial_names_the_printed_index_as_the_cause() -> None:
    from dpaudit.audits.azize_basu_2022 import initial_release_cause as c

    d, cells, doc = _decided("azize_basu_initial_release_cause")
    assert d.status == "reproduced" and d.stable is True
    assert doc["runs"] == 100_000 and doc["confirmation"]["runs"] == 400_000
    tails = {label: cells[f"tail share: {label}"].measurement for label in c.VARIANTS}
    printed_ext, printed_l1, outside_ext, outside_l1 = (
        tails[c.FACTORIAL[k]] for k in (("printed", "episode-rule"), ("printed", "lemma1"),
                                        ("outside", "episode-rule"), ("outside", "lemma1")))
    # "no run enters the tail under either release" with the term outside the root
    assert outside_ext.count == 0 and outside_l1.count == 0
    # "about a tenth of the extrapolated release's tail": between a twentieth and a fifth
    assert 0.05 < printed_l1.count / printed_ext.count < 0.2
    diag = tails["Eq. (7) printed, no initial noise (diagnostic, not private)"]
    assert diag.count == printed_l1.count
    assert "about a tenth" in st.INITIAL_NOTE and "as many tail runs" in st.INITIAL_NOTE


def test_theorem7_at_eps_071_and_1_rests_on_the_initial_release() -> None:
    """Point of the Theorem 7 note: with Eq. (7) as printed, the regret's rule interval is
    above the bound at eps 0.71 and 1 with the extrapolated release and below it with Lemma
    1's, each side kept on the confirmation at 4x the runs."""
    d, cells, doc = _decided("adap_ucb_index_exact")
    assert d.status == "not reproduced" and d.stable is True
    assert doc["runs"] == 400_000 and doc["confirmation"]["runs"] == 1_600_000
    for eps in ("0.71", "1"):
        ext = cells[f"regret at T, printed index, eps = {eps}, initial release Lap(2/eps), "
                    "extrapolated"]
        l1 = cells[f"regret at T, printed index, eps = {eps}, initial release Lap(1/eps), "
                   "Lemma 1"]
        assert (ext.outcome, ext.stable) == ("wrong side", True)
        assert (l1.outcome, l1.stable) == ("right side", True)
    assert "above the bound with the initial release extrapolated" in st.THM7_NOTE


def test_fig2_dp_ucb_ratios_are_undecided_at_the_papers_twenty_runs() -> None:
    d, _, doc = _decided("azize_basu_fig2_intervals")
    assert doc["runs"] == 20 and d.status == "INCONCLUSIVE"
    assert d.runs_to_settle is not None and d.runs_to_settle > 20 * 4
    assert "no ratio is decided" in st.FIG2_NOTE


def test_fig3_low_privacy_regime_is_not_flat() -> None:
    d, cells, doc = _decided("azize_basu_fig3")
    assert d.status == "not reproduced" and d.stable is True
    assert doc["runs"] == 24 and doc["horizon"] == 10**7  # 180000 decision runs (7500x)
    flat = cells["low-privacy regime: regret at eps = 0.3 / regret at eps = 10"]
    dep = cells["high-privacy regime: regret at eps = 0.05 / regret at eps = 0.3"]
    assert (flat.outcome, dep.outcome) == ("wrong side", "right side")
    assert flat.measurement.runs == 180_000 and flat.ci_low > 2.0
    assert "180000 runs per eps (confirmed at 720000" in st.FIG3_NOTE
