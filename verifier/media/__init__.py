"""
Media files as evidence: what coverage is judged against (`policy`), and what demuxing observes (`demux`).

`verifier.checks.coverage` judges the facts; `verifier.scoring.rescore` decodes the
files it scores through the same hostile-input protections (`demux.open_media`).
"""
