"""`python -m hermeslite` runs the same entry point as the `hermeslite` command."""

from hermeslite.cli import run

if __name__ == "__main__":
    run()
