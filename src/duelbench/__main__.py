"""``python -m duelbench``: the same as the ``duelbench`` command."""

from duelbench.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
