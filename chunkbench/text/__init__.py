"""Text and span helpers every layer uses: paragraph and sentence spans (`segment`), the one cl100k
tokenizer (`tokenizer`), clause references (`clauses`) and range math (`ranges`). Pure functions over
strings and (start, end) spans; nothing here knows a Document or a Chunk."""
