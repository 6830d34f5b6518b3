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


# ---------------------------------------------------------------- issue 24: one subcommand built
def test_the_static_command_table_is_each_modules_own_help_line():
    # the top-level help lists the commands not built from cli.COMMANDS: each line must be the
    # help its module's add_parser gives (a full build), and the whole help text the same
    full = cli.build_parser()
    actions = full._subparsers._group_actions[0]
    own = {a.dest: a.help for a in actions._choices_actions}
    assert own == {name: line for name, (_module, line) in cli.COMMANDS.items()}
    assert list(actions.choices) == list(cli.COMMANDS)
    for chosen in ["", *cli.COMMANDS]:
        assert cli.build_parser(chosen).format_help() == full.format_help(), chosen


@pytest.mark.parametrize(
    ("argv", "chosen"),
    [
        (["estimate", "--preset", "x"], "estimate"),
        (["--config-dir", "solve", "gpus"], "gpus"),  # the word after --config-dir is its value
        (["--config-dir=/tmp/x", "models"], "models"),
        (["--help"], None),
        (["-h", "estimate"], "estimate"),
        (["--version"], None),
        (["bogus", "estimate"], None),
        (["--", "presets", "list"], "presets"),
        (["--config-dir"], None),
    ],
)
def test_the_subcommand_is_the_first_word_that_is_no_option(argv, chosen):
    assert cli.chosen_command(argv) == chosen


def test_an_estimate_imports_no_other_subcommand():
    code = (
        "import io, sys, contextlib\n"
        "from vramdesk import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = cli.main(['estimate', '--preset', 'llama-3.1-8b', '--context', '8192',"
        " '--json'])\n"
        "others = sorted(m for m in sys.modules if m.startswith('vramdesk.cli.')"
        " and m.split('.')[2] in {mod for mod, _ in cli.COMMANDS.values()} - {'estimate'})\n"
        "print(code, others, 'vramdesk.core.speed' in sys.modules, 'pathlib' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.split() == ["0", "[]", "False", "False"], proc.stderr


def test_help_imports_no_subcommand_and_no_core_module():
    code = (
        "import io, sys, contextlib\n"
        "from vramdesk import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = cli.main(['--help'])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('vramdesk.'))\n"
        "print(code, ' '.join(loaded))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    code, *loaded = proc.stdout.split()
    assert code == "0"
    assert set(loaded) <= {
        "vramdesk.cli",
        "vramdesk.cli._parser",
        "vramdesk.core",
        "vramdesk.core._dataclass_code",
        "vramdesk.core.errors",
        "vramdesk.core.printable",
    }, loaded


def test_the_core_package_names_the_functions_not_the_submodules():
    import vramdesk.core.estimate  # noqa: F401 - the submodule first, as a command imports it
    import vramdesk.core.solve.solver  # noqa: F401
    from vramdesk.core import estimate, solve
    from vramdesk.core.estimate import estimate as estimate_function
    from vramdesk.core.solve.solver import solve as solve_function

    assert estimate is estimate_function and solve is solve_function


def test_a_subcommand_listed_only_is_built_if_argparse_picks_it():
    # chosen_command and argparse agree on every argv above; if they ever did not, the
    # subcommand argparse picks is built then, and parses as a full build does
    argv = ["solve", "--preset", "llama-3.1-8b", "--context", "8192", "--vram-gib", "80"]
    lazy = cli.build_parser("")
    assert vars(lazy.parse_args(argv)) == vars(cli.build_parser().parse_args(argv))


@pytest.mark.parametrize("columns", [None, "", "0", "-5", "abc", "57", "240"])
def test_help_is_as_wide_as_shutil_would_make_it(monkeypatch, columns):
    # the parser sizes its help by the rule of shutil.get_terminal_size without importing it
    import shutil

    from vramdesk.cli._parser import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.delenv("LINES", raising=False)
    assert terminal_columns() == shutil.get_terminal_size().columns


def test_building_a_parser_imports_no_shutil():
    code = (
        "import sys\n"
        "from vramdesk import cli\n"
        "cli.build_parser('estimate')\n"
        "print('shutil' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.strip() == "False", proc.stderr


@pytest.mark.parametrize("argv", [["--help"], ["bogus"], ["estimate", "--preset", "x"]])
def test_the_collector_is_on_again_after_the_process_own_command(monkeypatch, argv, capsys):
    # main() with no argv (the console script) runs its imports with the cyclic GC off
    import gc

    monkeypatch.setattr(sys, "argv", ["vramdesk", *argv])
    try:
        cli.main()
        assert gc.isenabled()
    finally:
        gc.unfreeze()  # what the command froze is this test process's, not an exiting one's
        gc.enable()
    capsys.readouterr()
