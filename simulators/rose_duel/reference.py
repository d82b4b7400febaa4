"""The rose duel's duel phase in plain Python: a slow, readable oracle for the Numba kernels.

Written from the rulebook's "Duelling" section (``../shared/rules/rose_duel.txt``) and the
readings in ``RULINGS.md`` (D1-D10), over the same validated data as the kernels
(``game.load_data``). It plays what ``balance duel`` plays (``rules_nb.duel_batch_nb``): duelist A
(the challenger, seat 1) against duelist B (the Victor, seat 2), each with ``hand_start`` cards
dealt from a fresh shuffled deck, no spectators, every choice made by the ``random`` strategy
(uniform over the legal options: the same draws as ``strategies.rose_duel.builtin.random_nb``).
Duel ``i`` draws from the stream seeded by (run key, i) (``simulators.common.rng_ref``), so it
must end exactly as the kernel's duel ``i``: the same row of (winner side, result, phases,
first attack outcome, hits, locks, parries). ``tests/simulators/test_rose_duel_reference.py``
checks that over thousands of duels.

Focus and hit locations are the strategies' choices here (the duel tool's ``--focus``,
``--location`` and ``--modifiers`` pins are not modelled); ``no_cards`` is.
"""
from __future__ import annotations

import numpy as np

from simulators.common.rng_ref import Stream

STATS = ("thrust", "parry", "initiative", "strength")
ROSE, BODY = "rose", "body"  # hit locations besides the arena's objects
HAND_MAX = 10  # hand slots (enums.HAND_MAX)
DECK_CAP = 160
MAX_FOCUS = 9  # focus above 9 is not placed (enums.MAX_FOCUS)
PASS = 15  # the "no card" choice of a card decision (enums.PASS_BIT)
RESULTS = ("rose", "collapse", "both collapse", "phase cap")  # enums.DUEL_END_NAMES
HIT, LOCK, PARRY = 0, 1, 2
SIDE_STEPS = ("stamina", "focus", "phase_modifier", "duel_modifier", "modifier", "disarm", "guard_rose")


def split_table() -> list[tuple[int, int]]:
    """The (thrust, parry) focus splits in the kernels' order; initiative gets the rest (D1)."""
    return [(t, p) for t in range(MAX_FOCUS + 1) for p in range(MAX_FOCUS + 1 - t)]


SPLITS = split_table()


class Player:
    """A seat outside the duel: its hand of card keys and the cards' piles it draws from."""

    def __init__(self, duelist: dict):
        self.duelist = duelist
        self.in_game = True
        self.nobility = duelist["nobility"]
        self.hand: list[str] = []  # card keys; slot order matters for the random choices


class Side:
    """A duelist in the arena (D2-D5): stats, focus boxes, modifiers and Stamina."""

    def __init__(self, player: Player):
        d = player.duelist
        self.player = player
        self.thrust, self.parry, self.strength = d["thrust"], d["parry"], d["strength"]
        self.stamina = self.max_stamina = d["stamina"]
        self.focus = min(d["focus"], MAX_FOCUS)
        self.boxes = [0, 0, 0]  # focus in thrust, parry, initiative
        self.location = ROSE
        self.phase_mod = dict.fromkeys(STATS, 0)
        self.duel_mod = dict.fromkeys(STATS, 0)
        self.unarmed = False
        self.guard = False

    def mod(self, stat: str) -> int:
        return self.phase_mod[stat] + self.duel_mod[stat]


class DuelReference:
    """Duels between two duelists over validated rose-duel data (``GameData`` or its ``files``)."""

    def __init__(self, data, no_cards: bool = False):
        files = data.files if hasattr(data, "files") else data
        self.rules = files["rules"]
        self.duelists = files["duelists"]
        self.cards = files["cards"]
        self.objects = list(files["objects"].items())
        self.no_cards = no_cards
        self.hand_limit = min(self.rules["hand_limit"], HAND_MAX)

    # ------------------------------------------------------------------ cards
    def roll(self) -> int:
        return 1 + self.rng.below(self.rules["die"])

    def shuffle(self) -> None:
        """Fisher-Yates from the top of the pile down (the kernels' order of draws)."""
        deck = self.deck
        for i in range(len(deck) - 1, 0, -1):
            j = self.rng.below(i + 1)
            deck[i], deck[j] = deck[j], deck[i]

    def draw(self, p: Player) -> None:
        """Draw the top card; an empty deck is first refilled from the discard pile, reshuffled."""
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.shuffle()
        if self.deck and len(p.hand) < HAND_MAX:
            p.hand.append(self.deck.pop())

    def take(self, p: Player, slot: int) -> str:
        """Play or discard hand slot ``slot``: the last card fills the hole (hand order matters)."""
        card = p.hand[slot]
        last = p.hand.pop()
        if slot < len(p.hand):
            p.hand[slot] = last
        if len(self.discard) < DECK_CAP:
            self.discard.append(card)
        return card

    def remove(self, p: Player) -> None:
        """Nobility 0: the player leaves the game and discards its hand (RULINGS T6)."""
        p.in_game = False
        while p.hand:
            self.take(p, 0)

    # ------------------------------------------------------------------ steps (VOCABULARY.md)
    def run(self, steps: list, me: int) -> None:
        """Duel steps with ``self`` = side ``me`` and ``target`` = the other side."""
        for st in steps:
            to = st["to"]
            for s in (0, 1):
                if not (to == "all" or (to == "self" and s == me) or (to in ("target", "others") and s != me)):
                    continue
                x = self.sides[s]
                do = st["do"]
                by = st.get("by", 0)
                if do == "stamina":
                    x.stamina = min(x.stamina + by, x.max_stamina)  # wounds may drop it to 0 and below
                elif do == "focus":
                    x.focus = max(x.focus + by, 0)
                elif do == "phase_modifier":
                    x.phase_mod[st["stat"]] += by
                elif do in ("duel_modifier", "modifier"):
                    x.duel_mod[st["stat"]] += by
                elif do == "disarm":
                    x.unarmed = True
                elif do == "guard_rose":
                    x.guard = True
                else:
                    self.player_step(st, x.player)

    def player_step(self, st: dict, p: Player) -> None:
        """A step on the player rather than the duelist (Nobility, cards, bans)."""
        if not p.in_game:
            return
        do = st["do"]
        by = st.get("by", 0)
        if do == "nobility":
            p.nobility = max(p.nobility + by, 0)
            if p.nobility == 0:
                self.remove(p)
        elif do == "draw":
            for _ in range(by):
                if len(p.hand) < self.hand_limit:
                    self.draw(p)
        elif do == "discard":
            for _ in range(by):
                if p.hand:
                    self.take(p, self.rng.below(len(p.hand)))
        # goal_from_pool (the pool is empty in a lone duel) and no_challenge change nothing here

    # ------------------------------------------------------------------ one duel
    def choose(self, mask: int) -> int:
        """The random strategy: a uniform legal option."""
        return self.rng.bit(mask)

    def prepare(self, x: Side) -> None:
        """Step 1: place all focus points (D1) and pick the face-down hit location."""
        f = min(max(x.focus, 0), MAX_FOCUS)
        k = self.choose(sum(1 << i for i, (t, p) in enumerate(SPLITS) if t + p <= f))
        t, p = SPLITS[k]
        x.boxes = [t, p, f - t - p]
        locations = [ROSE, BODY] + [name for name, _ in self.objects]
        mask = 0b11 | sum(1 << (2 + i) for i, (name, _) in enumerate(self.objects) if name not in self.destroyed)
        x.location = locations[self.choose(mask)]

    def play_card(self, s: int) -> None:
        """D2: a duelist may play one duelling card from the hand."""
        p = self.sides[s].player
        mask = sum(1 << i for i, key in enumerate(p.hand) if self.cards[key]["type"] == "duel")
        if not mask:
            return
        slot = self.choose(mask | (1 << PASS))
        if slot == PASS:
            return
        key = self.take(p, slot)
        self.run(self.cards[key]["duel_effects"], s)

    def tie_break(self, score) -> int:
        """Roll ``score(side)`` for both sides until they differ (D3, at most 50 times: then side 0)."""
        for _ in range(50):
            a = score(0)
            b = score(1)
            if a != b:
                return 0 if a > b else 1
        return 0

    def collapsed(self) -> bool:
        """Stamina 0 or less loses the duel; both at once: no winner (D9) or the Victor keeps it."""
        down = [x.stamina <= 0 for x in self.sides]
        if not any(down):
            return False
        if all(down):
            if self.rules["both_collapse"] == "victor_keeps":
                self.result, self.winner = 1, 1
            else:
                self.result, self.winner = 2, -1
        else:
            self.result, self.winner = 1, (1 if down[0] else 0)
        return True

    def fight(self) -> None:
        A = self.sides
        self.result, self.winner = 3, -1  # D10: still going after max_phases: no winner
        next_attacker = -1
        for phase in range(self.rules["max_phases"]):
            skip = next_attacker >= 0 and self.rules["lock_skips_prepare"]
            for x in A:
                x.phase_mod = dict.fromkeys(STATS, 0)
                x.guard = False
            if not skip:
                self.prepare(A[0])
                self.prepare(A[1])
            if not self.no_cards:
                self.play_card(0)
                self.play_card(1)
            # Step 2: initiative (ties roll again), unless a sword lock decided who attacks
            if next_attacker >= 0:
                att = next_attacker
            else:
                att = self.tie_break(lambda s: self.roll() + A[s].boxes[2] + A[s].mod("initiative"))
            next_attacker = -1
            a, d = A[att], A[1 - att]
            # Step 3: attack against defend (an unarmed attack has no thrust box, D4)
            attack = a.thrust + a.mod("thrust") + (0 if a.unarmed else a.boxes[0]) + self.roll()
            defend = d.parry + d.boxes[1] + d.mod("parry") + self.roll()
            self.phases += 1
            outcome = HIT if attack > defend else PARRY if attack < defend else LOCK
            self.counts[outcome] += 1
            if self.first < 0:
                self.first = outcome
            if outcome == HIT:
                # Step 4: the cut lands where the attacker aimed (a guarded rose: the body)
                where = a.location
                if where == ROSE and d.guard:
                    where = BODY
                if where == ROSE:
                    self.result, self.winner = 0, att
                    return
                if where == BODY:
                    d.stamina -= attack - defend
                    if d.stamina > 0 and self.rules["focus_loss"]:
                        boxes = sum(1 << b for b in range(3) if d.boxes[b] > 0)
                        if boxes:
                            b = self.choose(boxes)  # D5: the defender picks the box
                            d.boxes[b] -= 1
                            d.focus -= 1
                else:
                    self.destroyed.add(where)  # D7: once per duel, its steps run
                    self.run(dict(self.objects)[where]["effects"], att)
                if self.collapsed():
                    return
            elif outcome == LOCK:
                next_attacker = self.tie_break(lambda s: A[s].strength + A[s].mod("strength") + self.roll())
            # Step 5: end of the phase, fatigue
            for x in A:
                x.stamina -= 1
            if self.collapsed():
                return

    def duel(self, key, i: int, a: str, b: str) -> tuple:
        """Duel ``i`` (seeded by the run key and ``i``) of duelist key ``a`` against ``b``; returns
        (winner side, result, phases, first attack outcome, hits, locks, parries)."""
        self.rng = Stream(key, i)
        players = [Player(self.duelists[a]), Player(self.duelists[b])]
        self.deck, self.discard = [], []
        if not self.no_cards:
            for key_, c in self.cards.items():
                self.deck += [key_] * c["copies"]
            del self.deck[DECK_CAP:]
            self.shuffle()
            for p in players:
                for _ in range(self.rules["hand_start"]):
                    self.draw(p)
        self.sides = [Side(players[0]), Side(players[1])]
        self.destroyed: set = set()
        self.phases = 0
        self.counts = [0, 0, 0]
        self.first = -1
        self.fight()
        return (self.winner, self.result, self.phases, self.first, *self.counts)


def run_duels(data, a: str, b: str, n: int, key, no_cards: bool = False) -> np.ndarray:
    """``n`` duels (rows as ``duel.run_duels``) of duelist ``a`` against ``b``, random strategy."""
    ref = DuelReference(data, no_cards)
    return np.array([ref.duel(key, i, a, b) for i in range(n)], np.int64).reshape(n, 7)
