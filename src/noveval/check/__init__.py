"""``noveval check``: a grounded novelty opinion on your own idea or paper.

Retrieves the closest prior work from a corpus, places the input on the corpus
novelty metrics (as percentiles), asks a model for a RINoBench-rubric judgment and a
NovBench-style structured evaluation citing the retrieved works, and says when the
corpus cannot support a judgment.
"""

from noveval.check.inputs import CheckInput, load_input
from noveval.check.opinion import CheckOptions, check_idea
from noveval.corpus import Corpus, load_corpus

__all__ = ["CheckInput", "CheckOptions", "Corpus", "check_idea", "load_corpus", "load_input"]
