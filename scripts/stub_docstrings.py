"""Write the compiled core's docstrings into its stubs, src/cvcclock/_core.pyi.

The docstrings live once, in src/_core (what ``help()`` shows); the stubs carry copies so that
editors and type checkers show the same text. Run this after changing a docstring in the core
(and reinstalling: it reads the installed module); tests/project/test_types.py fails until
the copies match. ``--check`` only reports the differences.

    python scripts/stub_docstrings.py [--check]
"""

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "project"))

# The one rule for which text each definition carries lives beside the test that checks it.
from test_types import docstring_mismatches, runtime_docstring, stub_definitions  # noqa: E402

STUB = ROOT / "src" / "cvcclock" / "_core.pyi"


def _literal(doc: str, indent: str) -> str:
    lines = doc.split("\n")
    if len(lines) == 1 and not doc.endswith('"'):
        return f'"""{doc}"""'
    rest = "".join(f"\n{indent}{line}" if line else "\n" for line in lines[1:])
    return f'"""{lines[0]}{rest}\n{indent}"""'


def rewrite(source: str) -> str:
    """``source`` with every definition's docstring made the runtime's."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits = []   # (start, end, text) in character offsets of source
    for name, node in stub_definitions(ast.parse(source)):
        want = runtime_docstring(name, node)
        first = node.body[0]
        has_doc = (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                   and isinstance(first.value.value, str))
        if ast.get_docstring(node) == want:
            continue
        indent = " " * (node.col_offset + 4)
        start = offsets[first.lineno - 1] + first.col_offset
        end = offsets[first.end_lineno - 1] + first.end_col_offset
        if want is None:   # only a docstring that should not be there: the body becomes ...
            edits.append((start, end, "..."))
            continue
        text = _literal(want, indent)
        before = lines[first.lineno - 1][:first.col_offset]
        if before.strip():   # ``def ...: ...`` on one line: the body goes below the colon
            start -= len(before) - len(before.rstrip())
            text = f"\n{indent}{text}"
        if has_doc or (isinstance(node, ast.FunctionDef) and len(node.body) == 1):
            edits.append((start, end, text))   # replace the docstring, or a body of ``...``
        else:
            edits.append((start, start, f"{text}\n\n{indent}"))   # before a class's first line
    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report differences, write nothing")
    args = parser.parse_args()
    source = STUB.read_text()
    if args.check:
        wrong = docstring_mismatches(source)
        for name, *_ in wrong:
            print(f"{STUB}: {name}: the docstring is not the compiled module's")
        return 1 if wrong else 0
    new = rewrite(source)
    if new != source:
        STUB.write_text(new)
    left = docstring_mismatches(new)
    print(f"{STUB}: {len(docstring_mismatches(source)) - len(left)} docstrings written")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
