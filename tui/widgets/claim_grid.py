"""ConflictScore's claims × documents matrix as a colour grid, conflicted claims first,
with CS-C and CS-R above it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from conflictdesk.app import ScoredClaim, ScoreView
from conflictdesk.terminal import safe, safe_line
from conflictdesk.types import Relation

CELLS = {
    Relation.SUPPORTS: ("S", "bold white on #2e7d32"),
    Relation.CONTRADICTS: ("C", "bold white on #c62828"),
    Relation.IRRELEVANT: ("·", "dim"),
}


def ordered_claims(claims: Sequence[ScoredClaim]) -> list[ScoredClaim]:
    """Conflicted claims first, then contradicted ones, each group in response order."""
    return sorted(claims, key=lambda c: (not c.conflict, Relation.CONTRADICTS not in c.relations))


def _metric(value: float | None) -> str:
    """CS-C / CS-R, or a dash when undefined (no claim had any evidence)."""
    return "—" if value is None else f"{float(value):.2f}"


class ClaimGrid(Vertical):
    """The summary line, the grid, and the selected claim's relations in full."""

    def compose(self) -> ComposeResult:
        yield Static("Score a response to see its claims against each document.", id="cs-summary")
        yield DataTable(id="claim-table", cursor_type="row", zebra_stripes=False)
        yield Static("", id="claim-detail")

    def show(self, view: ScoreView) -> None:
        self._view = view
        self._claims = ordered_claims(view.claims)
        conflicted = sum(c.conflict for c in self._claims)
        summary = Content.from_markup(
            "[b]CS-C[/b] $csc  [b]CS-R[/b] $csr  [dim]$k of $n claims conflicted · "
            "[on #2e7d32] S [/] supports [on #c62828] C [/] contradicts · irrelevant[/]",
            csc=_metric(view.cs_c),
            csr=_metric(view.cs_r),
            k=conflicted,
            n=len(self._claims),
        )
        if view.method:
            summary += Content.styled(f"\n{safe(view.method)}", "dim")
        self.query_one("#cs-summary", Static).update(summary)
        table = self.query_one("#claim-table", DataTable)
        table.clear(columns=True)
        table.add_column("", key="flag", width=1)
        for n, _ in enumerate(view.documents, start=1):
            table.add_column(f"D{n}", key=f"d{n}", width=3)
        table.add_column("Claim", key="claim")
        for row, claim in enumerate(self._claims):
            cells = [Text(f" {CELLS[r][0]} ", style=CELLS[r][1]) for r in claim.relations]
            flag = Text("!", style="bold red") if claim.conflict else Text(" ")
            table.add_row(flag, *cells, Text(safe_line(claim.text)), key=str(row))
        self._describe(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._describe(event.cursor_row)

    def _describe(self, index: int) -> None:
        claims = getattr(self, "_claims", [])
        detail = self.query_one("#claim-detail", Static)
        if not claims:
            detail.update(
                "No claims were extracted from the response, so CS-C and CS-R are undefined."
            )
            return
        if not 0 <= index < len(claims):
            detail.update("")
            return
        claim = claims[index]
        documents, confidences = self._view.documents, claim.confidences
        lines = [Content.from_markup("[b]$text[/b]", text=safe(claim.text))]
        for n, relation in enumerate(claim.relations):
            title = documents[n].title if n < len(documents) else None
            confidence = confidences[n] if n < len(confidences) else None
            conf = f" {confidence:.2f}" if confidence is not None else ""
            lines.append(
                Content.from_markup(
                    "  D$n $title: $rel$conf",
                    n=n + 1,
                    title=safe_line(title or "untitled"),
                    rel=safe_line(relation.value),
                    conf=conf,
                )
            )
        detail.update(Content("\n").join(lines))
