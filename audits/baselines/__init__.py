"""Baselines the papers compare with: UCB1, KL-UCB, Thompson sampling, DP-SE (Sajed & Sheffet
2019), Private-UCB (Mishra & Thakurta 2015): checks, statements, experiments and twins.
"""
