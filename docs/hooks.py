"""MkDocs hooks of the site build (`make docs`): jieba, which the search plugin uses for the
document's CJK examples when it is installed (MinerU brings it), logs its model loading to
stderr at DEBUG; the build says only what concerns the docs."""

import logging


def on_startup(command, dirty):  # noqa: ARG001 - MkDocs' hook signature
    logging.getLogger("jieba").setLevel(logging.WARNING)
    try:
        import jieba
    except ImportError:
        return
    jieba.setLogLevel(logging.WARNING)
