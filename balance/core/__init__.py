"""The core rules: d20 roll-under Tests, dying and critical injuries, treatment, price
negotiation, the Rest score, Reactions and Complex Actions, and the processes built on them
(rescue of a dying character, a campaign of fights).

Each module is one rule of the core rules document, named as the designers name it; the
notebook surface reaches them as ``bl.d20``, ``bl.injuries``, ``bl.treatment``,
``bl.negotiation``, ``bl.rest``, ``bl.timeline``, ``bl.rescue`` and ``bl.campaign``.
"""
