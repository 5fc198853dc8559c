"""Tossou & Dimitrakakis 2016 (AAAI), "Algorithms for Differentially Private Multi-Armed Bandits":
checks, statements, experiments and twins.
"""
