"""Bandit policies of the seed papers and their baselines (installed as ``dpaudit.algorithms``).

Policies simulate many runs in lockstep with numpy; episodic ones simulate an episode in one
binomial draw.
"""
