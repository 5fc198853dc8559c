"""``python -m dpaudit audit-policy MODULE:FACTORY --arms K --horizon T --epsilon E [...]``.

Audits bandit code that dpaudit did not write (a class with ``select``/``update`` or ``step``,
or a whole-run function; see :mod:`dpaudit.usercode.adapters`) against an ``(epsilon,
delta)`` claim: global DP on reward tables (Azize & Basu 2022, Definition 2) or an instance
with a revision rule (Wang & Zhu 2023, Definition 3), or per-step DP. The neighbouring inputs
are searched automatically (:mod:`dpaudit.usercode.neighbour_search`). The report, JSON and
exit codes are those of ``audit``: 0 not violated, 1 VIOLATED, 2 usage error, 3 an exception
inside the user's code.

Every run saves its finished chunks of runs (the measurement's event counts, and the blocks of
runs sampled outside it; :mod:`dpaudit.runtime.state`, ``--state-dir``, default
``.dpaudit-state/``), in the process that runs the audit: under ``--seconds`` that is the
forked child, so a deadline or Ctrl-C keeps what it finished. The same command with
``--resume`` computes only what was not saved; its report is the uninterrupted run's except
the wall-clock fields and the work counters of this invocation (``runs``, ``runs_per_second``
and the details line that states them). A run stopped by its deadline keeps its state.

Time. Before the user's module is imported only the arguments are known: memory is checked
then (:func:`check_policy_audit`). After the import a short pilot times the code
(:func:`dpaudit.usercode.pilot.measure_speed`) and :func:`check_policy_time` refuses, with the
estimate at the measured speed, an audit that does not fit ``--seconds`` (its neighbour search
and the smallest sample) or, without it, the default ceiling (``$DPAUDIT_TIME_LIMIT``).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

from dpaudit.commands.common import (
    add_report_outputs,
    add_state_options,
    check_state_options,
    emit_reports,
    float_arg,
    gated,
    int_arg,
    resume_can_help,
)
from dpaudit.commands.deadline import deadline_line, deadline_report
from dpaudit.errors import UsageError, UserCodeError
from dpaudit.registry import import_user_module
from dpaudit.reports.text import format_text
from dpaudit.runtime import limits, stage
from dpaudit.runtime.state import after_failure, chunk_scope, object_code_files, open_run_state
from dpaudit.stats.blackbox import to_claim_result
from dpaudit.stats.results import CheckReport, ClaimResult, Method, Notion, Verdict
from dpaudit.stats.rng import DEFAULT_SEED
from dpaudit.stats.sampled import AuditBudget
from dpaudit.usercode.adapters import INTERFACES, adapt, describe_user_error
from dpaudit.usercode.conventions import load_contexts, parse_settings
from dpaudit.usercode.ldp_audit import exact_claim
from dpaudit.usercode.pilot import (
    PLAN_RESERVE,
    PLAN_SHARE,
    RunSpeed,
    effective_workers,
    measure_speed,
    sampling_runs,
    search_runs,
)
from dpaudit.usercode.policy_audit import PolicyAudit, audit_policy
from dpaudit.validation import InvalidParameterError, check_int

EXIT_USER_CODE = 3

REFERENCES = {
    ("global", "table"): "Azize & Basu 2022, Definition 2 (reward tables differing in one step)",
    ("global", "instance"): "Wang & Zhu 2023, Definition 3 (an instance and the same instance "
                            "with one step's reward revised)",
    ("per-step", "table"): "Mishra & Thakurta 2015; Wang & Zhu 2023, Definition 1 (next action "
                           "on histories differing in one observation)",
    ("ldp", "table"): "Zheng et al. 2020 (local DP: the report a user releases, for any two "
                      "rewards in [0, 1])",
}


def finish_claim(claim: ClaimResult, audit: PolicyAudit) -> ClaimResult:
    """The claim with the search's findings: INCONCLUSIVE, without a power statement, when no
    candidate pair moved any action (a valid VIOLATED bound stands); otherwise the power
    statement is said to cover the audited pair only."""
    details = claim.details + audit.details()
    if audit.inconclusive_reason is not None and claim.verdict is not Verdict.VIOLATED:
        return dataclasses.replace(
            claim, verdict=Verdict.INCONCLUSIVE, detectable_epsilon=None,
            details=tuple(x for x in details if not x.startswith("a true epsilon above")),
            data={**claim.data, "detectable_at_power": None,
                  "inconclusive_reason": audit.inconclusive_reason})
    if claim.verdict is Verdict.CONSISTENT and audit.result is not None:
        details += (f"the power statement covers the audited pair only "
                    f"({audit.result.data_prime!r}), not every neighbouring input",)
    return dataclasses.replace(claim, details=details)


def whole_witness(details: tuple[str, ...], witness: str) -> tuple[str, ...]:
    """``details`` with the neighbours line carrying the whole pair: the sampled audit's line
    shortens long descriptions to 80 characters ("... with step ..."), and the step and value
    that moved the actions are what a reader needs to reproduce the witness."""
    out = []
    for d in details:
        if d.startswith("neighbours: D = ") and "..." in d and " (best of " in d:
            d = f"neighbours: {witness}{d[d.rfind(' (best of '):]}"
        out.append(d)
    return tuple(out)


def parse_means(text: str | None, n_arms: int) -> Sequence[float] | None:
    """``"0.9,0.6"`` -> ``[0.9, 0.6]`` (``None`` stays ``None``)."""
    if text is None:
        return None
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InvalidParameterError(f"means={text!r} must be comma-separated numbers") from None
    if len(values) != n_arms:
        raise InvalidParameterError(f"means={text!r} must have {n_arms} entries (--arms)")
    return values


#: samples per side when ``--samples`` is not given (and the claim does not size them)
DEFAULT_SAMPLES = 20_000


DESCRIPTION = """\
Audit bandit code dpaudit did not write, as it is: a fresh instance per run, neighbouring
reward inputs, seeded runs, an automatic neighbour search, and one verdict with the exit
codes of `audit` (0 not violated, 1 VIOLATED, 2 usage error, 3 an exception in the code).

Shapes (found from method names and signatures; --interface forces one):
  select-update  a class with select()/update(arm, reward); also get_arm(t)/update(t, arm,
                 reward), choose/observe, ...; other names: --methods pick,learn
  step           a class with step(last_reward, last_arm)
  object-run     a constructor taking env (its pull(arm) serves the rewards) with run()
  run            a function fn(rewards, horizon) playing a whole run (--feed table|reward-fn|
                 env), or run(means, horizon, ...) drawing its rewards through a module
                 function: --reward-fn MODULE:pull
  --notion ldp   a class with a report(reward) hook (--ldp-hook NAME) or a sink
The factory gets n_arms, horizon, epsilon, delta by name (and --set KEY=VALUE settings).
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit-policy", help="audit third-party bandit code (MODULE:FACTORY) "
                                            "with an automatic neighbour search",
                       description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(command="audit_policy")  # the module name, for the CLI's import
    p.add_argument("target", help="MODULE:FACTORY: a class or function building one policy "
                                  "per run, or a whole-run function (--interface run)")
    p.add_argument("--arms", type=int_arg, required=True, help="number of arms K")
    p.add_argument("--horizon", type=int_arg, required=True, help="steps per run T")
    p.add_argument("--epsilon", type=float_arg, required=True, help="claimed epsilon")
    p.add_argument("--delta", type=float_arg, default=0.0, help="claimed delta (default 0)")
    p.add_argument("--notion", choices=("global", "per-step", "ldp"), default="global",
                   help="global DP of the action sequence (default), per-step DP of the next "
                        "action, or local DP of the reports a user's device releases")
    p.add_argument("--ldp-hook", default=None,
                   help="--notion ldp: the method returning a user's report (default: found "
                        "among privatize, report, randomize, perturb, ...)")
    p.add_argument("--ldp-sink", default=None,
                   help="--notion ldp: the method the policy passes its reports to, wrapped "
                        "to read them (e.g. aggregate or server.receive; default: none, the "
                        "reports are read from --ldp-hook)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a constructor setting (repeatable; values read as TOML: 3.1, true, "
                        "'text'; default: none)")
    p.add_argument("--config", default=None, metavar="FILE.toml",
                   help="constructor settings from a TOML file's top level (--set wins; "
                        "default: none)")
    p.add_argument("--contexts", default=None, metavar="FILE|gaussian:D",
                   help="context stream for a policy whose methods take a context (.npy, "
                        "CSV or text, one row per step; gaussian:D generates one from --seed; "
                        "default: none, the methods take no context)")
    p.add_argument("--time-base", type=int_arg, default=None, choices=(0, 1),
                   help="first time index passed to get_arm(t)/update(t, ...) (default: "
                        "detected: 0, or 1 when a short run from 0 fails and one from 1 runs)")
    p.add_argument("--rewards", choices=("table", "instance"), default="table",
                   help="global DP on fixed reward tables (default) or on a Bernoulli "
                        "instance with a revision rule (--means)")
    p.add_argument("--means", default=None, help="instance means, comma-separated "
                                                 "(--rewards instance; default all 0.5)")
    p.add_argument("--interface", choices=INTERFACES, default="auto",
                   help="the shape of the code (default auto: found from its names and "
                        "signatures): select-update (select()/update(arm, reward) and their "
                        "aliases), step (step(last_reward, last_arm)), run (a whole-run "
                        "function fn(rewards, horizon)), object-run (a constructor taking env "
                        "and a run() method)")
    p.add_argument("--methods", default=None,
                   help="method names, comma-separated: 'select,update' or 'step' "
                        "(default: found from the code's names and signatures)")
    p.add_argument("--feed", choices=("table", "reward-fn", "env"), default="table",
                   help="what a whole-run function receives (default: the (T, K) table; env: "
                        "an environment whose pull(arm) serves the rewards, for code that "
                        "draws its own)")
    p.add_argument("--reward-fn", default=None, metavar="MODULE:NAME",
                   help="the module-level function a whole-run function draws its rewards "
                        "through (e.g. mycode:pull_arm; numba-compiled too): replaced in each "
                        "run by one serving the audited rewards; the actions are the arms "
                        "it is asked for; default: none)")
    p.add_argument("--history-method", default=None,
                   help="per-step DP: a method (arms, rewards) that sets the history "
                        "(default: none, the history is replayed through the update method)")
    p.add_argument("--samples", type=int_arg, default=None,
                   help="samples per side for the audited pair (default 20000; --notion ldp "
                        "with delta > 0: sized by the claim, 1000/delta up to 1e8, cut to "
                        "what fits --seconds or 60 s; a given N is used as it is)")
    p.add_argument("--selection-fraction", type=float_arg, default=0.2,
                   help="share of the samples that chooses the event (default 0.2)")
    p.add_argument("--search-budget", type=int_arg, default=16,
                   help="candidate neighbour pairs from the automatic search (default 16)")
    p.add_argument("--workers", type=int_arg, default=1,
                   help="worker processes: the report does not depend on their number")
    p.add_argument("--seconds", metavar="S", type=float_arg, default=None,
                   help="deadline in wall-clock seconds from the command's start (a finite "
                        "number above 0): an audit whose neighbour search and smallest sample "
                        "do not fit it at the code's measured speed is refused (exit 2); "
                        "otherwise sample sizes are cut, after the search and before "
                        "sampling, to fit it with a margin, and an audit still running when "
                        "it passes is stopped (INCONCLUSIVE, naming the stage; its finished "
                        "chunks kept for --resume; default: no deadline)")
    p.add_argument("--memory", type=str, default=None, metavar="SIZE",
                   help="memory budget such as 512M or 4G (default: half the machine's); an "
                        "audit that would need more is refused before it starts (exit 2)")
    p.add_argument("--alpha", type=float_arg, default=0.05,
                   help="the bound holds with probability >= 1 - alpha (default 0.05)")
    p.add_argument("--seed", type=int_arg, default=DEFAULT_SEED,
                   help="root seed of every random draw: the same seed gives the same report")
    p.add_argument("--no-graybox", action="store_true",
                   help="skip the gray-box stage (record and replay of the code's noise draws "
                        "on neighbouring inputs, before any sampling; docs/audit-policy.md)")
    add_report_outputs(p, checked="before any work",
                       html_help="write one self-contained HTML report")
    add_state_options(p, where="$DPAUDIT_STATE_DIR, else .dpaudit-state/ in the current folder")


#: options that do not change the report's numbers (outputs, placement, memory refusal)
_NOT_IN_KEY = frozenset({"command", "target", "json", "junit", "html", "workers", "memory",
                         "fail_on_inconclusive",
                         "resume", "state_dir", "no_state", "debug", "func"})


def open_state(args: argparse.Namespace, factory: Any):
    """The state of this run (``None`` under ``--no-state``), keyed by every option that
    changes results (all but the outputs, ``--workers`` and ``--memory``; ``--seconds`` is
    in: it sizes the samples), dpaudit's code, the module defining ``factory`` and the
    ``--config`` and ``--contexts`` files."""
    from pathlib import Path


    fields = {k: v for k, v in sorted(vars(args).items())
              if k not in _NOT_IN_KEY and not k.startswith("_")}  # _: the parser's own notes
    files = object_code_files(factory)
    for option in (args.config, args.contexts):
        if option is not None and Path(option).is_file():
            files.append(Path(option).resolve())
    return open_run_state("audit-policy", args.target, fields, files, resume=args.resume,
                          no_state=args.no_state, state_dir=args.state_dir)


def _load(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UsageError(f"target {target!r} must be MODULE:FACTORY (e.g. my_pkg.ucb:MyUCB)")
    obj: Any = import_user_module(module_name)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except UserCodeError as exc:  # exit 3, one line; raised in a worker it has lost its
        # __cause__, so the message itself names the exception and the user's file and line
        print(f"dpaudit: error in user code: {describe_user_error(exc)}", file=sys.stderr)
        if getattr(args, "debug", False) and exc.__cause__ is not None:
            traceback.print_exception(exc.__cause__, file=sys.stderr)
        return EXIT_USER_CODE


def _run(args: argparse.Namespace) -> int:
    check_state_options(args)
    start = time.perf_counter()
    # the reported parameter stays the number requested; the claim sizes it when not given
    # (claim_sized is in the resume key: an explicit 20000 is another audit)
    args.claim_sized = args.samples is None and args.notion == "ldp" and args.delta > 0
    if args.samples is None:
        args.samples = DEFAULT_SAMPLES
    check_policy_audit(args)  # exit 2 with the estimate, before the module is imported
    factory = _load(args.target)
    state = open_state(args, factory)
    try:
        code, stopped = _run_state(args, factory, state, start)
    except BaseException as exc:
        after_failure(state, resume_can_help(exc))
        raise
    if stopped:
        after_failure(state, True)  # what the deadline cut short stays for --resume
    elif state is not None:
        state.discard()
    return code


def _run_state(args: argparse.Namespace, factory: Any, state: Any, start: float
               ) -> tuple[int, bool]:
    """``(exit code, whether the deadline stopped the audit)``."""
    methods = None if args.methods is None else tuple(
        m.strip() for m in args.methods.split(",") if m.strip())
    settings = parse_settings(args.set, args.config)
    code = adapt(factory, n_arms=args.arms, horizon=args.horizon, epsilon=args.epsilon,
                 delta=args.delta, interface=args.interface, methods=methods, feed=args.feed,
                 factory_kwargs=settings, time_base=args.time_base,
                 reward_fn=args.reward_fn, release_only=args.notion == "ldp")
    means = parse_means(args.means, args.arms)
    try:
        spent = max(time.perf_counter() - start, limits.command_elapsed())  # since the start
        left = None if args.seconds is None else args.seconds - spent
        with stage.shared() as where:  # the stage the forked audit is in, for the report
            audit = limits.run_with_deadline(lambda: _audit(args, code, means, state), left,
                                             total=args.seconds)
    except limits.DeadlineReached as exc:
        exc = limits.DeadlineReached(exc.seconds, exc.elapsed, exc.where or where())
        return _emit(args, code, policy_deadline_claim(args, code.name, exc), start), True
    # a sampled audit that did not fit what the search left keeps the search for --resume
    return _emit(args, code, audit, start), getattr(audit, "not_started", None) == "time"


def _audit(args: argparse.Namespace, code: Any, means: Any, state: Any = None) -> Any:
    with chunk_scope(state, piece="audit-policy"):  # in the forked child under --seconds
        speed = _speed(args, code)
        return _audit_policy(args, code, means, speed)


def _speed(args: argparse.Namespace, code: Any) -> RunSpeed | None:
    """The measured speed of a global-DP audit's runs (``None`` for per-step and local DP,
    whose samples do not play whole runs), refused with the estimate when the audit does not
    fit (:func:`check_policy_time`)."""
    if args.notion != "global" or code.interface == "report":
        return None
    stage.set_stage("timing the code (the speed pilot)")
    contexts = None if args.contexts is None else load_contexts(args.contexts, args.horizon,
                                                                seed=args.seed)
    speed = measure_speed(code, contexts=contexts, seed=args.seed)
    check_policy_time(args, speed)
    return speed


def check_policy_time(args: Any, speed: RunSpeed) -> None:
    """Refuse (exit 2, with the estimate and what would fit) a global-DP audit that does not
    fit at the code's measured speed: under ``--seconds``, its neighbour search and the
    smallest sample (200 per side) with the planning margin; without it, the whole audit
    within the default ceiling (:func:`~dpaudit.runtime.limits.time_limit`)."""
    t, k, b = args.horizon, args.arms, args.search_budget
    w = effective_workers(args.workers)
    per_run = speed.run_seconds(t) / w
    search = search_runs(k, b, contexts=args.contexts is not None, rewards=args.rewards) + 2
    pairs = 1 + b
    what = (f"audit-policy at T={t}, K={k}: the code runs {speed.text(t)}"
            + (f", on {w} workers" if w > 1 else ""))
    fmt = limits.format_seconds
    if args.seconds is not None:
        left = args.seconds - limits.command_elapsed()
        smallest = sampling_runs(200, pairs)
        need = search * per_run + (smallest * per_run + PLAN_RESERVE) / PLAN_SHARE
        if need > left:
            raise InvalidParameterError(
                f"{what}; its neighbour search ({search} runs) takes about "
                f"{fmt(search * per_run)} and the smallest sample (200 per side, {smallest} "
                f"runs) about {fmt(smallest * per_run)}: more than the {fmt(max(left, 0.0))} "
                f"left of --seconds {args.seconds:g} (planned with a margin); refused before "
                f"the audit; give --seconds {math.ceil(1.3 * need + limits.command_elapsed())}"
                " or more, or lower --horizon or --search-budget")
        return
    limit = limits.time_limit()
    total = search + sampling_runs(args.samples, pairs)
    need = total * per_run
    if need <= limit:
        return
    fits = args.samples
    while fits > 200 and (search + sampling_runs(fits, pairs)) * per_run > limit:
        fits = max(200, int(fits * 0.8))
    lower = (f"--samples {fits} fits it" if (search + sampling_runs(fits, pairs)) * per_run
             <= limit else "even --samples 200 does not fit it")
    raise InvalidParameterError(
        f"{what}; the audit ({total} runs: the neighbour search's {search} and "
        f"{args.samples} samples per side) would take about {fmt(need)}: longer than the "
        f"{fmt(limit)} a command without --seconds may take (${limits.TIME_LIMIT_ENV}); "
        f"refused before the audit; {lower}, or give --seconds S (the samples are then cut to "
        "what fits it), or lower --horizon or --search-budget")


def _audit_policy(args: argparse.Namespace, code: Any, means: Any,
                  speed: RunSpeed | None = None) -> Any:
    return audit_policy(code, epsilon=args.epsilon, delta=args.delta, notion=args.notion,
                         rewards=args.rewards, means=means, samples=args.samples,
                         alpha=args.alpha, seed=args.seed, workers=args.workers,
                         seconds=None if args.seconds is None else max(
                             args.seconds - limits.command_elapsed(), 1e-3),
                         search_budget=args.search_budget,
                         history_method=args.history_method,
                         selection_fraction=args.selection_fraction,
                         ldp_hook=args.ldp_hook, ldp_sink=args.ldp_sink,
                         contexts=None if args.contexts is None else load_contexts(
                             args.contexts, args.horizon, seed=args.seed),
                         progress=False if args.json == "-" else None,
                         claim_sized=getattr(args, "claim_sized", False),
                         graybox=not getattr(args, "no_graybox", False), speed=speed)


def _emit(args: argparse.Namespace, code: Any, audit: Any, start: float) -> int:
    if isinstance(audit, ClaimResult):  # the deadline passed: no evidence, INCONCLUSIVE
        return _report(args, code, audit, start, samples_used=0)
    gb = getattr(audit, "graybox", None)
    notion = {"global": Notion.GLOBAL, "per-step": Notion.PER_STEP, "ldp": Notion.LDP}[
        args.notion]
    if getattr(audit, "not_started", None) is not None:  # stopped after the search
        return _report(args, code, not_sampled_claim(args, code, audit, start), start,
                       samples_used=0, findings=() if gb is None else tuple(
                           f.as_finding(notion) for f in gb.findings))
    ref = REFERENCES[(args.notion, "table" if args.notion != "global" else args.rewards)]
    what = {"global": "action sequence", "per-step": "next action", "ldp": "report"}[
        args.notion]
    statement = (f"{code.name} ({code.interface}) is ({args.epsilon:g}, {args.delta:g})-DP: "
                 f"its {what} on neighbouring inputs (K={args.arms}, T={args.horizon})")
    if audit.exact is not None:
        claim = exact_claim(audit.exact, id=f"{args.notion}-dp", notion=notion,
                            reference=ref, statement=statement, epsilon=args.epsilon,
                            delta=args.delta)
        claim = dataclasses.replace(claim, details=claim.details + audit.details(),
                                    seconds=time.perf_counter() - start,
                                    data={**claim.data, **graybox_data(gb)})
    else:
        if audit.result is None:  # audit_policy gives an exact law or a sampled result
            raise RuntimeError("the policy audit returned neither an exact nor a sampled result")
        claim = finish_claim(to_claim_result(audit.result, id=f"{args.notion}-dp",
                                             notion=notion, reference=ref,
                                             statement=statement), audit)
        witness = f"D = {audit.result.data!r}, D' = {audit.result.data_prime!r}"
        claim = dataclasses.replace(claim, data={
            **claim.data, "samples": audit.samples, "rank_samples": audit.rank_samples,
            "runs": audit.runs, "runs_per_second": round(audit.runs_per_second, 1),
            "reproducible": audit.reproducible, "neighbour": repr(audit.result.data_prime),
            "witness": witness, **graybox_data(gb, steered=audit.steered)},
            details=whole_witness(claim.details, witness),
            seconds=time.perf_counter() - start)
    return _report(args, code, claim, start, samples_used=audit.samples,
                   findings=() if gb is None else tuple(
                       f.as_finding(notion) for f in gb.findings))


def graybox_data(gb: Any, *, steered: bool = False) -> dict[str, Any]:
    """The gray-box stage's summary for a claim's JSON ``data`` (empty when not run)."""
    return {} if gb is None else {"graybox": gb.summary(steered=steered)}


def _report(args: argparse.Namespace, code: Any, claim: ClaimResult, start: float, *,
            samples_used: int, findings: tuple[Any, ...] = ()) -> int:
    report = CheckReport(
        name=args.target, description=f"{code.name}, {code.interface} interface, "
                                      f"{args.notion} DP", paper="user code",
        parameters={"epsilon": args.epsilon, "delta": args.delta, "alpha": args.alpha,
                    "arms": args.arms, "horizon": args.horizon, "notion": args.notion,
                    "rewards": args.rewards, "samples": args.samples,
                    "samples_used": samples_used, "search_budget": args.search_budget,
                    "workers": args.workers, "seconds": args.seconds, "seed": args.seed,
                    "contexts": args.contexts},
        claims=(claim,), findings=findings, seconds=time.perf_counter() - start)
    report = gated(deadline_report(report, args.seconds), args)
    text = format_text(report).replace("dpaudit check", "dpaudit audit-policy", 1)
    emit_reports(args, report, command="audit-policy",
                 text=text if report.deadline is None else f"{text}\n{deadline_line(report)}")
    return report.exit_code


def check_policy_audit(args: Any) -> limits.Estimate:
    """``audit-policy``'s guard (``args``: its parsed options), before the user's module is
    even imported: at least two arms, a horizon of at least one pull per arm, and the memory
    (:func:`~dpaudit.runtime.limits.policy_audit_bytes`, against ``--memory``) and time
    (every sampled run's steps at :data:`~dpaudit.runtime.limits.FAST_USER_STEPS_PER_SECOND`
    per worker) of the audit; exit 2 with the estimate."""
    if getattr(args, "seconds", None) is not None:  # nan, inf, 0, -5: exit 2, as for check
        args.seconds = limits.check_seconds(args.seconds)
    budget = None if args.memory is None else limits.parse_memory(args.memory)
    arms = check_int("arms", args.arms, low=1)
    if arms < 2:
        raise InvalidParameterError(
            f"arms={arms} must be an integer in [2, inf): with one arm every run plays the "
            "same action sequence, so there is nothing a privacy audit could observe")
    horizon = check_int("horizon", args.horizon, low=1)
    if horizon < arms:
        raise InvalidParameterError(
            f"horizon={horizon} must be an integer in [{arms}, inf) (at least one pull per "
            f"arm, --arms {arms})")
    samples = check_int("samples", args.samples, low=200)
    workers = check_int("workers", args.workers, low=1)
    search = check_int("search_budget", getattr(args, "search_budget", 16), low=1)
    needed = limits.policy_audit_bytes(
        horizon=horizon, n_arms=arms, samples=samples,
        selection_fraction=float(args.selection_fraction), max_select=AuditBudget.max_select,
        chunk=200, workers=workers)
    runs = 2 * samples + 2 * 200 * search  # the audited pair's samples and the search's probes
    rate = limits.FAST_USER_STEPS_PER_SECOND * workers
    est = limits.Estimate(f"audit-policy at T={horizon}, K={arms}, {samples} samples", needed,
                          runs * horizon / rate,
                          f"{runs} runs of {horizon} steps at {rate:.3g} steps per second, "
                          "faster than any code runs; the code's own speed is measured after "
                          "its import")
    return limits.check_estimate(est, seconds=getattr(args, "seconds", None), memory=budget,
                                 advice="lower --horizon, --samples or --workers, or raise "
                                        "--memory")


def policy_deadline_claim(args: Any, name: str, exc: limits.DeadlineReached) -> Any:
    """The INCONCLUSIVE claim of an ``audit-policy`` stopped by its deadline, naming the stage
    that was running (:func:`dpaudit.runtime.stage.set_stage`, written by the audit's
    process) and what would settle it for that stage."""
    notion = {"global": Notion.GLOBAL, "per-step": Notion.PER_STEP, "ldp": Notion.LDP}[
        args.notion]
    stage = exc.where or "start of the audit"
    if stage.startswith("sampling"):
        settle = ("the neighbour search finished and the sample sizes were planned from the "
                  "measured speed with a margin, but the sampling ran slower (a loaded "
                  "machine): the same command with --resume continues from its finished "
                  "chunks; or a longer --seconds, or fewer --samples")
    elif stage.startswith("neighbour search"):
        settle = ("the neighbour search itself did not fit: a longer --seconds, a smaller "
                  "--search-budget, or a shorter --horizon (the same command with --resume "
                  "continues from its finished chunks)")
    else:
        settle = ("the code's first runs did not fit: a longer --seconds or a shorter "
                  "--horizon")
    return ClaimResult(
        id=f"{args.notion}-dp", notion=notion, epsilon=float(args.epsilon),
        delta=float(args.delta), verdict=Verdict.INCONCLUSIVE, method=Method.SAMPLED,
        statement=f"{name} is ({args.epsilon:g}, {args.delta:g})-DP ({args.notion}; K="
                  f"{args.arms}, T={args.horizon})",
        reference="user code", alpha=float(args.alpha), seconds=exc.elapsed,
        details=(f"stopped at the --seconds deadline ({exc.seconds:g} s) during the {stage}: "
                 "no bound is reported (a measurement cut short by the clock would let run "
                 "times choose its size, and the bound would not be valid)",
                 f"to settle it: {settle}"),
        data={"deadline_seconds": exc.seconds, "elapsed_seconds": round(exc.elapsed, 3),
              "deadline_hit": True, "deadline_stage": stage})


def not_sampled_claim(args: Any, code: Any, audit: PolicyAudit, start: float) -> ClaimResult:
    """The INCONCLUSIVE claim of an audit that stopped after its neighbour search: no
    candidate pair moved any action on coupled runs (a measurement could not find what they
    did not show), or the smallest sample did not fit the time the search left (a deadline
    stop: the search's chunks are kept for ``--resume``). The advice, when there is one, is
    a whole command line."""
    notion = {"global": Notion.GLOBAL, "per-step": Notion.PER_STEP, "ldp": Notion.LDP}[
        args.notion]
    details = audit.details()
    data: dict[str, Any] = {
        "samples": 0, "runs": audit.runs, "runs_per_second": round(audit.runs_per_second, 1),
        "reproducible": audit.reproducible, "inconclusive_reason": audit.inconclusive_reason,
        "not_started": audit.not_started, "detectable_at_power": None,
        **graybox_data(getattr(audit, "graybox", None),
                       steered=getattr(audit, "steered", False))}
    if audit.advice is not None:
        line = advice_command(args, audit.advice)
        details += (f"in one command: {line}",)
        data.update(advice_command=line, advice_seconds=audit.advice.seconds,
                    advice_estimate_seconds=round(audit.advice.estimate, 1))
    if audit.not_started == "time":
        data.update(deadline_hit=True, deadline_stage="sampling (not started: it did not fit "
                                                      "the time the search left)")
    statement = (f"{code.name} ({code.interface}) is ({args.epsilon:g}, {args.delta:g})-DP "
                 f"({args.notion}; K={args.arms}, T={args.horizon})")
    ref = REFERENCES[(args.notion, "table" if args.notion != "global" else args.rewards)]
    return ClaimResult(
        id=f"{args.notion}-dp", notion=notion, epsilon=float(args.epsilon),
        delta=float(args.delta), verdict=Verdict.INCONCLUSIVE, method=Method.SAMPLED,
        statement=statement, reference=ref, alpha=float(args.alpha), details=details,
        data=data, seconds=time.perf_counter() - start)


#: options of ``audit-policy`` that change what is audited, with their defaults (an advised
#: command repeats those given; outputs and state options are left out)
_REPEATED = (("arms", None), ("horizon", None), ("epsilon", None), ("delta", 0.0),
             ("notion", "global"), ("rewards", "table"), ("means", None),
             ("interface", "auto"), ("methods", None), ("feed", "table"), ("reward_fn", None),
             ("history_method", None), ("ldp_hook", None), ("ldp_sink", None),
             ("config", None), ("contexts", None), ("time_base", None), ("samples", None),
             ("selection_fraction", 0.2), ("search_budget", 16), ("workers", 1),
             ("seconds", None), ("memory", None), ("alpha", 0.05), ("seed", DEFAULT_SEED),
             ("no_graybox", False))


def advice_command(args: Any, advice: Any) -> str:
    """The whole command line of the advice: this command's options with the advised
    horizon, samples, search budget and ``--seconds``."""
    import shlex

    new = {"horizon": advice.horizon, "samples": advice.samples,
           "search_budget": advice.search_budget, "seconds": advice.seconds}
    parts = ["python", "-m", "dpaudit", "audit-policy", args.target]
    for name, default in _REPEATED:
        value = new.get(name, getattr(args, name, None))
        if value is None or (value == default and name not in new):
            continue
        flag = f"--{name.replace('_', '-')}"
        if value is True:  # a switch
            parts.append(flag)
            continue
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        parts += [flag, str(value)]
    for item in getattr(args, "set", []) or []:
        parts += ["--set", item]
    return " ".join(shlex.quote(x) for x in parts)
