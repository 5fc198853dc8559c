"""Azize, Wu, Honda, Orabona, Ito & Basu 2025, "Optimal Regret of Bernoulli Bandits under Global
Differential Privacy" (NeurIPS 2025, arXiv 2505.05613): checks, statements and the experiment."""
