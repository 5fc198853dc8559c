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
``one_based``             ``get_arm(t)`` / ``update(t, ...)``, ``t``   mean's noise scale
                          from 1 (detected)                            on a sum
``module_reward``         ``run_etc(means, horizon, epsilon)`` drawing  mean's noise scale
                          through a module-level numba ``pull``        on a sum
                          (``--reward-fn``)
``params_dict``           ``ETC(env, n, params)`` + ``run()``          mean's noise scale
                          (``--set n=T``)                              on a sum
``report_only``           ``report(reward)`` alone, no bandit methods  ``Lap(1/(2 eps))``
                          (``--notion ldp``)
========================  ===========================================  ==================

Glue the last three needed before (lines of the wrapper a user wrote, counted in
``tests/test_gallery_glue.py``): ``one_based`` 6, ``module_reward`` 13, ``params_dict`` 3;
now 0 each; ``report_only`` needed ``--interface run`` and ``--ldp-hook report``, now none.
"""
