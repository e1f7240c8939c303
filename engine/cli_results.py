"""What ``hlorun interpret`` writes besides diagnostics: each result (in the spec's
literal syntax, or as a dense attribute), and the profile ``--profile``,
``--profile-top`` and ``--profile-trace`` ask for; shared by the text and the
``--exported`` paths (engine/cli.py, engine/cli_exported.py)."""

from __future__ import annotations

import argparse
import sys


def print_results(results, types, dense: bool, precision: str = "default") -> None:
    from ..parser.ir import DenseElementsAttr, TensorType
    from .format import format_value

    for value, t in zip(results, types):
        if dense and isinstance(t, TensorType):
            from ..parser.printer import print_attribute as format_attribute

            print(format_attribute(DenseElementsAttr(t, value)))
        else:
            print(format_value(value, t, precision))


def make_profile(args: argparse.Namespace):
    """The Profile ``--profile`` / ``--profile-trace`` / ``--profile-top`` fill, or None."""
    if args.profile_trace is not None or args.profile_top is not None:
        from .profile import OpProfile

        return OpProfile(trace=args.profile_trace is not None)
    if args.profile:
        from .plan import Profile

        return Profile()
    return None


def report_profile(args: argparse.Namespace, profile, module) -> None:
    """The table (``--profile``), the top ops (``--profile-top N``) on stderr, and the
    trace file (``--profile-trace FILE``)."""
    if args.profile:
        print(profile.table(), file=sys.stderr)
    if args.profile_top is not None:
        print(profile.top(args.profile_top, module), file=sys.stderr)
    if args.profile_trace is not None:
        profile.write_trace(args.profile_trace, module)
