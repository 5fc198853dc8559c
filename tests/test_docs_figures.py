"""Figures on the documentation pages that are neither quoted from a stored output
(``benchmarks/sync_docs.py`` blocks and values) nor printed by a command the figures comments
run (``tests/test_readme_figures.py``): derived constants and registered values, recomputed
here from the code at the page's parameters. Each test reads the page, so a figure changed on
either side fails it."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from pathlib import Path

from dpaudit.registry import all_audits

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text()


def shows(printed: str, value: float) -> bool:
    """``True`` when ``value`` lies in the interval the printed digits state (``1.414`` means
    ``[1.4135, 1.4145]``); ``inf`` is infinity."""
    if printed == "inf":
        return math.isinf(value)
    d = Decimal(printed)
    half = Decimal(1).scaleb(d.as_tuple().exponent) / 2
    return float(d - half) <= value <= float(d + half)


def test_release_level_twins_true_losses_are_the_registered_ones() -> None:
    """docs/release_level.md's twin table: each row's true loss is the twin's registered
    ``true_epsilon`` (derived in its docstring and recomputed in tests/test_twins_release.py);
    DP-UCB-Int's benign twin shows its bracket."""
    from dpaudit.algorithms.tossou_dimitrakakis_2016._twins import INT_TRUE_EPSILON

    audits = all_audits()
    rows = [line for line in page("release_level.md").splitlines()
            if re.match(r"\| [a-z0-9-]+-(sqrt2-scale|half-scale|unnoised-first|arms-scale|"
                        r"shared-draw|no-split|no-level-split)\b", line)]
    assert len(rows) >= 12
    seen = 0
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        names, printed = cells[0], cells[-1].split()[0]
        for name in (n.strip() for n in names.split(",")):
            true = audits[name].true_epsilon
            seen += 1
            if "-" in printed:  # a bracket: the benign twin's exact loss over 10^5 pulls
                lo, hi = (float(x) for x in printed.split("-"))
                assert (lo, hi) == INT_TRUE_EPSILON and true == hi, (name, printed, true)
            else:
                assert true is not None and shows(printed, true), (name, printed, true)
    assert seen >= 17


def test_release_level_dp_ucb_int_attack_constants() -> None:
    """docs/release_level.md: DP-UCB-Int's first release at ``n = f`` for the default target
    (1, 1e-5), its exact loss ``f^(-v/2)``, and the run budget the claim's module sets."""
    from dpaudit.algorithms.tossou_dimitrakakis_2016.dp_ucb_int import DPUCBInt
    from dpaudit.audits.tossou_dimitrakakis_2016 import _release_claims as rc

    text = page("release_level.md")
    spec = all_audits()["dp-ucb-int"]
    alg = DPUCBInt.for_target(spec.default_epsilon, spec.default_delta)
    f = int(alg.release_every)
    assert f"n = f = {f} " in text
    assert "f^(-v/2) = <!-- value: " in text and f"-->{f ** (-alg.v / 2):.4f}<!--" in text
    assert f"{rc.INT_SELECT} runs per side choose" in text
    from dpaudit.engine import CheckContext

    ctx = CheckContext(spec.default_epsilon, spec.default_delta, variant=spec.variant)
    runs = min(rc._int_runs(ctx, rc._int_attacks(ctx, alg)), rc.MAX_STEPS // f)
    assert f"{runs / 1e6:.3g}e6 runs per side, sized by the claim" in text
    assert f"the step budget {rc.MAX_STEPS:.0e}".replace("e+0", "e") + " / f" in text
    assert f"down to {rc.INT_MIN_RUNS.full:.0e}".replace("e+0", "e") in text


def test_zheng_calibration_limits_on_the_ldp_and_verification_pages() -> None:
    """docs/ldp.md and docs/verification.md: the eps beyond which the classical calibration
    stops meeting delta = 1e-5 at the attained worst pair (the ``zheng-*-scope`` experiments'
    ``epsilon_limit``), the faulty twin's true loss, and the scope experiments' grid."""
    from dpaudit.audits.zheng_et_al_2020 import scope

    ldp, verification = page("ldp.md"), page("verification.md")
    assert scope.DELTA == 1e-5 and "delta = 1e-5" in ldp
    limit = {name: scope.epsilon_limit(mu, scope.DELTA)
             for name, (_w, _q, mu) in scope.SCOPES.items()}
    one_point = f"{limit['zheng-thm2-scope']:.3g}"
    assert f"{limit['zheng-thm5-scope']:.3g}" == one_point
    assert f"beyond eps = {one_point} for the one/two-point reports" in ldp
    assert f"{limit['zheng-thm7-scope']:.3g} for LinUCB" in ldp
    assert math.isinf(limit["zheng-thm9-scope"]) and "not below eps = 200" in ldp
    assert f"above eps = {limit['zheng-gaussian-scope']:.3g} at delta = 1e-5" in verification
    faulty = all_audits()["ldp-one-point-faulty"].true_epsilon
    assert f"pays eps = {faulty:.3g} (its registered" in ldp
    assert f"eps in [{min(scope.EPSILONS):g}, {max(scope.EPSILONS):g}]" in ldp
    bounds = ", ".join(f"{c:g}" for c in scope.LINK_BOUNDS[:-1])
    assert f"C = {bounds} and {scope.LINK_BOUNDS[-1]:g}" in ldp


def test_start_phases_on_the_verification_and_trajectory_pages() -> None:
    """docs/verification.md and docs/trajectory.md: DP-FTPL-Gauss's and DP-FTPL-Beta's start
    phases at Fig. 2's (1, 0.01), the exact delta and smallest sufficient count the
    ``gauss-perturbation`` and ``beta-perturbation`` checks compute, and the unpadded Beta's
    limit (the ``padding-necessary`` finding), recomputed with the checks' own functions."""
    from dpaudit.audits.wang_zhu_2023 import beta_perturbation as beta
    from dpaudit.audits.wang_zhu_2023 import gauss_perturbation as gauss
    from dpaudit.mechanisms.beta_perturbation import beta_start_phase
    from dpaudit.mechanisms.gauss_perturbation import gauss_start_phase

    verification, trajectory = page("verification.md"), page("trajectory.md")
    eps, delta = beta.FIGURE_PARAMETERS
    n_g = math.ceil(gauss_start_phase(eps, delta))
    n_b = math.ceil(beta_start_phase(eps, delta))
    exact_g = gauss.gauss_exact_delta(eps, n_g).value
    min_g = next(n for n in range(1, n_g + 1) if gauss.gauss_exact_delta(eps, n).value <= delta)
    assert (f"N_G = {n_g} at ({eps:g}, {delta:g}): exact delta "
            f"{exact_g:.1e}".replace("e-0", "e-") + "; smallest "
            f"sufficient N is {min_g}") in verification
    fails = [n for n in range(1, n_b + 1) if beta.beta_worst_delta(eps, n)[0].value > delta]
    min_b = max(fails) + 1 if fails else 1
    assert f"N_B = {n_b} suffices (so does every N from {min_b} to {n_b})" in verification
    assert f"N from N_B to {beta.N_MAX.full:.0e}".replace("e+0", "e") in verification
    assert f"limit delta = {beta.unpadded_limit(eps):.4f}" in verification
    assert beta.unpadded_limit(8.0) < delta
    assert "at eps = 8 the unpadded Beta's limit delta is below 0.01" in verification
    assert f"({n_g} and {n_b}\npulls at ({eps:g}, {delta:g}))" in trajectory


def sci(x: float, digits: int = 2) -> str:
    """``4.6e-5`` (the pages' way of writing ``4.6e-05``)."""
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + m.group(1).replace("+", "") + m.group(2),
                  f"{x:.{digits - 1}e}")


def test_tossou_dimitrakakis_page_figures() -> None:
    """docs/tossou_dimitrakakis.md: the broken twins' exact figures (their exact claims,
    evaluated at the check's defaults), the delta' the paper's printed calibration points
    imply under Corollary 3.1 for three constants c, and DP-UCB-Int's round robin at target
    0.1 (``f`` and the Laplace scale of its first release)."""
    from dpaudit.audits.tossou_dimitrakakis_2016._dp_ucb_int_calibration import (
        PAPER_POINTS,
        implied_log_inv_delta,
    )
    from dpaudit.engine import CheckContext
    from dpaudit.mechanisms.interval_release import C_TIGHT, release_interval, release_scale

    text = page("tossou_dimitrakakis.md")

    def exact(name: str, claim_id: str):
        spec = all_audits()[name]
        claim = next(c for c in spec.claims if c.id == claim_id)
        ctx = CheckContext(epsilon=spec.default_epsilon, delta=spec.default_delta,
                           variant=spec.variant)
        return claim.evaluate(ctx, claim)

    tree = exact("private-ucb-ceil-log2", "counter-exact")
    details = " ".join(tree.details)
    horizon = re.search(r"binary tree over T = (\d+)", details).group(1)
    levels = re.search(r"L = (\d+)", details).group(1)
    nodes = re.search(r"lies in (\d+) released nodes", details).group(1)
    lo, hi = (float(x) for x in re.search(r"delta\(eps = 1\) in \[(\S+), (\S+)\]",
                                          details).groups())
    assert lo <= tree.delta_at_epsilon <= hi
    assert (f"`L = ceil(log2 T)` at `T = {horizon}` | VIOLATED: element 1 in {nodes} nodes of "
            f"`Lap({levels}/eps)`, loss {tree.data['epsilon_exact']:.2g} eps, "
            f"`delta(1) in [{sci(lo)}, {sci(hi)}]`") in text
    every_pull = exact("dp-ucb-int-faulty", "pld-exact")
    first = re.search(r"from the first (\d+) releases", " ".join(every_pull.details)).group(1)
    assert (f"`delta(1) >= {every_pull.data['delta_lower']:.2f}` from the first {first} "
            "releases alone") in text
    implied = {c: [implied_log_inv_delta(t, PAPER_POINTS[t], c) for t in (1.0, 0.1)]
               for c in (C_TIGHT, 1.0, 2.0)}
    assert (f"`ln(1/delta') = {implied[C_TIGHT][0]:.1f}` for target 1\nand "
            f"`{implied[C_TIGHT][1]:.1f}` for target 0.1 (c = e - 1; "
            f"{implied[1.0][0]:.1f} / {implied[1.0][1]:.1f} with c = 1, "
            f"{implied[2.0][0]:.1f} / {implied[2.0][1]:.1f} with c = 2)") in text
    assert f"input privacy {PAPER_POINTS[1.0]} for target 1 and {PAPER_POINTS[0.1]}" in text
    f = release_interval(PAPER_POINTS[0.1])
    scale = float(release_scale(f, 1.1))
    assert f"K f = K x {f} steps" in text and f"the scale being {scale:.2g} there" in text


def test_tossou_horizon_reading_is_the_stored_outputs() -> None:
    """docs/tossou_dimitrakakis.md reads the stored ``tossou-dp-ucb-int-horizon`` output in
    words; each word is checked against its cells (the upper end of the bracket within the
    target = met, the lower end above it = exceeded) and its table (the limit and the
    crossing)."""
    import json

    text = " ".join(page("tossou_dimitrakakis.md").split())
    stored = json.loads((DOCS / "tossou_dimitrakakis" / "tossou_dp_ucb_int_horizon.json")
                        .read_text())
    md = (DOCS / "tossou_dimitrakakis" / "tossou_dp_ucb_int_horizon.md").read_text()
    cells = {}
    for m in stored["evidence"]["measurements"]:
        target, dp, n = re.fullmatch(r"target (\S+), delta' (\S+), n = (\S+)", m["label"]).groups()
        lo, hi = (float(x) for x in re.search(r"\[(\S+), (\S+)\]", m["note"]).groups())
        cells[float(target), dp, float(n)] = (lo, hi, m["paper_value"] is not None)
    ns = sorted({n for _t, _d, n in cells})
    assert ns[0] == 1e4 and ns[-2] == 1e8 and math.isinf(ns[-1])
    assert "from n = 10^4 to 10^8 and in the limit" in text
    met = {k for k, (lo, hi, _) in cells.items() if hi <= k[0]}
    exceeded = {k for k, (lo, hi, _) in cells.items() if lo > k[0]}
    compared = {k for k, (_, _, c) in cells.items() if c}
    # the compared cells: each target at its implied delta' (2.7e-09 and 0.0154)
    assert {(t, d) for t, d, _ in compared} == {(1.0, "2.7e-09"), (0.1, "0.0154")}
    assert "2.7e-9 for target 1, 0.0154 for target 0.1" in text
    assert "at the implied delta' both targets are met at every n and in the limit" in text
    assert compared <= met
    assert all(cells[0.1, "0.0154", n][1] <= 1e-9 for n in ns if (0.1, "0.0154", n) in cells
               and n >= 1e8)  # eps = 0 up to the root's tolerance: "trivially"
    assert "target 1 is met at 1e-5 and 1e-10 at every n and in the limit" in text
    assert all((1.0, d, n) in met for d in ("1e-05", "1e-10") for n in ns)
    assert ("target 0.1 is met at delta' = 1e-5 up to n = 10^8 but not in the limit (0.1046"
            in text)
    assert all((0.1, "1e-05", n) in met for n in ns[:-1])
    assert (0.1, "1e-05", math.inf) in exceeded
    assert f"{cells[0.1, '1e-05', math.inf][0]:.4g}" == "0.1046"
    assert "exceeded at delta' = 1e-10 from n = 10^6 on" in text
    assert [n for n in ns if (0.1, "1e-10", n) in exceeded] == [n for n in ns if n >= 1e6]
    assert "reaches 0.1 at about 10^14.51 = 3.2e+14 pulls" in md and "about 3e14 pulls" in text
    assert "(0.1, 1.633e-05)-DP" in md and "(0.1, 1.63e-5)-DP" in text


def test_sampled_engine_defaults_on_the_auditing_pages() -> None:
    """docs/auditor.md, docs/audit-policy.md and docs/simulate.md state the sampled engine's
    default budget (selection share, ranking draws, tail draws, selection cap) and what they
    imply for the gallery's default ``--samples``; they are the code's defaults."""
    import argparse

    from dpaudit.algorithms import _lockstep
    from dpaudit.commands import audit_policy
    from dpaudit.stats import sampled
    from dpaudit.stats.sampled import AuditBudget

    auditor = " ".join(page("auditor.md").split())
    policy, simulate = page("audit-policy.md"), " ".join(page("simulate.md").split())
    budget = AuditBudget()
    share = round(100 * budget.selection_fraction)
    assert f"fresh draws ({share}% of `--samples`)" in auditor
    assert f"on fresh draws (the other {100 - share}%)" in auditor
    assert "`min(samples // 10, 50000)`" in auditor
    assert AuditBudget(samples=10**7).n_rank == 50_000
    assert AuditBudget(samples=10**5).n_rank == 10**5 // 10
    assert budget.tail_draws == sampled.TAIL_DRAWS
    assert f"at least {sampled.TAIL_DRAWS:g}/delta draws per side, up to " \
           f"{sampled.MAX_TAIL_SAMPLES:.0e}".replace("e+0", "e") in auditor
    assert budget.tail_selection_fraction == 0.1 and "A tenth of the draws select" in auditor
    assert f"(at most {budget.max_select:.0e})".replace("e+0", "e") in auditor
    assert f"`AuditBudget.max_select = {budget.max_select}` draws per side" in simulate
    assert f"plus {_lockstep.CHUNK}-step blocks" in simulate
    sub = argparse.ArgumentParser().add_subparsers()
    audit_policy.add_parser(sub)
    (command,) = sub.choices.values()
    defaults = {a.dest: a.default for a in command._actions}
    assert defaults["selection_fraction"] == budget.selection_fraction
    # --samples defaults to None (a claim with delta under --notion ldp sizes its own draws);
    # otherwise the command falls back to DEFAULT_SAMPLES, the figure the pages state
    assert defaults["samples"] is None
    samples = audit_policy.DEFAULT_SAMPLES
    measured = round(samples * (1 - budget.selection_fraction))
    for text in (policy, auditor):
        assert f"(`--samples {samples}`," in text
        assert f"the bound is what {measured} measured draws per side can show" in text


def test_conformance_suite_parameters_on_the_policies_page() -> None:
    """docs/policies.md names the conformance suite's family-wise false-failure probability and
    its per-step reference runs: those of tests/test_policies.py."""
    source = (ROOT / "tests" / "test_policies.py").read_text()
    family = re.search(r"^FAMILY_ALPHA = (\S+)$", source, re.M).group(1)
    n_ref = re.search(r"^N_PILOT, N_FAST, N_REF = \S+, \S+, (\S+)$", source, re.M).group(1)
    text = " ".join(page("policies.md").split())
    assert f"family-wise false-failure probability {family}" in text
    assert text.count(f"({n_ref} per-step runs)") == 1 and f"what {n_ref} runs resolve" in text


def test_azize_et_al_2025_page_figures() -> None:
    """docs/azize_et_al_2025.md: Theorems 1-2's terms on ``mu_2`` (recomputed), the twins'
    true losses (registered), and the regret output's decision counts and tails (read from the
    stored output the page names)."""
    from dpaudit.algorithms.azize_et_al_2025.bounds import thm1_lower, thm2_leading
    from dpaudit.algorithms.azize_et_al_2025.instances import AZIZE_ET_AL_2025_MU2 as MU2

    text = " ".join(page("azize_et_al_2025.md").split())
    assert (f"On `mu_2` at eps = 1, `T = 10^6`: Theorem 2's leading term "
            f"{thm2_leading(MU2.means, 10**6, 1.0):.0f} (`alpha = 2`), Theorem 1's `log T` term "
            f"{thm1_lower(MU2.means, 10**6, 1.0):.1f}") in text
    audits = all_audits()
    assert audits["dp-klucb-half-scale"].true_epsilon == 2.0
    assert audits["dp-imed-half-scale"].true_epsilon == 2.0
    assert math.isinf(audits["dp-klucb-mean-scale"].true_epsilon)
    assert math.isinf(audits["dp-imed-mean-scale"].true_epsilon)
    assert "all four VIOLATED against the exact loss 2" in text

    stored = DOCS / "azize_et_al_2025" / "azize_et_al_2025_regret"
    status = re.search(r"\((\d+) wrong side, (\d+) right side, (\d+) undecided of (\d+) "
                       r"compared cell\(s\).*?about (\d+) runs would settle",
                       stored.with_suffix(".md").read_text())
    wrong, right, undecided, total, settle = (int(x) for x in status.groups())
    assert (f"{right} of the {total} cells are on the narration's side" in text
            and f"none on the other side, {undecided} undecided" in text and wrong == 0)
    assert f"about {sci(settle)} runs per algorithm and setting" in text
    tails: dict[str, list[tuple[float, dict]]] = {}
    runs = int(re.search(r"Settings: T = \d+, (\d+) runs", stored.with_suffix(".md")
                         .read_text()).group(1))
    for row in stored.with_suffix(".md").read_text().splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 11 and cells[2] in ("dp-imed", "dp-klucb"):
            tails.setdefault(cells[2], []).append((float(cells[1]), {
                "tail_share": float(cells[9]), "largest": float(cells[10]), "runs": runs}))
    imed, klucb = tails["dp-imed"], tails["dp-klucb"]
    top = max(imed, key=lambda e: e[1]["tail_share"])
    assert (f"DP-IMED's share is up to {top[1]['tail_share']:.2f} at eps = {top[0]:g} (largest "
            f"runs up to {sci(max(s['largest'] for _e, s in imed))}") in text
    assert (f"non-zero on {sum(s['tail_share'] > 0 for _e, s in imed)} of {len(imed)} settings "
            f"at {imed[0][1]['runs']} runs") in text
    worst = max(round(s["tail_share"] * s["runs"]) for _e, s in klucb)
    assert (f"DP-KLUCB has at most {worst} run in {klucb[0][1]['runs']} above 10x its median on "
            f"any setting (largest run {sci(max(s['largest'] for _e, s in klucb))}") in text


def test_trajectory_page_horizons_are_the_checks_budgets() -> None:
    """docs/trajectory.md's table of registered trajectory items: each horizon (full and
    ``--quick``) is the budget its audit module declares."""
    from dpaudit.audits.azize_basu_2022 import dp_se_trajectory
    from dpaudit.audits.barbara_lazzaro_pike_burke_2025 import trajectory as apt
    from dpaudit.audits.baselines import trajectory as baselines
    from dpaudit.audits.wang_zhu_2023 import trajectory as ftpl

    rows = {line.split("|")[1].strip(): line for line in page("trajectory.md").splitlines()
            if line.startswith("| `")}

    assert f"| {ftpl.NEW_HORIZON.full} ({ftpl.NEW_HORIZON.quick}) |" in rows["`dp-ftpl-new`"]
    assert (f"| start phase + {ftpl.ADAPTIVE_STEPS.full} (+ {ftpl.ADAPTIVE_STEPS.quick}) |"
            in rows["`dp-ftpl-gauss`, `dp-ftpl-beta`"])
    assert f"| {baselines.HORIZON.full} ({baselines.HORIZON.quick}) |" in rows["`thompson`"]
    assert (f"| {apt.HORIZON.full} ({apt.HORIZON.quick}) |"
            in rows["`ldp-tbp-fixed-budget`"])
    h = dp_se_trajectory.HORIZON
    assert f"| {h.full} ({h.quick}): 2 (1) Laplace releases |" in rows["`dp-se`"]


def test_twins_true_losses_on_the_papers_page() -> None:
    """docs/papers.md quotes three broken twins' true losses: the registered ``true_epsilon``
    (DP-UCB-Int's every-pull twin: the bracket whose lower end is registered)."""
    from dpaudit.algorithms.tossou_dimitrakakis_2016._twins import EVERY_PULL_TRUE_EPSILON

    audits = all_audits()
    text = " ".join(page("papers.md").split())
    lo, hi = EVERY_PULL_TRUE_EPSILON
    assert audits["dp-ucb-int-every-pull"].true_epsilon == lo
    assert f"`dp-ucb-int-every-pull` (alias `dp-ucb-int-faulty`; a fresh mean at every pull: " \
           f"true loss in [{lo}, {hi}] at K = 2, T = 352)" in text
    gauss = audits["dp-ftpl-gauss-no-start-phase"].true_epsilon
    assert f"no start phase, true loss {gauss:.5g} at (1, 0.01)" in text
    tree = audits["private-ucb-ceil-log2"]
    assert f"true loss {tree.true_epsilon / tree.default_epsilon:.2g} eps)" in text


def test_generated_timings_on_the_docs_pages_are_the_stored_measurements() -> None:
    """A wall-clock time on a docs page between ``<!-- timings: KEY -->`` markers is the one
    ``benchmarks/results/timings.json`` stores for KEY (README.md's: test_readme_names.py)."""
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("timings", ROOT / "benchmarks" / "timings.py")
    assert spec is not None and spec.loader is not None
    timings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timings)
    stored = json.loads(timings.STORE.read_text())
    marker = re.compile(r"<!-- timings: (?P<key>[\w-]+) -->(?P<text>[^<]*)<!-- /timings -->")
    found = [(p.name, m["key"], m["text"]) for p in sorted(DOCS.glob("*.md"))
             for m in marker.finditer(p.read_text())]
    assert found
    for name, key, text in found:
        assert key in stored, f"{name}: {key} has no stored measurement"
        assert text == timings.shown(stored[key]["seconds"]), (name, key, text)


def test_command_line_limits_on_the_cli_page() -> None:
    """docs/cli.md states the largest accepted epsilon and the default time limit: the code's
    constants (and e^EPSILON_MAX's distance below float64's largest number)."""
    import sys

    from dpaudit.runtime.limits import DEFAULT_TIME_LIMIT, TIME_LIMIT_ENV
    from dpaudit.validation import EPSILON_MAX

    text = " ".join(page("cli.md").split())
    decades = math.floor(math.log10(sys.float_info.max) - EPSILON_MAX / math.log(10))
    assert (f"accept epsilon up to {EPSILON_MAX:g} (e^{EPSILON_MAX:g} is "
            f"{['zero', 'one', 'two', 'three', 'four', 'five'][decades]} decades below") in text
    assert f"`${TIME_LIMIT_ENV}` seconds (default {DEFAULT_TIME_LIMIT:g})" in text


def test_rule_and_budget_constants_on_the_ledger_and_verification_pages() -> None:
    """docs/ledger.md's confirmation factor and tail multiple, docs/azize_et_al_2025.md's and
    docs/ledger.md's "above 10x the median", and docs/verification.md's symbolic budget are the
    code's constants."""
    from dpaudit.exact.budget import DEFAULT_SYMBOLIC_BUDGET
    from dpaudit.stats.rule import CONFIRM_FACTOR, TAIL_MULTIPLE

    ledger = " ".join(page("ledger.md").split())
    assert f"re-run with a fresh seed at {CONFIRM_FACTOR}x the runs agrees" in ledger
    assert f"the share of runs above {TAIL_MULTIPLE:g}x the median" in ledger
    assert f"above {TAIL_MULTIPLE:g}x the median" in " ".join(page("azize_et_al_2025.md").split())
    verification = " ".join(page("verification.md").split())
    budget = DEFAULT_SYMBOLIC_BUDGET
    assert f"(`symbolic_budget`, default {budget:g} s per inequality" in verification


def test_reconstructed_constants_and_ranges_on_the_ldp_and_azize_pages() -> None:
    """docs/ldp.md names the thresholding theorems' reconstructed constants (the bounds'
    defaults); docs/azize_et_al_2025.md the range of one run's regret, ``T max gap``, on its
    mean vectors."""
    import inspect

    from dpaudit.algorithms.azize_et_al_2025 import instances as azize
    from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025 import bounds

    def default(fn, name: str) -> float:
        return inspect.signature(fn).parameters[name].default

    ldp = " ".join(page("ldp.md").split())
    c, c1 = default(bounds.thm31_upper, "constant"), default(bounds.thm32_lower, "constant")
    c2 = default(bounds.thm42_lower, "constant")
    r, p = (default(bounds.thm41_upper, k) for k in ("radius_constant", "radius_power"))
    assert f"3.1 `c = {c:g}` (APT's `64 R^2`, `R = 1/2`)" in ldp and 64 * 0.5**2 == c
    assert f"3.2 `c' = {c1:g}`" in ldp
    assert f"`T <= K + 2 H^eps log({r:g} K T^{p:g} / delta)`" in ldp
    assert f"4.2 `c'' = {c2:g}`" in ldp

    text = " ".join(page("azize_et_al_2025.md").split())
    vectors = [azize.AZIZE_ET_AL_2025_MU1, azize.AZIZE_ET_AL_2025_MU2,
               azize.AZIZE_ET_AL_2025_MU3, azize.AZIZE_ET_AL_2025_MU4]
    ranges = [v.horizon * (max(v.means) - min(v.means)) for v in vectors]
    assert len(set(ranges[1:])) == 1
    assert f": {sci(ranges[0], 1)} on `mu_1`, {sci(ranges[1], 1)} on the others)" in text
