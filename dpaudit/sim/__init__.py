"""Simulation and adapters: the bandit-policy protocol, reward sources, lockstep simulation,
regret, parallel execution, adapters for third-party code and their neighbour search."""
