"""One row of the options' table (:data:`~geoanon.options.table.OPTIONS`):
an option's API name, the jobs that offer it, its kind, flag, job-file key
and engines; each location kind declares its own rows
(:data:`~geoanon.options.locations.LOCATIONS`). Light to import: the command
line builds its parser from the rows."""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from ..constraints import StrOptions
from . import values
from .values import Kind

__all__ = ["BOTH", "MEMORY", "Option", "choice_option"]

BOTH = ("memory", "dask")
MEMORY = ("memory",)


@dataclass(frozen=True)
class Option:
    """One option of the jobs in ``commands``.

    ``name`` is the API keyword; ``flag`` the command-line flag (None: none;
    ``aliases`` its other spellings); ``key`` the job file's ``section.key``
    (None: not in job files); ``engines`` those that support it; ``default``
    the value when it is not given (on the command line too); ``repeat``: a
    flag given once per value (``--hierarchy A=F --hierarchy B=G``);
    ``required``: the command needs it; ``api``: the engines whose job
    function takes it as a keyword (default: those that support it; none for
    what only the front ends do, such as writing a map); ``rule``: what a
    value must be (:mod:`geoanon.constraints`; a choice's are its choices).
    """

    name: str
    commands: tuple
    kind: Kind
    help: str
    flag: str | None = None
    key: str | None = None
    engines: tuple = BOTH
    default: object = None
    metavar: str | None = None
    aliases: tuple = ()
    choices: tuple | None = None
    repeat: bool = False
    required: bool = False
    group: str | None = None          # the command line's argument group
    api: tuple | None = None
    why: str = ""                     # why the engines without it lack it, for the refusal
    rule: object = object             # what a value must be beyond its kind (geoanon.constraints; object: anything)

    def __post_init__(self):
        if self.api is None:
            object.__setattr__(self, "api", self.engines)

    @property
    def dest(self) -> str:
        """The attribute argparse stores the flag's value under."""
        return self.name

    def argument(self, parser) -> None:
        """Add the row's flag to ``parser`` (an argparse parser or group)."""
        kwargs = {"dest": self.dest, "help": self.help.replace("%", "%%")}
        if self.kind is values.FLAG:        # on by default: --no-NAME turns it off
            kwargs.update(action=argparse.BooleanOptionalAction if self.default else "store_true",
                          default=self.default)
        elif self.choices is not None:
            kwargs.update(choices=self.choices, metavar="{" + ",".join(self.choices) + "}")
        else:
            kwargs["type"] = self.kind.parse
            if self.metavar:
                kwargs["metavar"] = self.metavar
        if self.repeat:
            kwargs.update(action="append", default=[])
        elif self.kind is not values.FLAG:
            kwargs["default"] = self.default
        if self.required:
            kwargs["required"] = True
        parser.add_argument(*self.flags(), **kwargs)

    def flags(self) -> tuple:
        return (self.flag, *self.aliases)


def choice_option(name, commands, options, help, *, flag=None, key=None, engines=BOTH, default=True, **more) -> Option:
    """An option taking one of ``options``: its default the first of them
    (said in the help), or None (the library decides, as ``help`` says)."""
    return Option(name, commands, values.choice(options), help + (f" (default: {options[0]})" if default else ""),
                  flag=flag or "--" + name.replace("_", "-"), key=key, engines=engines,
                  default=options[0] if default else None, choices=options,
                  rule=StrOptions(options) if default else (None, StrOptions(options)), **more)
