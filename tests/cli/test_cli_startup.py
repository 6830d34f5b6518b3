"""What ``vramdesk`` with no arguments pays before the window: no parser, no package metadata.

Issue 11: the command a user runs went through argparse (every subcommand's parser, about
6 ms) and read the installed version through ``importlib.metadata`` (about 25 ms) before it
opened the window. The version is read only for ``--version``.
"""

import subprocess
import sys

import pytest

from vramdesk import cli


def test_no_arguments_opens_the_window_without_building_the_parser(monkeypatch):
    opened = []

    def no_parser():
        raise AssertionError("the parser was built for a plain `vramdesk`")

    monkeypatch.setattr(cli, "build_parser", no_parser)
    monkeypatch.setattr(cli, "_run_gui", lambda argv: opened.append(list(argv)) or 0)
    assert cli.main([]) == 0
    assert opened == [[]]


def test_options_still_go_through_the_parser(monkeypatch):
    # --config-dir alone is the window too, but it has to be parsed (and is dropped from argv)
    opened = []
    monkeypatch.setattr(cli, "_run_gui", lambda argv: opened.append(list(argv)) or 0)
    monkeypatch.delenv("VRAMDESK_CONFIG_DIR", raising=False)
    assert cli.main(["--config-dir", "/tmp/vd-startup-test"]) == 0
    assert opened == [[]]
    monkeypatch.delenv("VRAMDESK_CONFIG_DIR", raising=False)


@pytest.mark.parametrize("args", [[], ["--help"]])
def test_package_metadata_is_read_only_for_version(args):
    # a fresh interpreter: importing the command line and building its parser (what every
    # command does) must not import importlib.metadata; --version still prints the version
    code = (
        "import sys\n"
        "from vramdesk import cli\n"
        "parser = cli.build_parser()\n"
        f"parser.format_help() if {bool(args)} else None\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False", proc.stderr


def test_version_reads_the_metadata_when_asked(capsys):
    import vramdesk

    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"vramdesk {vramdesk.__version__}\n"


def test_version_into_a_closed_pipe_is_not_an_error(monkeypatch):
    # `vramdesk --version | true` with unbuffered output: the write fails; as with argparse's
    # own version action, that is dropped and the status is still 0
    class ClosedPipe:
        def write(self, _text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert cli.main(["--version"]) == 0
