"""A gallery of small private bandit policies in the shapes research code takes, each with a
planted bug and its correct version, for ``python -m dpaudit audit-policy`` (issue 24).

dpaudit did not write these shapes for itself: each module is written the way third-party
code is, and the audit finds the calling convention, the neighbours and (for local DP) the
reports on its own. ``docs/auditor.md`` lists the commands and what each audit found.

========================  ===========================================  ==================
module                    shape                                        planted bug
========================  ===========================================  ==================
``dpse``                  ``get_arm(t)`` / ``update(t, arm, reward)``  shared noise
``env_ucb``               ``(env, horizon, params)`` + ``run()``,      unnoised first pull
                          module-level generator
``local_laplace``         ``privatize(reward)`` hook                   ``laplace(scale)``
``twice``                 ``step(reward, arm)``, reports passed to     reward reused in two
                          ``aggregate(value)``                         releases
``local_gaussian``        ``report(reward)`` hook, ``choose``/``observe``  sigma / sqrt(2)
``numba_run``             ``numba.njit`` whole-run function            (correct only)
========================  ===========================================  ==================
"""
