"""A table the benchmark modules print after their rows: pytest-benchmark's own table keeps
only times, and these rows are ratios and errors."""


def write_table(config, title, lines):
    """Write ``title`` and ``lines`` to the terminal, past pytest's output capture.

    Nothing when there are no lines (no row ran) or pytest has no terminal (``-p no:terminal``).
    """
    plugins = config.pluginmanager
    reporter = plugins.getplugin("terminalreporter")
    capture = plugins.getplugin("capturemanager")
    if not lines or reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():   # fd capture would swallow the table
        reporter.write_line("")
        reporter.write_line(title)
        for line in lines:
            reporter.write_line("  " + line)
