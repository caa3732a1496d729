"""Minimal, valid PDFs written byte by byte (no PDF-writing library needed)."""

from __future__ import annotations

import zlib


def make_pdf(text: str, title: str = "Test PDF", *, pages: int = 1, repeat: int = 1) -> bytes:
    """A PDF of `pages` pages that each show `text` (ASCII, no parentheses) `repeat` times in Helvetica.

    The pages share one compressed content stream, so a PDF that is costly to read stays small on the
    wire: 40 pages of 500 lines are about 2 KB."""
    lines = "".join(f"BT /F1 12 Tf 72 {720 - i % 700} Td ({text}) Tj ET\n" for i in range(repeat)).encode()
    stream, filters = (zlib.compress(lines, 9), b" /Filter /FlateDecode") if repeat > 1 else (lines, b"")
    kids = " ".join(f"{7 + i} 0 R" for i in range(pages)).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d%s >>\nstream\n" % (len(stream), filters) + stream + b"\nendstream",
        f"<< /Title ({title}) >>".encode(),
        b"<< /Font << /F1 3 0 R >> >>",
        *(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources 6 0 R >>"
            for _ in range(pages)
        ),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
