"""The runtime: parallel chunked execution with spawned seeds (:mod:`.parallel`), deadlines,
memory and time guards (:mod:`.limits`), progress bars (:mod:`.progress`), and the saved
state that lets an interrupted run resume (:mod:`.state`). It sits below the statistics,
which run their measurements through it, and imports only the foundations (errors,
validation, seeds)."""
