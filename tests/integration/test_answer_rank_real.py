"""The trained answer ranker on the shipped models and the example collection: the leading
answer of each example question does not change with its wording, and it is held only by
passages about the question's subject."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.pipeline import AnalysisOptions, analyze
from conflictdesk.analysis.types import QueryForm
from tests.integration.test_paraphrases_real import SUBJECTS, WORDINGS

pytestmark = pytest.mark.integration

WH_ITEMS = sorted(k for k, qs in WORDINGS.items() if not qs[0].lower().startswith("does"))


@pytest.mark.parametrize("item", WH_ITEMS, ids=str)
def test_ranked_lead_does_not_change_with_wording(backends, example_passages, item):
    options = AnalysisOptions(ranker="model")
    leads = {}
    for query in WORDINGS[item]:
        analysis = analyze(query, example_passages, backends, options=options)
        frame = analysis.tagging.frame
        assert frame.form is QueryForm.WH
        if frame.candidates and frame.candidates[0].kind != "sentence":
            assert "+ranker:" in frame.method, frame.method
        for pid in frame.candidates[0].passage_ids if frame.candidates else ():
            passage = analysis.passage(pid)
            assert SUBJECTS[item] in f"{passage.title} {passage.text}".lower(), (query, pid)
        leads[query] = (frame.leading or "").lower()
    assert len(set(leads.values())) == 1, leads
