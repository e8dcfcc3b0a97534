"""Commands other than `verify PATH`, each composing the package for one job: `manifest`, `repository` (`verify inventory`), `explain` and `profile_check` (`verify profile ...`), `trustroot_cmds`."""
