"""ConflictScore's claims × documents matrix as a colour grid, conflicted claims first,
with CS-C and CS-R above it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from conflictdesk.terminal import safe, safe_line

CELLS = {
    "SUPPORTS": ("S", "bold white on #2e7d32"),
    "CONTRADICTS": ("C", "bold white on #c62828"),
    "IRRELEVANT": ("·", "dim"),
}


def is_conflicted(claim: dict[str, Any]) -> bool:
    """ConflictScore: a claim with at least one supporting and one contradicting document."""
    if "conflict" in claim:
        return bool(claim["conflict"])
    relations = claim.get("relations") or []
    return "SUPPORTS" in relations and "CONTRADICTS" in relations


def ordered_claims(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Conflicted claims first, then contradicted ones, each group in response order."""
    claims = result.get("claims") or []
    return sorted(
        claims,
        key=lambda c: (not is_conflicted(c), "CONTRADICTS" not in (c.get("relations") or [])),
    )


def _metric(value: float | None) -> str:
    """CS-C / CS-R, or a dash when undefined (no claim had any evidence)."""
    return "—" if value is None else f"{float(value):.2f}"


class ClaimGrid(Vertical):
    """The summary line, the grid, and the selected claim's relations in full."""

    def compose(self) -> ComposeResult:
        yield Static("Score a response to see its claims against each document.", id="cs-summary")
        yield DataTable(id="claim-table", cursor_type="row", zebra_stripes=False)
        yield Static("", id="claim-detail")

    def show(self, result: dict[str, Any]) -> None:
        self._result = result
        self._claims = ordered_claims(result)
        documents = result.get("documents") or []
        conflicted = sum(is_conflicted(c) for c in self._claims)
        summary = Content.from_markup(
            "[b]CS-C[/b] $csc  [b]CS-R[/b] $csr  [dim]$k of $n claims conflicted · "
            "[on #2e7d32] S [/] supports [on #c62828] C [/] contradicts · irrelevant[/]",
            csc=_metric(result.get("cs_c")),
            csr=_metric(result.get("cs_r")),
            k=conflicted,
            n=len(self._claims),
        )
        if result.get("method"):
            summary += Content.styled(f"\n{safe(result['method'])}", "dim")
        self.query_one("#cs-summary", Static).update(summary)
        table = self.query_one("#claim-table", DataTable)
        table.clear(columns=True)
        table.add_column("", key="flag", width=1)
        for n, _ in enumerate(documents, start=1):
            table.add_column(f"D{n}", key=f"d{n}", width=3)
        table.add_column("Claim", key="claim")
        for row, claim in enumerate(self._claims):
            cells = [
                Text(f" {CELLS.get(r, ('?', ''))[0]} ", style=CELLS.get(r, ("?", ""))[1])
                for r in claim.get("relations") or []
            ]
            flag = Text("!", style="bold red") if is_conflicted(claim) else Text(" ")
            table.add_row(flag, *cells, Text(safe_line(claim.get("text", ""))), key=str(row))
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
        documents = self._result.get("documents") or []
        confidences = claim.get("confidences") or []
        lines = [Content.from_markup("[b]$text[/b]", text=safe(claim.get("text", "")))]
        for n, relation in enumerate(claim.get("relations") or []):
            title = documents[n].get("title") if n < len(documents) else None
            conf = f" {float(confidences[n]):.2f}" if n < len(confidences) else ""
            lines.append(
                Content.from_markup(
                    "  D$n $title: $rel$conf",
                    n=n + 1,
                    title=safe_line(title or "untitled"),
                    rel=safe_line(relation),
                    conf=conf,
                )
            )
        detail.update(Content("\n").join(lines))
