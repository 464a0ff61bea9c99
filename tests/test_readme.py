"""The README stays true: its Python examples run as written (sleeps shortened)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_examples_run():
    assert BLOCKS
    namespace = {}
    for block in BLOCKS:
        exec(block.replace("time.sleep(1 / 60)", "time.sleep(0.0005)"), namespace)
