"""`python -m hermeslite` runs the same entry point as the `hermeslite` command."""

from hermeslite.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
