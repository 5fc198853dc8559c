"""Reports: text, JSON, HTML and JUnit formatting of frozen results, the reviewer's ledger, the
referee and the findings page."""
