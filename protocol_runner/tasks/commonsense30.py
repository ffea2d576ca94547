"""``commonsense30``: the 30 Commonsense170k instances of the SAC paper, as a built-in task set.

The closed-source commonsense experiments of Lee et al. (2026) (Tables 1 and 2, strong gpt-5,
weak gpt-4o) use 30 instances sampled from the Commonsense170k collection of Hu et al. (2023);
the paper lists them in App. C.1.2, Table 8: each one's qid, an abbreviated question (with its
choices) and the ground-truth label "as released". The records below are those facts, entered
from Table 8, grouped as the table groups them. Each instance keeps its native answer format:

- true/false (15, BoolQ-style): kind ``bool``, answers ``true``/``false``;
- two-option pronoun resolution (5): kind ``choice``, labels ``option1``/``option2``;
- multiple choice (7): labels ``answer1..answer3`` or ``answer1..answer4``, or
  ``solution1``/``solution2``;
- sentence completion (3): labels ``ending1..ending4``.

The question texts are the paper's abbreviations, not the full problem statements (which the
public release holds under the same qid), so a real model sees a shorter question than the
paper's models did; the simulated agents need only the question and its answer. Task ids are
the qids; ``source`` names the table.

References
----------
H. Lee, V.-D. Yun, H. Oh, D. Panagou and S. P. Karimireddy, "Robust Multi-Agent LLMs under
Byzantine Faults", arXiv:2605.09076, 2026, App. C.1.2, Table 8. Commonsense170k: Z. Hu et al.,
"LLM-Adapters", EMNLP 2023.
"""

from __future__ import annotations

from functools import lru_cache

from protocol_runner.tasks.model import Task
from protocol_runner.tasks.taskset import TaskSet

__all__ = ["COMMONSENSE30", "SOURCE", "commonsense30"]

COMMONSENSE30 = "commonsense30"
"""The task spec naming the set (``commonsense30[:LIMIT][:offset=K]``)."""
SOURCE = "commonsense170k (Lee et al. 2026, App. C Table 8)"

_TRUE_FALSE = (
    ("50816f9e", "Is there a season 3 of Wrecked?", "true"),
    ("4ba7682f", "Does Las Vegas have a professional football team?", "true"),
    ("17f50271", "Can a person be jailed for civil contempt of court?", "true"),
    ("4d7cce65", "Has Maroon 5 ever performed at a Super Bowl?", "true"),
    ("84e37998", "Is I Know Why the Caged Bird Sings a memoir?", "true"),
    ("4bb2e906", "Is Varsity Blues based on a true story?", "false"),
    ("433f24bc", "Does it count if you hit the backboard on a free throw?", "true"),
    ("b4c59eee", "Can you remove the venom glands from a snake?", "true"),
    ("0c7abae6", "Is the Statue of Liberty in New Jersey?", "false"),
    ("a461f8a8", "Can you send a letter without a return address?", "true"),
    ("f448271b", "Is it illegal to pass on a solid yellow line?", "false"),
    ("28225993", "Can you score an own goal from a direct free kick?", "true"),
    ("90b6886c", "Do red, yellow, and orange peppers taste different?", "true"),
    ("a03e3147", "Is there a fifth season of Mom?", "true"),
    ("07250c0c", "Are The Five Heartbeats based on a real group?", "false"),
)
"""(qid, question, answer) of Table 8's true/false group."""

_CHOICE = (
    # Two-option pronoun resolution
    ("263ebb80", "Embroidery: when threading the needle, the _ was too thick.",
     ("needle", "floss"), "option2"),
    ("c3a49074", "Felicia asked Katrina about new technology because _ was interested.",
     ("Felicia", "Katrina"), "option1"),
    ("60091082", "Movers wanted to store the boxes in the offices, but the _ were too small.",
     ("offices", "boxes"), "option1"),
    ("2e8510fe", "Elena loves to read books but Jessica does not; _ bought videos all the time.",
     ("Elena", "Jessica"), "option2"),
    ("08a09099", "The public elected Jason over Randy, because _ delivered a less persuasive "
     "speech.", ("Jason", "Randy"), "option2"),
    # Multiple choice
    ("11aa364a", "Addison spent a month of lunches and finally found Carson a place; how would "
     "you describe Addison?", ("helpful", "meanspirited", "selfish"), "answer1"),
    ("bd59d9db", "Austin got a PS4 Pro and bought a new TV; what will Austin want to do next?",
     ("play his new game console", "return the TV", "go watch a movie at the theatre"),
     "answer1"),
    ("2ce5f4f0", "From which part of the plant does a bee get food?",
     ("flower", "seed", "stem", "root"), "answer1"),
    ("612a4066", "Remy came up behind Jan and pushed her in the back very hard; how would you "
     "describe Remy?", ("physical", "ready to fight Jan", "very hostile towards Jan"), "answer3"),
    ("0cd100f4", "The best way to improve future production yields on the farm is...",
     ("planting cabbage one year and spinach the next", "chemical fertilizers and salts",
      "rotating water schedules daily", "over-watering each field"), "answer1"),
    ("25040642", "How do you treat period cramps?",
     ("drink some coffee", "take some Midol"), "solution2"),
    ("ee3abe29", "Paper towel: what is it good for?",
     ("clean telescope", "operate telescope"), "solution1"),
    # Sentence completion
    ("3abb847a", '"How to start a giving fund" — after opening a bank account, what naturally '
     "follows?",
     ("choose checking vs. savings depending on payment frequency",
      "a separate account protects you from debt",
      "set up a line for the bank's payout the day before your event",
      "it isn't complicated — consult an individual bank"), "ending1"),
    ("873e845e", "Javelin throw scene: as the man releases the javelin, in the background...",
     ("bleachers in the background, hot and sunny day",
      "large crowd standing around, kites flying",
      "a big splash, the man runs to rescue it",
      "another man in a black t-shirt easily catches it"), "ending1"),
    ("e47d4d28", "Drumming and piano duet: a child drums while a woman plays piano along; they...",
     ("continue playing the drums and the music",
      "have a small audience watching them perform",
      "play till there is no longer a fist drumming in the background",
      "play and sing along intently for joy"), "ending2"),
)
"""(qid, question, choices in order, label as released) of Table 8's other three groups."""


@lru_cache(maxsize=1)
def commonsense30() -> TaskSet:
    """The 30 instances of Table 8 in the table's order (15 true/false, then 15 choice).

    Examples
    --------
    >>> ts = commonsense30()
    >>> len(ts), ts[0].kind, ts[15].answer, ts[15].labels
    (30, 'bool', 'option2', ('option1', 'option2'))
    """
    tasks = [Task(qid, question, answer, kind="bool", source=SOURCE)
             for qid, question, answer in _TRUE_FALSE]
    tasks += [Task(qid, question, answer, kind="choice", choices=choices, source=SOURCE)
              for qid, question, choices, answer in _CHOICE]
    return TaskSet(tasks, name=COMMONSENSE30)
