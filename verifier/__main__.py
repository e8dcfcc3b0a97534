"""`python -m verifier` runs the `verify` command line."""

from verifier.cli import main

if __name__ == "__main__":
    main()
