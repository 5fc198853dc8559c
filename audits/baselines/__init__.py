"""Baselines the papers compare with: UCB1, KL-UCB, Thompson sampling and Private-UCB
(Mishra & Thakurta 2015), measured as Tossou & Dimitrakakis 2016's Fig. 6 runs them: checks and
twins. (DP-SE's check shows Azize & Basu 2022's lower bounds and lives with that paper.)
"""
