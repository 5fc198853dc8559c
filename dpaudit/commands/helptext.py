"""What every ``--help`` ends with, and how it shows defaults: said once for all subcommands.

:data:`EXAMPLES` holds, per subcommand, two or three command lines a user can paste and the
documentation page that explains the command; :func:`epilog` formats them as the help's last
lines. :class:`HelpFormatter` keeps hand-written line breaks in descriptions and epilogs and
states an option's default after its description when the description does not already say
it (``--seed``: ``(default 20221122)``), from the value argparse holds, so the shown default
cannot drift from the real one. ``tests/test_help.py`` walks every subcommand's help: every
option has a description and a default (or is a flag, or required), and every example parses.
"""

from __future__ import annotations

import argparse

__all__ = ["DOCS_HOME", "EXAMPLES", "HelpFormatter", "epilog"]

#: where the documentation starts (the site's home page, also readable as Markdown)
DOCS_HOME = "docs/index.md"

#: subcommand -> (examples, the docs page that explains it, what that page covers)
EXAMPLES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "list": (("python -m dpaudit list",
              "python -m dpaudit list --aliases",
              "python -m dpaudit list --json"),
             "docs/cli.md", "every command's options, exit codes, deadlines and resume"),
    "check": (("python -m dpaudit check dp-ftpl-new",
               "python -m dpaudit check dp-ftpl-new-double-rate --quick --json report.json",
               "python -m dpaudit check my_audit --quick --fail-on-inconclusive "
               "--junit junit.xml"),
              "docs/verdicts.md", "what each verdict means; options in docs/cli.md"),
    "audit": (("python -m dpaudit audit --list",
               "python -m dpaudit audit laplace --samples 1e5",
               "python -m dpaudit audit my_pkg.mech:MECHANISM --epsilon 1 --json gate.json"),
              "docs/auditor.md", "the mechanism protocol and how the bound stays valid"),
    "audit-policy": (("python -m dpaudit audit-policy my_pkg.ucb:MyUCB --arms 2 --horizon 32 "
                      "--epsilon 1",
                      "python -m dpaudit audit-policy my_pkg.play:run --interface run --arms 2 "
                      "--horizon 64 --epsilon 1 --delta 1e-5",
                      "python -m dpaudit audit-policy my_pkg.client:Client --notion ldp "
                      "--arms 2 --horizon 16 --epsilon 1"),
                     "docs/audit-policy.md",
                     "shapes, neighbour search, randomness, time and advice"),
    "claims": (("python -m dpaudit claims --list-papers",
                "python -m dpaudit claims barbara-lazzaro-pike-burke-2025 --markdown",
                "python -m dpaudit claims wang-zhu-2023 --referee review.md"),
               "docs/ledger.md", "the ledger's statuses, --referee and --stored"),
    "reproduce": (("python -m dpaudit reproduce --list",
                   "python -m dpaudit reproduce azize-basu-fig3 --quick --out figs",
                   "python -m dpaudit reproduce wang-zhu-fig6 --resume --out figs"),
                  "docs/papers.md", "each paper's algorithms, checks and figures"),
    "plot": (("python -m dpaudit plot cdf --list",
              "python -m dpaudit plot cdf lemma15-perturbation --n 5 --out lemma15.png",
              "python -m dpaudit plot profile report.json --out profile.png"),
             "docs/verification.md", "the CDF conditions the plots show"),
    "simulate": (("python -m dpaudit simulate adap-ucb --horizon 1e5 --runs 20",
                  "python -m dpaudit simulate dp-ftpl-new --horizon 1e5 --runs 100 --workers 2 "
                  "--json regret.json"),
                 "docs/simulate.md", "regret at scale, workers and Dask"),
}

#: the top-level help's examples
TOP_EXAMPLES = ("python -m dpaudit list",
                "python -m dpaudit check dp-ftpl-new",
                "python -m dpaudit COMMAND --help")


def epilog(command: str | None) -> str:
    """The last lines of ``command``'s help (``None``: the top-level help)."""
    if command is None:
        lines = ["Examples:", *(f"  {e}" for e in TOP_EXAMPLES), "",
                 f"More: README.md and {DOCS_HOME} (the documentation site: "
                 "python -m mkdocs serve)."]
        return "\n".join(lines)
    examples, page, what = EXAMPLES[command]
    return "\n".join(["Examples:", *(f"  {e}" for e in examples), "",
                      f"More: {page} ({what})."])


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written (line breaks kept); an option's default stated
    after its description unless the description already states it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (not action.option_strings or action.nargs == 0 or action.required
                or action.default in (None, argparse.SUPPRESS) or "default" in text):
            return text
        return f"{text} (default %(default)s)"
