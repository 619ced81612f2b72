"""Keyboard shortcuts of the review app: which keys give which verdict or move, and the
document-level listener (a Panel JSComponent) that sends them to Python."""

from __future__ import annotations

import panel as pn
import param

#: keyboard keys → verdict codes
KEYS: dict[str, str] = {
    "1": "ok", "o": "ok",
    "2": "should_merge", "m": "should_merge",
    "3": "should_split_elsewhere", "s": "should_split_elsewhere",
    "4": "wrong_type", "t": "wrong_type",
}
NAV_KEYS = {"n": "next", "arrowright": "next", "p": "previous", "arrowleft": "previous"}


class KeyboardShortcuts(pn.custom.JSComponent):
    """A document-level keydown listener that sends shortcut keys to Python.

    Keys typed into inputs, text areas or editors are ignored; in a focused dropdown only its arrow
    keys are left to it (the filter dropdown kept every key before). Inside a notebook (`scoped=True`)
    only keys pressed while the focus is inside the app count, and Jupyter's own shortcuts are
    suppressed there so that 'm' does not turn the cell into Markdown."""

    keys = param.List(default=[])
    scoped = param.Boolean(default=False)

    _esm = """
    export function render({ model, el }) {
      const keys = new Set(model.keys);
      const app = () => { let n = el; while (n && n.getRootNode && n.getRootNode().host) n = n.getRootNode().host; return n; };
      if (model.scoped) {
        // notebook: the app takes focus when clicked, and JupyterLab leaves keys pressed there alone
        const top = app();
        if (top && top.setAttribute) {
          top.setAttribute('data-lm-suppress-shortcuts', 'true');
          if (!top.hasAttribute('tabindex')) top.setAttribute('tabindex', '0');
          top.style.outline = 'none';
        }
      }
      const handler = (e) => {
        // an output that is gone (its cell re-run or cleared) must not steer its old app any more
        if (!el.isConnected) { document.removeEventListener('keydown', handler); return; }
        if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
        const path = e.composedPath();
        const t = path[0];
        const tag = (t && t.tagName) ? t.tagName.toUpperCase() : '';
        if (tag === 'INPUT' || tag === 'TEXTAREA' || (t && t.isContentEditable)) return;
        if (model.scoped && !path.includes(app())) return;
        const k = e.key.toLowerCase();
        if (!keys.has(k)) return;
        // a focused dropdown keeps its arrow keys; any other shortcut works there too, and the
        // dropdown lets go of the focus so the next key does not pick one of its options
        if (tag === 'SELECT') {
          if (k.startsWith('arrow')) return;
          t.blur();
        }
        e.preventDefault();
        model.send_msg({key: k});
      };
      document.addEventListener('keydown', handler);
      model.on('remove', () => document.removeEventListener('keydown', handler));
      el.style.display = 'none';
    }
    """

    def __init__(self, callback, **params):
        super().__init__(**params)
        self._callback = callback

    def _handle_msg(self, msg) -> None:
        key = str((msg or {}).get("key", ""))
        if key in self.keys:
            self._callback(key)
