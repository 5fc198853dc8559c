"""Azize & Basu 2022 (NeurIPS), "When Privacy Meets Partial Information: A Refined Analysis of
Differentially Private Bandits": checks, statements, experiments and twins.
"""
