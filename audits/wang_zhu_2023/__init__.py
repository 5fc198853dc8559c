"""Wang & Zhu 2023, DP-FTPL and GDP-Elim-New ((epsilon, delta)-DP and global DP in multi-armed
bandits): checks, statements, experiments and twins.
"""
