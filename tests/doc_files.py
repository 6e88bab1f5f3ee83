"""Generated test documents: PDFs (multi-page with known text, corrupt, encrypted), DOCX
with headings, Markdown. Written by the tests, never checked in."""

from __future__ import annotations

from pathlib import Path

import docx
from fpdf import FPDF
from fpdf.enums import EncryptionMethod


def make_pdf(path: Path, pages: list[str]) -> Path:
    """A PDF with one page per string (Latin-1 text, wrapped)."""
    pdf = FPDF()
    pdf.set_auto_page_break(auto=False)
    pdf.set_font("helvetica", size=10)
    for body in pages:
        pdf.add_page()
        pdf.set_xy(10, 10)
        pdf.multi_cell(0, 5, body)
    pdf.output(str(path))
    return path


def make_encrypted_pdf(path: Path, text: str = "Top secret page.") -> Path:
    pdf = FPDF()
    pdf.set_font("helvetica", size=10)
    pdf.add_page()
    pdf.multi_cell(0, 5, text)
    pdf.set_encryption(owner_password="owner", user_password="reader",
                       encryption_method=EncryptionMethod.RC4)
    pdf.output(str(path))
    return path


def make_corrupt_pdf(path: Path) -> Path:
    path.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without xref\n")
    return path


def make_docx(path: Path, parts: list[tuple[int, str]]) -> Path:
    """(level, text) pairs: level >= 1 is a heading of that level, 0 a paragraph."""
    document = docx.Document()
    for level, body in parts:
        if level:
            document.add_heading(body, level=level)
        else:
            document.add_paragraph(body)
    document.save(str(path))
    return path


PAGE_TEXTS = [
    "Project Aurora overview. The billing service charges customers every month. "
    "Invoices are produced by the InvoiceBuilder class.",
    "Deployment notes. The cluster runs in three regions with automatic failover. "
    "Operators rotate credentials every ninety days.",
    "Incident history. In March the payment gateway timed out for forty minutes. "
    "The root cause was an expired certificate on the load balancer.",
    "Team contacts. The on-call lead for the storage layer is Margarethe Oyelaran. "
    "Escalations go to the platform director after thirty minutes.",
]
