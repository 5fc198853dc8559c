"""privbandits: private UCB code written the way research code usually is.

Plain Python classes, numpy's global generator, ``select()`` / ``update(arm, reward)``. One
correct global-DP UCB (``EpisodeLaplaceUCB``) and four broken ones that real code gets wrong
(``broken.py``). dpaudit did not write this package; it audits it:

    python -m dpaudit audit-policy examples.privbandits.ucb:EpisodeLaplaceUCB \
        --arms 2 --horizon 32 --epsilon 1
"""
