"""``python -m cvcclock``: the command line, :func:`cvcclock.cli.main`."""

import sys

from cvcclock.cli import main

if __name__ == "__main__":
    sys.exit(main())
