"""What a person does, composed once from the floors below: chunk with the defaults and the
reviewers' edits (`chunking`), the defaults themselves (`defaults`), saved runs (`runs`, which is
`cb.store`), labelled boundaries (`labels`), the explorer's and the review app's state (`explore`,
`review`) and parameter sweeps (`sweep`). The front-ends (CLI, notebooks, widgets, Panel app)
call these; nothing here draws."""
