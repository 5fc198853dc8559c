"""Reports: text, JSON, HTML and JUnit formatting of frozen results, the reviewer's ledger and
the saved state that lets an interrupted run resume."""
