"""Speed work on the compiled kernels of UCB, KL-UCB and private APT keeps their numbers.

Each configuration runs the policy's public ``simulate`` (compiled path) and hashes what a
user sees: actions, regret, counts, checkpoint curve, the extra fields, and the generator's
state after the run (its next double). The digests were taken from the kernels before the
speed work of issue 23 (branch ``kernels``); a kernel rewritten for speed must reproduce
them bit for bit. The configurations cover the benchmark's instances, exact ties (equal
arms, 0/1 means), a revised step, a table of fractional rewards, horizons that cross the
uniform blocks of the block-fed kernels (32768 numbers) and the UCB family's 2048-step
chunks, and KL-UCB with ``c = 0`` and ``c = 3``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from dpaudit.algorithms import _kernels as kern
from dpaudit.algorithms.barbara_lazzaro_pike_burke_2025.ldp_thresholding import PrivateAPT
from dpaudit.algorithms.baselines.ucb import KLUCB, UCB
from dpaudit.sim.bandits import BernoulliRewards, TableRewards

pytestmark = pytest.mark.skipif(not kern.HAVE_NUMBA, reason="numba cannot be imported")


def _table(horizon: int, k: int) -> TableRewards:
    rows = np.random.default_rng(3).random((horizon, k))
    return TableRewards(rows, means=rows.mean(axis=0))


def _sources(horizon: int) -> dict[str, object]:
    return {"fig6": BernoulliRewards([0.9, 0.6]),
            "close": BernoulliRewards([0.55, 0.5, 0.45]),
            "equal": BernoulliRewards([0.5, 0.5, 0.5]),
            "zero-one": BernoulliRewards([1.0, 0.0, 1.0]),
            "apt": BernoulliRewards([0.3, 0.4, 0.6, 0.7]),
            "revised": BernoulliRewards([0.7, 0.4]).changed(5, 0.5),
            "table": _table(horizon, 3)}


POLICIES = {"ucb": UCB(), "kl-ucb": KLUCB(), "kl-ucb-c3": KLUCB(c=3.0),
            "ldp-apt": PrivateAPT(epsilon=1.0, tau=0.5, gamma=0.05)}
CASES = [(p, s, h, r) for p in POLICIES for s, h, r in
         (("fig6", 20000, 3), ("close", 3000, 4), ("equal", 1500, 4), ("zero-one", 700, 3),
          ("apt", 2500, 3), ("revised", 600, 3), ("table", 900, 3))]

FINGERPRINTS = {
    ('ucb', 'fig6', 20000, 3): '76956f6da8d4ece303eceb38',
    ('ucb', 'close', 3000, 4): 'ac71bdb5cb03b8ecfc81f127',
    ('ucb', 'equal', 1500, 4): '929a76cfd3ebf705b2195162',
    ('ucb', 'zero-one', 700, 3): '492d83f2931ecedef69f1441',
    ('ucb', 'apt', 2500, 3): '6a9ed204601d1efd856bd948',
    ('ucb', 'revised', 600, 3): 'e1cec9784690bfe852033936',
    ('ucb', 'table', 900, 3): 'dac850259476cdd690573b57',
    ('kl-ucb', 'fig6', 20000, 3): '3194816aaab3be2d05a7a76b',
    ('kl-ucb', 'close', 3000, 4): '20463afac870305e6395e6a9',
    ('kl-ucb', 'equal', 1500, 4): 'c47dd105bb04bea4348e53e9',
    ('kl-ucb', 'zero-one', 700, 3): '55ba6466cd5080ea3ad9c8e5',
    ('kl-ucb', 'apt', 2500, 3): 'd87839ab1072dd86c72e1bd9',
    ('kl-ucb', 'revised', 600, 3): '05b0eb1f57c6b151e3b2624c',
    ('kl-ucb', 'table', 900, 3): '8018ab9598755597da98e8a1',
    ('kl-ucb-c3', 'fig6', 20000, 3): 'be87996ac639e1bb3316f3e7',
    ('kl-ucb-c3', 'close', 3000, 4): '64c84494c1a647351423fedb',
    ('kl-ucb-c3', 'equal', 1500, 4): 'fd91dbb1fd7da4ea161951aa',
    ('kl-ucb-c3', 'zero-one', 700, 3): 'b4efe1b2700ed64f46fe40bc',
    ('kl-ucb-c3', 'apt', 2500, 3): '1b9d884fb371db7ce614deeb',
    ('kl-ucb-c3', 'revised', 600, 3): '542d134d8a3b5ef27d951421',
    ('kl-ucb-c3', 'table', 900, 3): '0a6aae21d95f1e185c4e2fa5',
    ('ldp-apt', 'fig6', 20000, 3): '291bdf4203347ed43fde2e57',
    ('ldp-apt', 'close', 3000, 4): '0632e1f64a024f1929f8880e',
    ('ldp-apt', 'equal', 1500, 4): 'a33c7ae85fb586d59d1628e2',
    ('ldp-apt', 'zero-one', 700, 3): 'af3e0dfa95de06fa045094d4',
    ('ldp-apt', 'apt', 2500, 3): '8d7e57ad32a8a13f0709350d',
    ('ldp-apt', 'revised', 600, 3): '892519781d8439e3ce5488b6',
    ('ldp-apt', 'table', 900, 3): 'cd9ff437259fcd1ead6630db',
}


def fingerprint(policy: str, source: str, horizon: int, runs: int) -> str:
    rng = np.random.default_rng(sum(map(ord, policy + source)))
    res = POLICIES[policy].simulate(_sources(horizon)[source], horizon, runs, rng=rng,
                                    checkpoints=[1, horizon // 3, horizon], record=True)
    h = hashlib.sha256()
    for arr in (res.actions, res.regret, res.counts, res.curve):
        h.update(np.ascontiguousarray(arr).tobytes())
    for key in sorted(res.extra or {}):
        h.update(key.encode() + np.ascontiguousarray(res.extra[key]).tobytes())
    h.update(np.float64(rng.random()).tobytes())
    return h.hexdigest()[:24]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_compiled_kernels_keep_their_numbers(case):
    assert fingerprint(*case) == FINGERPRINTS[case]
