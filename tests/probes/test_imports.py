"""The probes stay out of ``import infometer`` and keep heavy libraries lazy."""

from __future__ import annotations

import subprocess
import sys


def test_probes_import_light():
    code = (
        "import sys, infometer as im\n"
        "assert 'infometer.systems.probes' not in sys.modules\n"
        "im.methods('mutual_info_lower_bound')\n"  # loads the families, decoding included
        "from infometer.systems.probes import decoding, alignment, imagemaps, clib\n"
        "assert im.probes.decoding is decoding\n"
        "print(sorted(m for m in ('torch', 'sklearn', 'matplotlib', 'transformers')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
