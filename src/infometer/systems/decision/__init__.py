"""Information in decisions: value of information, the VI²N pair planner, Bayesian persuasion.

Values here are in the utility units of the user's problem (``Estimate.unit == "utility"``),
not nats: they say what information is worth to a decision, not how much of it there is.
Mutual information between signals and states (persuasion) is in nats/bits, computed with
:mod:`infometer.measures.exact`.  Not an estimator family of the registry: everything is an exact
function of a given model.  torch (the learned planner, the policy-gradient sender) and
scipy.optimize (the persuasion LP) are imported only when used.
"""

from __future__ import annotations

from .grid import EpisodeStats, GridWorld, generate_world, render_maps, render_world, tmaze
from .learned import LearnedPlanner
from .multiturn import MultiTurnResult, SenderTraining, evaluate_multiturn, train_sender
from .pairwise import (
    FactoredPairValues,
    PairPolicy,
    PairValues,
    distinguishability,
    momdp_pair_value_iteration,
    pair_value_iteration,
)
from .persuasion import (
    ConcaveEnvelope,
    PersuasionResult,
    concave_envelope,
    persuade,
    receiver_action,
    sender_value,
    signal_mutual_info,
)
from .pomdp import (
    POMDP,
    Episode,
    MDPSolution,
    QMDPPolicy,
    policy_value,
    qmdp,
    run_episode,
    solve_mdp,
)
from .solve import (
    AlphaVectorPolicy,
    BeliefPolicy,
    POMDPSolution,
    pomdp_evpi,
    solve_pomdp,
    value_of_information_source,
)
from .voi import evpi, evsi

__all__ = [
    "evpi",
    "evsi",
    "POMDP",
    "Episode",
    "MDPSolution",
    "QMDPPolicy",
    "policy_value",
    "qmdp",
    "run_episode",
    "solve_mdp",
    "AlphaVectorPolicy",
    "BeliefPolicy",
    "POMDPSolution",
    "pomdp_evpi",
    "solve_pomdp",
    "value_of_information_source",
    "distinguishability",
    "PairValues",
    "FactoredPairValues",
    "PairPolicy",
    "pair_value_iteration",
    "momdp_pair_value_iteration",
    "GridWorld",
    "tmaze",
    "generate_world",
    "render_world",
    "render_maps",
    "EpisodeStats",
    "LearnedPlanner",
    "persuade",
    "PersuasionResult",
    "concave_envelope",
    "ConcaveEnvelope",
    "sender_value",
    "receiver_action",
    "signal_mutual_info",
    "evaluate_multiturn",
    "MultiTurnResult",
    "train_sender",
    "SenderTraining",
]
