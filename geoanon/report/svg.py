"""Figures of the HTML report as inline SVG, the same bytes for the same figure."""
from __future__ import annotations

import io

__all__ = ["SVG_STYLE", "svg_text"]


def svg_text(fig) -> str:
    """A matplotlib figure as inline SVG, the same bytes for the same figure (inside :data:`SVG_STYLE`)."""
    ax = fig.axes[0]
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    text = out.getvalue()
    return text[text.index("<svg"):]


SVG_STYLE = {"svg.hashsalt": "geoanon", "svg.fonttype": "path", "font.size": 9}
