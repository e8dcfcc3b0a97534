"""JSON Schema validation of our own schemas: the reference validators (`validation`) and the compiled pre-filter (`compiled_schema`)."""
