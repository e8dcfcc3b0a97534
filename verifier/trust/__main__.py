"""`python -m verifier.trust ROOT`: re-pin `inventory.json` (`verifier.trust.assets.main`)."""

import sys

from verifier.trust.assets import main

sys.exit(main(sys.argv[1:]))
