"""The profile language: loading and checking a profile (`language`), its author's lint (`profile_lint`), and whether a folder is one bundle before a profile reads it (`folders`)."""
