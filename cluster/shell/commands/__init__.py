"""The programs a simulated container can run, by name, and the shells' builtins."""

from __future__ import annotations

from cluster.shell.commands import archive, builtins, dns, files, network, servers, shells, system, text


def not_simulated(sh, argv: list[str], io) -> int:
    """A program the image has but the simulation does not run: say so rather than pretend."""
    io.write_err(f"{argv[0]}: this program is in the image, but KubeSim does not simulate it\n")
    return 126


BUILTINS = builtins.BUILTINS
PROGRAMS = {
    # /bin/pwd, /bin/true, /bin/false, /usr/bin/test: the builtins when run without a shell
    # (`kubectl cp` runs `test -d DEST` first)
    **{name: BUILTINS[name] for name in ("pwd", "true", "false", "test", "[")},
    **archive.PROGRAMS,
    **files.PROGRAMS,
    **text.PROGRAMS,
    **system.PROGRAMS,
    **servers.PROGRAMS,
    **network.PROGRAMS,
    **dns.PROGRAMS,
    **shells.PROGRAMS,
}
