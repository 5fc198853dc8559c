"""Barbara, Lazzaro & Pike-Burke 2025, "Locally Differentially Private Thresholding Bandits":
algorithms.
"""
