"""What `make test` leaves to `make extended` (which CI runs right after it): the list, and the
inputs and browser sessions `make test` keeps."""

from __future__ import annotations

#: Tests `make test` leaves to `make extended` (which CI runs right after it, so CI loses no
#: coverage): the real-PDF matrices beyond one representative document of each kind, real MinerU,
#: JupyterLab and most browser sessions, the corpus and benchmark runs. Each entry is a test file
#: or a test (all its parameters, or the one named) and what still covers that behaviour in
#: `make test`, so the suite fits 8 CPU-minutes.
EXTENDED: dict[str, str] = {
    "tests/ui/test_review_jupyterlab.py": "the review app's logic (test_review.py) and three browser sessions of it "
                                       "(test_review_browser.py)",
    "tests/loaders/test_mineru4.py": "MinerU 2.x outputs and the stand-in runner (test_loader_mineru.py, test_mineru_runner.py)",
    "tests/evaluate/test_public_corpus.py": "the benchmark's scoring on small cases (test_recall_margin.py, test_budget.py)",
    "tests/loaders/test_corpus.py": "a corpus parsed and evaluated in one process (test_evaluate_corpus.py)",
    "tests/evaluate/test_reviewer_defects.py": "the same rules on the sample PDFs (test_tables.py, test_loader_pdf.py, "
                                      "test_strategy_*.py)",
    "tests/strategies/test_strategies_all_inputs.py::test_strategy_on_input": "every strategy on one PDF of the project's, one "
                                                                   "of ../shared, one MinerU output, Markdown and a "
                                                                   "document.json (KEPT_INPUTS)",
    "tests/strategies/test_strategies_all_inputs.py::test_strategy_on_input_with_small_sizes": "every strategy on small "
                                                                                    "synthetic documents (test_strategy_kernel.py)",
    "tests/strategies/test_strategies_all_inputs.py::test_long_manual_every_strategy": "every strategy on the representative inputs",
    "tests/strategies/test_strategies_all_inputs.py::test_slow_peer_on_one_small_input": "the peers on the representative inputs",
    "tests/io/test_retrievers.py::test_the_retrieval_default_through_langchain_and_llama_index_gives_evaluates_figure":
        "the hand-offs to LangChain and LlamaIndex stores (the rest of test_retrievers.py, test_handoff.py)",
    "tests/ui/test_review_browser.py": "test_keyboard_verdict_survives_reload, "
                                    "test_document_text_is_shown_literally_and_never_runs and "
                                    "test_the_served_app_fetches_nothing_from_outside_this_machine (KEPT_BROWSER)",
    "tests/project/test_notebooks.py::test_notebook_runs_with_small_parameters": "the notebooks' calls through the public face "
                                                                        "(test_layers.py) and the sweep they run (test_sweep.py)",
    "tests/loaders/test_loader_pdf.py::test_tex_source_in_a_typewriter_font_that_does_not_declare_its_pitch_is_code":
        "code in monospaced fonts on the sample manual (test_loader_pdf.py)",
    "tests/loaders/test_loader_markdown.py::test_a_file_of_line_breaks_loads_in_little_memory": "long runs of blank lines "
                                                                                       "(test_loader_markdown.py)",
    "tests/project/test_robustness.py::test_ten_megabyte_single_line": "long lines in the other hostile inputs",
    "tests/app/test_sweep.py::test_the_retrieval_check_can_rank_with_dense_embeddings": "dense ranking (test_retrieval_dense.py)",
    "tests/app/test_sweep.py::test_cli_runs_the_best_notebook_from_a_clean_environment_with_this_interpreter":
        "the best notebook written (test_sweep.py)",
    "tests/evaluate/test_retrieval_dense.py::test_numpy_encoder_gives_the_embeddings_sentence_transformers_gives":
        "the numpy encoder's own tests (test_retrieval_dense.py)",
    "tests/loaders/test_tables.py::test_a_caption_above_a_table_opens_the_tables_chunk_on_a_real_paper":
        "captions above tables on the sample PDFs (test_tables.py)",
    "tests/loaders/test_loader_pdf.py::test_long_manual_parses_completely": "the pooled parse of a 75-page filing "
                                                                    "(test_loader_pdf.py::test_two_workers_give_the_same_document_as_one)",
    "tests/evaluate/test_defects.py::test_the_10k_s_contents_page_is_typed_and_its_tables_of_figures_are_not":
        "contents pages on the sample PDFs (test_defects.py, test_loader_markdown.py)",
    "tests/evaluate/test_budget.py::test_the_budget_benchmark_runs_and_says_whether_the_goal_is_met":
        "the budget's sending and recall on small cases (the rest of test_budget.py)",
    "tests/evaluate/test_gold.py::test_a_real_manual_and_its_html": "gold from the sample's own twins and built twins (test_gold.py)",
    "tests/loaders/test_dehyphenate.py::test_a_filing_keeps_the_compounds_it_writes_with_a_hyphen":
        "the dehyphenation rules on small texts (the rest of test_dehyphenate.py)",
    "tests/loaders/test_dehyphenate.py::test_a_bold_run_in_heading_opens_a_paragraph_that_continues_after_a_page_of_tables":
        "paragraphs joined across pages on the sample PDFs (test_paragraph_joins.py)",
    "tests/loaders/test_progressive.py::test_the_explorer_shows_provisional_chunks_then_the_final_ones":
        "the progressive parse itself (test_the_page_in_view_comes_first_and_the_final_document_is_loads)",
    "tests/loaders/test_progressive.py::test_an_uncached_pdf_opens_from_its_first_pages_and_anything_else_whole":
        "the progressive parse itself (test_progressive.py)",
    "tests/loaders/test_progressive.py::test_a_stuck_background_parse_is_reported_with_the_file_and_pages":
        "a stuck worker reported by the parse (test_parse_stall.py)",
    "tests/loaders/test_parse_stall.py::test_a_slow_worker_that_computes_is_not_stuck": "stalls told from work "
                                                                              "(test_parse_stall.py, the pool's own tests)",
    "tests/loaders/test_parse_stall.py::test_a_pdf_parse_stuck_twice_names_the_file_and_pages":
        "test_a_task_stuck_twice_raises_stalled",
    "tests/app/test_sweep.py::test_the_dask_path_on_a_local_cluster": "the local workers' path (test_sweep.py)",
    "tests/project/test_notebooks.py::test_the_parsers_notebook_without_mineru_shows_the_default_parse_and_says_how":
        "the parse table it shows (test_cli.py, cb.metrics.parse_table's tests)",
    "tests/strategies/test_peers.py::test_chonkie_semantic_chunker_runs_offline_on_chunkbench_minilm":
        "chonkie's other chunkers and the MiniLM embedder (test_peers.py, test_retrieval_dense.py)",
    # the two largest real PDFs make test parsed (gnuplot's 311 pages, Best Buy's 75-page 10-K: 2 CPU-minutes
    # cold): the rules these tests hold on them are held on the sample PDFs and built pages in make test
    "tests/loaders/test_loader_pdf.py::test_a_comment_line_of_an_example_boxed_as_a_list_item_is_code":
        "code told from list items on the sample manual (test_loader_pdf.py)",
    "tests/loaders/test_loader_pdf.py::test_a_bullet_drawn_from_a_font_with_no_unicode_map_is_a_bullet":
        "test_symbol_fonts.py on built pages",
    "tests/loaders/test_loader_pdf.py::test_a_lone_lower_case_connective_is_no_heading_but_a_capitalised_command_is":
        "headings on the sample PDFs (test_loader_pdf.py, test_parse_against_gold.py)",
    "tests/loaders/test_loader_pdf.py::test_a_sentence_typed_as_a_heading_at_a_page_head_continues_the_paragraph_before_it":
        "paragraph joins (test_paragraph_joins.py)",
    "tests/loaders/test_dehyphenate.py::test_a_paragraph_stopping_on_a_function_word_goes_on_on_the_next_line_whatever_its_case":
        "paragraph joins (test_paragraph_joins.py)",
    "tests/loaders/test_footnotes.py::test_small_type_that_is_no_footnote_stays_a_paragraph": "the footnote rules on the "
                                                                                     "sample report (test_footnotes.py)",
    "tests/evaluate/test_metrics.py::test_the_enumerations_of_a_10k_are_not_mid_sentence_ends": "enumeration ends on small "
                                                                                       "documents (test_metrics.py)",
    "tests/strategies/test_strategy_elements.py::test_real_pdfs[financial_bestbuy-2023-10k.pdf]":
        "the elements strategy on the sample annual report (the same test's other parameter)",
    "tests/evaluate/test_retrieval.py::test_financebench_rows_of_the_shared_pdfs_are_located[financial_bestbuy-2023-10k.pdf-3]":
        "FinanceBench rows located in Ulta's earnings release (the same test's other parameter)",
    "tests/loaders/test_stitch.py::test_a_repeated_header_is_dropped_and_tables_with_headers_of_their_own_stay_apart":
        "table stitching on the sample PDFs (test_stitch.py)",
    "tests/loaders/test_symbol_fonts.py::test_a_10k_covers_check_boxes_read_as_boxes_not_letters":
        "symbol fonts on built pages (test_symbol_fonts.py)",
    "tests/loaders/test_symbol_fonts.py::test_a_control_character_opening_a_line_before_a_word_is_a_bullet":
        "symbol fonts on built pages (test_symbol_fonts.py)",
}


#: the inputs of the strategy matrix `make test` keeps: one of each kind
KEPT_INPUTS = ("sample/contract_services_agreement.pdf", "shared/legal_ukgov-example-mutual-nda.pdf",
               "mineru/naacl-long-107_content_list.json", "markdown/deployment_guide.md", "docjson/document.json")


#: the browser sessions of the review app `make test` keeps
KEPT_BROWSER = ("test_keyboard_verdict_survives_reload", "test_document_text_is_shown_literally_and_never_runs",
                "test_the_served_app_fetches_nothing_from_outside_this_machine")
