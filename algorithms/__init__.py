"""Bandit policies, one package per paper (installed as ``dpaudit.algorithms``).

Each paper package holds its policies (modules declaring ``POLICIES``, each
:class:`~dpaudit.sim.bandits.PolicyEntry` with its regret bound or the reason there is none),
its instances (``instances.py``), its theorem bounds (``bounds.py``) and its broken twins
(``_twins.py``, each with its true loss derived; a twin's first ``NAME-faulty`` name, where
it had one, is kept as an alias); ``baselines/`` holds UCB1, KL-UCB, Thompson, DP-SE and
Private-UCB. The modules ``_*.py`` here are paper-neutral (lockstep kernels, counters, the
KL-UCB index, UCB1's bound). Policies simulate many runs in lockstep with numpy; episodic
ones simulate an episode in one binomial draw. No package imports another.
"""
