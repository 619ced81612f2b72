"""Colours of the overlays: a chunk palette that separates neighbours in hue AND lightness.

Even positions are dark, odd positions light, and consecutive hues are far apart, so two
neighbouring chunks differ in colour on screen and in grey level on a greyscale print.
"""

from __future__ import annotations

RGB = tuple[int, int, int]

#: chunk colours (RGB 0-255), alternating dark / light; cycle with `chunk_color(index)`
CHUNK_PALETTE: tuple[RGB, ...] = (
    (31, 90, 180),    # dark blue
    (245, 150, 30),   # light orange
    (20, 130, 60),    # dark green
    (230, 110, 200),  # light pink
    (115, 80, 25),    # dark brown (a red would read as a defect: the defects layer is red)
    (60, 200, 220),   # light cyan
    (100, 50, 160),   # dark purple
    (170, 200, 40),   # light olive
)

#: alpha (0-1) of a chunk's light fill
FILL_ALPHA = 0.16
#: colours of the other layers
NOISE_GREY: RGB = (120, 120, 120)
OVERLAP_COLOR: RGB = (40, 40, 40)
DIFF_A: RGB = (31, 90, 180)   # configuration a: blue
DIFF_B: RGB = (220, 90, 0)    # configuration b: orange
DIFF_SAME: RGB = (20, 130, 60)  # a boundary both configurations share

#: raw element layer: colour per element type
ELEMENT_COLORS: dict[str, RGB] = {
    "heading": (200, 30, 30),
    "paragraph": (40, 90, 200),
    "table": (0, 150, 120),
    "list": (150, 60, 190),
    "code": (120, 80, 20),
    "equation": (200, 120, 0),
    "image": (0, 160, 200),
    "caption": (180, 150, 0),
    "header": (130, 130, 130),
    "footer": (130, 130, 130),
    "page_number": (130, 130, 130),
    "footnote": (100, 140, 60),
    "toc": (110, 90, 150),
    "index": (110, 90, 150),
    "other": (80, 80, 80),
}

_NAMED: dict[str, RGB] = {
    "red": (220, 30, 30), "green": (20, 150, 60), "blue": (31, 90, 200), "orange": (245, 150, 30),
    "black": (0, 0, 0), "white": (255, 255, 255), "grey": (128, 128, 128), "gray": (128, 128, 128),
    "purple": (120, 50, 170), "yellow": (240, 200, 0), "magenta": (210, 0, 160), "cyan": (0, 180, 210),
}


def chunk_color(index: int) -> RGB:
    """The colour of chunk `index` (0-based)."""
    return CHUNK_PALETTE[index % len(CHUNK_PALETTE)]


def darker(color: RGB, factor: float = 0.6) -> RGB:
    """`color` scaled towards black (outlines and labels of light palette colours)."""
    return tuple(int(round(c * factor)) for c in color)  # type: ignore[return-value]


def luminance(color: RGB) -> float:
    """Relative grey level 0-255 (Rec. 601 weights, what a greyscale print roughly shows)."""
    r, g, b = color
    return 0.299 * r + 0.587 * g + 0.114 * b


def relative_luminance(color: RGB) -> float:
    """WCAG 2 relative luminance (0 black to 1 white) of an sRGB colour."""

    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = color
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


def contrast_ratio(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio of two colours, 1 (none) to 21 (black on white); 4.5 is the minimum
    for normal text."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def label_color(color: RGB) -> RGB:
    """Black or white, whichever contrasts more with `color` (WCAG contrast ratio)."""
    black, white = (0, 0, 0), (255, 255, 255)
    return black if contrast_ratio(black, color) >= contrast_ratio(white, color) else white


def readable_on_white(color: RGB, minimum: float = 4.5) -> RGB:
    """`color` darkened just enough to be readable as text on a white page (contrast >= `minimum`)."""
    factor = 1.0
    out = color
    while contrast_ratio(out, (255, 255, 255)) < minimum and factor > 0:
        factor -= 0.05
        out = darker(color, factor)
    return out


def parse_color(value, default_alpha: int = 255) -> tuple[int, int, int, int] | None:
    """RGBA 0-255 from '#rrggbb', '#rrggbbaa', a name, (r, g, b) or (r, g, b, a); None stays None."""
    if value is None:
        return None
    if isinstance(value, str):
        s = value.strip().lower()
        if s in _NAMED:
            return (*_NAMED[s], default_alpha)
        if s.startswith("#") and len(s) in (7, 9):
            try:
                parts = [int(s[i:i + 2], 16) for i in range(1, len(s), 2)]
            except ValueError:
                parts = []
            if parts:
                return (parts[0], parts[1], parts[2], parts[3] if len(parts) == 4 else default_alpha)
        raise ValueError(f"unknown colour {value!r}: use '#rrggbb', '#rrggbbaa', a name or an (r, g, b[, a]) tuple")
    vals = tuple(int(v) for v in value)
    if len(vals) == 3:
        return (*vals, default_alpha)
    if len(vals) == 4:
        return vals
    raise ValueError(f"a colour needs 3 or 4 components, got {value!r}")
