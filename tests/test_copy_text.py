"""COPY rows encoded by graphrag.db.copy_text read back exactly as written (real database)."""

from __future__ import annotations

import json

from graphrag.db.copy_text import copy_rows

ROWS = [
    (1, "plain", ["a", "b"], [1, 2, 3], 0.5, True, '{"k": "v"}'),
    # every character COPY's text format treats specially, in texts and in array items
    (2, "tab\there\nnew line\r\\back\\slash \\N", ["NULL", "x,y", 'q"uote', "b\\s", "t\tn\n",
                                                   "", "{brace}", " sp "],
     [], -1.25e-7, False, '{"s": "a\\"b\\\\c\\n"}'),
    (3, "", [], [-5], 1e300, None, None),
    (4, None, None, None, None, None, "[]"),
    (5, "ünïcødé ✓ 𝔘", ["ünï", "✓"], [0], 0.1, True, '{"u": "ü"}'),
    (6, "mixed", ["a", None, "c"], [7], 3.0, True, "{}"),
]


def test_rows_round_trip(engine) -> None:
    with engine.begin() as conn:
        cur = conn.connection.driver_connection.cursor()
        cur.execute("CREATE TEMP TABLE t_copy (id int, s text, names text[], nums int[],"
                    " f float8, b bool, j jsonb) ON COMMIT DROP")
        copy_rows(cur, "COPY t_copy (id, s, names, nums, f, b, j) FROM STDIN", iter(ROWS),
                  batch=2)
        got = cur.execute("SELECT id, s, names, nums, f, b, j::text FROM t_copy"
                          " ORDER BY id").fetchall()
    for row, back in zip(ROWS, got, strict=True):
        assert back[:6] == row[:6], (row, back)
        assert (json.loads(back[6]) if back[6] else None) == \
            (json.loads(row[6]) if row[6] else None)
