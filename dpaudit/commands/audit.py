"""``python -m dpaudit audit TARGET [--samples N] [--alpha A] [--seed S] [--scheduler ADDR]
[--seconds S] [--json PATH]``.

``TARGET`` is a registered name whose audit declares a ``mechanism`` (``audit --list``; the
same mechanism ``check NAME`` is about, built for ``--epsilon``/``--delta``), or
``MODULE:OBJECT``: any object with a vectorised ``sample(data, size, rng)``, ``epsilon``,
``delta`` and ``neighbours``; a class or a zero-argument factory returning one; or an
``AuditSpec`` with a ``mechanism``. The report has the shape of ``check``'s; exit 1 when the
claim is VIOLATED.

Every run saves the measurement's finished chunks (:mod:`dpaudit.runtime.state`; ``--state-dir``,
default ``.dpaudit-state/``); after an interruption the same command with ``--resume``
continues from them and prints the report an uninterrupted run prints (only ``seconds``
differs). A completed run deletes its state.
"""

from __future__ import annotations

import argparse
import inspect
import time
from dataclasses import replace
from functools import partial
from typing import Any

from dpaudit.commands.common import (
    add_report_outputs,
    add_scheduler,
    add_state_options,
    check_state_options,
    emit_reports,
    float_arg,
    gated,
    int_arg,
    resume_can_help,
    scheduler_scope,
)
from dpaudit.commands.deadline import (
    add_seconds,
    deadline_claim,
    deadline_line,
    deadline_report,
    run_bounded,
)
from dpaudit.engine import AuditSpec
from dpaudit.errors import UsageError, UserCodeError
from dpaudit.registry import UnknownNameError, all_audits, import_user_module, suggest
from dpaudit.reports.text import format_text
from dpaudit.runtime import limits
from dpaudit.runtime.parallel import default_workers
from dpaudit.runtime.state import after_failure, chunk_scope, object_code_files, open_run_state
from dpaudit.stats.blackbox import (
    AuditBudget,
    audit_mechanism,
    candidate_pairs,
    mechanism_notion,
    pair_text,
    same_input,
    to_claim_result,
)
from dpaudit.stats.results import CheckReport, Notion
from dpaudit.stats.rng import DEFAULT_SEED
from dpaudit.stats.sampled import TAIL_DRAWS
from dpaudit.usercode.graybox import GrayBoxResult, Steer
from dpaudit.usercode.graybox_targets import STAGE_SECONDS, graybox_mechanism
from dpaudit.usercode.ldp_audit import exact_claim
from dpaudit.validation import check_epsilon_delta


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="black-box epsilon lower bound for a registered mechanism "
                                     "or MODULE:OBJECT")
    p.add_argument("target", nargs="?", default=None,
                   help="a registered name with a mechanism (see --list) or MODULE:OBJECT")
    p.add_argument("--list", action="store_true", help="list the registered mechanisms")
    p.add_argument("--epsilon", type=float_arg, default=None,
                   help="claimed epsilon (default: the object's, or the audit's)")
    p.add_argument("--delta", type=float_arg, default=None,
                   help="claimed delta (default: the object's, or the audit's)")
    p.add_argument("--samples", type=int_arg, default=None,
                   help="samples per input, selection + measurement (default 1e6; with "
                        "delta > 0, sized by the claim: 1000/delta up to 1e8, the selection "
                        "streamed into histograms; a given N is used as it is)")
    p.add_argument("--selection-fraction", type=float_arg, default=AuditBudget.selection_fraction,
                   help="share of the samples that chooses the event (default 0.2)")
    p.add_argument("--alpha", type=float_arg, default=0.05,
                   help="the bound holds with probability >= 1 - alpha (default 0.05)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED,
                   help="root seed of every random draw: the same seed gives the same report")
    add_scheduler(p)
    add_report_outputs(p)
    add_seconds(p, "the sampled audit's draws")
    p.add_argument("--no-graybox", action="store_true",
                   help="MODULE:OBJECT only: skip the gray-box stage (the mechanism run on its "
                        "neighbouring pairs with the same randomness, its noise draws recorded "
                        "and, where the output is Laplace or Gaussian noise on a statistic, its "
                        "exact loss; docs/auditor.md)")
    add_state_options(p, where="$DPAUDIT_STATE_DIR, else .dpaudit-state/ in the current folder")


def open_state(args: argparse.Namespace, mech: Any, eps: float | None, dlt: float | None):
    """The state of this run (``None`` under ``--no-state``), keyed by the target, the claimed
    epsilon and delta (the object's when not given), the samples, the selection fraction,
    alpha, the seed, dpaudit's code and the file defining a user's mechanism."""
    fields = {"epsilon": float(getattr(mech, "epsilon", 0.0) if eps is None else eps),
              "delta": float(getattr(mech, "delta", 0.0) if dlt is None else dlt),
              "samples": args.samples, "selection_fraction": float(args.selection_fraction),
              "alpha": float(args.alpha), "seed": args.seed}
    return open_run_state("audit", args.target, fields, object_code_files(mech),
                          resume=args.resume, no_state=args.no_state, state_dir=args.state_dir)


def audit_estimate(args: argparse.Namespace, budget: AuditBudget) -> limits.Estimate:
    """The sampled audit's memory (the selection sample of both sides, capped at
    ``AuditBudget.max_select``, and one measurement block per worker) and time (both sides'
    draws at :data:`~dpaudit.runtime.limits.FAST_SAMPLES_PER_SECOND` per worker), from the
    arguments alone; what does not fit is refused (exit 2)."""
    workers = default_workers()
    held = 2 * 2 * 8 * budget.n_select + workers * (64 << 20)
    rate = limits.FAST_SAMPLES_PER_SECOND * workers
    # the budget's draws (a claim with delta > 0 may draw more, streamed: time, not memory;
    # the estimate is a lower bound either way)
    n = budget.samples
    est = limits.Estimate(f"audit {args.target} with {n} samples per side", held,
                          2 * n / rate,
                          f"{2 * n:.3g} draws at {rate:.3g} per second, faster "
                          "than any mechanism here samples")
    return limits.check_estimate(est, seconds=args.seconds, advice="lower --samples")


def mechanisms() -> dict[str, AuditSpec]:
    """Registered audits that name the mechanism a black-box audit attacks."""
    return {n: s for n, s in all_audits().items() if s.mechanism is not None}


def _call_user(obj: Any, what: str) -> Any:
    """Call a class or zero-argument factory; a signature that needs arguments is a usage error."""
    try:
        inspect.signature(obj).bind()
    except TypeError:
        raise UsageError(f"{what} needs arguments; give an object, a class or a factory "
                         "callable with none") from None
    except ValueError:  # no signature available (some builtins): just try
        pass
    try:
        return obj()
    except Exception as exc:
        raise UserCodeError(f"calling {what}() raised") from exc


def _load_object(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UsageError(f"target {target!r} must be MODULE:OBJECT (e.g. my_pkg.mech:MECH)")
    module = import_user_module(module_name)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "sample")
                                 and not isinstance(obj, AuditSpec)):
        obj = _call_user(obj, target)
    return obj


def _from_spec(spec: AuditSpec, args: argparse.Namespace) -> tuple[Any, float, float]:
    if spec.mechanism is None:
        names = ", ".join(mechanisms())
        raise UsageError(f"{spec.name!r} declares no mechanism for a black-box audit (use "
                         f"`python -m dpaudit check {spec.name}`; mechanisms: {names})")
    eps = spec.default_epsilon if args.epsilon is None else args.epsilon
    dlt = spec.default_delta if args.delta is None else args.delta
    eps, dlt = check_epsilon_delta(eps, dlt, allow_zero_epsilon=spec.allow_zero_epsilon,
                                   finite_exp=True)
    return spec.mechanism(eps, dlt), eps, dlt


def _resolve(args: argparse.Namespace
             ) -> tuple[Any, str, str, float | None, float | None, Notion]:
    """``(mechanism, description, paper, epsilon override, delta override, notion)``; the
    notion is the registered audit's, or global (central DP) for a user's object; the object's
    own ``notion`` overrides it (:func:`~dpaudit.stats.blackbox.mechanism_notion`)."""
    table = all_audits()
    if args.target in table:
        spec = table[args.target]
        mech, eps, dlt = _from_spec(spec, args)
        return mech, spec.description, spec.paper, eps, dlt, _spec_notion(spec)
    if ":" not in args.target:
        raise UnknownNameError(args.target, suggest(args.target, list(mechanisms())),
                               what="audit target", listing="python -m dpaudit audit --list",
                               note="a registered mechanism or MODULE:OBJECT; ")
    obj = _load_object(args.target)
    if isinstance(obj, AuditSpec):
        mech, eps, dlt = _from_spec(obj, args)
        return mech, obj.description, obj.paper, eps, dlt, _spec_notion(obj)
    doc = (type(obj).__doc__ or "").strip().splitlines()
    return obj, doc[0] if doc else type(obj).__name__, USER_PAPER, args.epsilon, \
        args.delta, Notion.GLOBAL


#: the ``paper`` of a user's mechanism (``MODULE:OBJECT`` that is not an ``AuditSpec``)
USER_PAPER = "user mechanism"

#: neighbouring pairs the gray-box stage replays from a mechanism's search domain
GRAYBOX_SEARCH = 8


def _graybox(args: argparse.Namespace, mech: Any, eps: float | None, dlt: float | None
             ) -> GrayBoxResult | None:
    """The gray-box stage on a user's mechanism (:mod:`dpaudit.usercode.graybox_targets`):
    its declared pairs and a few of its search domain's, replayed with the same randomness,
    at most a quarter of ``--seconds`` (or :data:`STAGE_SECONDS`)."""
    for attr in ("sample", "epsilon", "delta"):
        if not hasattr(mech, attr):
            return None  # the sampled audit says what is missing
    e = float(mech.epsilon if eps is None else eps)
    d = float(mech.delta if dlt is None else dlt)
    pairs = candidate_pairs(mech, AuditBudget(search_budget=GRAYBOX_SEARCH), args.seed,
                            f"audit:{args.target}:graybox")
    stage = STAGE_SECONDS if args.seconds is None else min(STAGE_SECONDS, 0.25 * args.seconds)
    return graybox_mechanism(mech, pairs, epsilon=e, delta=d, seconds=stage,
                             describe=pair_text)


def _stage_then_sample(args: argparse.Namespace, mech: Any, eps: float | None,
                       dlt: float | None, budget: AuditBudget, graybox: bool
                       ) -> tuple[GrayBoxResult | None, Any]:
    """The gray-box stage (``graybox``), then the sampled audit unless the stage read the
    output's law exactly: one piece of work, so that ``--seconds`` bounds both (code that
    never returns is killed in the stage as in the sampling)."""
    gb = _graybox(args, mech, eps, dlt) if graybox else None
    if gb is not None and gb.exact is not None:
        return gb, None
    neighbours = None if gb is None or gb.steer is None else _steered(mech, gb.steer)
    return gb, audit_mechanism(mech, epsilon=eps, delta=dlt, alpha=args.alpha, budget=budget,
                               seed=args.seed, key=f"audit:{args.target}",
                               neighbours=neighbours)


def _steered(mech: Any, steer: Steer) -> list[tuple[Any, Any]]:
    """The mechanism's declared pairs with the stage's pair first (the sampled audit ranks
    them on fresh draws, so the order only saves it a search)."""
    declared = list(getattr(mech, "neighbours", ()) or ())
    first = [tuple(p) for p in steer.pairs]
    rest = [p for p in declared if not any(same_input(p[0], q[0]) and same_input(p[1], q[1])
                                           for q in first)]
    return [*first, *rest]


def _spec_notion(spec: AuditSpec) -> Notion:
    """The notion a registered audit's claims are about (its mechanism is the same one), so
    ``audit laplace`` is labelled like ``check laplace``."""
    notions = [c.notion for c in spec.claims]
    return max(notions, key=notions.count) if notions else Notion.GLOBAL


def run(args: argparse.Namespace) -> int:
    if args.list:
        table = mechanisms()
        width = max((len(n) for n in table), default=0)
        for spec in table.values():
            print(f"{spec.name:<{width}}  eps={spec.default_epsilon:g} "
                  f"delta={spec.default_delta:g}  {spec.description}")
        return 0
    if args.target is None:
        raise UsageError("audit needs a TARGET (a registered mechanism, see --list; or "
                         "MODULE:OBJECT)")
    check_state_options(args)
    budget = AuditBudget(samples=AuditBudget.samples if args.samples is None else args.samples,
                         selection_fraction=args.selection_fraction,
                         tail_draws=TAIL_DRAWS if args.samples is None else None)
    audit_estimate(args, budget)  # exit 2 with the estimate, before the target is built
    start = time.perf_counter()
    stopped: limits.DeadlineReached | None = None
    with scheduler_scope(args.scheduler), \
            limits.deadline_scope(args.seconds) as deadline:  # bad address/seconds: exit 2
        mech, description, paper, eps, dlt, default_notion = _resolve(args)
        notion = mechanism_notion(mech, default_notion)
        # the claim the stage decides (an object that breaks the protocol has no stage)
        eps_c = float(getattr(mech, "epsilon", 0.0) if eps is None else eps)
        dlt_c = float(getattr(mech, "delta", 0.0) if dlt is None else dlt)
        state = open_state(args, mech, eps, dlt)
        gb = exact = None
        try:
            with chunk_scope(state, piece="audit"):
                gb, result = run_bounded(partial(
                    _stage_then_sample, args, mech, eps, dlt, budget,
                    paper == USER_PAPER and not args.no_graybox), deadline)
                exact = None if gb is None else gb.exact
        except limits.DeadlineReached as exc:
            stopped = exc
        except BaseException as exc:
            after_failure(state, resume_can_help(exc))
            raise
    label = type(mech).__name__
    if stopped is None and exact is not None and gb is not None:
        claim = exact_claim(exact, id="dp-claim", notion=notion, reference=paper,
                            statement=f"{label} is ({eps_c:g}, {dlt_c:g})-DP on its "
                                      "neighbouring inputs (gray-box: the output's law read "
                                      "exactly)", epsilon=eps_c, delta=dlt_c)
        claim = replace(claim, details=claim.details + gb.details(),
                        data={**claim.data, "graybox": gb.summary()})
        eps, dlt = eps_c, dlt_c
    elif stopped is None and result is not None:
        claim = to_claim_result(
            result, id="dp-claim", notion=notion, reference=paper,
            statement=f"{label} is ({result.epsilon:g}, {result.delta:g})-DP on its "
                      "neighbouring inputs (black-box sampling audit)")
        if gb is not None:
            claim = replace(claim, details=claim.details + gb.details(),
                            data={**claim.data, "graybox": gb.summary(
                                steered=gb.steer is not None)})
        eps, dlt = result.epsilon, result.delta
    else:
        assert stopped is not None  # no result and no exact law: the deadline stopped it
        eps = float(mech.epsilon if eps is None else eps)
        dlt = float(mech.delta if dlt is None else dlt)
        claim = deadline_claim(stopped, notion=notion, epsilon=eps, delta=dlt, alpha=args.alpha,
                               reference=paper,
                               statement=f"{label} is ({eps:g}, {dlt:g})-DP on its "
                                         "neighbouring inputs (black-box sampling audit)")
    seconds = time.perf_counter() - start
    claim = replace(claim, seconds=seconds, observes=_OBSERVES[notion])
    report = CheckReport(
        name=args.target, description=description, paper=paper,
        parameters={"epsilon": eps, "delta": dlt, "alpha": args.alpha,
                    "samples": budget.for_delta(float(dlt)).samples,
                    "selection_fraction": args.selection_fraction,
                    "seed": args.seed, **({} if args.seconds is None
                                          else {"seconds": args.seconds})},
        claims=(claim,), findings=() if gb is None else tuple(
            f.as_finding(notion) for f in gb.findings), seconds=seconds)
    report = deadline_report(report, args.seconds)
    if stopped is not None and stopped.where == "hard kill" and report.deadline is not None:
        report = replace(report, deadline={**report.deadline, "hard_kill": True,
                                           "killed_after_seconds": round(stopped.elapsed, 3)})
    report = gated(report, args)
    text = format_text(report).replace("dpaudit check", "dpaudit audit", 1)
    emit_reports(args, report, command="audit",
                 text=text if report.deadline is None else f"{text}\n{deadline_line(report)}")
    if state is not None and not (report.deadline or {}).get("hit"):
        state.discard()  # a run cut by its deadline keeps its chunks for --resume
    return report.exit_code


#: what an audited mechanism's output is, by the notion it is audited under
_OBSERVES = {Notion.LDP: "reports", Notion.PER_STEP: "next action", Notion.GLOBAL: "releases"}
