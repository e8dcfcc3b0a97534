"""`python -m verifier` runs the `verify` command line (through the whole-report fast path, `verifier.fastpath`)."""

from verifier.fastpath import main

if __name__ == "__main__":
    main()
