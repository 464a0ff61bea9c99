"""plot_scaling.py on the first two points of each series: the table and the PNG it writes.

A plain test (no benchmark fixture), so that the script cannot rot between the runs that
refresh docs/images/scaling.png; the full run holds gigabytes and takes a minute.
"""

import dataclasses

import plot_scaling
from cvcclock.bench._cases import scaling_series


def test_two_points_a_series_make_a_table_and_a_png(tmp_path):
    results = []
    for series in scaling_series():
        small = dataclasses.replace(series, xs=series.xs[:2])
        figures, skipped = plot_scaling.measure(small, repeat=1, seconds=1e-4)
        table = plot_scaling.markdown(small, figures).splitlines()
        assert table[0].startswith(small.title) and len(table) == 4 + len(small.xs)
        for line, points in figures.items():
            assert set(points) == set(small.xs) or any(line in s for s in skipped), line
            assert all(value > 0 for value in points.values())
        results.append((small, figures))
    out = tmp_path / "images" / "scaling.png"
    plot_scaling.plot(results, out, "two points a series")
    assert out.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
