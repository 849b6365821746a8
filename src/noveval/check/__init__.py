"""``noveval check``: a grounded novelty opinion on your own idea or paper.

Reads the input in the form people have it (text, Markdown, JSON, PDF) and says how each
part was found; retrieves the closest prior work from a corpus or index; gives each
claimed contribution its closest works, verbatim quotes and a verdict; places the input
on the corpus novelty metrics (percentiles among the pool of nearest papers); asks a
model for a RINoBench-rubric judgment and a NovBench-style evaluation whose points count
as grounded only when a cited work's sentence overlaps them; and says when the corpus
cannot support a judgment. The same inputs give the same result whatever ran before.
"""

from noveval.check.inputs import CheckInput, load_input
from noveval.check.opinion import CheckOptions, check_idea
from noveval.corpus import Corpus, load_corpus

__all__ = ["CheckInput", "CheckOptions", "Corpus", "check_idea", "load_corpus", "load_input"]
