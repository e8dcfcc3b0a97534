"""Quality re-scoring with pinned scorers: the scorer set (`scorer_set`), batched scoring of clip pairs (`batch_scoring`), and re-scoring with reuse of earlier results (`rescore`)."""
