"""portfolio_generate: a headline, a summary and case studies from a freelancer's projects."""

from aitools.providers.offline.text import (
    Data,
    capitalize,
    clip_words,
    distinct,
    first_sentence,
    join,
    split_sentences,
    stems,
)


def write(data: Data) -> Data:
    skills = distinct(clip_words(skill, 5) for skill in data["skills"]) or ["freelancing"]
    client = clip_words((data.get("targetClient") or "").strip(), 8)
    projects: list[Data] = data["projects"]
    case_studies = [_case_study(project, skills) for project in projects[:20]]
    if not case_studies:
        case_studies = [_sample_case_study(skill, client) for skill in skills[:2]]
    return {
        "headline": _portfolio_headline(skills, client),
        "summary": _portfolio_summary(skills, client, projects),
        "caseStudies": case_studies,
    }


def _portfolio_headline(skills: list[str], client: str) -> str:
    specialist = " & ".join(skills[:2])
    return f"{specialist} specialist helping {client or 'businesses'} turn ideas into results"


def _portfolio_summary(skills: list[str], client: str, projects: list[Data]) -> str:
    parts = [
        f"I am a freelancer specialising in {join(skills[:4])}.",
        f"I work with {client or 'clients'} who want {skills[0]} done properly: a clear scope up "
        "front, regular progress updates and results that are easy to build on.",
    ]
    titles = [clip_words(p["title"], 8) for p in projects[:3]]
    if titles:
        parts.append(f"Recent work includes {join(titles)}.")
    outcomes = [p["outcome"] for p in projects if split_sentences(p.get("outcome") or "")]
    if outcomes:
        parts.append(f"Highlight: {clip_words(first_sentence(outcomes[0]), 25)}")
    return " ".join(parts)


def _case_study(project: Data, skills: list[str]) -> Data:
    title = project["title"].strip()
    sentences = split_sentences(project.get("description") or "")
    words = stems(project.get("description") or "")
    used = [s for s in skills if stems(s) <= words] or skills[:2]
    challenge = (
        sentences[0]
        if sentences
        else f"The client needed {title} delivered to a professional standard."
    )
    approach = " ".join(sentences[1:]) or (
        "I agreed the scope first, delivered a first version early and refined it in short "
        "feedback cycles with the client."
    )
    outcome = (project.get("outcome") or "").strip()
    return {
        "title": title,
        "challenge": clip_words(challenge, 40),
        "solution": f"Using {join(used)}: {clip_words(approach, 50)}",
        "result": clip_words(outcome, 60)
        or f"{title} was delivered and handed over, ready to use.",
    }


def _sample_case_study(skill: str, client: str) -> Data:
    who = client or "a growing business"
    return {
        "title": f"{capitalize(skill)} for {who}",
        "challenge": f"{capitalize(who)} needed {skill} done well, without a long hiring process.",
        "solution": (
            f"I scoped the work in a short call, delivered a first version early and refined it "
            f"with feedback, applying {skill} best practices throughout."
        ),
        "result": f"A sample engagement showing how I deliver {skill}; replace it with a real "
        "project and its numbers once you have one.",
    }
