"""Simulation: the bandit-policy protocol, reward sources, lockstep simulation of registered
policies, their recorded releases and regret."""
