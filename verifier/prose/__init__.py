"""Binding numbers stated in prose to derivations: `binding` (numbers to quantities), `subjects` (whose number a sentence states), `wording` (the words that name keys, statistics and arms)."""
