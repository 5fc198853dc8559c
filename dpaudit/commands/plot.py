"""``python -m dpaudit plot cdf NAME [--epsilon E] [--delta D] [--n N] [--successes R] --out F``
and ``python -m dpaudit plot profile REPORT.json [--claim ID] --out F``.

``plot profile`` draws the privacy profile a ``--json`` report stores for a sampled claim
(``privacy_profile``: its trade-off points beside the claimed curve, and epsilon against
delta; :mod:`dpaudit.reports.profile_plot`), the first sampled claim unless ``--claim`` names
one.

Draws a perturbation's CDF ``F``, its neighbour ``F'`` (one observation changed) and the
feasible region of Lemma 8 (Wang & Zhu 2023) for ``F'`` given ``F``, in the style of the paper's
Figures 1-3 (Wang & Zhu 2023): if ``F'`` stays inside the shaded band the condition holds.
Names come from the ``CDF_PAIRS`` of the audit modules, collected by the registry's one scan,
e.g. ``laplace``, ``gaussian``, ``gauss-perturbation``, ``beta-perturbation``,
``beta-perturbation-unpadded``, ``lemma15-perturbation`` (``--list`` prints them).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from dpaudit.commands.common import float_arg, int_arg, output_file, prepare_output
from dpaudit.errors import UsageError
from dpaudit.exact.conditions import feasible_band
from dpaudit.experiments import new_figure
from dpaudit.registry import UnknownNameError, all_audits, all_cdf_pairs, suggest
from dpaudit.reports.profile_plot import draw_profile
from dpaudit.validation import check_epsilon_delta, check_int


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plot", help="draw a perturbation's CDF with its neighbour and Lemma 8's feasible "
                     "region, or a sampled claim's privacy profile from a --json report",
        # --out is required except with --list, which argparse cannot say: written out
        usage="python -m dpaudit plot cdf NAME --out FILE.png [--epsilon E] [--delta D]\n"
              "                                [--n N] [--successes R]\n"
              "       python -m dpaudit plot profile REPORT.json --out FILE.png [--claim ID]\n"
              "       python -m dpaudit plot cdf --list")
    p.add_argument("kind", choices=["cdf", "profile"],
                   help="what to draw: a perturbation's CDF, or a sampled claim's privacy "
                        "profile from a --json report")
    p.add_argument("name", nargs="?", default=None,
                   help="perturbation name (see --list), or for profile the JSON report")
    p.add_argument("--claim", default=None, metavar="ID",
                   help="profile: the claim id (default: the first with a profile)")
    p.add_argument("--list", action="store_true", help="list the plottable names")
    p.add_argument("--epsilon", metavar="E", type=float_arg, default=None,
                   help="epsilon (default: the check's, else 1)")
    p.add_argument("--delta", metavar="D", type=float_arg, default=None,
                   help="delta (default: the check's, else 0.01)")
    p.add_argument("--n", type=int_arg, default=None,
                   help="count N of the arm's observations (default: the start phase; for "
                        "laplace, the episode's m = j - i, default 1)")
    p.add_argument("--successes", metavar="R", type=int_arg, default=0,
                   help="successes R (default 0)")
    p.add_argument("--out", metavar="FILE.png", type=output_file, default=None,
                   help="output PNG file: required, except with --list (checked first; "
                        "folders are created)")


def run(args: argparse.Namespace) -> int:
    if args.kind == "profile":
        return _run_profile(args)
    pairs = all_cdf_pairs()
    if args.list:
        print("\n".join(sorted(pairs)))
        return 0
    if args.name is None:
        raise UsageError("plot cdf needs a NAME (see `python -m dpaudit plot cdf --list`)")
    if args.name not in pairs:
        if args.name in all_audits():
            raise UsageError(f"{args.name!r} is a registered check but declares no "
                             "one-dimensional CDF pair to draw (plottable: "
                             f"{', '.join(sorted(pairs))})")
        raise UnknownNameError(args.name, suggest(args.name, sorted(pairs)),
                               what="plottable name", listing="python -m dpaudit plot cdf --list")
    if args.out is None:
        raise UsageError("--out FILE.png is required")
    out = args.out
    if out.suffix.lower() != ".png":
        raise UsageError(f"--out {str(out)!r} must end in .png")
    spec = all_audits().get(args.name)
    eps = (spec.default_epsilon if spec else 1.0) if args.epsilon is None else args.epsilon
    dl = (spec.default_delta if spec else 0.01) if args.delta is None else args.delta
    eps, dl = check_epsilon_delta(eps, dl, allow_zero_epsilon=True)
    if args.n is not None:
        check_int("n", args.n, low=1)
    pair = pairs[args.name](eps, dl, n=args.n, successes=args.successes)
    draw(pair, eps, dl, prepare_output(Path(out)))
    print(f"wrote {out}")
    return 0


def _run_profile(args: argparse.Namespace) -> int:
    import json

    if args.name is None:
        raise UsageError("plot profile needs a JSON report (written by check/audit --json)")
    if args.out is None or Path(args.out).suffix.lower() != ".png":
        raise UsageError("--out FILE.png is required")
    try:
        report = json.loads(Path(args.name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the JSON report {args.name!r}: {exc}") from None
    claims = [c for c in report.get("claims", []) if isinstance(c, dict)
              and c.get("privacy_profile") and (args.claim is None or c.get("id") == args.claim)]
    if not claims:
        what = f"claim {args.claim!r}" if args.claim else "any claim"
        raise UsageError(f"the report {args.name!r} holds no privacy profile for {what} "
                         "(profiles come with sampled claims)")
    fig, ax = new_figure(figsize=(9.0, 3.6))
    fig.delaxes(ax)
    draw_profile(fig, claims[0]["privacy_profile"], str(claims[0]["id"]),
                 epsilon=claims[0].get("epsilon"), delta=claims[0].get("delta"))
    fig.tight_layout()
    fig.savefig(prepare_output(Path(args.out)))
    print(f"wrote {args.out}")
    return 0


def draw(pair, epsilon: float, delta: float, out: Path) -> None:
    """Render the figure with matplotlib's Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    F, G, _, _ = pair.numpy_functions()
    lo, hi = _visible_window(F, G, pair.window)
    xs = np.linspace(lo, hi, 2000)
    fx, gx = F(xs), G(xs)
    lower, upper = feasible_band(fx, epsilon, delta)
    inside = bool(np.all((gx >= lower - 1e-12) & (gx <= upper + 1e-12)))
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    ax.fill_between(xs, lower, upper, color="tab:red", alpha=0.25,
                    label=f"feasible region of F' (Lemma 8, eps={epsilon:g}, delta={delta:g})")
    ax.plot(xs, fx, color="black", lw=1.6, label="F(x): original history")
    ax.plot(xs, gx, color="tab:blue", lw=1.4, ls="--", label="F'(x): one observation changed")
    ax.set_xlabel("x")
    ax.set_ylabel("CDF")
    ax.set_ylim(-0.02, 1.02)
    verdict = "inside: Lemma 8 holds on this window" if inside else "F' leaves the region"
    ax.set_title(f"{pair.name}\n{verdict}", fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def _visible_window(F, G, window: tuple[float, float]) -> tuple[float, float]:
    """Shrink the window to where either CDF is between 1e-4 and 1 - 1e-4 (plus a margin)."""
    xs = np.linspace(window[0], window[1], 20001)
    fx, gx = F(xs), G(xs)
    mid = np.nonzero(((fx > 1e-4) & (fx < 1 - 1e-4)) | ((gx > 1e-4) & (gx < 1 - 1e-4)))[0]
    if mid.size == 0:
        return window
    a, b = xs[mid[0]], xs[mid[-1]]
    pad = 0.1 * (b - a)
    return max(window[0], a - pad), min(window[1], b + pad)
