"""What pages other than a record's own show of it: its summary (`model.Summary`)."""

from __future__ import annotations

from .model import Record, Summary
from .search.related import message_words
from .search.template import compile_template


def summarize(record: Record) -> Summary:
    """Return the summary of a record."""
    source, analysis = record.source, record.analysis
    return Summary(
        id=record.id, title=record.title, exception=record.exception, message=record.message,
        path=source.path, line=source.line, function=source.function, commit=source.commit,
        tags=record.tags, status=record.status, written=record.written,
        analysis_date=analysis.date if analysis else None, analysis_commit=analysis.commit if analysis else None,
        variants=tuple(v.message for v in record.variants), related=record.related,
        words=message_words(record.message), pattern=tuple(compile_template(record.message)),
    )
