"""A simulated shell inside a simulated container, true to the container's image.

`kubectl exec` (the pods/exec websocket) and the web console's `exec` both run commands here:
`profiles` says what an image holds (its files, programs, processes, environment, server),
`rootfs` + `overlay` + `filesystem` give the container its files, `lexer` and `interpreter` run
a command line, `commands/` are the programs, `terminal` is the tty's line discipline and
`session` ties a `docker exec` together.
"""
