"""The selector language (API.md §9): parsing and in-page resolution.

``parse`` turns a selector string into a :class:`ParsedSelector` or :class:`RefSelector`;
``engine`` runs it in each frame's isolated world and returns :class:`Match` objects.
"""

from .parse import CssComplex, ParsedSelector, RefSelector, Selector, TextFilter, parse_selector

__all__ = [
    "CssComplex",
    "ParsedSelector",
    "RefSelector",
    "Selector",
    "TextFilter",
    "parse_selector",
]
