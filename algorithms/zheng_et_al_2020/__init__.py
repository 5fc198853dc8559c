"""Zheng, Cai, Huang, Li & Wang 2020 (NeurIPS), "Locally Differentially Private (Contextual)
Bandits Learning": algorithms.
"""
