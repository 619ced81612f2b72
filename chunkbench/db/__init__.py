"""The workspace database: persistence only (saved runs, reviewers' edits and verdicts).

`workspace` holds the SQLite schema, migrations and connections; `catalog` the saved runs,
`edits` and `verdicts` the reviewer's record (types.review). What a person does with them (chunk
with the edits applied, `ensure`, `compare`) is composed above, in chunkbench.app; `cb.store` is
chunkbench.app.runs."""
