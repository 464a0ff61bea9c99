"""How to install an optional extra, in the words every hint uses (library and command line).

A private helper any layer may import: it imports nothing. The checkout form comes first: it is
the one that works for someone who cloned the repository; the index form is for an install
from a package index.
"""

from __future__ import annotations

__all__ = ["install_hint"]


def install_hint(extra: str) -> str:
    """The commands that install the optional ``extra``: from a checkout, and from an index.

    Parameters
    ----------
    extra : str
        The extra's name in pyproject.toml (``"dask"``, ``"plot"``).

    Returns
    -------
    str
        ``"pip install '.[dask]' (in a checkout) or pip install 'cvcclock[dask]' (from an
        index)"`` for ``"dask"``.
    """
    return (f"pip install '.[{extra}]' (in a checkout) or pip install 'cvcclock[{extra}]' "
            "(from an index)")
