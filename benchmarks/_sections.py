"""Sections of ``benchmarks/run.py``: each yields rows ``measured / reference = ratio``.

Policies come from the registry (``dpaudit.registry.all_policies``), never from a list here:
a policy whose ``simulate`` returns ``decisions`` (the compact code of an episodic algorithm)
is episodic, the others are per-step. Broken twins are left out.
"""

from __future__ import annotations

import subprocess
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from dpaudit.mechanisms import Laplace
from dpaudit.registry import all_policies
from dpaudit.sim.bandits import BernoulliRewards, TableRewards, checkpoint_grid
from dpaudit.sim.notions import GlobalDPTarget, global_neighbour_pairs
from dpaudit.stats.blackbox import AuditBudget, audit_mechanism


@dataclass(frozen=True)
class Row:
    section: str
    figure: str
    value: float | None
    reference: float | None
    ratio: float | None
    note: str

    def line(self) -> str:
        parts = [f"[{self.section}] {self.figure}"]
        if self.value is not None:
            parts.append(f"{self.value:.4g}")
        if self.reference is not None:
            parts.append(f"ref {self.reference:.4g}")
        if self.ratio is not None:
            parts.append(f"ratio {self.ratio:.3g}")
        return "  ".join(parts) + f"  ({self.note})"

    def to_dict(self) -> dict:
        return asdict(self)


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def peak_bytes(fn: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _policies() -> tuple[dict, dict]:
    """``(per_step, episodic)``: the registered correct policies, by the decisions probe."""
    per_step, episodic = {}, {}
    for name, entry in all_policies().items():
        if entry.faulty:
            continue
        res = entry.factory().simulate(BernoulliRewards(entry.small_instance),
                                       max(entry.small_horizon, 20), 2,
                                       rng=np.random.default_rng(0))
        (episodic if res.decisions is not None else per_step)[name] = entry
    return per_step, episodic


def _factory(entry, horizon: int):
    try:
        return entry.factory(horizon=horizon)
    except TypeError:
        return entry.factory()


# -- per-step policies ------------------------------------------------------------------------
def per_step(*, quick: bool, **_: object) -> Iterator[Row]:
    policies, _episodic = _policies()
    if not policies:
        yield Row("per-step", "no per-step policy registered", None, None, None, "skipped")
    for name, entry in policies.items():
        runs = entry.instance.runs or 100
        horizon = 1000 if quick else min(entry.instance.horizon or 10**4, 10**4)
        src = entry.instance.source()
        pol = _factory(entry, horizon)
        k = entry.instance.n_arms
        secs, _ = timed(lambda pol=pol, src=src, h=horizon, r=runs: pol.simulate(
            src, h, r, rng=np.random.default_rng(1)))
        fast = runs * horizon / secs
        ref_runs = 2
        ref_secs, _ = timed(lambda pol=pol, src=src, h=horizon, r=ref_runs:
                            pol.simulate_per_step(src, h, r, rng=np.random.default_rng(2)))
        ref = ref_runs * horizon / ref_secs
        rng = np.random.default_rng(3)

        def floor(h=horizon, r=runs, k=k, rng=rng) -> None:
            for _ in range(h):
                rng.random((r, k + 1))  # K noise draws and one reward per run and step

        floor_secs, _ = timed(floor)
        floor_rate = runs * horizon / floor_secs
        what = f"{name}: arm-pulls/s, {runs} runs in lockstep, T={horizon}"
        yield Row("per-step", what, fast, ref, fast / ref,
                  f"reference: simulate_per_step ({ref_runs} runs, one at a time)")
        yield Row("per-step", what, fast, floor_rate, fast / floor_rate,
                  f"reference: drawing the {k}+1 uniforms per run and step alone (the floor)")


# -- episodic algorithms ----------------------------------------------------------------------
def episodic(*, quick: bool, **_: object) -> Iterator[Row]:
    _per_step, policies = _policies()
    ref_horizon = 10**4 if quick else 10**5
    for name, entry in policies.items():
        runs = entry.instance.runs or 20
        src = entry.instance.source()
        pol = entry.factory()
        ref_secs, _ = timed(lambda pol=pol, src=src: pol.simulate_per_step(
            src, ref_horizon, 1, rng=np.random.default_rng(4)))
        per_step_per_t = ref_secs / ref_horizon  # a plain per-step run costs O(T)
        for horizon in (10**5, 10**7):
            secs, _ = timed(lambda pol=pol, src=src, h=horizon, r=runs: pol.simulate(
                src, h, r, rng=np.random.default_rng(5)))
            per_run = secs / runs
            ref = per_step_per_t * horizon
            how = ("measured" if horizon == ref_horizon
                   else f"extrapolated linearly from T={ref_horizon}")
            yield Row("episodic", f"{name}: seconds per run, T={horizon}, {runs} runs",
                      per_run, ref, ref / per_run,
                      f"ratio = per-step reference / episodic (reference {how})")


# -- audits -----------------------------------------------------------------------------------
def _policy_target(name: str, horizon: int) -> tuple[GlobalDPTarget, object]:
    entry = all_policies()[name]
    k = entry.instance.n_arms
    pol = _factory(entry, horizon)
    pairs = global_neighbour_pairs(horizon, k, steps=[k + 1], values=(0.0,))
    eps = getattr(pol, "epsilon", 1.0)
    return GlobalDPTarget(pol, epsilon=eps, delta=getattr(pol, "delta", 0.0),
                          neighbours=pairs), pol


def _policy_audit_rows(name: str, kind: str, runs: int) -> Iterator[Row]:
    horizon = 100
    target, pol = _policy_target(name, horizon)
    secs, res = timed(lambda: audit_mechanism(target, budget=AuditBudget(samples=runs),
                                              seed=1, key=f"bench:{name}"))
    table = target.neighbours[0][0]
    ref_runs = 200
    ref_secs, _ = timed(lambda: pol.simulate_per_step(TableRewards(table), horizon, ref_runs,
                                                      rng=np.random.default_rng(6)))
    rate, ref = 2 * runs / secs, ref_runs / ref_secs
    yield Row("audits", f"{kind} {name}: neighbour-pair samples/s (T={horizon}, {runs} runs "
              "per side, end to end)", rate, ref, rate / ref,
              "reference: simulate_per_step runs per second (sampling alone, plain)")
    yield Row("audits", f"{kind} {name}: epsilon lower bound (claim {target.epsilon:g})",
              res.epsilon_lower_bound, None, None, "exact optimum unknown for this policy")


def audits(*, quick: bool, **_: object) -> Iterator[Row]:
    n = 200_000 if quick else 1_000_000
    lap = Laplace(1.0)
    secs, res = timed(lambda: audit_mechanism(lap, budget=AuditBudget(samples=n), seed=1,
                                              key="bench:laplace"))
    rng = np.random.default_rng(7)
    m = 20_000
    ref_secs, _ = timed(lambda: [lap.sample(0.0, 1, rng) for _ in range(m)])
    rate, ref = 2 * n / secs, m / ref_secs
    yield Row("audits", f"mechanism Laplace(eps=1): neighbour-pair samples/s ({n} per side, "
              "end to end)", rate, ref, rate / ref,
              "reference: drawing one sample at a time (sampling alone)")
    yield Row("audits", "mechanism Laplace(eps=1): epsilon lower bound at alpha=0.05",
              res.epsilon_lower_bound, 1.0, res.epsilon_lower_bound,
              "reference: the exact optimum, Laplace's true epsilon (tight)")
    runs = 10_000 if quick else 100_000
    per_step_names, episodic_names = (list(d) for d in _policies())
    for kind, names in (("per-step policy", per_step_names),
                        ("global-DP policy", episodic_names)):
        if names:
            yield from _policy_audit_rows(names[0], kind, runs)


# -- scaling ----------------------------------------------------------------------------------
def _placements(run: Callable[..., object], what: str, note: str) -> Iterator[Row]:
    """``run(**placement)`` on 1 worker, 2 local workers and a local 2-process Dask cluster."""
    t1, one = timed(run)
    yield Row("scaling", f"{what}: 1 worker, seconds", t1, None, None, note)
    t2, two = timed(lambda: run(workers=2))
    yield Row("scaling", f"{what}: 2 local workers, seconds", t2, t1, t1 / t2,
              f"ratio = speed-up; report identical: {'yes' if two == one else 'NO'}")
    try:
        from distributed import LocalCluster
    except ImportError:
        yield Row("scaling", f"{what}: local Dask cluster", None, None, None,
                  "skipped: dask.distributed not installed (pip install 'dpaudit[dask]')")
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        run(scheduler=address)  # warm the workers' imports, as a long-lived cluster would be
        t3, three = timed(lambda: run(scheduler=address))
    yield Row("scaling", f"{what}: local Dask cluster (2 processes), seconds", t3, t1, t1 / t3,
              f"ratio = speed-up; report identical: {'yes' if three == one else 'NO'}")


def scaling(*, quick: bool, **_: object) -> Iterator[Row]:
    from dpaudit.sim.simulation import simulate_policy

    name, horizon, runs = "dp-ftpl-new", 10**4, 160
    if name in all_policies():
        yield from _placements(
            lambda **kw: simulate_policy(name, horizon=horizon, runs=runs, seed=1,
                                         **({"workers": 1} | kw)).numbers(),
            f"simulate {name}, T={horizon}, {runs} runs (16 chunks)",
            "every chunk is independent work")
    n = 100_000  # the size: smaller audits are shorter than a pool's start-up
    target, _ = _policy_target("adap-ucb", 100)

    def audit(**placement):
        res = audit_mechanism(target, budget=AuditBudget(samples=n), seed=2,
                              key="bench:scaling", **placement)
        ev = res.evidence
        return (ev.count_p, ev.count_q, ev.event, res.epsilon_lower_bound)

    yield from _placements(audit, f"global-DP audit of adap-ucb, T=100, {n} runs per side",
                           "only the measurement (80% of the runs) is chunked; the event "
                           "selection runs in the caller")


# -- memory -----------------------------------------------------------------------------------
def memory(*, quick: bool, **_: object) -> Iterator[Row]:
    lap = Laplace(1.0)

    def laplace_audit(n: int) -> Callable[[], object]:
        return lambda: audit_mechanism(lap, budget=AuditBudget(samples=n), seed=3,
                                       key="bench:memory")

    small, big = peak_bytes(laplace_audit(10**6)), peak_bytes(laplace_audit(10**7))
    yield Row("memory", "peak MB, Laplace audit of 10^7 samples per side", big / 2**20,
              small / 2**20, big / small,
              "reference: 10^6 per side; measurement streams, the selection sample (capped "
              "at 200000 per side) is held in memory (tracemalloc)")
    fig_horizon = 10**7
    entries = [all_policies()[n] for n in ("adap-ucb", "adap-klucb", "dp-se")
               if n in all_policies()]

    def figure_set(horizon: int) -> Callable[[], object]:
        def run() -> None:
            cps = checkpoint_grid(horizon, 200)
            for e in entries:
                e.factory().simulate(e.instance.source(), horizon, e.instance.runs or 20,
                                     rng=np.random.default_rng(8), checkpoints=cps)
        return run

    ref = peak_bytes(figure_set(10**5))
    secs, peak = timed(lambda: peak_bytes(figure_set(fig_horizon)))
    yield Row("memory", "peak MB, Azize & Basu 2022 Fig. 2 set at T=10^7 (AdaP-UCB, "
              "AdaP-KLUCB, DP-SE; 20 runs each)", peak / 2**20, ref / 2**20, peak / ref,
              f"reference: the same set at T=10^5; took {secs:.1f} s (tracemalloc)")


# -- peers ------------------------------------------------------------------------------------
PEER_SCRIPT = """
import sys, time
import numpy as np
from SMPyBandits.Policies import UCB, klUCB
means, horizon, runs = {means!r}, {horizon}, {runs}
for cls in (UCB, klUCB):
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(runs):
        pol = cls(len(means)); pol.startGame()
        for _t in range(horizon):
            arm = pol.choice(); pol.getReward(arm, float(rng.random() < means[arm]))
    print("RESULT", cls.__name__, (time.perf_counter() - start) / runs)
"""


def peers(*, quick: bool, peers_python: str | None = None, **_: object) -> Iterator[Row]:
    default = Path(__file__).resolve().parent / ".peers" / "bin" / "python"
    python = peers_python or (str(default) if default.exists() else None)
    note = ("skipped: SMPyBandits needs a separate environment (it imports scipy.special."
            "btdtri, gone since scipy 1.14); create one with `python -m venv benchmarks/.peers "
            "&& benchmarks/.peers/bin/pip install SMPyBandits 'scipy<1.14'` or pass "
            "--peers-python; it is never a dependency")
    if python is None:
        yield Row("peers", "SMPyBandits UCB, klUCB", None, None, None, note)
        return
    means = all_policies()["adap-ucb"].instance.means
    horizon, runs = (10**4, 2) if quick else (10**5, 10)
    try:
        proc = subprocess.run([python, "-c", PEER_SCRIPT.format(means=means, horizon=horizon,
                                                                runs=runs)],
                              capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        yield Row("peers", "SMPyBandits UCB, klUCB", None, None, None, f"failed: {exc}")
        return
    if proc.returncode != 0:
        yield Row("peers", "SMPyBandits UCB, klUCB", None, None, None,
                  "skipped: SMPyBandits does not import there: "
                  + proc.stderr.strip().splitlines()[-1][:120])
        return
    registry = all_policies()
    for line in proc.stdout.split("\n"):
        if not line.startswith("RESULT "):
            continue  # SMPyBandits prints banners
        _, algo, secs = line.split()
        ours = {"UCB": "ucb", "klUCB": "kl-ucb"}[algo]
        if ours in registry:
            pol = registry[ours].factory()
            mine, _ = timed(lambda pol=pol: pol.simulate(BernoulliRewards(means), horizon, runs,
                                                         rng=np.random.default_rng(9)))
            yield Row("peers", f"SMPyBandits {algo}: seconds per run, T={horizon}",
                      float(secs), mine / runs, float(secs) / (mine / runs),
                      f"reference: dpaudit {ours} ({runs} runs in lockstep)")
        else:
            yield Row("peers", f"SMPyBandits {algo}: seconds per run, T={horizon}",
                      float(secs), None, None, f"no {ours!r} registered on this branch yet")


# -- tightness (issue 22, item 4) -----------------------------------------------------------
def tightness_table(*, quick: bool, **_: object) -> Iterator[Row]:
    """Every sound check and twin at ``--quick`` (benchmarks/tightness.py): per algorithm and
    level, the sampled lower bound over the exact figure (the table's rows, from the reports'
    fields; the checks are run here, nothing is read from earlier runs)."""
    import tightness  # benchmarks/ is on sys.path (run.py)

    names = tightness.listing()
    reports = {e["name"]: tightness.run_report(e["name"]) for e in names}
    for r in tightness.table_rows(reports, names):
        yield Row("tightness", f"{r.algorithm} [{r.level}{'*' if r.inferred else ''}] "
                  "sampled lower bound / exact figure", r.sampled, r.exact, r.ratio,
                  f"eps={r.epsilon}; twins: {r.twins}; smallest twin multiple VIOLATED: "
                  f"{r.twin_multiple}")


SECTIONS = {"per-step": per_step, "episodic": episodic, "audits": audits,
            "scaling": scaling, "memory": memory, "peers": peers,
            "tightness": tightness_table}
