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
``numba_run``             ``numba.njit`` whole-run functions           a sum's noise at
                                                                       a mean's scale
                                                                       (``play_two_pulls``)
``one_based``             ``get_arm(t)`` / ``update(t, ...)``, ``t``   mean's noise scale
                          from 1 (detected)                            on a sum
``module_reward``         ``run_etc(means, horizon, epsilon)`` drawing  mean's noise scale
                          through a module-level numba ``pull``        on a sum
                          (``--reward-fn``)
``params_dict``           ``ETC(env, n, params)`` + ``run()``          mean's noise scale
                          (``--set n=T``)                              on a sum
``report_only``           ``report(reward)`` alone, no bandit methods  ``Lap(1/(2 eps))``
                          (``--notion ldp``)
``mean_reward``           ``run_etc(means, horizon, epsilon, seed)``   mean's noise scale
                          drawing through ``bernoulli(means[a],        on a sum
                          rng)``: passed the mean, not the arm
                          (``--reward-fn``)
``env_params``            ``EnvETC(env)`` + ``run()``, reading         mean's noise scale
                          ``env.n_arms``, ``env.horizon``,             on a sum
                          ``env.epsilon``
``late_commit``           ``select()`` / ``update(arm, reward)``,      mean's noise scale
                          round robin for 1000 steps, then commit      on a sum
                          (actions depend on rewards from step 1001)
========================  ===========================================  ==================

Glue the last three needed before (lines of the wrapper a user wrote, counted in
``tests/test_gallery_glue.py``): ``one_based`` 6, ``module_reward`` 13, ``params_dict`` 3;
now 0 each; ``report_only`` needed ``--interface run`` and ``--ldp-hook report``, now none.

Before the last three were audited right, ``mean_reward``'s placeholder mean was taken for
the arm (every pull recorded as arm 0: INCONCLUSIVE, exit 0, for both twins), ``env_params``
stopped at ``env.epsilon`` with "error in user code" (exit 3), and ``late_commit`` at T = 64
sampled 40000 runs (41 s on the shared 2-core machine) that could show nothing before its
INCONCLUSIVE; it now stops after the neighbour search, in under a second, with a whole
command for T = 1024. ``tests/test_gallery_glue.py`` and ``tests/test_gallery.py`` audit
them.
"""
