"""Test-session set-up shared by every test file."""
import signal


def pytest_configure(config):
    # A suite started from a non-interactive shell's background job ('bash .ci/run &')
    # inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler:
    # the Ctrl-C tests of the tuner (and the programs they start) would see SIG_IGN.
    # Give the process Python's own handler, as a terminal would.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
