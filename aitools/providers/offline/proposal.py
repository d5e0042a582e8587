"""proposal_generate: a proposal that retells the brief's needs, then skills, plan and budget."""

from aitools.providers.offline import data as d
from aitools.providers.offline.text import (
    Data,
    as_second_person,
    clip_chars,
    clip_words,
    count_words,
    distinct,
    first_sentence,
    join,
    key_phrases,
    key_terms,
    split_sentences,
    tokens,
    tone_of,
)

PROPOSAL_WORDS = (150, 350)


def write(data: Data) -> Data:
    description: str = data["jobDescription"]
    job_title = (data.get("jobTitle") or "").strip()
    tone = d.PROPOSAL_TONES[tone_of(data.get("tone"))]
    skills = distinct(clip_words(skill, 5) for skill in data["skills"] if skill.strip())[:4]
    # The title states the brief's theme, so it weighs in on which phrases lead.
    phrases = key_phrases(f"{job_title}\n{description}", 5) or ["project"]
    known = {skill.lower() for skill in skills}
    needs = [phrase for phrase in phrases if phrase.lower() not in known] or phrases
    topic = (key_phrases(job_title, 1) or needs)[0]
    name = clip_words((data.get("clientName") or "").strip(), 5)
    budget = clip_words((data.get("budget") or "").strip(), 8)

    greeting = tone["greeting"].format(name=name) if name else tone["greeting_anonymous"]
    body = [
        tone["opening"].format(topic=topic),
        _proposal_understanding(description, needs),
        _proposal_experience(skills, needs),
        _proposal_plan(needs),
    ]
    if budget:
        body.append(_proposal_budget(budget))
    closing = tone["closing"].format(focus=needs[0])
    if count_words([greeting, *body, closing]) < PROPOSAL_WORDS[0]:
        body.append(_proposal_reliability())
    content = "\n\n".join([greeting, *body, closing, tone["signoff"]])
    return {"title": _proposal_title(job_title, description), "content": content}


def _proposal_title(job_title: str, description: str) -> str:
    return clip_chars(job_title or first_sentence(description), 80) or "Proposal"


def _key_sentences(text: str, limit: int) -> list[str]:
    """The sentences that say what the client needs, in their original order.

    A sentence scores the key terms it carries, plus a bonus for wording that states a need
    ("we need", "must", "looking for"), so background like "we are a startup" ranks lower.
    """
    terms = set(key_terms(text, 12))
    sentences = list(dict.fromkeys(split_sentences(text)))
    scores = {}
    for sentence in sentences:
        words = set(tokens(sentence))
        coverage = len(terms & words)
        scores[sentence] = coverage + 2 * bool(coverage and words & d.NEED_WORDS)
    best = set(sorted(sentences, key=lambda s: -scores[s])[:limit])
    return [s for s in sentences if s in best and scores[s] > 0]


def _proposal_understanding(description: str, needs: list[str]) -> str:
    lines = ["Here is what I understand you need:"]
    lines += [f"- {clip_words(as_second_person(s), 25)}" for s in _key_sentences(description, 3)]
    lines.append(f"In short, the key pieces are {join(needs[:3])}.")
    return "\n".join(lines)


def _proposal_experience(skills: list[str], needs: list[str]) -> str:
    pitfalls = "so I know where the usual pitfalls are and how to avoid them early."
    if not skills:
        return f"I have delivered similar work involving {join(needs[:2])}, {pitfalls}"
    return (
        f"I bring hands-on experience with {join(skills)}, exactly what the {needs[0]} calls "
        f"for. I have used {skills[0]} on client work of a similar size, {pitfalls}"
    )


def _proposal_plan(needs: list[str]) -> str:
    return (
        "My plan: 1) a short kickoff to confirm scope, priorities and success criteria; "
        f"2) an early first version of the {needs[0]} so you can give feedback while changes "
        "are cheap; 3) refinement, testing and a clean handover with notes, so you stay in "
        "control after we finish."
    )


def _proposal_budget(budget: str) -> str:
    return (
        f"Your budget of {budget} fits the scope as described. After a quick look at the details "
        "I will confirm a fixed price and timeline, with no surprises along the way."
    )


def _proposal_reliability() -> str:
    return (
        "You can count on clear communication throughout: short progress updates at every "
        "milestone, honest answers when something needs a decision, and your deadline treated "
        "as my own."
    )
