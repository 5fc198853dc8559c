"""Barbara, Lazzaro & Pike-Burke 2025, "Locally Differentially Private Thresholding Bandits":
checks, statements, experiments and twins.
"""
